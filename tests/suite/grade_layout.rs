//! Where `parcall grade` puts what: a student's folder can be handed over as it is (no seed,
//! no hidden case, no rerun command), the teacher's files sit apart; and a class that mixes
//! one-function and two-function submissions says which is which.

use crate::common;

use common::{copy_from_repo, gradebook_entry, read_gradebook, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SOLUTION: &str = "conformance/examples/python/solution.py";

fn grade(class: &Path, out: &Path, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("grade")
        .arg(class)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "2"])
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Every file under `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// The ids of the hidden generated cases a teacher's report names (`generated-...`).
fn generated_ids(report: &str) -> Vec<String> {
    regex::Regex::new(r"\bgenerated-(exec|dedup)[a-z0-9-]*")
        .unwrap()
        .find_iter(report)
        .map(|m| m.as_str().to_owned())
        .collect()
}

#[test]
fn student_folders_hold_no_seed_no_hidden_case_and_no_rerun_command() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    for broken in [
        "limit_off_by_one",
        "ids_forgotten_after_64",
        "answers_from_the_spec",
    ] {
        copy_from_repo(
            &format!("conformance/examples/python/broken/{broken}.py"),
            &class.join(format!("{broken}.py")),
        );
    }
    let out = work.path().join("out");
    let seed = "7312945";
    grade(
        &class,
        &out,
        &[
            "--seed",
            seed,
            "--fuzz",
            "40",
            "--function",
            "execute_tool_calls",
        ],
    );
    let names = [
        "alice",
        "limit_off_by_one",
        "ids_forgotten_after_64",
        "answers_from_the_spec",
    ];
    let teacher = out.join("teacher");
    for file in ["gradebook.csv", "gradebook.json", "class.html"] {
        assert!(teacher.join(file).is_file(), "no teacher/{file}");
    }
    let mut hidden = Vec::new();
    let mut reports_text = String::new();
    for name in names {
        let reports = teacher.join("reports").join(name);
        let report = std::fs::read_to_string(reports.join("report.txt")).unwrap();
        assert!(
            reports.join("report.html").is_file(),
            "no report.html for {name}"
        );
        hidden.extend(generated_ids(&report));
        reports_text.push_str(&report);
    }
    assert!(
        reports_text.contains(&format!("--seed {seed}")),
        "the teacher's reports name the seed:\n{reports_text}"
    );
    assert!(
        !hidden.is_empty(),
        "no hidden case failed: the test shows nothing"
    );
    let students = out.join("students");
    let mut folders: Vec<String> = std::fs::read_dir(&students)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut expected: Vec<String> = names.map(str::to_owned).into();
    expected.sort();
    assert_eq!(
        folders, expected,
        "students/ holds a folder per student and nothing else"
    );
    for file in files(&students) {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(&out).unwrap().display();
        assert!(!text.contains(seed), "{shown} reveals the seed:\n{text}");
        assert!(
            !text.to_lowercase().contains("seed"),
            "{shown} speaks of a seed:\n{text}"
        );
        assert!(
            !text.contains("--seed"),
            "{shown} holds a rerun command:\n{text}"
        );
        for id in &hidden {
            assert!(
                !text.contains(id.as_str()),
                "{shown} names hidden case {id}:\n{text}"
            );
        }
    }
}

#[test]
fn a_mixed_class_notes_each_submission_that_defines_fewer_functions() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    // Correct, but only the first exercise's function.
    let solution = std::fs::read_to_string(root().join(SOLUTION)).unwrap();
    let one = solution.replace("def run_parallel_calls(", "def _not_asked_for(");
    assert_ne!(one, solution);
    std::fs::write(class.join("bob.py"), one).unwrap();
    let out = work.path().join("out");
    let output = grade(&class, &out, &["--seed", "3", "--fuzz", "10"]);
    let alice = gradebook_entry(&out, "alice");
    let bob = gradebook_entry(&out, "bob");
    assert_eq!(
        alice["functions"],
        serde_json::json!(["execute_tool_calls", "run_parallel_calls"])
    );
    assert_eq!(bob["functions"], serde_json::json!(["execute_tool_calls"]));
    assert!(alice["note"].is_null(), "{alice}");
    let note = bob["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("defines only execute_tool_calls")
            && note.contains("scored on execute_tool_calls and run_parallel_calls")
            && note.contains("--function execute_tool_calls"),
        "{bob}"
    );
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains(&format!("note: bob: {note}")), "{summary}");
    assert!(!summary.contains("note: alice"), "{summary}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("1 submissions define fewer functions"),
        "{stderr}"
    );
    let csv = std::fs::read_to_string(out.join("teacher/gradebook.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",functions"), "{csv}");
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows[0].starts_with("alice,")
            && rows[0].ends_with(",execute_tool_calls run_parallel_calls"),
        "{csv}"
    );
    assert!(
        rows[1].starts_with("bob,") && rows[1].ends_with(",execute_tool_calls"),
        "{csv}"
    );
    assert!(read_gradebook(&out)["complete"].as_bool().unwrap());
}
