//! A run ended by SIGINT, SIGTERM or SIGHUP, end to end on the real binary: it removes its
//! temporary folders, leaves no process of the implementation running, and exits with 128 +
//! the signal. Each run gets a temporary folder (`TMPDIR`) of its own, so what is left in it
//! is this run's, and the implementation carries a token of its own, so the processes looked
//! for are this run's.
//!
//! `PARCALL_TEST_BINARY=path` runs these against another build (an older one, to see them
//! fail).

use crate::common::{fresh_regressions, processes_holding, root};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    std::env::var_os("PARCALL_TEST_BINARY")
        .map_or_else(|| env!("CARGO_BIN_EXE_parcall").into(), PathBuf::from)
}

/// An implementation whose function starts a sleeper carrying `token` (a descendant to look
/// for), then sleeps until it is killed.
fn slow_module(token: &str) -> String {
    format!(
        "import subprocess, sys, time\n\
         \n\
         def execute_tool_calls(calls, max_parallel=4):\n\
         \x20   subprocess.Popen([sys.executable, \"-c\", \"import time; time.sleep(600)\", {token:?}])\n\
         \x20   time.sleep(600)\n"
    )
}

/// The pids of the processes whose command line holds `token` as an argument or names a
/// path under `folder` (the implementation: its adapter and module are there).
fn processes_of_the_run(folder: &Path, token: &str) -> Vec<String> {
    let folder = folder.to_string_lossy().into_owned();
    let mut pids = processes_holding(token);
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let names_folder = cmdline
            .split(|b| *b == 0)
            .any(|arg| String::from_utf8_lossy(arg).starts_with(&folder));
        if name.parse::<u32>().is_ok() && names_folder && !pids.contains(&name) {
            pids.push(name);
        }
    }
    pids
}

/// The `parcall grade` workspaces under /run (where root's go; others' go to the temporary
/// folder) that hold this run's copy of the module: other tests grade side by side.
fn grade_workspaces_holding(token: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/run") else {
        return Vec::new();
    };
    let holds_token = |workspace: &Path| {
        std::fs::read_dir(workspace)
            .into_iter()
            .flatten()
            .flatten()
            .any(|submission| {
                std::fs::read_to_string(submission.path().join("home").join("slow.py"))
                    .is_ok_and(|text| text.contains(token))
            })
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("parcall-grade-"))
        })
        .filter(|path| holds_token(path))
        .collect()
}

/// Polls `done` until it holds or a minute has passed (a hang, which the caller reports).
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// Waits for `child` to end; kills it and fails the test if it never does.
fn wait_for(child: &mut Child) -> ExitStatus {
    let mut status = None;
    if !eventually(|| {
        status = child.try_wait().unwrap();
        status.is_some()
    }) {
        let _ = child.kill();
        let _ = child.wait();
        panic!("parcall did not end after the signal");
    }
    status.unwrap()
}

/// Starts `parcall ARGS` (`MODULE` in them names the slow module, `OUT` a folder for results) with a temporary folder of its own,
/// sends it `signal` once the implementation runs, and checks what it leaves behind.
fn interrupt(args: &[&str], signal: libc::c_int, envs: &[(&str, &str)]) {
    let scratch = tempfile::Builder::new()
        .prefix("parcall-test-interrupt-")
        .tempdir()
        .unwrap();
    // Apart from the module's folder: the sandbox copies that folder, and a temporary
    // folder inside it would be copied too.
    let tmp = scratch.path().join("tmp");
    let module = scratch.path().join("module").join("slow.py");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(module.parent().unwrap()).unwrap();
    // The scratch folder's name is unique among the tests running side by side.
    let token = scratch
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    std::fs::write(&module, slow_module(&token)).unwrap();
    let out = scratch.path().join("out");
    let regressions = fresh_regressions();
    let mut parcall = Command::new(binary())
        .args(args.iter().map(|arg| match *arg {
            "MODULE" => module.as_os_str(),
            "OUT" => out.as_os_str(),
            arg => OsStr::new(arg),
        }))
        .current_dir(root())
        .env("TMPDIR", &tmp)
        .env("PARCALL_REGRESSIONS", regressions.as_os_str())
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The implementation's function runs once its sleeper exists; its folders exist by then.
    let started = eventually(|| !processes_holding(&token).is_empty());
    let mut made: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    made.extend(grade_workspaces_holding(&token));
    // SAFETY: kill(2) takes integers only; the pid is our own child, not yet reaped.
    unsafe { libc::kill(parcall.id() as libc::pid_t, signal) };
    let status = wait_for(&mut parcall);
    // Killed processes may take a moment to be torn down.
    eventually(|| processes_of_the_run(scratch.path(), &token).is_empty());
    let survivors = processes_of_the_run(scratch.path(), &token);
    for pid in &survivors {
        // Do not leave them running for the next test.
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
    assert!(started, "the implementation never started");
    assert!(!made.is_empty(), "parcall made no temporary folder");
    let mut left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    left.extend(made.iter().filter(|path| path.exists()).cloned());
    left.sort();
    left.dedup();
    assert!(left.is_empty(), "temporary folders left behind: {left:?}");
    assert!(
        survivors.is_empty(),
        "processes left running: {survivors:?}"
    );
    assert_eq!(status.code(), Some(128 + signal), "{status}");
}

/// One case, with a timeout the sleeping function never reaches.
const CHECK: [&str; 6] = [
    "check",
    "MODULE",
    "--case",
    "exec-seed-001",
    "--timeout",
    "120",
];

#[rstest::rstest]
#[case::sigint(libc::SIGINT)]
#[case::sigterm(libc::SIGTERM)]
#[case::sighup(libc::SIGHUP)]
fn check_cleans_up_when_signalled(#[case] signal: libc::c_int) {
    interrupt(&CHECK, signal, &[]);
}

/// Where no PID namespace can be made, the implementation's processes do not die with
/// parcall by themselves: the clean-up kills them.
#[test]
fn check_without_a_pid_namespace_kills_its_processes_when_signalled() {
    interrupt(&CHECK, libc::SIGTERM, &[("PARCALL_NO_PID_NAMESPACE", "1")]);
}

/// `mutate` checks the unmutated module first, from its workspace: both the workspace and
/// the adapter's folder exist when the signal comes.
#[test]
fn mutate_removes_its_workspace_when_signalled() {
    let mutate = ["mutate", "MODULE", "--no-equivalents", "--timeout", "120"];
    interrupt(&mutate, libc::SIGINT, &[]);
}

/// `grade` removes its workspace (under /run when root), the staged copies in it included,
/// and kills its sandboxed processes. (A grade run elsewhere on the machine may sweep a
/// workspace whose run was killed before this test looks; the sandbox's processes are what
/// a killed run reliably leaves.)
#[test]
fn grade_removes_its_workspace_when_signalled() {
    let grade = [
        "grade",
        "MODULE",
        "--function",
        "execute_tool_calls",
        "--timeout",
        "120",
        "--out",
        "OUT",
    ];
    interrupt(&grade, libc::SIGTERM, &[]);
}
