//! `parcall grade` results under attack: planted links in `--out`,
//! names that collide with the run's own files or carry formulas and control characters, a
//! run killed half way, and set-up mistakes that must not be blamed on students.

use crate::common;

use common::{copy_from_repo, processes_of, read_gradebook, site};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SOLUTION: &str = "conformance/examples/python/solution.py";

fn grade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("grade")
        .args(args)
        .args([
            "--seed",
            "5",
            "--fuzz",
            "0",
            "--function",
            "execute_tool_calls",
            "--jobs",
            "1",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A class of two correct submissions (one module alone would be a submission itself).
fn solo_class(work: &Path) -> PathBuf {
    let class = work.join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    copy_from_repo(SOLUTION, &class.join("bob.py"));
    class
}

#[test]
fn planted_links_in_out_are_replaced_not_followed() {
    let work = tempfile::tempdir().unwrap();
    let class = solo_class(work.path());
    let victims = work.path().join("victims");
    std::fs::create_dir(&victims).unwrap();
    let victim = victims.join("only-root.txt");
    std::fs::write(&victim, "VICTIM").unwrap();
    let out = work.path().join("out");
    std::fs::create_dir_all(out.join("students")).unwrap();
    std::fs::create_dir_all(out.join("teacher")).unwrap();
    for name in ["gradebook.csv", "gradebook.json"] {
        std::os::unix::fs::symlink(&victim, out.join("teacher").join(name)).unwrap();
    }
    std::os::unix::fs::symlink(&victims, out.join("students/alice")).unwrap();
    std::os::unix::fs::symlink(&victims, out.join("teacher/reports")).unwrap();
    std::os::unix::fs::symlink(&victims, out.join("alice")).unwrap();
    std::os::unix::fs::symlink(&victim, victims.join("gradescope.json")).unwrap();
    // A folder holding what no run writes (the link `alice`) is refused, even with
    // --overwrite; an earlier run's folders with links planted in them are removed, the
    // links with them, never what they point to.
    let out_arg = out.to_str().unwrap();
    let refused = grade(&[class.to_str().unwrap(), "--out", out_arg, "--overwrite"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    std::fs::remove_file(out.join("alice")).unwrap();
    let output = grade(&[class.to_str().unwrap(), "--out", out_arg, "--overwrite"]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "VICTIM");
    assert_eq!(
        std::fs::read_dir(&victims).unwrap().count(),
        2,
        "a file was written through a planted link"
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let book = std::fs::symlink_metadata(out.join("teacher/gradebook.json")).unwrap();
    assert!(book.is_file(), "the gradebook is still a link");
    assert!(
        std::fs::symlink_metadata(out.join("students/alice/gradescope.json"))
            .unwrap()
            .is_file()
    );
}

#[test]
fn submission_names_cannot_collide_with_the_runs_files() {
    let work = tempfile::tempdir().unwrap();
    let class = solo_class(work.path());
    copy_from_repo(SOLUTION, &class.join("gradebook.csv.py"));
    copy_from_repo(SOLUTION, &class.join("gradebook.json.py"));
    let out = work.path().join("out");
    let output = grade(&[class.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let csv = std::fs::read_to_string(out.join("teacher/gradebook.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert!(std::fs::metadata(out.join("teacher/gradebook.json"))
        .unwrap()
        .is_file());
}

#[test]
fn formulas_and_control_characters_in_names_are_neutralised() {
    let work = tempfile::tempdir().unwrap();
    let class = solo_class(work.path());
    for name in [
        "=1+2.py",
        "@SUM(A1).py",
        "+cmd.py",
        "-2.py",
        "\x1b]0;owned\x07\x1b[2Jbell.py",
    ] {
        copy_from_repo(SOLUTION, &class.join(name));
    }
    let out = work.path().join("out");
    let output = grade(&[class.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let csv = std::fs::read_to_string(out.join("teacher/gradebook.csv")).unwrap();
    for line in csv.lines().skip(1) {
        let first = line.trim_start_matches('"');
        assert!(
            !first.starts_with(['=', '+', '-', '@']),
            "a cell a spreadsheet runs: {line}"
        );
    }
    assert!(csv.contains("'=1+2"), "{csv}");
    for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        assert!(
            !bytes.iter().any(|b| *b == 0x1b || *b == 0x07),
            "raw control characters on {stream}: {:?}",
            text(bytes)
        );
    }
}

#[test]
fn a_killed_run_keeps_what_it_graded_and_the_next_run_cleans_up() {
    let work = tempfile::tempdir().unwrap();
    let class = solo_class(work.path());
    copy_from_repo(
        "conformance/fixtures/python/hostile/sleeper.py",
        &class.join("zz_sleeper.py"),
    );
    let out = work.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args([
            "grade",
            class.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args([
            "--seed",
            "5",
            "--fuzz",
            "0",
            "--function",
            "execute_tool_calls",
        ])
        .args(["--jobs", "1", "--timeout", "5"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Submissions are graded in name order, one at a time: once bob is graded, the sleeper
    // is the one running.
    let alice = out.join("students/alice/gradescope.json");
    let bob = out.join("students/bob/gradescope.json");
    let started = Instant::now();
    while !bob.exists() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let run = site(&out);
    // Kill the grader outright while the sleeper's sandbox exists (under a uid of its own,
    // while one of its block's processes runs).
    if run.uids.is_some() {
        while processes_of(&run).is_empty() && started.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!processes_of(&run).is_empty(), "the sleeper never ran");
    }
    // Once the grader dies its workspace's lock is free, and another test's run starting
    // then would remove the workspace before it is looked at: wait for the lock from before
    // the kill, and hold it while looking.
    let lock = std::fs::File::open(run.workspace.join(".lock")).unwrap();
    let waiting = std::thread::spawn(move || {
        // SAFETY: flock on a descriptor this closure owns.
        let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
        assert_eq!(locked, 0);
        lock
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let held = waiting.join().unwrap();
    let graded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&alice).unwrap()).unwrap();
    assert!(graded["score"].as_f64().unwrap() > 0.0);
    let book = read_gradebook(&out);
    assert_eq!(book["complete"], false);
    assert!(
        run.workspace.is_dir(),
        "a killed run cannot remove its workspace {}",
        run.workspace.display()
    );
    drop(held);
    // The next run (of anything) removes the killed run's workspace.
    let next = work.path().join("next");
    let output = grade(&[
        class.join("alice.py").to_str().unwrap(),
        "--out",
        next.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        !run.workspace.exists(),
        "the killed run's workspace is still there: {}",
        run.workspace.display()
    );
    assert!(!site(&next).workspace.exists());
    if run.uids.is_some() {
        let left = processes_of(&run);
        assert!(
            left.is_empty(),
            "the killed run's processes live on: {left:?}"
        );
    }
}

#[test]
fn a_full_disk_leaves_no_empty_result_and_says_so() {
    // SAFETY: geteuid has no side effects.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: mounting a small filesystem for --out needs root");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let class = solo_class(work.path());
    let out = work.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=12k", "parcall-test-full"])
        .arg(&out)
        .status()
        .unwrap();
    if !mounted.success() {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    }
    let output = grade(&[class.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let mut empty = Vec::new();
    let mut stack = vec![out.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.len() == 0 {
                empty.push(entry.path());
            }
        }
    }
    let _ = Command::new("umount").arg(&out).status();
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert!(empty.is_empty(), "empty results: {empty:?}");
    assert!(text(&output.stderr).contains("cannot write"));
}

#[test]
fn set_up_mistakes_are_set_up_errors_not_zero_grades() {
    let work = tempfile::tempdir().unwrap();
    let class = solo_class(work.path());
    let rubric = |name: &str, body: &str| {
        let path = work.path().join(name);
        std::fs::write(&path, body).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let infinite = rubric(
        "infinite.json",
        r#"{"format": "parcall-rubric", "version": 1, "default_points": Infinity}"#,
    );
    let overflowing = rubric(
        "overflow.json",
        r#"{"format": "parcall-rubric", "version": 1, "default_points": 1e308}"#,
    );
    let mistakes: [&[&str]; 7] = [
        &["--python", "/nonexistent/python3"],
        &["--memory-mib", "17592186044416"],
        &["--rubric", &infinite],
        &["--rubric", &overflowing],
        &["--timeout", "nan"],
        &["--memory-mib", "1"],
        // Allowed by the flag, too short for any correct submission: caught by the canary,
        // which runs a correct one on the suite's largest batches.
        &["--timeout", "0.001"],
    ];
    for (n, mistake) in mistakes.iter().enumerate() {
        let out = work.path().join(format!("out-{n}"));
        let mut args = vec![class.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(mistake);
        let output = grade(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{mistake:?}: {}{}",
            text(&output.stdout),
            text(&output.stderr)
        );
        assert!(
            !out.join("teacher/gradebook.json").exists(),
            "{mistake:?} wrote grades"
        );
    }
}
