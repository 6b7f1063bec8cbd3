//! CI gating: expectations files for implementations that knowingly deviate (here a
//! JavaScript port that writes the numbers of its keys with `JSON.stringify`, so NaN and the
//! infinities key as `null`), the JavaScript adapter and its examples, the CI report
//! formats, and reading the spec without running anything.

use crate::common;

use common::{json_report, parcall, root, stdout};

const JS: &str = "conformance/examples/javascript/stringify_numbers.mjs";
const JS_EXPECTATIONS: &str = "conformance/examples/javascript/stringify_numbers.expectations.json";

/// Generated cases per function in the gating runs: enough that the example's generated
/// deviations fail (its file lists them), a fifth of `check`'s default, since the gate's
/// logic, not the draw's size, is what these tests hold.
const GATED_FUZZ: &str = "100";

/// `parcall check MODULE --seed 1 --expectations FILE`, as a JavaScript runtime's CI runs it.
fn gated(module: &str, expectations: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec![
        "check",
        module,
        "--seed",
        "1",
        "--expectations",
        expectations,
    ];
    if !extra.contains(&"--fuzz") {
        args.extend(["--fuzz", GATED_FUZZ]);
    }
    args.extend(extra);
    json_report(&args)
}

fn problems(report: &serde_json::Value) -> String {
    report["expectation_problems"].to_string()
}

/// A copy of the JavaScript example's expectations with one edit.
fn edited_expectations(edit: impl FnOnce(&mut serde_json::Value)) -> tempfile::NamedTempFile {
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(JS_EXPECTATIONS)).unwrap())
            .unwrap();
    edit(&mut file);
    let temp = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(temp.path(), serde_json::to_string_pretty(&file).unwrap()).unwrap();
    temp
}

#[test]
fn a_deviating_implementation_passes_when_its_expectations_hold() {
    let (code, report) = gated(JS, JS_EXPECTATIONS, &[]);
    assert_eq!(code, 0, "{}", problems(&report));
    assert!(report["summary"]["expected_failures"].as_u64().unwrap() > 0);
    let (without, _) = json_report(&["check", JS, "--seed", "1", "--fuzz", GATED_FUZZ]);
    assert_eq!(without, 1, "without the file, the deviations fail the run");
}

#[test]
fn a_regression_fails_the_gate() {
    let (code, report) = gated(
        "conformance/examples/javascript/broken/ids_zero_based.cjs",
        JS_EXPECTATIONS,
        &[],
    );
    assert_eq!(code, 1);
    assert!(report["summary"]["failed"].as_u64().unwrap() > 0);
}

#[test]
fn a_fix_without_updating_the_file_fails_the_gate() {
    let file = edited_expectations(|f| {
        f["known_failures"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"case": "exec-seed-001", "outcome": "wrong output"}));
    });
    let (code, report) = gated(JS, file.path().to_str().unwrap(), &[]);
    assert_eq!(code, 1);
    assert!(
        problems(&report).contains("exec-seed-001: expected `wrong output`, but it passes now"),
        "{}",
        problems(&report)
    );
}

#[test]
fn a_changed_outcome_an_entry_matching_nothing_and_a_broad_glob_fail_the_gate() {
    let cases = [
        (
            serde_json::json!({"case": "dedup-number-006", "outcome": "exception"}),
            "expected `exception`, got `wrong output`",
        ),
        (
            serde_json::json!({"case": "exec-nothing-*", "outcome": "wrong output"}),
            "matches no case that ran",
        ),
        (
            serde_json::json!({"case": "dedup-*", "outcome": "wrong output"}),
            "more than max_glob_matches (10)",
        ),
    ];
    for (entry, message) in cases {
        let file = edited_expectations(|f| {
            f["known_failures"]
                .as_array_mut()
                .unwrap()
                .push(entry.clone())
        });
        let (code, report) = gated(JS, file.path().to_str().unwrap(), &["--fuzz", "0"]);
        assert_eq!(code, 1, "{entry}");
        assert!(
            problems(&report).contains(message),
            "{entry}: {}",
            problems(&report)
        );
    }
}

