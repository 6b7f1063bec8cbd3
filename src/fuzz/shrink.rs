//! Shrinking a failing generated case with the implementation as the test.

use super::reduce;
use super::{materialize, CaseRunner, Settings};
use crate::generate::cases::GeneratedInput;
use crate::judge::{CaseResult, Failure, Outcome};
use crate::spec::SpecCase;
use std::time::Instant;

/// Greedy reduction of a failing input, with the implementation as the test: try the simple
/// edits of [`reduce::candidates`], accept the first that still fails, go on from there,
/// stop after a whole pass in which no edit fails or when the budget is spent. A timeout or
/// crash is a failure like any other; after three in a row the search stops, so a hanging
/// implementation cannot make shrinking take minutes.
///
/// proptest's own shrinking (each number and string walked along its axis) is not run
/// first: it took most of the runs of a typical shrink and, since the edits below simplify
/// raised exceptions and drop a `max_parallel`, its cases were no smaller (the broken
/// examples, BENCHMARKS.md section 4).
pub(super) fn shrink(
    subject: &mut dyn CaseRunner,
    mut input: GeneratedInput,
    mut minimal: CaseResult,
    settings: Settings,
    fails: &dyn Fn(&CaseResult) -> bool,
) -> (CaseResult, usize) {
    let started = Instant::now();
    let id = minimal.case.id().to_owned();
    let mut runs = 0;
    let mut slow_in_a_row = 0;
    // Each pass starts at the edit after the last one accepted, and wraps around: the edits
    // before it had just been tried and passed, and starting over at the first made every
    // accepted edit cost a run of each failed one again (quadratic). The search ends after a
    // whole pass in which no edit fails.
    let mut from = 0;
    'search: while runs < settings.max_shrink_runs && started.elapsed() < settings.shrink_budget {
        let mut accepted = None;
        {
            let candidates = reduce::candidates(&input);
            let count = candidates.len();
            let mut rotated: Vec<(usize, reduce::Candidate<'_>)> =
                candidates.into_iter().enumerate().collect();
            rotated.rotate_left(from.min(count));
            for (index, make) in rotated {
                if runs >= settings.max_shrink_runs
                    || started.elapsed() >= settings.shrink_budget
                    || slow_in_a_row >= 3
                {
                    break 'search;
                }
                let candidate = make();
                let origin = minimal.case.origin.clone();
                let Ok(case) = materialize(candidate.clone(), &id, origin, "a generated case")
                else {
                    continue;
                };
                // An edit that leaves an invocation without a scripted answer tests the
                // adapter's wording of that error, not the implementation: skip it.
                if unscripted(&case) {
                    continue;
                }
                runs += 1;
                let is_slow = |result: &CaseResult| {
                    matches!(
                        result.outcome,
                        Outcome::Fail(Failure::Timeout { .. } | Failure::Crash { .. })
                    )
                };
                let mut result = subject.run_one(case.clone());
                // A case not run (the function given up on, the budget spent) shows
                // nothing, and no later one will run either: the search ends with what it has.
                if matches!(result.outcome, Outcome::Skipped { .. }) {
                    break 'search;
                }
                // A race shows only when the implementation's threads meet inside a probe's
                // wait, and on a loaded machine a thread can start after the wait is over: an
                // edit of a racy input that passes once gets a second run before it is
                // dropped, or a whole pass of such misses ends the search with the input
                // barely shrunk (seen under CI's load: 230 calls left of a race that two
                // calls show). A timeout or crash is not run again.
                if !fails(&result)
                    && !is_slow(&result)
                    && reduce::has_race_probe(&candidate)
                    && runs < settings.max_shrink_runs
                {
                    runs += 1;
                    result = subject.run_one(case.clone());
                }
                slow_in_a_row = if is_slow(&result) {
                    slow_in_a_row + 1
                } else {
                    0
                };
                if fails(&result) {
                    accepted = Some((index, candidate, result));
                    break;
                }
            }
        }
        let Some((index, candidate, result)) = accepted else {
            break;
        };
        input = candidate;
        minimal = result;
        from = index;
    }
    (minimal, runs)
}

/// Whether a case expects an invocation that its scripts cannot answer.
fn unscripted(case: &SpecCase) -> bool {
    let expected = crate::judge::expectations(&case.case);
    expected
        .iter()
        .any(|(output, _)| output.to_string().contains("parcall: no scripted answer"))
}
