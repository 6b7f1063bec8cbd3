//! Why a run fails beyond its failing cases: the problems of the run itself (the
//! implementation could not start, the run stopped early, cases were not run, the
//! expectations file disagrees with reality). Formats with one entry per test (JUnit, TAP,
//! annotations) list each as an entry of its own, so each of them says what the exit code
//! says: a consumer that counts failures finds one exactly when the run failed.

use super::model::{Report, Verdict};

/// How a run problem shows in formats that tell failures from errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Severity {
    /// The implementation did something wrong (JUnit `<failure>`).
    Failure,
    /// The run could not check what it set out to (JUnit `<error>`).
    Error,
}

/// One problem of the run, as an entry beside the cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunProblem {
    /// A stable name for the entry (`run.start`, `run.expectations`, ...).
    pub name: &'static str,
    /// A short, stable kind: JUnit's `type`.
    pub kind: &'static str,
    pub severity: Severity,
    /// The whole message (may span lines).
    pub message: String,
}

/// Every problem of the run, in the order a reader should see them. Empty exactly when
/// the verdict does not rest on anything but the cases; when the verdict is not
/// `conforms` and no case fails the run, the list is never empty.
pub(crate) fn run_problems(report: &Report) -> Vec<RunProblem> {
    let mut problems = Vec::new();
    if let Some(error) = &report.error {
        problems.push(match report.verdict {
            // The runner could not do its job (the budget was spent, a report could not be
            // prepared): the implementation is not to blame.
            Verdict::Error => RunProblem {
                name: "run.complete",
                kind: "incomplete run",
                severity: Severity::Error,
                message: format!("the run could not complete: {error}"),
            },
            Verdict::DoesNotConform | Verdict::Conforms => RunProblem {
                name: "run.start",
                kind: "start failure",
                severity: Severity::Failure,
                message: format!("the implementation could not be checked: {error}"),
            },
        });
    }
    for problem in &report.expectation_problems {
        problems.push(RunProblem {
            name: "run.expectations",
            kind: "expectations",
            severity: Severity::Failure,
            message: format!("the expectations file disagrees with this run: {problem}"),
        });
    }
    let skipped = report.summary.skipped;
    // Cases not run fail a run that otherwise completed (nothing was shown about them);
    // after a start failure or an incomplete run, that problem already says why.
    if skipped > 0 && report.error.is_none() {
        problems.push(RunProblem {
            name: "run.all_cases_ran",
            kind: "cases not run",
            severity: Severity::Failure,
            message: format!(
                "{skipped} {} not run, so the implementation was not shown to conform",
                if skipped == 1 {
                    "case was"
                } else {
                    "cases were"
                }
            ),
        });
    }
    let failing_case = report.cases.iter().any(|c| c.fails_the_run());
    if problems.is_empty() && !failing_case && report.verdict != Verdict::Conforms {
        // No reason above, yet not conforming: say so rather than let a format look green.
        problems.push(RunProblem {
            name: "run.verdict",
            kind: "verdict",
            severity: Severity::Error,
            message: format!("the run's verdict is {}", verdict_label(report.verdict)),
        });
    }
    problems
}

/// The verdict as reports write it.
pub(crate) fn verdict_label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Conforms => "conforms",
        Verdict::DoesNotConform => "does not conform",
        Verdict::Error => "could not complete",
    }
}
