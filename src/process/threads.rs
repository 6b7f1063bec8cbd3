//! How many threads a process tree runs, read from `/proc`: whether a race could happen in
//! it at all. The child may be a wrapper (`unshare` making a PID namespace) around the
//! implementation, so the whole tree below it is read, through each thread's `children`.

use std::fs;

/// The most processes read: a tree larger than this is taken as able to run things at once.
const MAX_PROCESSES: usize = 64;

/// Whether some process in the tree under `pid` (itself included) has more than one thread,
/// or the tree cannot be read (then it might).
pub(super) fn any_process_threaded(pid: u32) -> bool {
    let mut pending = vec![pid];
    let mut seen = 0;
    while let Some(pid) = pending.pop() {
        seen += 1;
        if seen > MAX_PROCESSES {
            return true;
        }
        let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
            // Gone since it was listed (it exited): nothing of it runs.
            if fs::metadata(format!("/proc/{pid}")).is_err() {
                continue;
            }
            return true;
        };
        let tids: Vec<String> = tasks
            .filter_map(|t| t.ok()?.file_name().into_string().ok())
            .collect();
        if tids.len() > 1 {
            return true;
        }
        for tid in tids {
            let Ok(children) = fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"))
            else {
                return true;
            };
            pending.extend(
                children
                    .split_whitespace()
                    .filter_map(|c| c.parse::<u32>().ok()),
            );
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A single-threaded child with a single-threaded child of its own runs nothing at once;
    /// one that starts a thread does.
    #[test]
    fn threads_are_seen_anywhere_in_the_tree() {
        let mut sleeper = std::process::Command::new("sh")
            .args(["-c", "sleep 2 & wait"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!any_process_threaded(sleeper.id()));
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
        let mut threaded = std::process::Command::new("python3")
            .args([
                "-c",
                "import threading, time\n\
                 threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n\
                 time.sleep(5)",
            ])
            .spawn()
            .unwrap();
        // The interpreter's start takes seconds on a loaded machine: wait for the thread,
        // within a deadline, instead of guessing when it exists.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(4);
        while !any_process_threaded(threaded.id()) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(any_process_threaded(threaded.id()));
        threaded.kill().unwrap();
        threaded.wait().unwrap();
    }
}
