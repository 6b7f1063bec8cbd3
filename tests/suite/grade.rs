//! `parcall grade` end to end: a class of correct, broken and hostile submissions is graded
//! with the right scores, in bounded time, with nothing left running and no file outside
//! the results changed; every output format is snapshotted.

use crate::common;

use common::{copy_from_repo, gradebook, processes_of, root, site};
use parcall::sandbox::Capabilities;
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn grade(args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("grade")
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Every file under `dir` with its contents, to prove nothing changed.
fn snapshot_tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(snapshot_tree(&path));
        } else {
            files.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
        }
    }
    files
}

#[test]
fn a_class_with_hostile_submissions_is_graded_fairly_safely_and_in_bounded_time() {
    let capabilities = Capabilities::detect();
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let secret = format!("SECRET-{}", std::process::id());
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("alice.py"),
    );
    std::fs::write(
        class.join("alice.py"),
        format!(
            "# {secret}\n{}",
            std::fs::read_to_string(class.join("alice.py")).unwrap()
        ),
    )
    .unwrap();
    copy_from_repo(
        "conformance/examples/python/broken/limit_off_by_one.py",
        &class.join("bob.py"),
    );
    let hostile_target = work.path().join("outside.txt");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let settings = serde_json::json!({
        "target": hostile_target,
        "class_dir": class,
        "port": listener.local_addr().unwrap().port(),
        "spec_dirs": [root().join("spec")],
        "parcall": [env!("CARGO_BIN_EXE_parcall")],
    });
    let mut hostiles = vec![
        "fork_bomb",
        "memory_bomb",
        "infinite_loop",
        "sleeper",
        "writes_outside",
        "reads_others",
        "opens_network",
        "inherited_fds",
        "fills_disk",
        "leaves_ipc",
        "memory_together",
        "spies_on_class",
        "wrong_ids",
        "slow_answers",
        "oracle",
    ];
    // Signalling "every process it may" is only harmless under a uid of its own.
    if capabilities.own_uid() {
        hostiles.push("kills_parent");
    }
    for name in &hostiles {
        let folder = class.join(name);
        copy_from_repo(
            &format!("conformance/fixtures/python/hostile/{name}.py"),
            &folder.join("main.py"),
        );
        std::fs::write(folder.join("hostile.json"), settings.to_string()).unwrap();
    }
    let before = snapshot_tree(&class);
    let out = work.path().join("results");
    let started = Instant::now();
    let args = [
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "11",
        "--fuzz",
        "20",
        "--timeout",
        "1",
        "--function",
        "execute_tool_calls",
        "--jobs",
        "2",
        // `slow_answers` spends all of it (each case just inside the timeout); the others end
        // well within it (a hang is given up after three 1-second timeouts, about 4 s).
        "--submission-seconds",
        "15",
    ];
    let (code, summary) = grade(&[&[class.to_str().unwrap()][..], &args].concat());
    let took = started.elapsed();
    assert_eq!(code, 0, "{summary}");
    assert!(took < Duration::from_secs(240), "grading took {took:?}");

    let scores = gradebook(&out);
    let (alice, max) = scores["alice"];
    assert_eq!(alice, max, "the correct submission lost points: {summary}");
    assert!(scores["bob"].0 < max);
    for name in [
        "fork_bomb",
        "memory_bomb",
        "infinite_loop",
        "sleeper",
        "inherited_fds",
        "fills_disk",
        "memory_together",
        "spies_on_class",
        "wrong_ids",
        "oracle",
    ] {
        assert!(scores[name].0 < max, "{name} scored {}", scores[name].0);
    }
    // Graded alone with the same seed, the correct submission gets the same grade.
    let alone = work.path().join("alone");
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &alone.join("alice.py"),
    );
    let alone_out = work.path().join("alone-results");
    let (_, _) = grade(
        &[
            &[alone.join("alice.py").to_str().unwrap()][..],
            &[
                "--out",
                alone_out.to_str().unwrap(),
                "--seed",
                "11",
                "--fuzz",
                "20",
                "--timeout",
                "1",
                "--function",
                "execute_tool_calls",
            ],
        ]
        .concat(),
    );
    assert_eq!(gradebook(&alone_out)["alice"], scores["alice"]);

    // Only this test's two runs: other tests may be grading meanwhile, in blocks of their own.
    for run in [site(&out), site(&alone_out)] {
        assert_eq!(run.uids.is_some(), capabilities.own_uid());
        let left = processes_of(&run);
        assert!(left.is_empty(), "processes left running: {left:?}");
    }
    assert_eq!(
        snapshot_tree(&class),
        before,
        "a file in the class folder changed"
    );
    if capabilities.own_uid() {
        assert!(
            !hostile_target.exists(),
            "a submission wrote outside its folder"
        );
        assert!(!Path::new("/tmp/parcall-hostile-write").exists());
        assert!(!Path::new("/var/tmp/parcall-hostile-write").exists());
        let leaked = ["reads_others", "spies_on_class"]
            .iter()
            .flat_map(|n| {
                [
                    out.join("students").join(n).join("gradescope.json"),
                    out.join("teacher/reports").join(n).join("report.txt"),
                ]
            })
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect::<String>();
        assert!(
            !leaked.contains(&secret),
            "a submission read another's file"
        );
    } else {
        eprintln!(
            "not root: uid, namespace and file protections are not exercised ({})",
            capabilities.namespace_error
        );
    }
    if capabilities.namespaces {
        assert!(
            listener.accept().is_err(),
            "a submission reached the network"
        );
        let oracle =
            std::fs::read_to_string(out.join("teacher/reports/oracle/report.txt")).unwrap();
        assert!(!oracle.contains("SPEC-READABLE") && !oracle.contains("PARCALL-RUNNABLE"));
    }
}

