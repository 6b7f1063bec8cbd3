//! The sandbox's system-call filter and its scratch inode limit, probed from inside: one
//! `parcall check` of a Python module that makes each refused call with ctypes (in a child of
//! its own where the call would change the probe itself) and reports every answer in the
//! exception it raises, which reaches check's report. Each test reads its family's answers.
//!
//! Every probe is chosen so that without the filter the kernel would answer differently
//! (succeed, or fail for another reason: a path that does not exist, a bad address), except
//! where the kernel itself may refuse with the same `EPERM` to a process with no capability
//! in the machine's namespace (`fsopen`, packet sockets, kernel modules where the kernel has
//! them): those are listed beside a probe of the same family that does tell.
//! Tests skip, saying why, where the OS allows no sandbox.

use crate::common;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// The probe: every answer as `name=ANSWER` (`OK`, an errno name, or `SIGNAL-n` for a child
/// that was killed), cached so every case of the check raises the same report.
const PROBE: &str = r#"
import ctypes, errno, mmap, os, signal, socket

MACHINE = os.uname().machine
NR = {
    "x86_64": dict(unshare=272, setns=308, clone=56, clone3=435, mount=165, umount2=166,
                   chroot=161, fsopen=430, ptrace=101, process_vm_readv=310, bpf=321,
                   perf_event_open=298, userfaultfd=323, io_uring_setup=425, keyctl=250,
                   add_key=248, init_module=175, finit_module=313, personality=135, ioctl=16),
    "aarch64": dict(unshare=97, setns=268, clone=220, clone3=435, mount=40, umount2=39,
                    chroot=51, fsopen=430, ptrace=117, process_vm_readv=270, bpf=280,
                    perf_event_open=241, userfaultfd=282, io_uring_setup=425, keyctl=219,
                    add_key=217, init_module=105, finit_module=273, personality=92, ioctl=29),
}[MACHINE]
CLONE_NEWUSER = 0x10000000
MISSING = b"/parcall-probe-no-such-path"
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def name(e):
    return errno.errorcode.get(e, str(e))


def arg(a):
    return ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a)


def raw(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *map(arg, args))
    return name(ctypes.get_errno()) if r == -1 else "OK"


def call(call_name, *args):
    return raw(NR[call_name], *args)


