//! The runtime judge holds a framework to the policies it declares (RULES R9): each
//! probe in tests/fixtures/runtimes/ is correct but for one behaviour of seed 000's or seed
//! 003's conventions. Declared, it conforms on seeds 1 to 10; the same file with its
//! `# declared` line removed (so the reference runtime's policy stands) loses exactly the
//! one requirement its first line names, on every seed. A value parcall does not know is
//! the caller's set-up error.

use crate::common::root;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const FOLDER: &str = "tests/fixtures/runtimes";

/// Every seed the done-when names.
const SEEDS: std::ops::RangeInclusive<u64> = 1..=10;

/// Generated cases per run.
const FUZZ: &str = "60";

/// Runs checked at once: each is mostly waits on its adapter's round trips.
const LANES: usize = 4;

/// Each probe with the requirements its undeclared twin loses.
fn probes() -> Vec<(PathBuf, BTreeSet<String>)> {
    let mut probes = Vec::new();
    for entry in std::fs::read_dir(root().join(FOLDER)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("py") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let breaks = source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# parcall: undeclared breaks "))
            .unwrap_or_else(|| panic!("{} names no requirement on its first line", path.display()))
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        assert!(
            source.lines().any(|l| l.ends_with("# declared")),
            "{} has no line marked `# declared`",
            path.display()
        );
        probes.push((path, breaks));
    }
    probes.sort();
    probes
}

/// `probe` without its `# declared` line, written into `folder`.
fn undeclared(probe: &Path, folder: &Path) -> PathBuf {
    let source = std::fs::read_to_string(probe).unwrap();
    let kept: Vec<&str> = source
        .lines()
        .filter(|l| !l.ends_with("# declared"))
        .collect();
    let path = folder.join(probe.file_name().unwrap());
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    path
}

/// The requirements a runtime-profile check of `file` at `seed` does not count as met.
fn lost(file: &Path, seed: u64) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("check")
        .arg(file)
        .args(["--profile", "runtime", "--fuzz", FUZZ, "--no-regressions"])
        .args(["--seed", &seed.to_string(), "--format", "json"])
        .current_dir(root())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{} seed {seed}: {e}: {}{}",
            file.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    report["requirements"]
        .as_array()
        .unwrap_or_else(|| panic!("{} seed {seed}: no requirements: {report}", file.display()))
        .iter()
        .filter(|r| r["met"] != true)
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn each_declared_policy_conforms_and_undeclared_costs_exactly_one_requirement() {
    let probes = probes();
    assert!(probes.len() >= 9, "{FOLDER} holds {} probes", probes.len());
    let scratch = tempfile::tempdir().unwrap();
    let mut runs: Vec<(PathBuf, BTreeSet<String>, u64)> = Vec::new();
    for (probe, breaks) in &probes {
        assert_eq!(breaks.len(), 1, "{} names {breaks:?}", probe.display());
        let twin = undeclared(probe, scratch.path());
        for seed in SEEDS {
            runs.push((probe.clone(), BTreeSet::new(), seed));
            runs.push((twin.clone(), breaks.clone(), seed));
        }
    }
    let mut wrong = Vec::new();
    for lane in runs.chunks(LANES) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = lane
                .iter()
                .map(|(file, want, seed)| {
                    scope.spawn(move || (file, want, seed, lost(file, *seed)))
                })
                .collect();
            for handle in handles {
                let (file, want, seed, got) = handle.join().unwrap();
                if &got != want {
                    wrong.push(format!(
                        "{} seed {seed}: lost {got:?}, expected {want:?}",
                        file.display()
                    ));
                }
            }
        });
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// A copy of the correct probe declaring `policy: value` (Python source), checked.
fn check_declaring(policy: &str, value: &str) -> std::process::Output {
    let scratch = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(root().join(FOLDER).join("identical_once.py")).unwrap();
    // The probe's own error template would come later in the dict and win.
    let declared = source
        .replace(
            "        \"error_content\": \"Error: {type}: {message}\",\n",
            "",
        )
        .replace(
            "        \"identical_calls\": \"once\",  # declared",
            &format!("        {policy:?}: {value},"),
        );
    let path = scratch.path().join("declares.py");
    std::fs::write(&path, declared).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("check")
        .arg(&path)
        .args(["--profile", "runtime", "--fuzz", "0"])
        .current_dir(root())
        .output()
        .unwrap();
    drop(scratch);
    output
}

#[test]
fn a_policy_value_parcall_does_not_know_is_a_set_up_error() {
    for (policy, value, named) in [
        ("missing_id", "\"invented\"", "invented"),
        ("empty_id", "\"ignored\"", "ignored"),
        ("duplicate_ids", "\"last\"", "last"),
        ("identical_calls", "\"twice\"", "twice"),
        ("call_limit", "-1", "-1"),
        ("concurrency", "0", "0"),
        ("error_content", "\"Error: {exception}\"", "{exception}"),
        ("retries", "0", "retries"),
    ] {
        let output = check_declaring(policy, value);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{policy}: {value}: {stdout}{stderr}"
        );
        assert!(
            stderr.contains(policy) && stderr.contains(named),
            "{policy}: {value}: the error does not name it: {stderr}"
        );
    }
}

#[test]
fn every_declared_policy_is_printed_in_the_report() {
    let output = check_declaring("call_limit", "3");
    assert_ne!(output.status.code(), Some(2), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    for words in [
        "missing id kept",
        "empty id given",
        "shared ids each",
        "identical calls each",
        "call limit 3",
        "error text",
    ] {
        assert!(
            stdout.contains(words),
            "the report lacks {words:?}:\n{stdout}"
        );
    }
}
