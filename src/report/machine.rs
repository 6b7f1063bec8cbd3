//! The reports machines read: JSON (the [`Report`] itself), JUnit XML and TAP 14.

use super::model::{CaseReport, Report, Status};
use crate::json::{dumps, Style};
use crate::judge::{Failure, Outcome};
use std::io::{self, Write};

/// `--format json`: the report as one JSON document.
pub fn json(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(io::Error::other)?;
    writeln!(out)
}

/// A one-paragraph text of why a case failed, for formats with a single message field.
pub fn failure_text(case: &CaseReport) -> String {
    let compact = Style {
        ensure_ascii: false,
        ..Style::PYTHON
    };
    let mut text = match &case.detail {
        Outcome::Pass => String::new(),
        Outcome::Fail(Failure::WrongOutput {
            batch,
            expected,
            actual,
        }) => format!(
            "batch {batch}: output differs at {}\nexpected: {}\nactual:   {}",
            super::diff::differences(expected, actual)
                .iter()
                .map(|p| format!("'{p}'"))
                .collect::<Vec<_>>()
                .join(", "),
            dumps(expected, compact),
            dumps(actual, compact)
        ),
        Outcome::Fail(Failure::WrongInvocations { batch, diff }) => {
            let list = |values: &[crate::json::Value]| {
                values
                    .iter()
                    .map(|v| dumps(v, compact))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "batch {batch}: wrong invocations\nmissing: [{}]\nunexpected: [{}]",
                list(&diff.missing),
                list(&diff.unexpected)
            )
        }
        Outcome::Fail(Failure::Exception {
            batch,
            message,
            traceback,
        }) => format!("batch {batch}: raised {message}\n{traceback}"),
        Outcome::Fail(Failure::Timeout { seconds }) => format!("no answer within {seconds:.1}s"),
        Outcome::Fail(Failure::Crash { message } | Failure::Protocol { message }) => {
            message.clone()
        }
        Outcome::Fail(Failure::NotImplemented) => {
            "the implementation does not define this function".into()
        }
        Outcome::Skipped { reason } => reason.clone(),
    };
    let diagnoses: Vec<String> = case
        .charges
        .iter()
        .map(|c| format!("broken {}: {}", c.requirement, c.diagnosis))
        .collect();
    if !diagnoses.is_empty() {
        text = format!("{}\n{text}", diagnoses.join("\n"));
    }
    if let Some(input) = &case.input {
        text = format!("{text}\ninput: {}", dumps(input, compact));
    }
    format!("{text}\nrerun: {}", case.rerun)
}

/// Why an expected failure does not fail the run, on one line.
fn expected_failure_text(case: &CaseReport) -> String {
    let reason = case.expected_reason.as_deref().unwrap_or_default().trim();
    let line = if reason.is_empty() {
        format!("expected failure ({})", case.outcome)
    } else {
        format!("expected failure ({}): {reason}", case.outcome)
    };
    line.replace(['\n', '\r'], " ")
}

/// `--format junit`: one test suite per function, one test case per case.
pub fn junit(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    use quick_junit::{NonSuccessKind, Report as JUnit, TestCase, TestCaseStatus, TestSuite};
    let mut junit = JUnit::new("parcall");
    for function in crate::spec::Function::ALL {
        let mut suite = TestSuite::new(function.name());
        for case in report.cases.iter().filter(|c| c.function == function) {
            let status = match case.status() {
                Status::Passed => TestCaseStatus::success(),
                // Listed in the expectations file: it does not fail the run, so every CI
                // viewer shows it as skipped, with why, rather than red.
                Status::ExpectedFailure => {
                    let mut status = TestCaseStatus::skipped();
                    status.set_message(expected_failure_text(case));
                    status.set_description(failure_text(case));
                    status
                }
                Status::Skipped => {
                    let mut status = TestCaseStatus::skipped();
                    status.set_message(failure_text(case));
                    status
                }
                Status::Failed => {
                    let kind = if case.outcome.is_error() {
                        NonSuccessKind::Error
                    } else {
                        NonSuccessKind::Failure
                    };
                    let mut status = TestCaseStatus::non_success(kind);
                    status.set_message(format!(
                        "{} [{}]",
                        case.outcome,
                        super::model::charged(case).join(", ")
                    ));
                    status.set_description(failure_text(case));
                    status
                }
            };
            let mut test_case = TestCase::new(case.id.as_str(), status);
            test_case.set_classname(format!(
                "{}.{}",
                function.name(),
                case.file
                    .trim_end_matches(".json")
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
            ));
            test_case.set_time(std::time::Duration::from_secs_f64(case.duration_ms / 1e3));
            if !case.printed.is_empty() {
                test_case.set_system_out(case.printed.as_str());
            }
            suite.add_test_case(test_case);
        }
        suite.add_property(quick_junit::Property::new("suite", report.suite.as_str()));
        suite.add_property(quick_junit::Property::new(
            "number_model",
            report.number_model.name(),
        ));
        if let Some(seed) = report.seed {
            suite.add_property(quick_junit::Property::new("seed", seed.to_string()));
        }
        if suite.tests > 0 {
            junit.add_test_suite(suite);
        }
    }
    let xml = junit.to_string().map_err(io::Error::other)?;
    out.write_all(xml.as_bytes())?;
    writeln!(out)
}

/// `--format tap`: TAP version 14, failure details as YAML diagnostics.
pub fn tap(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "TAP version 14")?;
    if let Some(error) = &report.error {
        // TAP is read on terminals too: text from the implementation is escaped.
        writeln!(
            out,
            "# {}",
            crate::text::terminal::line(&super::escape::headline(error))
        )?;
    }
    writeln!(
        out,
        "# parcall {} · suite {} · {} · number model {}",
        report.parcall,
        crate::text::terminal::line(&report.suite),
        crate::text::terminal::line(&report.target),
        report.number_model
    )?;
    if let Some(seed) = report.seed {
        writeln!(out, "# seed: {seed}")?;
    }
    writeln!(out, "1..{}", report.cases.len())?;
    for (index, case) in report.cases.iter().enumerate() {
        let number = index + 1;
        let title = crate::text::terminal::line(&format!("{} - {}", case.id, case.description))
            .into_owned();
        match case.status() {
            Status::Passed => writeln!(out, "ok {number} {title}")?,
            // TAP's TODO: a known failure that does not fail the run.
            Status::ExpectedFailure => writeln!(
                out,
                "not ok {number} {title} # TODO {}",
                expected_failure_text(case)
            )?,
            Status::Skipped => writeln!(
                out,
                "ok {number} {title} # SKIP {}",
                crate::text::terminal::line(&super::escape::headline(&failure_text(case)))
            )?,
            Status::Failed => {
                writeln!(out, "not ok {number} {title}")?;
                writeln!(out, "  ---")?;
                writeln!(out, "  outcome: {}", case.outcome)?;
                writeln!(
                    out,
                    "  requirements: [{}]",
                    super::model::charged(case).join(", ")
                )?;
                writeln!(out, "  message: |")?;
                for line in failure_text(case).lines() {
                    writeln!(out, "    {}", crate::text::terminal::line(line))?;
                }
                writeln!(out, "  ...")?;
            }
        }
    }
    let summary = &report.summary;
    writeln!(
        out,
        "# {} passed, {} failed, {} skipped",
        summary.passed, summary.failed, summary.skipped
    )
}