fn class_of_two(work: &Path) -> PathBuf {
    let class = work.join("class");
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("alice.py"),
    );
    copy_from_repo(
        "conformance/examples/python/broken/limit_off_by_one.py",
        &class.join("bob.py"),
    );
    class
}

/// Partial credit is the share of a requirement's cases kept: a case that never ran kept
/// nothing. A submission given up on after a few cases (it exits on every batch of two
/// calls) once earned full points for requirements it never showed on a hidden case.
#[test]
fn partial_credit_counts_cases_that_never_ran_as_lost() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(
        "conformance/fixtures/python/exit_mid_run.py",
        &class.join("quits.py"),
    );
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("alice.py"),
    );
    let rubric = work.path().join("rubric.json");
    std::fs::write(
        &rubric,
        r#"{"format": "parcall-rubric", "version": 1, "partial_credit": true}"#,
    )
    .unwrap();
    let out = work.path().join("out");
    let (code, stdout) = grade(&[
        class.to_str().unwrap(),
        "--function",
        "execute_tool_calls",
        "--rubric",
        rubric.to_str().unwrap(),
        "--fuzz",
        "50",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}");
    let alice = common::gradebook_entry(&out, "alice");
    assert_eq!(alice["score"], alice["max_score"], "{alice}");
    let quits = common::gradebook_entry(&out, "quits");
    let score = quits["score"].as_f64().unwrap();
    let max = quits["max_score"].as_f64().unwrap();
    assert!(score < 0.5 * max, "{score} of {max}: {quits:#}");
}

#[test]
fn shards_together_give_the_same_grades_as_one_run() {
    let work = tempfile::tempdir().unwrap();
    let class = class_of_two(work.path());
    let common = [
        "--seed",
        "3",
        "--fuzz",
        "30",
        "--function",
        "execute_tool_calls",
    ];
    let whole = work.path().join("whole");
    grade(
        &[
            &[class.to_str().unwrap(), "--out", whole.to_str().unwrap()][..],
            &common,
        ]
        .concat(),
    );
    // The shards run at once, as a CI pipeline's jobs may on one machine (README: several
    // runs may grade on one machine at once).
    let outs = std::thread::scope(|scope| {
        let shards = ["1/2", "2/2"].map(|shard| {
            let out = work.path().join(shard.replace('/', "-"));
            let class = &class;
            let common = &common;
            scope.spawn(move || {
                let (code, text) = grade(
                    &[
                        &[
                            class.to_str().unwrap(),
                            "--out",
                            out.to_str().unwrap(),
                            "--shard",
                            shard,
                        ][..],
                        common,
                    ]
                    .concat(),
                );
                assert_eq!(code, 0, "{text}");
                let suffix = format!("gradebook.shard-{}-of-2.json", &shard[..1]);
                let teacher = out.join("teacher");
                std::fs::rename(teacher.join(&suffix), teacher.join("gradebook.json")).unwrap();
                out
            })
        });
        shards.map(|shard| shard.join().unwrap())
    });
    let mut sharded = BTreeMap::new();
    for out in &outs {
        sharded.extend(gradebook(out));
    }
    assert_eq!(sharded, gradebook(&whole));
    // Each had a site of its own, and left nothing of it behind.
    let [first, second] = outs.map(|out| site(&out));
    assert_ne!(first.workspace, second.workspace);
    if let (Some(a), Some(b)) = (&first.uids, &second.uids) {
        assert!(
            a.end() < b.start() || b.end() < a.start(),
            "{a:?} and {b:?} overlap"
        );
    }
    assert!(!first.workspace.exists() && !second.workspace.exists());
}

