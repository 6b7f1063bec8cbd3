//! Reports for CI systems: GitHub Actions annotations and a Markdown step summary.

use super::machine::failure_text;
use super::model::{CaseReport, Report};
use std::io::{self, Write};

/// The cases that fail the run.
fn failing(report: &Report) -> impl Iterator<Item = &CaseReport> {
    report.cases.iter().filter(|c| c.fails_the_run())
}

/// Workflow-command escaping of a message (`%`, CR, LF) and of a property (also `:` `,`).
fn escape_message(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_message(text).replace(':', "%3A").replace(',', "%2C")
}

/// `--format github`.
pub(super) fn github(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    if let Some(error) = &report.error {
        writeln!(
            out,
            "::error title=parcall: {}::{}",
            escape_property(&report.target),
            escape_message(error)
        )?;
    }
    for case in failing(report) {
        let title = escape_property(&format!(
            "parcall {} {} [{}]",
            case.id,
            case.outcome,
            super::model::charged(case).join(" ")
        ));
        let place = case
            .location
            .as_ref()
            .map(|l| format!("file={},line={},", escape_property(&l.path), l.line))
            .unwrap_or_default();
        writeln!(
            out,
            "::error {place}title={title}::{}",
            escape_message(&format!("{}\n{}", case.description, failure_text(case)))
        )?;
    }
    for problem in &report.expectation_problems {
        writeln!(
            out,
            "::error title=parcall expectations::{}",
            escape_message(problem)
        )?;
    }
    let s = &report.summary;
    writeln!(
        out,
        "::notice title=parcall suite {}::{} passed, {} failed, {} expected failures, {} skipped (number model {})",
        report.suite, s.passed, s.failed, s.expected_failures, s.skipped, report.number_model
    )
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// `--format markdown`.
pub(super) fn markdown(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let verdict = match report.verdict {
        super::Verdict::Conforms => "✅ conforms",
        super::Verdict::DoesNotConform => "❌ does not conform",
        super::Verdict::Error => "⚠️ could not complete",
    };
    writeln!(out, "## parcall: {verdict}\n")?;
    let implementation = report
        .implementation
        .as_ref()
        .map(|i| format!(" ({} {})", i.language, i.version))
        .unwrap_or_default();
    writeln!(
        out,
        "`{}`{implementation} against suite {}, number model {}{}\n",
        report.target,
        report.suite,
        report.number_model,
        report
            .seed
            .map(|s| format!(", seed {s}"))
            .unwrap_or_default()
    )?;
    let s = &report.summary;
    writeln!(out, "| passed | failed | expected failures | skipped |\n| --- | --- | --- | --- |\n| {} | {} | {} | {} |\n", s.passed, s.failed, s.expected_failures, s.skipped)?;
    if let Some(error) = &report.error {
        writeln!(out, "**Error:** {}\n", cell(error))?;
    }
    let failures: Vec<&CaseReport> = failing(report).collect();
    if !failures.is_empty() {
        writeln!(
            out,
            "| case | outcome | requirements | description |\n| --- | --- | --- | --- |"
        )?;
        for case in failures {
            writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                case.id,
                case.outcome,
                super::model::charged(case).join(", "),
                cell(&case.description)
            )?;
        }
        writeln!(out)?;
    }
    for problem in &report.expectation_problems {
        writeln!(out, "- **expectations:** {}", cell(problem))?;
    }
    Ok(())
}
