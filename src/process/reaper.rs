//! Making sure nothing an implementation started outlives it. Killing the process group gets
//! every descendant that stayed in it; a descendant that left it (`setsid`, a double fork)
//! still carries the run's marker in its environment and is found by a sweep of `/proc`.

use std::fs;

/// The environment variable that marks every process of one implementation run.
pub const MARKER_VARIABLE: &str = "PARCALL_RUN_MARKER";

/// SIGKILLs the process group `pgid` (a no-op when it is already gone).
pub(super) fn kill_group(pgid: i32) {
    // SAFETY: kill(2) takes integers only and touches no memory of this process; a negative
    // pid signals the implementation's process group, which this process is not in.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// SIGKILLs every process whose environment holds `MARKER_VARIABLE=marker`. Returns how
/// many it found.
pub fn sweep(marker: &str) -> usize {
    let needle = format!("{MARKER_VARIABLE}={marker}");
    let own = std::process::id() as i32;
    let mut found = 0;
    let Ok(entries) = fs::read_dir("/proc") else {
        return 0;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(environ) = fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|b| *b == 0)
            .any(|var| var == needle.as_bytes())
        {
            found += 1;
            // SAFETY: kill(2) takes integers only and touches no memory of this process,
            // which the loop skips. A process that is not our child is reaped by its own
            // parent or init once it dies.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    found
}
