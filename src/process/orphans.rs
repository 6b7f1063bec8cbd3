//! Orphans of an implementation: where no PID namespace holds them, parcall becomes a child
//! subreaper, so a process that escaped its group (double fork, `setsid`) is re-parented to
//! parcall instead of init, and is found and killed when its run ends.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Makes this process a child subreaper; from then on, orphans are swept after each run.
pub fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) takes integers only, no pointer, and changes only
    // this process's re-parenting rule, which no Rust invariant depends on.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    SUBREAPER.get_or_init(|| ());
    Ok(())
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
