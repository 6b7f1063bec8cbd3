//! The helper's three processes. The supervisor stays on the machine, outside every new
//! namespace: it reads what is copied in, forks the namespace maker, writes that process's uid
//! and gid maps and joins it to its control groups, then waits and ends as it ended. The maker
//! creates the namespaces and forks the implementation's process, PID 1 of the new PID
//! namespace, which builds the new root, pivots into it, gives up everything and execs.
//!
//! The helper is single-threaded (a freshly executed parcall that starts no thread), so
//! between fork and exec it may allocate and format errors freely.

use super::seccomp;
use super::tree::{self, Entry};
use super::{Plan, Step, HOME, INSIDE_ID, MESSAGE_PREFIX, SETUP_FAILED};
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the new root is assembled before `pivot_root`: a tmpfs mounted over `/tmp` of the
/// private mount namespace (every source is opened beforehand, so nothing it covers is lost).
const BASE: &str = "/tmp";
/// Where the writable tmpfs is mounted while its folders are bound into place.
const SCRATCH: &str = ".scratch";
/// What the read-only skeleton may hold: folders, links, small files and read-only copies.
const SKELETON_BYTES: u64 = 24 << 20;
/// How many files, folders and links the scratch tmpfs (home, /tmp, /var/tmp, /dev/shm) may
/// hold together: eight times what a copy of the implementation's own files may hold, so it
/// and every interpreter's own temporary files fit, while millions of empty files (each an
/// inode of kernel memory the size limit does not count) do not.
pub const SCRATCH_INODES: u64 = 8192;

type Failure = String;

