//! `parcall mutate` end to end, on the real binary and python3: tiny modules whose mutants
//! are known (one survives, the others are killed; one hangs; one does not compile), the
//! equivalents file that cannot rot, and bad input that must end in a clear message and exit
//! 2, never a panic. The modules are small so the whole file runs in seconds.

use crate::common;

use common::{root, temp_dir, TempPath};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A correct `run_parallel_calls` whose `ensure_ascii=True` is the default: dropping it is
/// a mutant no input can tell apart; every other mutant is a bug the cases catch.
const TINY: &str = r#"import json


def run_parallel_calls(tools, calls):
    cache = {}
    for call in calls:
        args = call.get("args", {})
        key = "%s(%s)" % (call["name"], json.dumps(args, sort_keys=True, ensure_ascii=True))
        if key in cache:
            continue
        if call["name"] not in tools:
            cache[key] = "error: unknown tool '%s'" % call["name"]
            continue
        try:
            cache[key] = tools[call["name"]](args)
        except Exception as e:
            cache[key] = "error: %s" % e
    return cache
"#;

/// A correct `run_parallel_calls` with a `while` loop (deleting `i += 1` hangs) and a
/// `nonlocal` (deleting `seen = 0` leaves it no binding: a mutant that does not compile).
const LOOP: &str = r#"import json


def run_parallel_calls(tools, calls):
    cache = {}
    seen = 0

    def count():
        nonlocal seen
        seen += 1

    i = 0
    while i < len(calls):
        call = calls[i]
        i += 1
        count()
        key = "%s(%s)" % (call["name"], json.dumps(call.get("args", {}), sort_keys=True))
        if key not in cache:
            try:
                cache[key] = tools[call["name"]](call.get("args", {})) if call["name"] in tools \
                    else "error: unknown tool '%s'" % call["name"]
            except Exception as e:
                cache[key] = "error: %s" % e
    return cache
"#;

/// The entry naming TINY's equivalent mutant.
const ENSURE_ASCII_DROPPED: &str = r#"{
  "scope": "run_parallel_calls",
  "operator": "keyword",
  "original": "key = '%s(%s)' % (call['name'], json.dumps(args, sort_keys=True, ensure_ascii=True))",
  "mutated": "key = '%s(%s)' % (call['name'], json.dumps(args, sort_keys=True))",
  "reason": "ensure_ascii=True is json.dumps's default"
}"#;

fn mutate(args: &[&str], tmpdir: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command.arg("mutate").args(args).current_dir(root());
    if let Some(dir) = tmpdir {
        command.env("TMPDIR", dir);
    }
    command.output().expect("the parcall binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn report(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(output)))
}

/// A folder holding `name` with `source`; returns the module's path.
fn module(folder: &str, name: &str, source: &str) -> TempPath {
    let path = temp_dir(folder).into_file(name);
    std::fs::write(&path, source).unwrap();
    path
}

fn equivalents(dir: &Path, entries: &[&str]) -> PathBuf {
    let path = dir.join("equivalents.json");
    let text = format!(
        "{{\"format\": \"parcall-equivalent-mutants\", \"version\": 1, \"equivalent\": [{}]}}",
        entries.join(", ")
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn mutants_with_status<'a>(
    report: &'a serde_json::Value,
    status: &str,
) -> Vec<&'a serde_json::Value> {
    report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == status)
        .collect()
}

