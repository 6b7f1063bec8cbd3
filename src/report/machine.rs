//! The report machines read whole: JSON (the [`Report`] itself); and the texts of a
//! failure that the line-oriented formats (JUnit, TAP, annotations) share.

use super::model::{CaseReport, Report};
use crate::json::{dumps, Style};
use crate::judge::{Failure, Outcome};
use std::io::{self, Write};

/// `--format json`: the report as one JSON document.
pub(super) fn json(report: &Report, out: &mut dyn Write) -> io::Result<()> {
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
pub(super) fn expected_failure_text(case: &CaseReport) -> String {
    let reason = case.expected_reason.as_deref().unwrap_or_default().trim();
    let line = if reason.is_empty() {
        format!("expected failure ({})", case.outcome)
    } else {
        format!("expected failure ({}): {reason}", case.outcome)
    };
    line.replace(['\n', '\r'], " ")
}