fn os(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> Failure {
    move |e| format!("{what}: {e}")
}

fn check(result: libc::c_int, what: impl std::fmt::Display) -> Result<(), Failure> {
    if result < 0 {
        return Err(format!("{what}: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

fn c(path: &Path) -> Result<CString, Failure> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{}: a path holding a NUL byte", path.display()))
}

/// Runs the plan; the exit status to end with.
pub(super) fn run(text: &OsStr) -> i32 {
    let plan = match serde_json::from_slice::<Plan>(text.as_bytes()) {
        Ok(plan) => plan,
        Err(e) => return fail(&format!("cannot read the plan: {e}")),
    };
    // The protocol's descriptors, when parcall gave them: only the implementation keeps them.
    let protocol: Vec<i32> = [3, 4]
        .into_iter()
        // SAFETY: fcntl(F_GETFD) takes integers and only reads the descriptor's flags.
        .filter(|fd| unsafe { libc::fcntl(*fd, libc::F_GETFD) } >= 0)
        .collect();
    match supervise(&plan, &protocol) {
        Ok(code) => code,
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> i32 {
    let _ = writeln!(std::io::stderr(), "{MESSAGE_PREFIX}{message}");
    SETUP_FAILED
}

/// What the new root's steps need from the host, taken while the helper still has the
/// caller's rights: an `O_PATH` descriptor per bind, the contents of each copy.
enum Prepared {
    Bind(OwnedFd),
    Copy(Vec<Entry>),
    Other,
}

/// The copies, read by the supervisor.
fn prepare(plan: &Plan) -> Result<Vec<Prepared>, Failure> {
    plan.steps
        .iter()
        .map(|step| match step {
            Step::Copy {
                source,
                skip_hidden,
                ..
            } => Ok(Prepared::Copy(tree::read(source, *skip_hidden)?)),
            _ => Ok(Prepared::Other),
        })
        .collect()
}

fn pipe() -> Result<(File, File), Failure> {
    let mut fds = [0; 2];
    check(
        // SAFETY: pipe2(2) writes two ints into `fds`, a live local array of two.
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
        "cannot create a pipe",
    )?;
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

fn fork() -> Result<libc::pid_t, Failure> {
    // SAFETY: this process is single-threaded (see the module comment), so the child may do
    // anything the parent could.
    let pid = unsafe { libc::fork() };
    check(pid, "cannot fork")?;
    Ok(pid)
}

/// The bind sources, opened by the maker: in the new mount namespace (a bind's source must
/// be a mount of the namespace it is bound in), still with the caller's uid on the machine
/// (so a folder only the caller may enter is no obstacle on the way).
fn open_binds(plan: &Plan, prepared: &mut [Prepared]) -> Result<(), Failure> {
    for (step, prepared) in plan.steps.iter().zip(prepared) {
        if let Step::Bind { path, .. } = step {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH | libc::O_NOFOLLOW)
                .open(path)
                .map_err(os(format!("cannot open {}", path.display())))?;
            *prepared = Prepared::Bind(file.into());
        }
    }
    Ok(())
}

/// The supervisor: returns the status to exit with.
fn supervise(plan: &Plan, protocol: &[i32]) -> Result<i32, Failure> {
    let mut prepared = prepare(plan)?;
    let (from_maker, to_supervisor) = pipe()?;
    let (from_supervisor, to_maker) = pipe()?;
    // SAFETY: getpid(2) cannot fail and touches no memory.
    let supervisor = unsafe { libc::getpid() };
    let maker = fork()?;
    if maker == 0 {
        drop((from_maker, to_maker));
        let pipes = (to_supervisor, from_supervisor);
        let code = match make(plan, &mut prepared, supervisor, pipes, protocol) {
            Ok(code) => code,
            Err(message) => fail(&message),
        };
        // SAFETY: _exit(2) ends this process at once, as a forked child should.
        unsafe { libc::_exit(code) };
    }
    drop((to_supervisor, from_supervisor));
    // The implementation's descriptors are the maker's now: closing ours lets parcall see its
    // end of the protocol close when the implementation ends, whatever we do.
    for fd in protocol {
        // SAFETY: close(2) on the protocol descriptors, which no `OwnedFd` of ours holds.
        unsafe { libc::close(*fd) };
    }
    let mut maker_ready = [0u8; 1];
    let ready = (&from_maker).read(&mut maker_ready).unwrap_or(0) == 1;
    if ready {
        if let Err(message) = map_and_join(plan, maker) {
            // SAFETY: kill(2) of our own child, which has not been reaped.
            unsafe { libc::kill(maker, libc::SIGKILL) };
            wait(maker);
            return Err(message);
        }
        (&to_maker)
            .write_all(b"g")
            .map_err(os("cannot start the sandbox"))?;
    }
    drop(to_maker);
    Ok(end_like(wait(maker)))
}

/// The maker's uid and gid maps (one id each: [`INSIDE_ID`] is the machine's `plan.uid`), and
/// its control groups, which everything it starts inherits.
fn map_and_join(plan: &Plan, maker: libc::pid_t) -> Result<(), Failure> {
    let proc = PathBuf::from(format!("/proc/{maker}"));
    let write = |name: &str, text: String| {
        std::fs::write(proc.join(name), text).map_err(os(format!("cannot write {name}")))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("{INSIDE_ID} {} 1\n", plan.uid))?;
    write("gid_map", format!("{INSIDE_ID} {} 1\n", plan.gid))?;
    for procs in &plan.cgroup_procs {
        std::fs::write(procs, maker.to_string())
            .map_err(os(format!("cannot join {}", procs.display())))?;
    }
    Ok(())
}

/// Waits for `pid`; its raw wait status.
fn wait(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    loop {
        // SAFETY: waitpid(2) writes one int into `status`, a live local.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            return status;
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return (SETUP_FAILED & 0xff) << 8;
        }
    }
}

/// Ends the way a child ended: killed by the same signal (so parcall sees a process killed by
/// the memory limit as killed, not as one that printed an error), or with its exit code.
fn end_like(status: libc::c_int) -> i32 {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: signal(2) and kill(2) take integers; restoring the default action and
        // sending the signal to ourselves ends this process as the child ended.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        return 128 + signal;
    }
    libc::WEXITSTATUS(status)
}

/// The namespace maker: creates the namespaces, waits for its maps, forks PID 1.
fn make(
    plan: &Plan,
    prepared: &mut [Prepared],
    supervisor: libc::pid_t,
    (to_supervisor, from_supervisor): (File, File),
    protocol: &[i32],
) -> Result<i32, Failure> {
    die_with(Some(supervisor))?;
    // SAFETY: geteuid(2) cannot fail; setgroups(2) with no groups reads no memory. As root,
    // the supplementary groups go before the user namespace freezes them.
    if unsafe { libc::geteuid() } == 0 {
        check(
            // SAFETY: setgroups(2) with a count of 0 reads no pointer.
            unsafe { libc::setgroups(0, std::ptr::null()) },
            "cannot clear groups",
        )?;
    }
    let flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNET
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS;
    check(
        // SAFETY: unshare(2) takes flags only.
        unsafe { libc::unshare(flags) },
        "cannot create the namespaces",
    )?;
    (&to_supervisor)
        .write_all(b"r")
        .map_err(os("cannot reach the supervisor"))?;
    let mut go = [0u8; 1];
    if (&from_supervisor).read(&mut go).unwrap_or(0) != 1 {
        return Err("the supervisor did not map the user namespace".into());
    }
    drop((to_supervisor, from_supervisor));
    open_binds(plan, prepared)?;
    if !plan.cgroup_procs.is_empty() {
        // Its control groups are its root: /proc/self/cgroup names none of the grader's.
        check(
            // SAFETY: unshare(2) takes flags only.
            unsafe { libc::unshare(libc::CLONE_NEWCGROUP) },
            "cannot create the cgroup namespace",
        )?;
    }
    let first = fork()?;
    if first == 0 {
        let message = match inside(plan, prepared) {
            Ok(never) => match never {},
            Err(message) => message,
        };
        // SAFETY: _exit(2) after reporting; a forked child must not run exit handlers.
        unsafe { libc::_exit(fail(&message)) };
    }
    for fd in protocol {
        // SAFETY: close(2) on the protocol descriptors, which no `OwnedFd` of ours holds.
        unsafe { libc::close(*fd) };
    }
    Ok(end_like(wait(first)))
}

/// Kills this process when its parent dies, and checks that `parent` (when it can be named
/// from here: PID 1 of a new namespace sees its parent as 0) has not died already.
fn die_with(parent: Option<libc::pid_t>) -> Result<(), Failure> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid(2) take and return integers.
    unsafe {
        check(
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0),
            "cannot set the parent-death signal",
        )?;
        if parent.is_some_and(|p| libc::getppid() != p) {
            libc::_exit(SETUP_FAILED);
        }
    }
    Ok(())
}

/// PID 1: becomes the implementation's uid, builds the root, gives up everything, execs.
fn inside(plan: &Plan, prepared: &[Prepared]) -> Result<std::convert::Infallible, Failure> {
    die_with(None)?;
    // SAFETY: set*id(2) and umask(2) take integers. The capabilities of the new user
    // namespace stay (the ids were never 0 inside), so the root can still be built, and what
    // is created is owned by the implementation's uid.
    unsafe {
        check(
            libc::setresgid(INSIDE_ID, INSIDE_ID, INSIDE_ID),
            "cannot set the gid",
        )?;
        check(
            libc::setresuid(INSIDE_ID, INSIDE_ID, INSIDE_ID),
            "cannot set the uid",
        )?;
        libc::umask(0);
    }
    build(plan, prepared)?;
    pivot()?;
    seal()?;
    // Changing ids cleared the parent-death signal.
    die_with(None)?;
    // SAFETY: umask(2) takes an integer.
    unsafe { libc::umask(0o022) };
    std::env::set_current_dir(&plan.cwd)
        .map_err(os(format!("cannot enter {}", plan.cwd.display())))?;
    // Last: from here on the helper may make only the calls the implementation may.
    seccomp::install().map_err(|e| e.to_string())?;
    if !plan.build.is_empty() {
        let build: Vec<std::ffi::OsString> = plan
            .build
            .iter()
            .map(|w| w.clone().into_os_string())
            .collect();
        if let Err(reason) = crate::process::build::run(&build, plan.build_seconds, true) {
            std::process::exit(crate::process::build::failed(&build, &reason));
        }
    }
    exec(&plan.argv)
}

fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> Result<(), Failure> {
    let source = source.map(c).transpose()?;
    let target_c = c(target)?;
    let fstype = fstype.map(|t| CString::new(t).expect("a plain name"));
    let data = data.map(|d| CString::new(d).expect("plain options"));
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: mount(2) reads NUL-terminated strings that live until after the call, or null.
    let r = unsafe {
        libc::mount(
            ptr(&source),
            target_c.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    check(r, format!("cannot mount {}", target.display()))
}

fn inside_base(path: &Path) -> PathBuf {
    Path::new(BASE).join(path.strip_prefix("/").unwrap_or(path))
}

fn mkdir_all(path: &Path, mode: u32) -> Result<(), Failure> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(path)
        .map_err(os(format!("cannot create {}", path.display())))
}

fn parent_of(path: &Path) -> Result<(), Failure> {
    match path.parent() {
        Some(parent) => mkdir_all(parent, 0o755),
        None => Ok(()),
    }
}

/// Builds the new root at [`BASE`].
fn build(plan: &Plan, prepared: &[Prepared]) -> Result<(), Failure> {
    // Nothing mounted here may reach the machine's mount namespace.
    mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    let base = Path::new(BASE);
    let options = format!("mode=0755,size={SKELETON_BYTES}");
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    mount(
        Some(Path::new("parcall-root")),
        base,
        Some("tmpfs"),
        flags,
        Some(&options),
    )?;
    // The writable folders first: a copy the plan puts under /tmp (a caller's temporary
    // folder) then lands in the sandbox's own /tmp instead of under it.
    let home = plan
        .steps
        .iter()
        .zip(prepared)
        .find_map(|(step, prepared)| match (step, prepared) {
            (Step::Copy { path, .. }, Prepared::Copy(entries)) if path == Path::new(HOME) => {
                Some(entries.as_slice())
            }
            _ => None,
        });
    scratch(plan, home.unwrap_or_default())?;
    for (step, prepared) in plan.steps.iter().zip(prepared) {
        let target = inside_base(step.path());
        match (step, prepared) {
            (Step::Dir { .. }, _) => mkdir_all(&target, 0o755)?,
            (Step::Symlink { target: to, .. }, _) => {
                parent_of(&target)?;
                std::os::unix::fs::symlink(to, &target)
                    .map_err(os(format!("cannot link {}", target.display())))?;
            }
            (Step::File { contents, .. }, _) => {
                parent_of(&target)?;
                write_file(&target, contents.as_bytes(), 0o644)?;
            }
            (Step::Bind { device, .. }, Prepared::Bind(fd)) => bind(fd, &target, *device)?,
            (Step::Copy { path, .. }, Prepared::Copy(_)) if path == Path::new(HOME) => {}
            (Step::Copy { .. }, Prepared::Copy(entries)) => {
                mkdir_all(&target, 0o755)?;
                write_tree(&target, entries, 0o644)?;
            }
            _ => return Err("a plan step without what it needs".into()),
        }
    }
    let proc = base.join("proc");
    mkdir_all(&proc, 0o555)?;
    // Mounted before the old root goes: a new proc is allowed only where one is visible.
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    mount(Some(Path::new("proc")), &proc, Some("proc"), flags, None)?;
    Ok(())
}

fn write_file(path: &Path, contents: &[u8], mode: u32) -> Result<(), Failure> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(os(format!("cannot create {}", path.display())))?;
    file.write_all(contents)
        .map_err(os(format!("cannot write {}", path.display())))
}

fn write_tree(top: &Path, entries: &[Entry], mode: u32) -> Result<(), Failure> {
    for entry in entries {
        match entry {
            Entry::Dir(path) => mkdir_all(&top.join(path), mode | 0o111)?,
            Entry::File {
                path,
                contents,
                executable,
            } => {
                let mode = if *executable { mode | 0o111 } else { mode };
                write_file(&top.join(path), contents, mode)?;
            }
        }
    }
    Ok(())
}

/// Binds the host's file or folder held open by `fd` at `target`, read-only with no set-uid
/// or devices (a device: writable, nothing executable). A remount must keep the flags the
/// kernel locked on the original mount, so they are read back and kept.
fn bind(fd: &OwnedFd, target: &Path, device: bool) -> Result<(), Failure> {
    parent_of(target)?;
    // SAFETY: `stat` is plain C data, valid all zero.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    check(
        // SAFETY: fstat(2) writes one `stat` into a live local; `fd` is open.
        unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) },
        format!("cannot stat {}", target.display()),
    )?;
    if stat.st_mode & libc::S_IFMT == libc::S_IFDIR {
        mkdir_all(target, 0o755)?;
    } else {
        write_file(target, b"", 0o644)?;
    }
    let source = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
    mount(
        Some(&source),
        target,
        None,
        libc::MS_BIND | libc::MS_REC,
        None,
    )?;
    // SAFETY: `statvfs` is plain C data, valid all zero.
    let mut vfs: libc::statvfs = unsafe { std::mem::zeroed() };
    let target_c = c(target)?;
    check(
        // SAFETY: statvfs(2) reads a NUL-terminated path and writes one `statvfs` into a local.
        unsafe { libc::statvfs(target_c.as_ptr(), &mut vfs) },
        format!("cannot stat {}", target.display()),
    )?;
    let kept = [
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
        (libc::ST_RDONLY, libc::MS_RDONLY),
    ];
    let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_NOSUID;
    for (st, ms) in kept {
        if vfs.f_flag & st != 0 {
            flags |= ms;
        }
    }
    flags |= if device {
        libc::MS_NOEXEC
    } else {
        libc::MS_RDONLY | libc::MS_NODEV
    };
    mount(None, target, None, flags, None)
}

