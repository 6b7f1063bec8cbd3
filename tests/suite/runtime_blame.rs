//! Blame in the runtime profile follows the bug, not the seed (RULES D, RULES runtime): a
//! correct plain-Python runtime loses nothing, and each single-defect copy of it
//! (conformance/fixtures/runtimes/) loses exactly the requirements its first line names, the
//! same set on every seed.

use crate::common::root;
use std::collections::BTreeSet;
use std::process::Command;

const FOLDER: &str = "conformance/fixtures/runtimes";

/// Seeds every fixture is checked with: 1 and 2, and the seeds whose generated cases once
/// charged a fixture with a rule it does not break (a dropped one of two calls sharing an
/// id also charged to order, a framework's crash beside a tool's bare exception taken for
/// the tool's, a short error message found in another call's result, a renamed id's result
/// dealt out of order). Seeds 1 to 20 all give each fixture exactly its rules.
const SEEDS: [u64; 6] = [1, 2, 3, 7, 9, 11];

/// Generated cases per run.
const FUZZ: &str = "100";

/// Runs checked at once: each is mostly waits on its adapter's round trips.
const LANES: usize = 4;

/// Every fixture with the requirements its first line (`# parcall: breaks ...`) names;
/// `nothing` names none.
fn fixtures() -> Vec<(String, BTreeSet<String>)> {
    let mut fixtures = Vec::new();
    for entry in std::fs::read_dir(root().join(FOLDER)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("py") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let declared = source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# parcall: breaks "))
            .unwrap_or_else(|| panic!("{} names no requirement on its first line", path.display()))
            .split_whitespace()
            .filter(|r| *r != "nothing")
            .map(str::to_owned)
            .collect();
        let relative = path.strip_prefix(root()).unwrap().display().to_string();
        fixtures.push((relative, declared));
    }
    fixtures.sort();
    fixtures
}

/// The requirements a runtime-profile check of `fixture` at `seed` does not count as met.
fn lost(fixture: &str, seed: u64) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", fixture, "--profile", "runtime", "--fuzz", FUZZ])
        .args([
            "--seed",
            &seed.to_string(),
            "--no-regressions",
            "--format",
            "json",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{fixture} seed {seed}: {e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let requirements = report["requirements"].as_array().unwrap_or_else(|| {
        panic!("{fixture} seed {seed}: no requirements in the report: {report}")
    });
    assert!(
        requirements
            .iter()
            .all(|r| r["function"] == "run_tool_calls"),
        "{fixture} seed {seed}: a requirement of another profile was judged"
    );
    requirements
        .iter()
        .filter(|r| r["met"] != true)
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A test fails if the runtime judge charges a defect to a requirement it does not break, or
/// misses the one it does, or the correct runtime loses anything, on any seed.
#[test]
fn each_runtime_fixture_loses_exactly_the_requirements_it_names() {
    let fixtures = fixtures();
    assert!(
        fixtures.iter().any(|(_, d)| d.is_empty()),
        "no correct fixture in {FOLDER}"
    );
    assert!(
        fixtures.len() >= 10,
        "{FOLDER} holds {} fixtures",
        fixtures.len()
    );
    let runs: Vec<(&str, u64)> = fixtures
        .iter()
        .flat_map(|(f, _)| SEEDS.map(|s| (f.as_str(), s)))
        .collect();
    let mut results = Vec::new();
    for lane in runs.chunks(LANES) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = lane
                .iter()
                .map(|&(f, s)| scope.spawn(move || (f, s, lost(f, s))))
                .collect();
            results.extend(handles.into_iter().map(|h| h.join().unwrap()));
        });
    }
    let mut wrong = Vec::new();
    for (fixture, seed, lost) in results {
        let declared = &fixtures.iter().find(|(f, _)| f == fixture).unwrap().1;
        if &lost != declared {
            wrong.push(format!(
                "{fixture} seed {seed}: lost {lost:?}, names {declared:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