def in_child(probe):
    """The probe's answer from a child of its own (a call that would change this process)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            answer = probe()
        except BaseException as e:
            answer = "RAISED-" + type(e).__name__
        os.write(w, answer.encode())
        os._exit(0)
    os.close(w)
    answer = os.read(r, 100).decode()
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "SIGNAL-%d" % os.WTERMSIG(status)
    return answer or "NOTHING"


def clone_newuser():
    ctypes.set_errno(0)
    flags = CLONE_NEWUSER | signal.SIGCHLD
    pid = libc.syscall(ctypes.c_long(NR["clone"]), ctypes.c_long(flags), *[ctypes.c_long(0)] * 4)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
        return "OK"
    return name(ctypes.get_errno())


def ptrace_own_child():
    pid = os.fork()
    if pid == 0:
        signal.pause()
        os._exit(0)
    answer = call("ptrace", 16, pid, 0, 0)  # PTRACE_ATTACH
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return answer


def sock(family, kind):
    try:
        socket.socket(family, kind, 0).close()
        return "OK"
    except OSError as e:
        return name(e.errno)


def int80_getpid():
    code = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax, 20; int 0x80; ret
    prot = mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=prot)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    ctypes.CFUNCTYPE(ctypes.c_int)(address)()
    return "OK"


def scratch_files(limit):
    made = 0
    try:
        while made < limit:
            open("/tmp/parcall-inode-%d" % made, "w").close()
            made += 1
        answer = "NO-LIMIT"
    except OSError as e:
        answer = name(e.errno)
    for i in range(made):
        os.unlink("/tmp/parcall-inode-%d" % i)
    return "%s:%d" % (answer, made)


def probes():
    params = ctypes.create_string_buffer(120)
    pipe, _ = os.pipe()
    found = dict(
        unshare=in_child(lambda: call("unshare", CLONE_NEWUSER)),
        clone_newuser=in_child(clone_newuser),
        setns=call("setns", -1, 0),
        clone3=call("clone3", 0, 0),
        mount=call("mount", b"none", MISSING, b"tmpfs", 0, 0),
        umount2=call("umount2", MISSING, 0),
        chroot=call("chroot", MISSING),
        fsopen=call("fsopen", b"tmpfs", 0),
        ptrace=in_child(ptrace_own_child),
        process_vm_readv=call("process_vm_readv", os.getpid(), 0, 0, 0, 0, 0),
        bpf=call("bpf", 0, 1, 8),
        perf_event_open=call("perf_event_open", 0, 0, -1, -1, 0),
        userfaultfd=call("userfaultfd", 1 | os.O_CLOEXEC),
        io_uring_setup=call("io_uring_setup", 1, ctypes.addressof(params)),
        keyctl=call("keyctl", 0, -3, 0),
        add_key=call("add_key", b"user", b"parcall-probe", b"x", 1, -3),
        init_module=call("init_module", 0, 0, b""),
        finit_module=call("finit_module", -1, b"", 0),
        netlink=sock(socket.AF_NETLINK, socket.SOCK_RAW),
        packet=sock(socket.AF_PACKET, socket.SOCK_RAW),
        inet=sock(socket.AF_INET, socket.SOCK_STREAM),
        unix=sock(socket.AF_UNIX, socket.SOCK_STREAM),
        personality_query=call("personality", 0xFFFFFFFF),
        personality_no_aslr=in_child(lambda: call("personality", 0x0040000)),
        tiocsti=call("ioctl", 0, 0x5412, b"x"),
        tiocsti_high_bits=call("ioctl", 0, (1 << 32) | 0x5412, b"x"),
        fionread=call("ioctl", pipe, 0x541B, ctypes.addressof(params)),
        scratch=scratch_files(SCRATCH_INODES * 2),
    )
    if MACHINE == "x86_64":
        found["x32_getpid"] = raw(0x40000000 | 39)
        found["i386_getpid"] = in_child(int80_getpid)
    return " ".join("%s=%s" % item for item in found.items())


REPORT = []


def execute_tool_calls(calls, max_parallel=4):
    if not REPORT:
        REPORT.append(probes())
    raise RuntimeError("PROBES " + REPORT[0] + " END")
"#;

/// The answers of the probe, by name; `None` where the sandbox cannot start here.
fn answers() -> Option<&'static BTreeMap<String, String>> {
    static ANSWERS: OnceLock<Option<BTreeMap<String, String>>> = OnceLock::new();
    ANSWERS.get_or_init(probe).as_ref()
}

fn probe() -> Option<BTreeMap<String, String>> {
    // SAFETY: geteuid(2) takes no argument and cannot fail.
    let root_user = unsafe { libc::geteuid() } == 0;
    if let Some(reason) = parcall::sandbox::contain::sandbox_error(root_user) {
        eprintln!("skipped: the sandbox cannot start here ({reason})");
        return None;
    }
    let work = tempfile::tempdir().unwrap();
    let module = work.path().join("probe.py");
    let limit = parcall::sandbox::SCRATCH_INODES;
    std::fs::write(&module, format!("SCRATCH_INODES = {limit}\n{PROBE}")).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .args(["check", module.to_str().unwrap(), "--fuzz", "0"])
        .args(["--function", "execute_tool_calls"])
        .current_dir(work.path())
        .stdin(Stdio::null());
    let output = common::output_within(&mut command, Duration::from_secs(120))
        .unwrap_or_else(|stderr| panic!("parcall check hung: {stderr}"));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(all.contains("containment: sandbox"), "{all}");
    let start = all
        .find("PROBES ")
        .unwrap_or_else(|| panic!("the probe did not report: {all}"));
    let report = &all[start + "PROBES ".len()..];
    let end = report
        .find(" END")
        .unwrap_or_else(|| panic!("a cut report: {all}"));
    Some(
        report[..end]
            .split(' ')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    )
}

/// Asserts each named probe answered `expected`.
fn answered(names: &[&str], expected: &str) {
    let Some(answers) = answers() else {
        return;
    };
    for name in names {
        assert_eq!(
            answers.get(*name).map(String::as_str),
            Some(expected),
            "{name}: {answers:?}"
        );
    }
}

#[test]
fn new_user_namespaces_are_refused() {
    answered(&["unshare", "clone_newuser", "setns"], "EPERM");
}

#[test]
fn clone3_answers_enosys_so_a_libc_falls_back_to_clone() {
    answered(&["clone3"], "ENOSYS");
}

#[test]
fn mounts_are_refused() {
    // Without the filter: ENOENT, the kernel looked the path up.
    answered(&["mount", "umount2", "chroot", "fsopen"], "EPERM");
}

#[test]
fn tracing_a_process_is_refused() {
    // Without the filter both succeed: attaching to its own child, reading no bytes.
    answered(&["ptrace", "process_vm_readv"], "EPERM");
}

#[test]
fn bpf_is_refused() {
    // Without the filter: EFAULT, the kernel read the bad address given.
    answered(&["bpf"], "EPERM");
}

#[test]
fn perf_event_open_is_refused() {
    answered(&["perf_event_open"], "EPERM");
}

#[test]
fn userfaultfd_is_refused() {
    answered(&["userfaultfd"], "EPERM");
}

#[test]
fn io_uring_is_refused() {
    answered(&["io_uring_setup"], "EPERM");
}

#[test]
fn keyrings_are_refused() {
    answered(&["keyctl", "add_key"], "EPERM");
}

#[test]
fn netlink_and_packet_sockets_are_refused_and_ip_and_unix_sockets_are_not() {
    answered(&["netlink", "packet"], "EPERM");
    answered(&["inet", "unix"], "OK");
}

#[test]
fn typing_into_a_terminal_is_refused_and_other_ioctls_are_not() {
    // Without the filter: ENOTTY, stdin is no terminal. The kernel reads the request as 32
    // bits, so high bits set do not get past the filter either.
    answered(&["tiocsti", "tiocsti_high_bits"], "EPERM");
    answered(&["fionread"], "OK");
}

#[test]
fn kernel_modules_are_refused() {
    answered(&["init_module", "finit_module"], "EPERM");
}

#[test]
fn a_personality_other_than_the_default_is_refused() {
    answered(&["personality_no_aslr"], "EPERM");
    answered(&["personality_query"], "OK");
}

#[test]
fn calls_of_another_architecture_are_refused() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    answered(&["x32_getpid"], "EPERM");
    answered(&["i386_getpid"], &format!("SIGNAL-{}", libc::SIGSYS));
}

#[test]
fn the_scratch_filesystem_holds_no_more_files_than_its_inode_limit() {
    let Some(answers) = answers() else {
        return;
    };
    let scratch = answers.get("scratch").map(String::as_str).unwrap_or("");
    let (answer, made) = scratch
        .split_once(':')
        .unwrap_or_else(|| panic!("{answers:?}"));
    assert_eq!(answer, "ENOSPC", "{answers:?}");
    let made: u64 = made.parse().unwrap();
    assert!(made < parcall::sandbox::SCRATCH_INODES, "{made}");
}

/// docs/sandbox.md lists every family the filter refuses, under the name `parcall doctor`
/// gives it.
#[test]
fn the_documented_families_are_the_refused_ones() {
    let docs = std::fs::read_to_string(common::root().join("docs/sandbox.md")).unwrap();
    for refused in parcall::sandbox::seccomp::REFUSED {
        let row = format!(
            "| {} | {} | {} |",
            refused.family, refused.calls, refused.why
        );
        assert!(docs.contains(&row), "docs/sandbox.md lacks the row {row}");
    }
}
