//! Containment: every descendant of an implementation ends with its run, whatever it does
//! (double fork, `setsid`, an empty environment, `PR_SET_DUMPABLE` 0, killing its parent).
//!
//! Where the OS allows, the implementation runs as PID 1 of a new PID namespace (util-linux
//! `unshare --pid --fork --kill-child`, in a user namespace of its own when parcall is not
//! root): when it dies the kernel kills every process in the namespace, parcall's death
//! kills it (parent-death signals down the chain), and it cannot name, so cannot signal,
//! any process outside. Otherwise parcall becomes a child subreaper: orphans of the
//! implementation are re-parented to parcall instead of init, so they stay findable, and
//! are killed with the run.

use super::Launch;
use std::collections::HashMap;
use std::ffi::OsString;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// How the processes of an implementation are kept from outliving their run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Containment {
    /// Only the process group kill and the environment-marker sweep (before
    /// [`detect`] chose; and what escapes through `setsid` with an empty environment).
    ProcessGroup,
    /// A new PID namespace per process (a user namespace too when not root).
    PidNamespace { user_namespace: bool },
    /// No namespace here (the reason); parcall is a child subreaper and kills every orphan.
    Subreaper { reason: String },
}

impl Containment {
    /// What the reports say.
    pub fn describe(&self) -> String {
        match self {
            Containment::ProcessGroup => "process group only".into(),
            Containment::PidNamespace {
                user_namespace: false,
            } => "PID namespace".into(),
            Containment::PidNamespace {
                user_namespace: true,
            } => "PID namespace (in a user namespace)".into(),
            Containment::Subreaper { reason } => {
                format!("child subreaper (no PID namespace: {reason})")
            }
        }
    }
}

/// The `unshare` flags, after the user-namespace ones when needed.
const PID_NAMESPACE: [&str; 4] = ["--pid", "--fork", "--kill-child", "--"];
const USER_NAMESPACE: [&str; 2] = ["--user", "--map-current-user"];

/// Probes once per process whether a PID namespace can be made here; falls back to making
/// this process a subreaper.
pub fn detect() -> Containment {
    static DETECTED: OnceLock<Containment> = OnceLock::new();
    DETECTED.get_or_init(probe).clone()
}

/// Set (to anything) in parcall's own environment, skips the PID namespace: how the
/// fallback is tested on machines that allow namespaces.
pub const NO_PID_NAMESPACE_VARIABLE: &str = "PARCALL_NO_PID_NAMESPACE";

fn probe() -> Containment {
    if std::env::var_os(NO_PID_NAMESPACE_VARIABLE).is_some() {
        let reason = format!("{NO_PID_NAMESPACE_VARIABLE} is set");
        return subreaper(reason);
    }
    // SAFETY: geteuid(2) takes no argument, cannot fail, and reads or writes no memory of
    // this process.
    let root = unsafe { libc::geteuid() } == 0;
    let mut args: Vec<&str> = if root {
        vec![]
    } else {
        USER_NAMESPACE.to_vec()
    };
    args.extend(PID_NAMESPACE);
    args.push("true");
    let probe = Command::new("unshare")
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let reason = match probe {
        Ok(output) if output.status.success() => {
            return Containment::PidNamespace {
                user_namespace: !root,
            }
        }
        Ok(output) => String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        Err(error) => format!("cannot run `unshare`: {error}"),
    };
    subreaper(reason)
}

/// Makes this process a child subreaper, so orphans of the implementation stay findable.
fn subreaper(reason: String) -> Containment {
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) takes integers only, no pointer, and changes only
    // this process's re-parenting rule, which no Rust invariant depends on.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        let error = std::io::Error::last_os_error();
        return Containment::Subreaper {
            reason: format!("{reason}; and PR_SET_CHILD_SUBREAPER failed: {error}"),
        };
    }
    SUBREAPER.get_or_init(|| ());
    Containment::Subreaper { reason }
}

/// The launch run inside the containment: in a PID namespace, `unshare` starts the program.
pub fn wrap(launch: &Launch, containment: &Containment) -> Launch {
    let Containment::PidNamespace { user_namespace } = containment else {
        return launch.clone();
    };
    let mut args: Vec<OsString> = Vec::new();
    if *user_namespace {
        args.extend(USER_NAMESPACE.map(OsString::from));
    }
    args.extend(PID_NAMESPACE.map(OsString::from));
    args.push(launch.program.clone());
    args.extend(launch.args.iter().cloned());
    Launch {
        program: "unshare".into(),
        args,
        ..launch.clone()
    }
}

/// Set once this process is a subreaper: only then are orphans swept.
static SUBREAPER: OnceLock<()> = OnceLock::new();

/// The pids of the implementation processes alive now (`Child`s not yet reaped), whose
/// descendants are theirs, not orphans.
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

pub(super) fn register(pid: u32) {
    super::lock(&LIVE).push(pid);
}

pub(super) fn unregister(pid: u32) {
    super::lock(&LIVE).retain(|p| *p != pid);
}

/// In subreaper mode, kills and reaps every descendant of this process that does not
/// descend from a live implementation process: what a finished run left behind.
///
/// Assumes this process starts no other children while it is a subreaper (true of
/// `parcall check`, the only command that falls back to it).
pub(super) fn kill_orphans() {
    if SUBREAPER.get().is_none() {
        return;
    }
    let own = std::process::id();
    // A process killed while forking may leave a child that is re-parented to us only after
    // its parent is reaped; so the sweep repeats until a pass finds nothing (bounded, in
    // case something forks faster than we kill).
    for _ in 0..100 {
        let live = super::lock(&LIVE).clone();
        let victims = descendants(own, &live);
        if victims.is_empty() {
            return;
        }
        for (pid, _) in &victims {
            // SAFETY: kill(2) takes integers only and touches no memory of this process; the
            // victims are descendants of this process, never this process itself.
            unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
        }
        for (pid, parent) in &victims {
            if *parent == own {
                // Our child now (re-parented): reap it so it leaves no zombie. SIGKILL was
                // sent, so the wait ends as soon as the kernel has torn it down.
                let mut status = 0;
                // SAFETY: waitpid(2) writes one int through `&mut status`, a live local; the
                // pid is our child, so reaping it steals no `Child` of the standard library
                // (those are in LIVE and excluded from the victims).
                unsafe { libc::waitpid(*pid as i32, &mut status, 0) };
            }
        }
    }
}

/// Every (pid, parent) below `root`, skipping the subtrees of the `live` pids.
fn descendants(root: u32, live: &[u32]) -> Vec<(u32, u32)> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (pid, parent) in process_table() {
        children.entry(parent).or_default().push(pid);
    }
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(parent) = stack.pop() {
        for &pid in children.get(&parent).into_iter().flatten() {
            if !live.contains(&pid) {
                found.push((pid, parent));
                stack.push(pid);
            }
        }
    }
    found
}

/// (pid, parent pid) of every process, from `/proc/PID/stat` (readable even for processes
/// that made themselves undumpable).
fn process_table() -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `PID (COMM) STATE PPID ...`: COMM may hold spaces and parentheses, so the
            // fields are counted from the last `)`.
            let rest = &stat[stat.rfind(')')? + 1..];
            let parent: u32 = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, parent))
        })
        .collect()
}