/// The one size-limited tmpfs for everything writable: home (with its copy), /tmp, /var/tmp
/// and /dev/shm are folders of it bound into place, so together they hold at most
/// `scratch_bytes`, and it is gone with the sandbox.
fn scratch(plan: &Plan, home: &[Entry]) -> Result<(), Failure> {
    let base = Path::new(BASE);
    let scratch = base.join(SCRATCH);
    mkdir_all(&scratch, 0o700)?;
    let options = format!(
        "mode=0755,size={},nr_inodes={SCRATCH_INODES}",
        plan.scratch_bytes
    );
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    mount(
        Some(Path::new("parcall-scratch")),
        &scratch,
        Some("tmpfs"),
        flags,
        Some(&options),
    )?;
    mkdir_all(&scratch.join("home"), 0o700)?;
    write_tree(&scratch.join("home"), home, 0o644)?;
    for (folder, places) in [
        ("home", &[HOME][..]),
        ("tmp", &["/tmp", "/var/tmp"][..]),
        ("shm", &["/dev/shm"][..]),
    ] {
        let source = scratch.join(folder);
        if folder != "home" {
            mkdir_all(&source, 0o1777)?;
            std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o1777))
                .map_err(os(format!("cannot set the mode of {}", source.display())))?;
        }
        for place in places {
            let target = inside_base(Path::new(place));
            mkdir_all(&target, 0o755)?;
            mount(Some(&source), &target, None, libc::MS_BIND, None)?;
        }
    }
    // The mount point goes; the binds keep the tmpfs alive.
    let scratch_c = c(&scratch)?;
    check(
        // SAFETY: umount2(2) reads a NUL-terminated path that lives until after the call.
        unsafe { libc::umount2(scratch_c.as_ptr(), libc::MNT_DETACH) },
        "cannot unmount the scratch",
    )?;
    std::fs::remove_dir(&scratch).map_err(os("cannot remove the scratch mount point"))
}