#[test]
fn update_expectations_rewrites_the_file_from_the_run() {
    let file = edited_expectations(|f| {
        f["known_failures"] = serde_json::json!([{"case": "dedup-number-006", "outcome": "wrong output", "reason": "JSON.stringify's numbers"}, {"case": "exec-seed-001", "outcome": "crash"}]);
    });
    let path = file.path().to_str().unwrap();
    let (code, _) = gated(JS, path, &["--update-expectations"]);
    assert_eq!(code, 0);
    let rewritten: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let entries = rewritten["known_failures"].as_array().unwrap();
    assert!(
        !entries.iter().any(|e| e["case"] == "exec-seed-001"),
        "a passing case stayed listed"
    );
    let kept = entries
        .iter()
        .find(|e| e["case"] == "dedup-number-006")
        .unwrap();
    assert_eq!(kept["reason"], "JSON.stringify's numbers");
    assert_eq!(gated(JS, path, &[]).0, 0);
}

#[test]
fn every_broken_javascript_example_is_caught_by_the_requirement_it_breaks_or_refused_as_it_says() {
    for entry in std::fs::read_dir(root().join("conformance/examples/javascript/broken")).unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        let (code, report) = json_report(&["check", path.to_str().unwrap(), "--fuzz", "0"]);
        assert_eq!(code, 1, "{} was not caught", path.display());
        if let Some(refusal) = source
            .lines()
            .find_map(|l| l.strip_prefix("// parcall: refused at load: "))
        {
            let error = report["error"].as_str().unwrap_or_default();
            assert!(error.contains(refusal), "{}: {error}", path.display());
            continue;
        }
        let breaks: Vec<&str> = source
            .lines()
            .find_map(|l| l.strip_prefix("// parcall: breaks "))
            .unwrap()
            .split_whitespace()
            .collect();
        // Lost: not met (RULES D).
        let failed: Vec<&str> = report["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["met"] != true)
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        for requirement in breaks {
            assert!(
                failed.contains(&requirement),
                "{}: {requirement} not among {failed:?}",
                path.display()
            );
        }
    }
}