/// The spec without the cases that kill `continue` -> `break` after a cache hit
/// (`dedup-mutant-001`, `dedup-key-015`, the `scale` file): without them only generated
/// cases do.
fn spec_without_the_mutant_case() -> TempPath {
    let dir = temp_dir("mutate-spec");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["spec", "export"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let cases = dir.join("cases/run_parallel_calls");
    std::fs::remove_file(cases.join("mutants.json")).unwrap();
    std::fs::remove_file(cases.join("scale.json")).unwrap();
    let keys = cases.join("keys.json");
    // parcall's reader and writer: the file holds numbers serde_json would change.
    let mut file = parcall::json::parse(&std::fs::read_to_string(&keys).unwrap()).unwrap();
    if let parcall::json::Value::Object(fields) = &mut file {
        if let Some(parcall::json::Value::List(list)) = fields.get_mut("cases") {
            list.retain(|c| {
                !matches!(c, parcall::json::Value::Object(o)
                    if o.get("id") == Some(&parcall::json::Value::Str("dedup-key-015".into())))
            });
        }
    }
    std::fs::write(
        &keys,
        parcall::json::dumps(&file, parcall::json::Style::PYTHON),
    )
    .unwrap();
    dir
}

#[test]
fn a_survivor_is_shown_as_a_diff_and_generated_cases_kill_what_fixed_ones_miss() {
    let path = module("mutate-tiny-human", "tiny.py", TINY);
    let spec = spec_without_the_mutant_case();
    let output = mutate(
        &[
            path.to_str().unwrap(),
            "--spec",
            spec.to_str().unwrap(),
            "--fuzz",
            "60",
            "--seed",
            "1",
            "--no-equivalents",
        ],
        None,
    );
    let all = text(&output);
    assert_eq!(output.status.code(), Some(1), "{all}");
    let out = String::from_utf8_lossy(&output.stdout);
    // The survivor: its location, its identity, and a unified diff of the one line.
    assert!(out.contains("SURVIVED "), "{all}");
    assert!(
        out.contains("tiny.py:8: run_parallel_calls: keyword:"),
        "{all}"
    );
    assert!(
        out.contains("-        key = \"%s(%s)\" % (call[\"name\"], json.dumps(args, sort_keys=True, ensure_ascii=True))\n\
                       +        key = \"%s(%s)\" % (call[\"name\"], json.dumps(args, sort_keys=True))\n"),
        "{all}"
    );
    // `continue` -> `break` passes the fixed cases of this spec; a generated case kills it.
    assert!(
        out.contains("KILLED ONLY BY GENERATED CASES") && out.contains("`continue` -> `break`"),
        "{all}"
    );
    assert!(out.contains("smallest failing generated case"), "{all}");
    assert!(
        out.contains("killed only by generated cases     1"),
        "{all}"
    );
    assert!(
        out.contains("survived                           1"),
        "{all}"
    );
}

#[test]
fn listed_equivalents_leave_the_score_and_the_file_cannot_rot() {
    let path = module("mutate-tiny-equivalents", "tiny.py", TINY);
    let dir = path.parent().unwrap().to_owned();
    let tmpdir = temp_dir("mutate-tmpdir");
    // The survivor listed, a killed mutant listed, and a mutant that is not made at all.
    let killed = r#"{"scope": "run_parallel_calls", "operator": "loop-control", "original": "continue",
                     "mutated": "break", "reason": "wrongly listed"}"#;
    let missing = r#"{"scope": "run_parallel_calls", "operator": "compare", "original": "if x < 1:",
                      "mutated": "if x <= 1:", "reason": "no such code"}"#;
    let file = equivalents(&dir, &[ENSURE_ASCII_DROPPED, killed, missing]);
    let args = [
        path.to_str().unwrap(),
        "--fuzz",
        "0",
        "--format",
        "json",
        "--equivalents",
        file.to_str().unwrap(),
    ];
    let output = mutate(&args, Some(&tmpdir));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let rotten = report(&output);
    assert_eq!(rotten["verdict"], "fail");
    let stale = rotten["stale_equivalents"].as_array().unwrap();
    assert_eq!(stale.len(), 2, "{rotten:#}");
    assert_eq!(stale[0]["operator"], "loop-control");
    assert!(stale[0]["problem"]
        .as_str()
        .unwrap()
        .contains("killed by case"));
    assert!(stale[1]["problem"]
        .as_str()
        .unwrap()
        .contains("no such mutant"));

    // Only the true equivalent listed: every other mutant is killed, so it passes.
    let file = equivalents(&dir, &[ENSURE_ASCII_DROPPED]);
    let output = mutate(&args, Some(&tmpdir));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let passed = report(&output);
    let counts = &passed["counts"];
    assert_eq!(counts["equivalent"], 1);
    assert_eq!(counts["survived"], 0);
    let made = counts["made"].as_u64().unwrap();
    assert!(made >= 15, "{passed:#}");
    assert_eq!(counts["killed_by_fixed"].as_u64().unwrap(), made - 1);
    assert_eq!(passed["score"]["fixed"], 100.0);
    let equivalent = &mutants_with_status(&passed, "equivalent")[0];
    assert_eq!(
        equivalent["reason"],
        "ensure_ascii=True is json.dumps's default"
    );
    assert_eq!(equivalent["line"], 8);
    assert!(!mutants_with_status(&passed, "killed-by-fixed").is_empty());
    assert_eq!(passed["equivalents_file"], file.to_str().unwrap());

    // Mutants were written to a private folder under TMPDIR, never beside the module, and
    // nothing is left of them.
    let beside: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(beside.len(), 2, "{beside:?}");
    let left: Vec<_> = std::fs::read_dir(&tmpdir).unwrap().collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}