#[test]
fn usage_errors_are_clear() {
    let (code, _) = grade(&["/no/such/class"]);
    assert_eq!(code, 2);
    let work = tempfile::tempdir().unwrap();
    let class = class_of_two(work.path());
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args([
            "grade",
            class.to_str().unwrap(),
            "--shard",
            "3/2",
            "--seed",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("expected I/N"));
    let rubric = work.path().join("rubric.json");
    std::fs::write(
        &rubric,
        r#"{"format": "parcall-rubric", "version": 1, "points": {"EXEC-NOPE": 2}}"#,
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args([
            "grade",
            class.to_str().unwrap(),
            "--rubric",
            rubric.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown requirement EXEC-NOPE"));
}

/// Masks what varies between runs and machines.
fn stable(text: &str, work: &Path) -> String {
    let mut text = text.replace(&work.display().to_string(), "[work]");
    for (pattern, replacement) in [
        (
            r#""execution_time": [0-9.e+-]+"#,
            r#""execution_time": "[s]""#,
        ),
        (r#""duration_ms": [0-9.e+-]+"#, r#""duration_ms": "[ms]""#),
        (r#""detail": "[^"]*""#, r#""detail": "[detail]""#),
        (r#""active": (true|false)"#, r#""active": "[machine]""#),
        (r#""workspace": "[^"]*""#, r#""workspace": "[workspace]""#),
        (r#""uids": (null|\{[^}]*\})"#, r#""uids": "[machine]""#),
    ] {
        text = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&text, replacement)
            .into_owned();
    }
    text
}

#[test]
fn output_formats() {
    let work = tempfile::tempdir().unwrap();
    let class = class_of_two(work.path());
    let rubric = work.path().join("rubric.json");
    std::fs::write(&rubric, r#"{"format": "parcall-rubric", "version": 1, "default_points": 1, "points": {"EXEC-LIMIT-POSITION": 5}}"#).unwrap();
    let out = work.path().join("out");
    let (code, summary) = grade(&[
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "9",
        "--fuzz",
        "25",
        "--function",
        "execute_tool_calls",
        "--rubric",
        rubric.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{summary}");
    let read = |p: &str| stable(&std::fs::read_to_string(out.join(p)).unwrap(), work.path());
    let bob = |f: &str| format!("students/bob/{f}");
    insta::assert_snapshot!("summary", stable(&summary, work.path()));
    insta::assert_snapshot!("gradescope", read(&bob("gradescope.json")));
    insta::assert_snapshot!("exercism", read(&bob("exercism.json")));
    insta::assert_snapshot!("gradebook_csv", read("teacher/gradebook.csv"));
    insta::assert_snapshot!("gradebook_json", read("teacher/gradebook.json"));
    let exercism: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(bob("exercism.json"))).unwrap())
            .unwrap();
    for test in exercism["tests"].as_array().unwrap() {
        assert!(test["output"].as_str().unwrap_or("").chars().count() <= 500);
    }
}

/// A submission stopped by the memory limit is told which limit stopped it, whichever
/// holds it (its control group or the process limit), not a bare signal or MemoryError;
/// and too few hidden cases to show every requirement are warned of before grading.
#[test]
fn the_memory_limit_that_stops_a_submission_is_named() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(
        class.join("hoarder.py"),
        "def execute_tool_calls(calls, max_parallel=4):\n    hoard = [0] * (10**9)\n    return []\n",
    )
    .unwrap();
    let out = work.path().join("grades");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["grade", class.join("hoarder.py").to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .args(["--function", "execute_tool_calls", "--memory-mib", "256"])
        .args(["--fuzz", "1", "--seed", "3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: --fuzz 1: the generated cases of execute_tool_calls (seed 3) never show"
        ),
        "{stderr}"
    );
    let feedback = std::fs::read_to_string(out.join("students/hoarder/feedback.txt")).unwrap();
    assert!(feedback.contains("memory limit of 256 MiB"), "{feedback}");
}

/// The same submission named twice (a class and a file in it) is graded once, with a note,
/// not refused as a rival of itself.
#[test]
fn a_submission_named_twice_is_graded_once() {
    let work = tempfile::tempdir().unwrap();
    let class = class_of_two(work.path());
    let inside = std::fs::read_dir(&class)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_file())
        .unwrap();
    let out = work.path().join("grades");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["grade", class.to_str().unwrap(), inside.to_str().unwrap()])
        .args([
            "--out",
            out.to_str().unwrap(),
            "--fuzz",
            "20",
            "--seed",
            "1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("was named twice ("), "{stderr}");
    assert!(
        !summary.contains("another submission is named"),
        "{summary}"
    );
    assert!(summary.contains("2 submissions graded"), "{summary}");
}
