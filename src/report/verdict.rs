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

/// What a problem of the run is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The implementation could not be checked at all (`report.error`, its fault).
    Start,
    /// The run could not complete (`report.error`, not the implementation's fault).
    Incomplete,
    /// The expectations file disagrees with the run.
    Expectations,
    /// Cases were not run.
    NotRun,
    /// The verdict is not `conforms`, and nothing else says why.
    Verdict,
}

impl Cause {
    /// A stable name for the entry: a JUnit test case, a TAP test point.
    pub(super) fn name(self) -> &'static str {
        match self {
            Cause::Start => "run.start",
            Cause::Incomplete => "run.complete",
            Cause::Expectations => "run.expectations",
            Cause::NotRun => "run.all_cases_ran",
            Cause::Verdict => "run.verdict",
        }
    }

    /// A short, stable kind: JUnit's `type`, an annotation's title.
    pub(super) fn kind(self) -> &'static str {
        match self {
            Cause::Start => "start failure",
            Cause::Incomplete => "incomplete run",
            Cause::Expectations => "expectations",
            Cause::NotRun => "cases not run",
            Cause::Verdict => "verdict",
        }
    }

    /// Whether it is `report.error` told again.
    pub(super) fn is_the_error(self) -> bool {
        matches!(self, Cause::Start | Cause::Incomplete)
    }
}

/// One problem of the run, as an entry beside the cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunProblem {
    pub cause: Cause,
    pub severity: Severity,
    /// The whole message (may span lines).
    pub message: String,
}

