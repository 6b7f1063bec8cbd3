//! `--format tap`: TAP version 13, the version the standard harnesses (Perl's `prove`,
//! `tap-parser`) accept; version 14 makes `prove` refuse the whole stream. One test point
//! per case, then one per problem of the run (see `verdict`), so the stream fails exactly
//! when the exit code does. Failure details go in YAML diagnostic blocks.

use super::machine::{expected_failure_text, failure_text};
use super::model::{Report, Status};
use super::verdict::{run_problems, verdict_label};
use crate::text::terminal;
use std::io::{self, Write};

/// `--format tap`.
pub(crate) fn tap(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "TAP version 13")?;
    header(report, out)?;
    let problems = run_problems(report);
    writeln!(out, "1..{}", report.cases.len() + problems.len())?;
    for (index, case) in report.cases.iter().enumerate() {
        let number = index + 1;
        let title = description(&format!("{} - {}", case.id, case.description));
        match case.status() {
            Status::Passed => writeln!(out, "ok {number} - {title}")?,
            // TAP's TODO: a known failure that does not fail the run.
            Status::ExpectedFailure => writeln!(
                out,
                "not ok {number} - {title} # TODO {}",
                description(&expected_failure_text(case))
            )?,
            Status::Skipped => writeln!(
                out,
                "ok {number} - {title} # SKIP {}",
                description(&crate::text::headline(&failure_text(case)))
            )?,
            Status::Failed => {
                writeln!(out, "not ok {number} - {title}")?;
                let requirements = super::model::charged(case).join(", ");
                let fields = [
                    ("outcome", case.outcome.label().to_owned()),
                    ("requirements", format!("[{}]", yaml_line(&requirements))),
                ];
                diagnostics(&fields, &failure_text(case), out)?;
            }
        }
    }
    for (index, problem) in problems.iter().enumerate() {
        let number = report.cases.len() + index + 1;
        let headline = crate::text::headline(&problem.message);
        writeln!(
            out,
            "not ok {number} - {}: {}",
            problem.name(),
            description(&headline)
        )?;
        diagnostics(
            &[("kind", problem.kind().to_owned())],
            &problem.message,
            out,
        )?;
    }
    let summary = &report.summary;
    writeln!(
        out,
        "# {}: {} passed, {} failed, {} expected failures, {} skipped",
        verdict_label(report.verdict),
        summary.passed,
        summary.failed,
        summary.expected_failures,
        summary.skipped
    )
}

fn header(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    if let Some(error) = report.error_headline.as_ref().or(report.error.as_ref()) {
        writeln!(out, "# {}", comment(&crate::text::headline(error)))?;
    }
    writeln!(
        out,
        "# parcall {} · suite {} · {} · number model {}",
        report.parcall,
        comment(&report.suite),
        comment(&report.target),
        report.number_model
    )?;
    if let Some(seed) = report.seed {
        writeln!(out, "# seed: {seed}")?;
    }
    Ok(())
}

/// A YAML block after a test point: `fields` (plain one-line values) and `message` as a
/// literal block.
fn diagnostics(fields: &[(&str, String)], message: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "  ---")?;
    for (name, value) in fields {
        writeln!(out, "  {name}: {value}")?;
    }
    writeln!(out, "  message: |")?;
    // A literal block takes its indentation from its first line: one that starts with
    // spaces of its own would make every later line end the block.
    for line in message.trim_start().lines() {
        writeln!(out, "    {}", yaml_line(line))?;
    }
    writeln!(out, "  ...")
}

/// A test point's description or directive text: one line, harmless on a terminal, with
/// TAP's `#` (which would start a directive) and the `\` that escapes it escaped.
fn description(text: &str) -> String {
    yaml_line(text).replace('\\', "\\\\").replace('#', "\\#")
}

/// A `#` comment line: one line, harmless on a terminal.
fn comment(text: &str) -> String {
    yaml_line(text)
}

/// One line of YAML text: terminal-safe (which escapes every control character, the ones
/// YAML forbids among them), and the two noncharacters YAML forbids too.
fn yaml_line(text: &str) -> String {
    terminal::line(text)
        .replace('\u{FFFE}', "\\u{fffe}")
        .replace('\u{FFFF}', "\\u{ffff}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_escape_directives_and_lines() {
        assert_eq!(description("a # SKIP b"), "a \\# SKIP b");
        assert_eq!(description("a\\#b"), "a\\\\\\#b");
        assert_eq!(description("a\nok 2"), "a\\\\nok 2");
        assert_eq!(description("\u{ffff}"), "\\\\u{ffff}");
    }

    #[test]
    fn a_message_block_keeps_its_indentation_from_its_first_line() {
        let mut out = Vec::new();
        diagnostics(&[], "  indented first\nsecond", &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  ---\n  message: |\n    indented first\n    second\n  ...\n"
        );
    }
}