#[test]
fn the_default_equivalents_file_sits_beside_the_module() {
    let path = module("mutate-tiny-default", "tiny.py", TINY);
    let beside = path.with_file_name("tiny.equivalent-mutants.json");
    let text = format!(
        "{{\"format\": \"parcall-equivalent-mutants\", \"version\": 1, \"equivalent\": [{ENSURE_ASCII_DROPPED}]}}"
    );
    std::fs::write(&beside, text).unwrap();
    let output = mutate(
        &[path.to_str().unwrap(), "--fuzz", "0", "--jobs", "2"],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", self::text(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("equivalent (listed)                1")
    );
}

#[test]
fn a_hanging_mutant_is_killed_by_the_deadline_and_one_that_does_not_compile_is_not_counted() {
    let path = module("mutate-loop", "loop.py", LOOP);
    let started = Instant::now();
    let output = mutate(
        &[
            path.to_str().unwrap(),
            "--fuzz",
            "0",
            "--timeout",
            "1",
            "--format",
            "json",
            "--no-equivalents",
        ],
        None,
    );
    let elapsed = started.elapsed();
    let report = report(&output);
    let mutants = report["mutants"].as_array().unwrap();
    let hang = mutants
        .iter()
        .find(|m| m["operator"] == "delete" && m["original"] == "i += 1")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(hang["status"], "killed-by-fixed");
    assert_eq!(hang["outcome"], "timeout");
    assert!(elapsed < Duration::from_secs(90), "{elapsed:?}");
    // Deleting `seen = 0` leaves `nonlocal seen` without a binding: it does not compile.
    assert!(
        report["counts"]["not_compiling"].as_u64().unwrap() >= 1,
        "{report:#}"
    );
    assert!(
        !mutants
            .iter()
            .any(|m| m["original"] == "seen = 0" && m["operator"] == "delete"),
        "{report:#}"
    );
    let counts = &report["counts"];
    let total: u64 = [
        "killed_by_fixed",
        "killed_only_by_generated",
        "survived",
        "equivalent",
    ]
    .iter()
    .map(|k| counts[k].as_u64().unwrap())
    .sum();
    assert_eq!(total, counts["made"].as_u64().unwrap());
    assert_eq!(counts["made"].as_u64().unwrap() as usize, mutants.len());
}

