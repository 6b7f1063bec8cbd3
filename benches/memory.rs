//! Memory against the number of cases: the peak resident memory of `parcall check` on the
//! Python example with 500, 5,000 and 50,000 generated cases per function, side by side.
//! Generated cases stream through the run, so the peak must not grow with their number.
//! Run: `cargo bench --bench memory` (the 50,000 run takes a few minutes; pass a list of
//! counts to choose others: `cargo bench --bench memory -- 500 5000`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let solution = root.join("conformance/examples/python/solution.py");
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![500, 5_000, 50_000]
    } else {
        counts
    };
    println!("| generated cases per function | cases in all | wall time | parcall's peak RSS | peak RSS of the whole tree |");
    println!("| --- | --- | --- | --- | --- |");
    let mut first = None;
    for count in counts {
        let (seconds, own, tree) = measure(&solution, count);
        let base = *first.get_or_insert(own);
        println!(
            "| {count} | {} | {seconds:.0} s | {:.1} MiB ({:.2}x the first row) | {:.1} MiB |",
            2 * count + 234,
            own as f64 / 1024.0,
            own as f64 / base as f64,
            tree as f64 / 1024.0
        );
    }
}

/// Runs one check; returns its wall time, parcall's own peak RSS in KiB (the high-water
/// mark the kernel keeps, read until the process ends) and the peak RSS that `wait4`
/// reports for it and every process it waited for (the implementation included).
fn measure(solution: &std::path::Path, count: usize) -> (f64, u64, u64) {
    let regressions = tempfile::NamedTempFile::new().unwrap();
    let started = Instant::now();
    // Reaped below with `wait4`, which gives its resource usage as `Child::wait` cannot.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args([
            "check",
            solution.to_str().unwrap(),
            "--seed",
            "1",
            "--format",
            "tap",
        ])
        .args(["--fuzz", &count.to_string(), "--no-regressions"])
        .env("PARCALL_REGRESSIONS", regressions.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut own = 0;
    loop {
        // Not reaped yet: a zombie has no memory left to report, so the last reading of
        // the live process is the peak.
        // SAFETY: siginfo_t is plain C data, valid all zero.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: waitid writes only into `info`, which lives across the call; the pid is
        // this bench's own child, not yet reaped (WNOWAIT).
        let waited = unsafe { libc::waitid(libc::P_PID, pid as _, &mut info, flags) } == 0;
        // SAFETY: after a successful waitid, si_pid is the field the kernel filled in.
        let exited = waited && unsafe { info.si_pid() } == pid;
        if let Some(hwm) = high_water_mark(pid) {
            own = own.max(hwm);
        }
        if exited {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut status = 0;
    // SAFETY: rusage is plain C data, valid all zero.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes only into `status` and `usage`, both live across the call; it
    // reaps this bench's own child.
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the check of the correct solution failed"
    );
    (started.elapsed().as_secs_f64(), own, usage.ru_maxrss as u64)
}

/// `VmHWM` of a live process, in KiB.
fn high_water_mark(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
