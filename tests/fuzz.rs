//! Generated cases end to end: they catch what the spec's fixed cases cannot (a module that
//! memorised the spec, a racy concurrent cache, a cache that outlives its batch) on every
//! seed, never fail a correct implementation, reproduce exactly from a seed, shrink to small
//! counterexamples, and persist them.

mod common;

use common::{fresh_regressions, json_report, root, stdout};
use parcall::judge::{judge, Outcome};
use parcall::reference::Execution;
use parcall::spec::{Case, CaseFile};
use parcall::subject::reference::run_case;
use std::process::Command;
use std::time::{Duration, Instant};

const SEEDS: u64 = 20;

fn example(name: &str) -> String {
    format!("conformance/examples/python/{name}.py")
}

/// Runs `check` with default settings for seeds 1..=20, two at a time; returns how many
/// runs did not conform.
fn failures_over_seeds(module: &str) -> (u64, Vec<serde_json::Value>) {
    let reports: Vec<(i32, serde_json::Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|lane| {
                scope.spawn(move || {
                    (1..=SEEDS)
                        .filter(|seed| seed % 2 == lane)
                        .map(|seed| json_report(&["check", module, "--seed", &seed.to_string()]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let failed = reports.iter().filter(|(code, _)| *code == 1).count() as u64;
    (failed, reports.into_iter().map(|(_, r)| r).collect())
}

#[test]
fn the_correct_solution_passes_on_every_seed() {
    let (failed, reports) = failures_over_seeds(&example("solution"));
    let bad: Vec<_> = reports
        .iter()
        .filter(|r| r["verdict"] != "conforms")
        .map(|r| &r["seed"])
        .collect();
    assert_eq!(failed, 0, "failed on seeds {bad:?}");
}

#[test]
fn a_module_that_memorised_the_spec_is_caught_on_every_seed_by_generated_cases() {
    let module = example("broken/memorises_the_spec");
    let (spec_only, _) = json_report(&["check", &module, "--fuzz", "0"]);
    assert_eq!(
        spec_only, 0,
        "the memoriser must pass the fixed cases, or this test proves nothing"
    );
    let (failed, reports) = failures_over_seeds(&module);
    assert_eq!(failed, SEEDS);
    for report in &reports {
        let generated_failed: u64 = report["generated"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["failed"].as_u64().unwrap())
            .sum();
        assert!(
            generated_failed > 0,
            "seed {}: caught, but not by generated cases",
            report["seed"]
        );
    }
}

#[test]
fn a_racy_concurrent_cache_is_caught_on_at_least_19_of_20_seeds() {
    let (failed, _) = failures_over_seeds(&example("broken/dedup_racy_cache"));
    assert!(failed >= 19, "caught on only {failed} of {SEEDS} seeds");
}

#[test]
fn a_cache_that_outlives_the_batch_is_caught_on_every_seed() {
    let (failed, reports) = failures_over_seeds(&example("broken/dedup_shared_cache"));
    assert_eq!(failed, SEEDS);
    for report in &reports {
        let generated = report["generated"].as_array().unwrap();
        assert!(
            generated.iter().any(|g| g["failed"].as_u64() > Some(0)),
            "seed {}",
            report["seed"]
        );
    }
}

/// The report without what varies from run to run on its own (durations).
fn without_durations(mut report: serde_json::Value) -> serde_json::Value {
    report["duration_ms"] = serde_json::Value::Null;
    for case in report["cases"].as_array_mut().unwrap() {
        case["duration_ms"] = serde_json::Value::Null;
    }
    for generated in report["generated"].as_array_mut().unwrap() {
        for case in generated["counterexamples"].as_array_mut().unwrap() {
            case["duration_ms"] = serde_json::Value::Null;
        }
    }
    report
}

#[test]
fn the_same_seed_reproduces_the_run_exactly() {
    let module = example("broken/dedup_unsorted_keys");
    let first = without_durations(json_report(&["check", &module, "--seed", "42"]).1);
    let second = without_durations(json_report(&["check", &module, "--seed", "42"]).1);
    assert_eq!(first, second);
    assert_eq!(first["seed"], 42);
    let other = without_durations(json_report(&["check", &module, "--seed", "43"]).1);
    assert_ne!(first["generated"], other["generated"]);
}

#[test]
fn counterexamples_are_small_saved_as_case_files_and_replayed_first() {
    let saved = tempfile::tempdir().unwrap();
    let regressions = fresh_regressions();
    let module = example("broken/dedup_racy_cache");
    let run = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
            .args([
                "check",
                &module,
                "--format",
                "json",
                "--function",
                "run_parallel_calls",
            ])
            .args(extra)
            .current_dir(root())
            .env("PARCALL_REGRESSIONS", &regressions)
            .output()
            .unwrap();
        parcall::json::to_serde_json(&parcall::json::parse(&stdout(&output)).unwrap())
    };
    let save_dir = saved.path().to_str().unwrap().to_owned();
    let first = run(&["--seed", "3", "--save-failures", &save_dir]);
    let entry = first["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "generated-dedup")
        .unwrap()
        .clone();
    assert_ne!(entry["outcome"], "pass", "{first:#}");
    let calls = entry["input"]["calls"].as_array().unwrap();
    assert!(calls.len() <= 4, "not shrunk: {calls:?}");

    // The saved file is a valid case file whose expectations the reference meets.
    let files: Vec<_> = std::fs::read_dir(saved.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let file: CaseFile = parcall::json::from_value(&parcall::json::parse(&text).unwrap()).unwrap();
    let CaseFile::RunParallelCalls { cases, .. } = file else {
        panic!("wrong function")
    };
    let case = Case::Dedup(cases[0].clone());
    assert_eq!(
        judge(&case, &run_case(&case, Execution::CONCURRENT).unwrap()),
        Outcome::Pass
    );

    // The next run replays it first, before any spec case.
    let second = run(&["--fuzz", "0"]);
    let first_case = &second["cases"][0];
    assert!(
        first_case["id"]
            .as_str()
            .unwrap()
            .starts_with("regression-dedup-3-"),
        "{first_case:#}"
    );
    assert!(first_case["file"]
        .as_str()
        .unwrap()
        .ends_with("regressions.json"));
}

#[test]
fn a_hang_during_generation_and_shrinking_is_an_outcome_in_bounded_time() {
    let started = Instant::now();
    let (code, report) = json_report(&[
        "check",
        "conformance/fixtures/python/hang.py",
        "--function",
        "execute_tool_calls",
        "--fuzz",
        "40",
        "--seed",
        "5",
        "--timeout",
        "1",
    ]);
    assert_eq!(code, 1);
    let entry = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "generated-exec")
        .unwrap();
    assert_ne!(entry["outcome"], "pass");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
}
