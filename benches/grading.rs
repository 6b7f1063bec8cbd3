//! Grading throughput: submissions graded per minute with `--jobs 1` and `--jobs 2`, on a
//! class of 12 (the correct solution and 11 broken examples), default settings otherwise
//! (200 hidden generated cases per function, every protection this machine allows).
//! Then what the protections cost per submission: a class of correct submissions graded as
//! root (every protection) and as an unprivileged user (only what needs no privilege:
//! resource limits, a scrubbed environment, the bounded copy), and the price of each
//! mechanism alone, spawned as the sandbox spawns it.
//! With `PARCALL_BASELINE=PATH` (another build of parcall, say the last release's), first a
//! class of 20 correct submissions graded by both, side by side: submissions a minute and the
//! grader's peak memory, alternated, best of three (`--jobs 2`, every protection on).
//! Run: `cargo bench --bench grading`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(baseline) = std::env::var_os("PARCALL_BASELINE") {
        side_by_side(root, Path::new(&baseline));
    }
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::copy(
        root.join("conformance/examples/python/solution.py"),
        class.join("solution.py"),
    )
    .unwrap();
    let mut broken: Vec<_> = std::fs::read_dir(root.join("conformance/examples/python/broken"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    broken.sort();
    for path in broken
        .iter()
        .filter(|p| !p.ends_with("dedup_shared_cache.py"))
        .take(11)
    {
        std::fs::copy(path, class.join(path.file_name().unwrap())).unwrap();
    }
    let count = std::fs::read_dir(&class).unwrap().count();
    println!("grading {count} submissions, 200 generated cases per function, seed 1");
    println!("| --jobs | wall time | submissions per minute | speed-up |");
    println!("| --- | --- | --- | --- |");
    let mut first = 0.0;
    for jobs in [1, 2] {
        let out = work.path().join(format!("out-{jobs}"));
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_parcall"))
            .args([
                "grade",
                class.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--seed",
                "1",
                "--jobs",
                &jobs.to_string(),
            ])
            .stderr(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let seconds = start.elapsed().as_secs_f64();
        if jobs == 1 {
            first = seconds;
        }
        println!(
            "| {jobs} | {seconds:.1} s | {:.0} | {:.2}x |",
            count as f64 / seconds * 60.0,
            first / seconds
        );
    }
    protections(root, work.path());
}

/// Grades `class` into a fresh folder with `parcall`: the wall time and the peak resident
/// memory of the grader's process tree (what `wait4` reports: the grader, or a submission
/// if one grew larger).
// The child is reaped by wait4(2) below, which reports its resource use as `wait` cannot.
#[allow(clippy::zombie_processes)]
fn timed_grade(parcall: &Path, class: &Path, out: &Path) -> (f64, u64) {
    let start = Instant::now();
    let child = Command::new(parcall)
        .args([
            "grade",
            class.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--seed", "1", "--jobs", "2"])
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4(2) writes one int and one rusage through pointers to live locals; the
    // pid is our child's, not yet reaped (the `Child` is never waited on).
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(pid > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    (start.elapsed().as_secs_f64(), usage.ru_maxrss as u64 / 1024)
}

/// 20 correct submissions graded by `baseline` and by this build, alternated, best of three.
fn side_by_side(root: &Path, baseline: &Path) {
    const COPIES: usize = 20;
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir(&class).unwrap();
    for i in 0..COPIES {
        std::fs::copy(
            root.join("conformance/examples/python/solution.py"),
            class.join(format!("s{i:02}.py")),
        )
        .unwrap();
    }
    let current = Path::new(env!("CARGO_BIN_EXE_parcall"));
    let mut best = [(f64::MAX, 0u64); 2];
    for round in 0..3 {
        for (side, parcall) in [baseline, current].into_iter().enumerate() {
            let out = work.path().join(format!("out-{side}-{round}"));
            let (seconds, mib) = timed_grade(parcall, &class, &out);
            if seconds < best[side].0 {
                best[side].0 = seconds;
            }
            best[side].1 = best[side].1.max(mib);
        }
    }
    println!("grading {COPIES} correct submissions, --jobs 2, default settings, best of 3");
    println!("| build | wall | submissions a minute | peak RSS | ratio |");
    println!("| --- | --- | --- | --- | --- |");
    for (side, label) in ["baseline (PARCALL_BASELINE)", "this build"]
        .into_iter()
        .enumerate()
    {
        let (seconds, mib) = best[side];
        println!(
            "| {label} | {seconds:.2} s | {:.0} | {mib} MiB | {:.2}x |",
            COPIES as f64 / seconds * 60.0,
            best[0].0 / seconds
        );
    }
    println!();
}

/// Grading as root against grading as `nobody`, and each mechanism on its own.
fn protections(root: &Path, work: &Path) {
    use parcall::sandbox;
    use parcall::sandbox::Capabilities;
    let capabilities = Capabilities::detect();
    if !capabilities.own_uid() {
        println!("\nnot root with setpriv here: the protections' cost is not measured");
        return;
    }
    // Everything nobody must read or run is copied where nobody can.
    let shared = work.join("shared");
    let class = shared.join("correct");
    std::fs::create_dir_all(&class).unwrap();
    const COPIES: usize = 12;
    for i in 0..COPIES {
        std::fs::copy(
            root.join("conformance/examples/python/solution.py"),
            class.join(format!("s{i:02}.py")),
        )
        .unwrap();
    }
    let parcall = shared.join("parcall");
    std::fs::copy(env!("CARGO_BIN_EXE_parcall"), &parcall).unwrap();
    Command::new("chmod")
        .args(["-R", "a+rwX"])
        .arg(work)
        .status()
        .unwrap();
    let grade = |as_nobody: bool, out: &str| {
        let mut command = if as_nobody {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
            c.arg(&parcall);
            c
        } else {
            Command::new(&parcall)
        };
        let start = Instant::now();
        let status = command
            .args(["grade", class.to_str().unwrap(), "--out"])
            .arg(shared.join(out))
            .args(["--seed", "1", "--jobs", "1"])
            .current_dir(&shared)
            .stderr(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        start.elapsed().as_secs_f64() * 1000.0 / COPIES as f64
    };
    // Alternated, best of three: the machine is shared.
    let (mut all, mut none) = (f64::MAX, f64::MAX);
    for round in 0..3 {
        all = all.min(grade(false, &format!("root-{round}")));
        none = none.min(grade(true, &format!("nobody-{round}")));
    }
    println!("\nwhat the protections cost per submission ({COPIES} correct submissions, --jobs 1, best of 3)");
    println!("| grading as | per submission | protections |");
    println!("| --- | --- | --- |");
    println!("| root | {all:.0} ms | every one this machine allows |");
    println!("| nobody | {none:.0} ms | the sandbox in a user namespace of nobody's, limits, scrubbed environment, bounded copy |");
    println!(
        "| difference | {:.0} ms | a uid of its own, control groups |",
        all - none
    );

    let spawn_fed = |path: Option<&str>, input: Option<&[u8]>, program: &str, args: &[&str]| {
        let runs = 50;
        let start = Instant::now();
        for _ in 0..runs {
            let mut command = Command::new(program);
            if let Some(path) = path {
                // Also where `program` is looked up.
                command.env("PATH", path);
            }
            let mut child = command
                .args(args)
                .stdin(if input.is_some() {
                    std::process::Stdio::piped()
                } else {
                    std::process::Stdio::null()
                })
                .spawn()
                .unwrap();
            if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
                std::io::Write::write_all(&mut stdin, input).unwrap();
            }
            let status = child.wait().unwrap();
            assert!(status.success(), "{program} {args:?}");
        }
        start.elapsed().as_secs_f64() * 1000.0 / runs as f64
    };
    let spawn_in =
        |path: Option<&str>, program: &str, args: &[&str]| spawn_fed(path, None, program, args);
    let spawn = |program: &str, args: &[&str]| spawn_in(None, program, args);
    let bare = spawn("true", &[]);
    // The sandbox from nothing around `/bin/sh -c 'exit 0'`, as the helper starts it.
    let helper = sandbox::helper().expect("the parcall binary");
    let plan = sandbox::assemble(sandbox::Request {
        argv: ["/bin/sh", "-c", "exit 0"].map(Into::into).to_vec(),
        path: "/usr/bin:/bin".into(),
        cwd_outside: "/".into(),
        cwd: "/".into(),
        runtimes: sandbox::Runtimes::declare(&[], "/usr/bin:/bin".as_ref()).unwrap(),
        every_runtime: false,
        readable: Vec::new(),
        copies: Vec::new(),
        unreachable: Vec::new(),
        uid: parcall::sandbox::uids::LAST_UID,
        gid: parcall::sandbox::uids::LAST_UID,
        scratch_bytes: 1 << 20,
        cgroup_procs: Vec::new(),
        build: None,
    })
    .unwrap();
    let plan = serde_json::to_string(&plan).unwrap();
    let uid = spawn(
        "setpriv",
        &[
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--no-new-privs",
            "true",
        ],
    );
    let sh = spawn("sh", &["-c", "exit 0"]);
    let namespaces = spawn_fed(
        None,
        Some(plan.as_bytes()),
        helper.to_str().unwrap(),
        &[sandbox::ENTRY],
    );
    let tmpfs = spawn(
        "unshare",
        &[
            "--mount",
            "sh",
            "-c",
            "mount -t tmpfs -o size=64m none /mnt && mount --bind /mnt /mnt",
        ],
    );
    // The interpreter submissions start: `python3` on the sandbox's PATH, which need not be
    // the shell's (on this machine kind the shell's is pyenv's shim, 0.1 s of bash more).
    let python = spawn_in(
        Some(parcall::sandbox::SANDBOX_PATH),
        "python3",
        &["-I", "-B", "-c", "pass"],
    );
    println!("\neach mechanism alone, as the sandbox starts a submission (mean of 50 spawns)");
    println!("| what | ms | over a bare spawn |");
    println!("| --- | --- | --- |");
    println!("| spawn `true` | {bare:.2} | |");
    println!("| own uid (`setpriv`) | {uid:.2} | {:.2} |", uid - bare);
    println!("| spawn `sh -c 'exit 0'` | {sh:.2} | {:.2} |", sh - bare);
    println!(
        "| the same in the sandbox from nothing (namespaces, empty root, pivot_root, /proc) | {namespaces:.2} | {:.2} |",
        namespaces - bare
    );
    println!(
        "| a private tmpfs and a bind mount (`sh`, `mount` twice) | {tmpfs:.2} | {:.2} |",
        tmpfs - bare
    );
    println!(
        "| for scale: starting Python (`python3` on the sandbox's PATH) | {python:.2} | {:.2} |",
        python - bare
    );
}
