//! Scores only real work earns (RULES D): output that skips the work or replays the public
//! cases earns nothing of the work, and a correct implementation earns every requirement at
//! any size with a slot for each. Blame across seeds is `blame.rs`.

use crate::common;

use common::subjects;
use parcall::judge::blame::ids::checked_in;
use parcall::spec::Profile;

/// The exercises' scored requirements: what these runs can show.
fn exercise_checked() -> Vec<&'static str> {
    checked_in(Profile::Exercise).collect()
}
use parcall::report::Report;
use parcall::spec::Function;
use parcall::subject::InProcess;
use std::collections::BTreeSet;

pub(crate) const FUNCTIONS: [Function; 2] =
    [Function::ExecuteToolCalls, Function::RunParallelCalls];

pub(crate) fn met(report: &Report) -> BTreeSet<&str> {
    report
        .requirements
        .iter()
        .filter(|r| r.met && exercise_checked().contains(&r.id.as_str()))
        .map(|r| r.id.as_str())
        .collect()
}

#[test]
fn canned_output_earns_none_of_the_work() {
    // Right ids and keys, empty content, nothing dispatched or invoked: it may keep what its
    // ids and keys show, nothing that needs dispatch, invocations or results (RULES D).
    let work = |id: &str| {
        [
            "EXEC-DISPATCH",
            "EXEC-DUP",
            "EXEC-LIMIT",
            "EXEC-CONTENT",
            "EXEC-FAILURE",
            "DEDUP-INVOKE",
            "DEDUP-CACHE",
            "DEDUP-UNKNOWN",
            "DEDUP-RAISE",
            "DEDUP-RESULT",
            "DEDUP-NO-STATE",
        ]
        .iter()
        .any(|prefix| id.starts_with(prefix))
    };
    for seed in 1..=5 {
        let report = subjects::verdicts(
            &mut InProcess::new(&FUNCTIONS, subjects::canned()),
            seed,
            500,
        );
        let earned: Vec<&str> = met(&report).into_iter().filter(|id| work(id)).collect();
        assert!(
            earned.is_empty(),
            "seed {seed}: canned output earned {earned:?}"
        );
    }
}

#[test]
fn a_memoriser_of_the_public_cases_earns_nothing() {
    let spec_only =
        subjects::verdicts(&mut InProcess::new(&FUNCTIONS, subjects::memoriser()), 1, 0);
    assert_eq!(
        spec_only.verdict,
        parcall::report::Verdict::Conforms,
        "the memoriser must pass the fixed cases, or this test proves nothing"
    );
    for seed in 1..=5 {
        let report = subjects::verdicts(
            &mut InProcess::new(&FUNCTIONS, subjects::memoriser()),
            seed,
            500,
        );
        assert!(
            report.generated.iter().any(|g| g.failed > 0),
            "seed {seed}: not caught by generated cases"
        );
        let met = met(&report);
        assert!(
            met.is_empty(),
            "seed {seed}: the memoriser keeps {} of {}: {met:?}",
            met.len(),
            exercise_checked().len()
        );
    }
}

/// The most scored requirements one function has: a run with at least this many hidden
/// cases per function has a slot for each.
fn most_requirements_per_function() -> usize {
    ["EXEC-", "DEDUP-"]
        .iter()
        .map(|prefix| {
            exercise_checked()
                .iter()
                .filter(|id| id.starts_with(prefix))
                .count()
        })
        .max()
        .unwrap()
}

#[test]
fn a_correct_implementation_earns_every_requirement_at_any_size_with_a_slot_for_each() {
    // RULES C and D4 together: shown means done, and a grader's size still admits every
    // correct implementation.
    for fuzz in [most_requirements_per_function(), 25, 40] {
        for seed in 1..=4 {
            let report = subjects::check(
                &mut parcall::subject::in_process::reference(
                    parcall::json::NumberModel::Python,
                    parcall::reference::Execution::Sequential,
                ),
                seed,
                fuzz,
            );
            let met = met(&report);
            let checked = exercise_checked();
            let lost: Vec<&&str> = checked.iter().filter(|id| !met.contains(**id)).collect();
            assert!(
                lost.is_empty(),
                "--fuzz {fuzz} --seed {seed}: the reference does not earn {lost:?}"
            );
        }
    }
}