/// Bad input ends with a message naming the problem and exit 2, before any mutant runs.
#[test]
fn bad_input_is_a_clear_usage_error() {
    let dir = temp_dir("mutate-bad");
    let good = dir.join("good.py");
    std::fs::write(&good, TINY).unwrap();
    let text_file = dir.join("notes.txt");
    std::fs::write(&text_file, TINY).unwrap();
    let syntax = dir.join("syntax.py");
    std::fs::write(
        &syntax,
        "def run_parallel_calls(tools, calls):\n    return {\n",
    )
    .unwrap();
    let neither = dir.join("neither.py");
    std::fs::write(&neither, "def helper():\n    return 1\n").unwrap();
    let not_json = dir.join("bad.json");
    std::fs::write(&not_json, "{not json").unwrap();
    let no_reason = dir.join("no-reason.json");
    std::fs::write(
        &no_reason,
        r#"{"format": "parcall-equivalent-mutants", "version": 1, "equivalent": [
            {"scope": "f", "operator": "keyword", "original": "a", "mutated": "b", "reason": " "}]}"#,
    )
    .unwrap();
    let broken = root().join("conformance/examples/python/broken/dedup_unsorted_keys.py");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![s(&dir.join("missing.py"))], "no such file"),
        (vec![s(&dir)], "not a regular file"),
        (vec![s(&text_file)], "Python modules (`.py`) only"),
        (
            vec![s(&syntax)],
            "syntax.py:2:12: syntax error: '{' was never closed",
        ),
        (
            vec![s(&neither)],
            "defines none of execute_tool_calls, run_parallel_calls",
        ),
        (
            vec![s(&good), "--equivalents".into(), s(&dir.join("nope.json"))],
            "nope.json: cannot read",
        ),
        (
            vec![s(&good), "--equivalents".into(), s(&dir)],
            "cannot read",
        ),
        (
            vec![s(&good), "--equivalents".into(), s(&not_json)],
            "invalid JSON",
        ),
        (
            vec![s(&good), "--equivalents".into(), s(&no_reason)],
            "give the reason",
        ),
        (
            vec![s(&broken), "--fuzz".into(), "0".into()],
            "the module itself fails case",
        ),
        (vec![s(&good), "--jobs".into(), "0".into()], "out of range"),
        (
            vec![s(&good), "--python".into(), "/nonexistent/python3".into()],
            "--python /nonexistent/python3",
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = mutate(&args, None);
        let all = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {all}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(expected),
            "{args:?}: expected `{expected}` in {all}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {all}");
    }
}

/// The mutator's own unit tests (Python, standard library only) run with the Rust ones.
#[test]
fn the_mutator_passes_its_python_unit_tests() {
    let output = Command::new("python3")
        .arg(root().join("tests/python/test_mutator.py"))
        .current_dir(root())
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", text(&output));
}

/// The figures SPEC.md publishes are what the command it gives says today.
#[test]
fn spec_md_publishes_the_example_solutions_figures() {
    let output = mutate(
        &[
            "conformance/examples/python/solution.py",
            "--seed",
            "1",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report = report(&output);
    let c = &report["counts"];
    let percent = |v: &serde_json::Value| format!("{:.1}%", v.as_f64().unwrap());
    let table = format!(
        "| mutants of `solution.py` | count |\n\
         | --- | --- |\n\
         | made (that compile) | {} |\n\
         | killed by the fixed cases | {} |\n\
         | killed only by generated cases | {} |\n\
         | survived | {} |\n\
         | equivalent (listed with a reason) | {} |\n\
         | **score, fixed cases alone** | **{}** |\n\
         | **score, fixed and generated cases** | **{}** |\n",
        c["made"],
        c["killed_by_fixed"],
        c["killed_only_by_generated"],
        c["survived"],
        c["equivalent"],
        percent(&report["score"]["fixed"]),
        percent(&report["score"]["fixed_and_generated"]),
    );
    let spec = std::fs::read_to_string(root().join("spec/SPEC.md")).unwrap();
    assert!(
        spec.contains(&table),
        "SPEC.md's mutation figures are out of date; they are now:\n{table}"
    );
    // The suite's goal for mutation testing: at least 95% killed by the fixed cases alone.
    assert!(report["score"]["fixed"].as_f64().unwrap() >= 95.0);
}