#[test]
fn ci_formats_point_at_the_failing_case() {
    let module = "conformance/examples/python/broken/zero_means_default.py";
    let github = stdout(&parcall(&[
        "check", module, "--fuzz", "0", "--format", "github",
    ]));
    // A built-in case is no file of the checked repository: the message names it.
    assert!(
        github
            .contains("::case exec-limit-003 (parcall's spec/cases/execute_tool_calls/limit.json:"),
        "{github}"
    );
    assert!(
        github.contains("title=parcall%3A EXEC-LIMIT-ZERO broken in exec-limit-003 wrong output"),
        "{github}"
    );
    let markdown = stdout(&parcall(&[
        "check", module, "--fuzz", "0", "--format", "markdown",
    ]));
    assert!(
        markdown.starts_with("## parcall: ❌ does not conform"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| exec-limit-003 | wrong output | EXEC-LIMIT-ZERO |"),
        "{markdown}"
    );
}

#[test]
fn a_truncated_json_report_is_detectable() {
    let text = stdout(&parcall(&[
        "check",
        "conformance/examples/python/solution.py",
        "--fuzz",
        "0",
        "--format",
        "json",
    ]));
    let last_field = text
        .trim_end()
        .trim_end_matches('}')
        .trim_end()
        .lines()
        .last()
        .unwrap()
        .trim()
        .to_owned();
    assert_eq!(last_field, "\"complete\": true");
    assert!(parcall::json::parse(&text[..text.len() / 2]).is_err());
}

#[test]
fn the_spec_can_be_listed_shown_and_exported_without_running_anything() {
    // Every case of the spec folder, one a line: counted from the folder, so a new case is
    // not a change to this test.
    let cases = parcall::spec::Spec::load(&root().join("spec"))
        .unwrap()
        .cases
        .len();
    let list = stdout(&parcall(&["spec", "list"]));
    assert_eq!(list.lines().count(), cases);
    assert!(list
        .lines()
        .next()
        .unwrap()
        .starts_with("exec-dispatch-001\texecute_tool_calls\t"));
    let shown: serde_json::Value =
        serde_json::from_str(&stdout(&parcall(&["spec", "show", "exec-seed-004"]))).unwrap();
    assert_eq!(
        shown["batches"][0]["expected"][1]["content"],
        "error: duplicate tool_call_id 'x'"
    );
    let requirement = stdout(&parcall(&["spec", "show", "EXEC-LIMIT-ZERO"]));
    assert!(requirement.contains("\"level\": \"MUST\""));
    assert_eq!(parcall(&["spec", "show", "nope"]).status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("exported");
    assert!(parcall(&[
        "spec",
        "export",
        out.to_str().unwrap(),
        "--generated",
        "20",
        "--seed",
        "4"
    ])
    .status
    .success());
    let exported = parcall::spec::Spec::load(&out).unwrap();
    assert_eq!(exported.cases.len(), cases + 60);
    let (code, _) = json_report(&[
        "check",
        "conformance/examples/python/solution.py",
        "--spec",
        out.to_str().unwrap(),
        "--fuzz",
        "0",
    ]);
    assert_eq!(code, 0);
}

/// The minimal adapter in a third language (Rust, in conformance/adapters/rust/) builds on
/// its own and, with its example implementation, conforms: the worked example of
/// PROTOCOL.md's "Support a new language" is real.
#[test]
fn the_minimal_rust_adapter_conforms() {
    let program = common::built_adapters::rust_program();
    // The example keys numbers as doubles and reads with serde_json's recursion limit:
    // its expectations file names the cases that costs, with reasons.
    let expectations = root().join("conformance/adapters/rust/expectations.json");
    let (code, report) = json_report(&[
        "check",
        "--cmd",
        program.to_str().unwrap(),
        "--seed",
        "1",
        "--expectations",
        expectations.to_str().unwrap(),
    ]);
    // What failed, and how, not only how many: the one failure seen so far came under load.
    let unexpected: Vec<_> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] != "pass" && c["expected_failure"] != true)
        .map(|c| {
            (
                c["id"].clone(),
                c["outcome"].clone(),
                c["detail"].clone(),
                c["duration_ms"].clone(),
            )
        })
        .collect();
    assert_eq!(
        code, 0,
        "{:#} {:#} {unexpected:#?}",
        report["summary"], report["expectation_problems"]
    );
    assert_eq!(report["implementation"]["name"], "rust example");
}

/// Every `spec export` error names the path it is about: a file where the folder should be,
/// or where a folder inside it should be, said only `File exists` or `Not a directory`.
#[test]
fn spec_export_errors_name_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let inner = dir.path().join("export");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(inner.join("cases"), "").unwrap();
    for (target, named) in [
        (file.clone(), file.clone()),
        (inner.clone(), inner.join("cases")),
    ] {
        let output = parcall(&["spec", "export", target.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("{}: exists and is not a folder", named.display())),
            "{stderr}"
        );
    }
}

/// `--overwrite` replaces an earlier export and nothing else: an entry named like one an
/// export writes but of another kind (a file `cases`) is the user's, named and kept.
#[test]
fn spec_export_overwrite_keeps_what_is_not_an_export() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("export");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("cases"), "mine").unwrap();
    let output = parcall(&["spec", "export", target.to_str().unwrap(), "--overwrite"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("exists and is not a folder"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(target.join("cases")).unwrap(),
        "mine"
    );
    // An earlier export is replaced.
    let fresh = dir.path().join("fresh");
    assert_eq!(
        parcall(&["spec", "export", fresh.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    let again = parcall(&["spec", "export", fresh.to_str().unwrap(), "--overwrite"]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}