/// Makes [`BASE`] the root and detaches the old one, then makes the root read-only.
fn pivot() -> Result<(), Failure> {
    std::env::set_current_dir(BASE).map_err(os("cannot enter the new root"))?;
    let dot = CString::new(".").expect("no NUL");
    // SAFETY: pivot_root(2) and umount2(2) read NUL-terminated strings alive for the call.
    // pivot_root(".", ".") stacks the old root under the new one, and the detach removes it.
    unsafe {
        check(
            libc::syscall(libc::SYS_pivot_root, dot.as_ptr(), dot.as_ptr()) as libc::c_int,
            "cannot pivot_root into the new root",
        )?;
        check(
            libc::umount2(dot.as_ptr(), libc::MNT_DETACH),
            "cannot detach the old root",
        )?;
    }
    std::env::set_current_dir("/").map_err(os("cannot enter /"))?;
    let flags =
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV;
    mount(None, Path::new("/"), None, flags, None)
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// A host name of its own, a session keyring of its own, no capability left (none to regain:
/// the bounding set is emptied and `no_new_privs` set).
fn seal() -> Result<(), Failure> {
    let name = b"sandbox";
    check(
        // SAFETY: sethostname(2) reads `name.len()` bytes of a live array; the UTS namespace is
        // the sandbox's own.
        unsafe { libc::sethostname(name.as_ptr().cast(), name.len()) },
        "cannot set the host name",
    )?;
    // SAFETY: keyctl(2) JOIN_SESSION_KEYRING with a null name creates and joins a new
    // anonymous session keyring; it reads no memory of ours.
    let keyring = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_JOIN_SESSION_KEYRING,
            std::ptr::null::<libc::c_char>(),
        )
    };
    check(keyring as libc::c_int, "cannot join a new session keyring")?;
    // SAFETY: prctl(2) calls that take integers only. Dropping from the bounding set needs
    // CAP_SETPCAP, which is dropped last, by capset below.
    unsafe {
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
                    break;
                }
                return Err(format!(
                    "cannot drop capability {cap}: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
        check(
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            ),
            "cannot clear the ambient capabilities",
        )?;
    }
    let header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let none = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset(2) reads one header and two data structs, live locals laid out as the
    // kernel's (version 3).
    let r = unsafe { libc::syscall(libc::SYS_capset, &header, none.as_ptr()) };
    check(r as libc::c_int, "cannot drop the capabilities")?;
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) takes integers only.
    check(
        unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) },
        "cannot set no_new_privs",
    )
}

/// Execs the implementation (a bare name is searched on the environment's PATH).
fn exec(argv: &[PathBuf]) -> Result<std::convert::Infallible, Failure> {
    let args: Vec<CString> = argv.iter().map(|a| c(a)).collect::<Result<_, _>>()?;
    let Some(program) = args.first() else {
        return Err("no program to run".into());
    };
    let mut pointers: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: execvp(3) reads the NUL-terminated program and the null-terminated array of
    // NUL-terminated arguments, all alive until it returns (only on failure).
    unsafe { libc::execvp(program.as_ptr(), pointers.as_ptr()) };
    Err(format!(
        "cannot run {}: {}",
        argv[0].display(),
        std::io::Error::last_os_error()
    ))
}
