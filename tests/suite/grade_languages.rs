//! `parcall grade` for every language `parcall check` runs: JavaScript modules under the Node
//! adapter and programs named by a `parcall.json` manifest go through the same launch
//! builder and the same sandbox as Python modules, and are scored alike.

use crate::common;

use common::{copy_from_repo, gradebook, gradebook_entry, parcall};
use std::path::Path;

/// A class of one correct and one broken JavaScript module, a correct program named by its
/// manifest (the Python example under the Python adapter, started by the manifest's own
/// command), and manifests that are malformed.
fn class(dir: &Path) {
    copy_from_repo(
        "conformance/examples/javascript/solution.mjs",
        &dir.join("alice.mjs"),
    );
    copy_from_repo(
        "conformance/examples/javascript/broken/ids_zero_based.cjs",
        &dir.join("bob.cjs"),
    );
    let carol = dir.join("carol");
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &carol.join("solution.py"),
    );
    copy_from_repo(
        "conformance/adapters/python/parcall_adapter.py",
        &carol.join("adapter.py"),
    );
    let manifest = r#"{"cmd": ["python3", "-I", "-B", "adapter.py", "solution.py"]}"#;
    std::fs::write(carol.join("parcall.json"), manifest).unwrap();
    for (name, manifest) in [
        ("dave", r#"{"cmd": ["python3", "impl.py"], "cwd": "/"}"#),
        ("erin", r#"{"cmd": "python3 impl.py"}"#),
        ("frank", r#"{"cmd": []}"#),
    ] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(dir.join(name).join("parcall.json"), manifest).unwrap();
    }
}

#[test]
fn javascript_modules_and_manifest_programs_are_graded_like_python_modules() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("class");
    class(&dir);
    let out = work.path().join("results");
    let output = parcall(&[
        "grade",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "5",
        "--fuzz",
        "20",
        "--jobs",
        "2",
    ]);
    let summary = String::from_utf8_lossy(&output.stdout);
    let errors = String::from_utf8_lossy(&output.stderr);
    // Refused submissions are the students' to fix: the run itself is complete.
    assert_eq!(output.status.code(), Some(0), "{summary}\n{errors}");

    let scores = gradebook(&out);
    for correct in ["alice", "carol"] {
        let (score, max) = scores[correct];
        assert_eq!(score, max, "{correct} lost points:\n{summary}\n{errors}");
        assert_eq!(gradebook_entry(&out, correct)["verdict"], "conforms");
    }

    // Zero-based generated ids break exactly the requirement on generated ids.
    let bob = gradebook_entry(&out, "bob");
    assert_eq!(bob["verdict"], "does_not_conform");
    let lost: Vec<&str> = bob["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["earned"].as_f64() < r["points"].as_f64())
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(lost, ["EXEC-ID-GENERATED"], "{summary}");

    // Each malformed manifest refuses its own submission, with the reason, and no other.
    for (name, reason) in [
        ("dave", "unknown field `cwd`"),
        ("erin", "expected a sequence"),
        ("frank", "`cmd` is empty"),
    ] {
        let entry = gradebook_entry(&out, name);
        assert_eq!(entry["score"], 0.0, "{name}");
        let error = entry["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with("parcall.json: ") && error.contains(reason),
            "{name}: {error}"
        );
    }
}

#[test]
fn a_javascript_submission_runs_under_the_node_that_grade_is_given() {
    let work = tempfile::tempdir().unwrap();
    let module = work.path().join("alice.mjs");
    copy_from_repo("conformance/examples/javascript/solution.mjs", &module);
    let out = work.path().join("results");
    let output = parcall(&[
        "grade",
        module.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--fuzz",
        "0",
        "--node",
        "/nonexistent/node",
    ]);
    let summary = String::from_utf8_lossy(&output.stdout);
    let entry = gradebook_entry(&out, "alice");
    assert_eq!(entry["score"], 0.0, "{summary}");
    assert!(
        summary.contains("alice") && entry["verdict"] != "conforms",
        "{summary}"
    );
}