impl RunProblem {
    pub(super) fn name(&self) -> &'static str {
        self.cause.name()
    }

    pub(super) fn kind(&self) -> &'static str {
        self.cause.kind()
    }
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
                cause: Cause::Incomplete,
                severity: Severity::Error,
                message: format!("the run could not complete: {error}"),
            },
            Verdict::DoesNotConform | Verdict::Conforms => RunProblem {
                cause: Cause::Start,
                severity: Severity::Failure,
                message: format!("the implementation could not be checked: {error}"),
            },
        });
    }
    for problem in &report.expectation_problems {
        problems.push(RunProblem {
            cause: Cause::Expectations,
            severity: Severity::Failure,
            message: format!("the expectations file disagrees with this run: {problem}"),
        });
    }
    let skipped = report.summary.skipped;
    // Cases not run fail a run that otherwise completed (nothing was shown about them);
    // after a start failure or an incomplete run, that problem already says why.
    if skipped > 0 && report.error.is_none() {
        problems.push(RunProblem {
            cause: Cause::NotRun,
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
            cause: Cause::Verdict,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{Failure, Outcome};
    use crate::report::model::{CaseReport, Summary};

    fn case(id: &str, outcome: Outcome) -> CaseReport {
        CaseReport {
            id: id.into(),
            function: crate::spec::Function::ExecuteToolCalls,
            file: "cases/execute_tool_calls/seed.json".into(),
            location: None,
            description: "a case".into(),
            requirements: vec!["EXEC-ID-GIVEN".into()],
            outcome: outcome.kind(),
            expected_failure: false,
            expected_reason: None,
            charges: Vec::new(),
            detail: outcome,
            input: None,
            inputs: Vec::new(),
            printed: String::new(),
            process_output: String::new(),
            duration_ms: 1.0,
            rerun: format!("parcall check m.py --case {id}"),
        }
    }

    fn report(cases: Vec<CaseReport>) -> Report {
        let mut report = Report {
            format: "parcall-report".into(),
            version: 1,
            parcall: "0".into(),
            suite: "1".into(),
            target: "m.py".into(),
            implementation: None,
            functions: Vec::new(),
            number_model: crate::json::NumberModel::Python,
            runtime: None,
            concurrency: None,
            verdict: Verdict::Conforms,
            error: None,
            error_headline: None,
            summary: Summary::of(&[]),
            requirements: Vec::new(),
            cases,
            seed: None,
            generated: Vec::new(),
            expectation_problems: Vec::new(),
            containment: None,
            duration_ms: 1.0,
            complete: true,
        };
        crate::check::settle(&mut report);
        report
    }

    fn wrong() -> Outcome {
        Outcome::Fail(Failure::WrongOutput {
            batch: 1,
            expected: crate::json::Value::Null,
            actual: crate::json::Value::Bool(true),
        })
    }

    fn skipped() -> Outcome {
        Outcome::Skipped {
            reason: "not run: the budget was spent".into(),
        }
    }

    /// Every state a run can end in, as the CLI leaves the report.
    fn states() -> Vec<(&'static str, Report)> {
        let pass = report(vec![case("a", Outcome::Pass)]);
        let fail = report(vec![case("a", Outcome::Pass), case("b", wrong())]);
        let mut listed = case("b", wrong());
        listed.expected_failure = true;
        let expected = report(vec![case("a", Outcome::Pass), listed]);
        let mut unexpected_pass = report(vec![case("a", Outcome::Pass)]);
        unexpected_pass.expectation_problems =
            vec!["a: expected `wrong output`, but it passes now".into()];
        crate::check::settle(&mut unexpected_pass);
        let mut start = report(vec![case("a", skipped())]);
        start.error = Some("the implementation cannot be loaded:\nSyntaxError".into());
        start.verdict = Verdict::DoesNotConform;
        crate::check::settle(&mut start);
        let mut budget = report(vec![case("a", Outcome::Pass), case("b", skipped())]);
        budget.verdict = Verdict::Error;
        budget.error = Some("the --budget of 2s was spent".into());
        crate::check::settle(&mut budget);
        let given_up = report(vec![case("a", Outcome::Pass), case("b", skipped())]);
        vec![
            ("pass", pass),
            ("fail", fail),
            ("expected failure", expected),
            ("unexpected pass", unexpected_pass),
            ("start failure", start),
            ("budget spent", budget),
            ("cases not run", given_up),
        ]
    }

    fn render(report: &Report, format: crate::report::Format) -> String {
        let mut out = Vec::new();
        let options = crate::report::Options {
            palette: crate::report::Palette::plain(),
            annotations: Default::default(),
            stamp: crate::report::Stamp {
                timestamp: "2024-01-01T00:00:00".into(),
                hostname: "host".into(),
            },
        };
        crate::report::write_with(report, format, &options, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The rule every line-oriented format relies on, then each format itself: red
    /// exactly when the verdict is not `conforms`.
    #[test]
    fn every_format_is_red_exactly_when_the_verdict_is_not_conforms() {
        use crate::report::Format;
        for (state, report) in states() {
            let red = report.verdict != Verdict::Conforms;
            let failing = report.cases.iter().any(|c| c.fails_the_run());
            assert_eq!(failing || !run_problems(&report).is_empty(), red, "{state}");
            let junit = render(&report, Format::Junit);
            let junit_red = junit.contains("<failure ") || junit.contains("<error ");
            assert_eq!(junit_red, red, "{state}: {junit}");
            let tap = render(&report, Format::Tap);
            let tap_red = tap
                .lines()
                .any(|l| l.starts_with("not ok") && !l.contains(" # TODO "));
            assert_eq!(tap_red, red, "{state}: {tap}");
            let github = render(&report, Format::Github);
            assert_eq!(github.contains("::error "), red, "{state}: {github}");
            let markdown = render(&report, Format::Markdown);
            assert_eq!(markdown.starts_with("## parcall: ✅"), !red, "{state}");
        }
    }

    #[test]
    fn a_start_failure_is_a_failure_and_a_spent_budget_an_error() {
        let states = states();
        let problem = |name: &str| {
            let report = &states.iter().find(|(s, _)| *s == name).unwrap().1;
            run_problems(report).remove(0)
        };
        assert_eq!(problem("start failure").cause, Cause::Start);
        assert_eq!(problem("start failure").severity, Severity::Failure);
        assert_eq!(problem("budget spent").cause, Cause::Incomplete);
        assert_eq!(problem("budget spent").severity, Severity::Error);
        assert_eq!(problem("cases not run").cause, Cause::NotRun);
        assert_eq!(problem("unexpected pass").cause, Cause::Expectations);
    }
}
