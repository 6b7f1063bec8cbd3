//! Helpers shared by the end-to-end tests: running the real binary, reading its JSON report.
#![allow(
    dead_code,
    reason = "each test binary uses its own subset of the helpers"
)]

pub mod subjects;

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A regressions file of its own for every run, so runs neither replay each other's
/// counterexamples nor write into the repository.
pub fn fresh_regressions() -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "parcall-test-{}-{n}/regressions.json",
        std::process::id()
    ))
}

pub fn parcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .env("PARCALL_REGRESSIONS", fresh_regressions())
        .output()
        .expect("the parcall binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn json_report(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let output = parcall(&all);
    // parcall's reader: reports may hold 1e400 (an infinity), which serde_json refuses.
    let report = parcall::json::parse(&stdout(&output)).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            stdout(&output),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (
        output.status.code().unwrap_or(-1),
        parcall::json::to_serde_json(&report),
    )
}

/// An empty folder of this test process's own under the system's temporary folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parcall-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Spawns `command` with both output pipes and waits at most `deadline`: `Err` with what it
/// wrote to stderr when it had to be killed. Both pipes are drained while waiting, since a
/// report larger than a pipe's buffer would otherwise block the child on its write and look
/// like a hang.
pub fn output_within(
    command: &mut std::process::Command,
    deadline: std::time::Duration,
) -> Result<std::process::Output, String> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the parcall binary runs");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting works") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = stderr.join().unwrap_or_default();
            return Err(String::from_utf8_lossy(&stderr).into_owned());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// `run` on every item, `lanes` items at a time, results in the items' order. For
/// end-to-end checks that spend much of their time waiting on an interpreter or on latency
/// probes, so running a few at once keeps the machine's cores busy.
pub fn in_lanes<T: Sync, R: Send>(
    items: &[T],
    lanes: usize,
    run: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    std::thread::scope(|scope| {
        let run = &run;
        let handles: Vec<_> = (0..lanes)
            .map(|lane| {
                scope.spawn(move || {
                    items
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % lanes == lane)
                        .map(|(i, item)| (i, run(item)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut results: Vec<(usize, R)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    })
}
