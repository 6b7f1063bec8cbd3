//! What parcall observes of a runtime rather than reads from it (RULES F3, F7, F8): the tool
//! invocations a framework has outstanding at once, against the concurrency it declares; a
//! JavaScript runtime's tools pending until parcall answers, so its completion order shows as
//! a Python runtime's does; and a case at the deepest nesting a case file admits carried to
//! a runtime and back.

use crate::common::{copy_dir, root};
use std::collections::BTreeSet;
use std::process::Command;

const FIXTURES: &str = "tests/fixtures/runtimes/observed";
const CORRECT: &str = "conformance/fixtures/runtimes/correct.py";

/// A runtime-profile check of `runtime` as its JSON report, with `extra` arguments.
fn check(runtime: &str, extra: &[&str]) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", runtime, "--profile", "runtime", "--no-regressions"])
        .args(["--format", "json"])
        .args(extra)
        .current_dir(root())
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{runtime}: {e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The requirements the report does not count as met.
fn lost(report: &serde_json::Value) -> BTreeSet<String> {
    report["requirements"]
        .as_array()
        .unwrap_or_else(|| panic!("no requirements in the report: {report}"))
        .iter()
        .filter(|r| r["met"] != true)
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

/// A runtime that runs five tools at once while declaring at most one breaks the concurrency
/// requirement alone; the same runtime declaring no limit conforms; both reports show the
/// measured maximum beside the declared one.
#[test]
fn running_five_at_once_breaks_a_declared_limit_of_one_and_not_no_limit() {
    let only = ["--case", "runtime-concurrency-001", "--fuzz", "0"];
    let declares_one = check(&fixture("declares_one_runs_all.py"), &only);
    assert_eq!(
        lost(&declares_one),
        BTreeSet::from(["RUNTIME-CONCURRENCY-DECLARED".to_owned()]),
        "{declares_one}"
    );
    assert_eq!(declares_one["verdict"], "does_not_conform");
    assert_eq!(declares_one["concurrency"]["declared"], 1);
    // Five threads start within parcall's hold on any machine not starved of time: at the
    // least two overlap, which is enough to break the bound.
    let measured = declares_one["concurrency"]["measured"].as_u64().unwrap();
    assert!((2..=5).contains(&measured), "{declares_one}");

    let no_limit = check(CORRECT, &only);
    assert_eq!(lost(&no_limit), BTreeSet::new(), "{no_limit}");
    assert_eq!(no_limit["verdict"], "conforms");
    assert_eq!(no_limit["concurrency"]["declared"], serde_json::Value::Null);
    assert!(no_limit["concurrency"]["measured"].as_u64().unwrap() >= 2);
}

/// The terminal report shows the measured concurrency beside the declared one.
#[test]
fn the_terminal_report_shows_measured_beside_declared() {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", &fixture("declares_one_runs_all.py")])
        .args(["--profile", "runtime", "--no-regressions", "--fuzz", "0"])
        .args(["--case", "runtime-concurrency-001", "--color", "never"])
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("concurrency: declared at most 1 at once, measured "),
        "{text}"
    );
}

/// A sequential runtime that declares no limit misses the SHOULD alone, and still conforms:
/// a SHOULD is scored apart from the MUSTs.
#[test]
fn a_declared_concurrency_never_shown_misses_the_should_and_still_conforms() {
    let report = check(
        &fixture("sequential_declares_no_limit.py"),
        &["--case", "runtime-concurrency-001", "--fuzz", "0"],
    );
    assert_eq!(
        lost(&report),
        BTreeSet::from(["RUNTIME-CONCURRENCY-SHOWN".to_owned()]),
        "{report}"
    );
    assert_eq!(report["verdict"], "conforms", "{report}");
    assert_eq!(report["concurrency"]["measured"], 1);
}

/// A JavaScript runtime that gives results in the order its tools finished fails the order
/// requirement on every seed, as its Python twin does: the tools parcall holds stay pending.
#[test]
fn completion_order_fails_result_order_in_javascript_as_in_python_on_every_seed() {
    for twin in ["completion_order.mjs", "completion_order.py"] {
        for seed in ["1", "2", "3"] {
            let report = check(&fixture(twin), &["--seed", seed, "--fuzz", "30"]);
            assert_eq!(
                lost(&report),
                BTreeSet::from(["RUNTIME-RESULT-ORDER".to_owned()]),
                "{twin} seed {seed}: {report}"
            );
        }
    }
}

/// A case whose arguments nest as deep as a case file admits reaches a correct runtime and
/// comes back: the transport's limit is the case files' (RULES F8).
#[test]
fn a_correct_runtime_passes_a_case_at_the_deepest_nesting_a_case_file_admits() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec");
    copy_dir(&root().join("spec"), &spec);
    // The arguments sit 8 levels into the file (file, cases, case, batches, batch, calls,
    // call, arguments); the parser admits 512.
    let depth = 512 - 8;
    let deep = "[".repeat(depth) + &"]".repeat(depth);
    let case = format!(
        r#"{{"$schema": "../../schema/case.schema.json", "function": "run_tool_calls", "topic": "deep",
  "cases": [{{"id": "runtime-deep-001", "description": "Arguments nested as deep as a case file admits.",
    "requirements": ["RUNTIME-ARGS-UNCHANGED"],
    "tools": {{"echo": {{"responses": [{{"answers": [{{"type": "return", "value": "ok"}}]}}]}}}},
    "batches": [{{"calls": [{{"id": "call_1", "name": "echo", "arguments": {{"a": {deep}}}}}]}}]}}]}}"#
    );
    std::fs::write(spec.join("cases/run_tool_calls/deep.json"), case).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", CORRECT, "--profile", "runtime", "--no-regressions"])
        .args([
            "--spec",
            spec.to_str().unwrap(),
            "--case",
            "runtime-deep-001",
        ])
        .args(["--fuzz", "0", "--color", "never"])
        .current_dir(root())
        .output()
        .unwrap();
    // The human report: the JSON one holds the case's input, deeper than serde_json reads.
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("1 passed"), "{text}");
}
