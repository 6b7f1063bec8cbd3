//! The report people read: a line per failing case, then each failure in full (input,
//! diff, invocations, what was printed, the command that reruns it), a summary per
//! requirement, and a last line `N passed, N failed`.
//!
//! Every text here may come from the implementation (directly, or through a case it got
//! recorded as a regression), so each is escaped on its way out: `line` for one-line
//! texts, `text` for multi-line ones. Only the palette writes escape sequences.

use super::diff::{alike, json_diff};
use super::model::{CaseReport, Report, Status};
use super::palette::Palette;
use crate::json::{dumps, Style, Value};
use crate::judge::{Failure, Outcome};
use crate::text::terminal::{line, multiline as text};
use std::io::{self, Write};

const COMPACT: Style = Style {
    ensure_ascii: false,
    ..Style::PYTHON
};

pub(super) fn render(report: &Report, palette: Palette, out: &mut dyn Write) -> io::Result<()> {
    header(report, palette, out)?;
    if let Some(error) = &report.error {
        writeln!(
            out,
            "\n{} {}",
            palette.fail("error:"),
            indent_rest(&text(error), "       ")
        )?;
        writeln!(
            out,
            "{}",
            palette.dim("fix what the error names, then run the same command again")
        )?;
    }
    let failures: Vec<&CaseReport> = report.cases.iter().filter(|c| c.fails_the_run()).collect();
    if !failures.is_empty() {
        writeln!(out)?;
        for case in &failures {
            writeln!(
                out,
                "{} {}  {}  [{}]",
                palette.fail("FAIL"),
                palette.bold(line(&case.id)),
                case.outcome,
                line(&super::model::charged(case).join(", "))
            )?;
        }
        for case in &failures {
            failure(case, report, palette, out)?;
        }
    }
    skipped(report, palette, out)?;
    let expected = report.summary.expected_failures;
    if expected > 0 {
        writeln!(out, "\n{} {expected} expected failures (listed in the expectations file with these outcomes)", palette.warn("XFAIL"))?;
    }
    for problem in &report.expectation_problems {
        writeln!(out, "{} {}", palette.fail("expectations:"), line(problem))?;
    }
    requirements(report, palette, out)?;
    let summary = &report.summary;
    let mut last = format!("{} passed, {} failed", summary.passed, summary.failed);
    if summary.expected_failures > 0 {
        last.push_str(&format!(
            ", {} expected failures",
            summary.expected_failures
        ));
    }
    if !report.expectation_problems.is_empty() {
        last.push_str(&format!(
            ", {} expectation problems",
            report.expectation_problems.len()
        ));
    }
    if summary.skipped > 0 {
        last.push_str(&format!(", {} skipped", summary.skipped));
    }
    writeln!(out)?;
    if report.verdict == super::Verdict::Conforms {
        writeln!(out, "{}", palette.pass(last))
    } else {
        writeln!(out, "{}", palette.fail(last))
    }
}

fn header(report: &Report, palette: Palette, out: &mut dyn Write) -> io::Result<()> {
    let implementation = report
        .implementation
        .as_ref()
        .map(|i| format!(" · {} {}", line(&i.language), line(&i.version)))
        .unwrap_or_default();
    writeln!(
        out,
        "{} · suite {} · {}{implementation} · number model {}",
        palette.bold(format!("parcall {}", report.parcall)),
        line(&report.suite),
        line(&report.target),
        report.number_model
    )?;
    if let Some(concurrency) = &report.concurrency {
        writeln!(out, "concurrency: {}", concurrency.words())?;
    }
    if let Some(containment) = &report.containment {
        writeln!(
            out,
            "{}",
            palette.dim(format!("containment: {containment}"))
        )?;
    }
    // The policies the verdicts are judged by (RULES R9).
    if let Some(runtime) = &report.runtime {
        writeln!(
            out,
            "runtime: {} {} via {}; declares: {}",
            line(&runtime.framework),
            line(&runtime.version),
            line(&runtime.entry),
            line(&runtime.policies.describe())
        )?;
    }
    let mut functions = Vec::new();
    for function in crate::spec::Function::EVERY {
        let count = report
            .cases
            .iter()
            .filter(|c| c.function == function)
            .count();
        if count > 0 {
            let plural = if count == 1 { "case" } else { "cases" };
            functions.push(format!("{function} ({count} {plural})"));
        }
    }
    if !functions.is_empty() {
        // A run that ran none of its cases (the implementation never started) checked
        // nothing: they were selected.
        let verb = if report.cases.iter().any(|c| c.status() != Status::Skipped) {
            "checked"
        } else {
            "selected"
        };
        writeln!(
            out,
            "{}",
            palette.dim(format!("{verb} {}", functions.join(", ")))
        )?;
    }
    if report.implementation.is_some() {
        for &function in report.profile().functions() {
            if !report.functions.contains(&function) {
                let line = format!("{function} is not defined: not checked");
                writeln!(out, "{}", palette.dim(line))?;
            }
        }
    }
    for g in &report.generated {
        let not_run = match g.not_run {
            0 => String::new(),
            n => format!(", {n} not run"),
        };
        let line = format!(
            "generated {}: {} cases, {} passed, {} failed{not_run} (seed {})",
            g.function,
            g.cases,
            g.passed,
            g.failed - g.not_run,
            g.seed
        );
        writeln!(out, "{}", palette.dim(line))?;
    }
    Ok(())
}

fn failure(
    case: &CaseReport,
    report: &Report,
    palette: Palette,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "\n{} {}",
        palette.fail(format!("━━ {} ━━", line(&case.id))),
        case.outcome
    )?;
    writeln!(out, "{}", line(&case.description))?;
    writeln!(
        out,
        "{}",
        palette.dim(format!("file: {}", line(&case.file)))
    )?;
    for charge in &case.charges {
        let statement = report
            .requirements
            .iter()
            .find(|r| r.id == charge.requirement)
            .map_or("", |r| r.statement.as_str());
        writeln!(
            out,
            "{} {}",
            palette.bold(format!("broken {}:", line(&charge.requirement))),
            line(statement)
        )?;
        writeln!(
            out,
            "  {} {}",
            palette.dim(format!("batch {}:", charge.batch)),
            line(&charge.diagnosis)
        )?;
    }
    if let Some(Value::Object(input)) = &case.input {
        let batch = match &case.detail {
            Outcome::Fail(
                Failure::WrongOutput { batch, .. }
                | Failure::WrongInvocations { batch, .. }
                | Failure::Exception { batch, .. },
            ) => *batch,
            _ => 1,
        };
        writeln!(out, "input (batch {batch}):")?;
        for (name, value) in input.iter() {
            writeln!(out, "  {}: {}", line(name), line(&dumps(value, COMPACT)))?;
        }
    }
    explain(&case.detail, palette, out)?;
    if !case.printed.trim().is_empty() {
        let printed = text(case.printed.trim_end());
        writeln!(out, "printed:\n{}", indent(&printed, "  "))?;
    }
    if !case.process_output.trim().is_empty() {
        writeln!(
            out,
            "process output (last bytes):\n{}",
            indent(&text(case.process_output.trim_end()), "  ")
        )?;
    }
    writeln!(out, "{} {}", palette.dim("rerun:"), line(&case.rerun))
}

fn explain(detail: &Outcome, palette: Palette, out: &mut dyn Write) -> io::Result<()> {
    let failure = match detail {
        Outcome::Pass => return Ok(()),
        Outcome::Skipped { reason } => return writeln!(out, "{}", text(reason)),
        Outcome::Fail(failure) => failure,
    };
    match failure {
        Failure::WrongOutput { expected, actual, .. } => {
            let pointers = super::diff::differences(expected, actual);
            let name = |p: &String| if p.is_empty() { "the top level".to_owned() } else { line(p).into_owned() };
            let mut at = pointers.iter().take(8).map(name).collect::<Vec<_>>().join(", ");
            if pointers.len() > 8 {
                at.push_str(&format!(" and {} more", pointers.len() - 8));
            }
            writeln!(out, "output differs at {} ({} expected, {} actual):", palette.bold(at), palette.removed("-"), palette.added("+"))?;
            if alike(expected, actual) {
                write!(out, "{}", indent(&json_diff(expected, actual, palette), "  "))
            } else {
                writeln!(out, "  expected: {}", line(&dumps(expected, COMPACT)))?;
                writeln!(out, "  actual:   {}", line(&dumps(actual, COMPACT)))
            }
        }
        Failure::WrongInvocations { diff, .. } => {
            writeln!(out, "the output is right, but the tools were not invoked as required:")?;
            for value in &diff.missing {
                writeln!(out, "  {} {}", palette.removed("missing:   "), line(&dumps(value, COMPACT)))?;
            }
            for value in &diff.unexpected {
                writeln!(out, "  {} {}", palette.added("unexpected:"), line(&dumps(value, COMPACT)))?;
            }
            Ok(())
        }
        Failure::Exception { message, traceback, .. } => {
            writeln!(out, "the function raised:")?;
            if !traceback.trim().is_empty() {
                writeln!(out, "{}", indent(&text(traceback.trim_end()), "  "))?;
            }
            writeln!(out, "  {}", palette.fail(text(message)))
        }
        Failure::Timeout { seconds } => writeln!(out, "no answer within {seconds:.1}s (an infinite loop, or a deadlock?); the process was killed and restarted"),
        Failure::Crash { message } => writeln!(out, "{}; the process was restarted", text(message)),
        Failure::Protocol { message } => writeln!(out, "protocol error: {}", text(message)),
        Failure::NotImplemented => writeln!(out, "the implementation does not define this function"),
    }
}

fn skipped(report: &Report, palette: Palette, out: &mut dyn Write) -> io::Result<()> {
    let skipped: Vec<&CaseReport> = report
        .cases
        .iter()
        .filter(|c| c.status() == Status::Skipped)
        .collect();
    let Some(first) = skipped.first() else {
        return Ok(());
    };
    let reason = match &first.detail {
        Outcome::Skipped { reason } => reason.as_str(),
        _ => "",
    };
    writeln!(
        out,
        "\n{} {} cases not run: {}",
        palette.warn("SKIP"),
        skipped.len(),
        line(reason.trim_start_matches("not run: "))
    )
}

fn requirements(report: &Report, palette: Palette, out: &mut dyn Write) -> io::Result<()> {
    if report.requirements.is_empty() {
        return Ok(());
    }
    // Only the requirements an implementation can be charged with are scored; the SANDBOX-*
    // ones and the MAYs are listed below but counted apart.
    let (scored, unscored): (Vec<_>, Vec<_>) = report
        .requirements
        .iter()
        .partition(|r| crate::judge::blame::ids::CHECKED.contains(&r.id.as_str()));
    let fully = scored.iter().filter(|r| r.met).count();
    write!(
        out,
        "\nrequirements: {fully} of {} scored requirements met",
        scored.len()
    )?;
    match unscored.len() {
        0 => writeln!(out),
        1 => writeln!(out, "; 1 SANDBOX or MAY requirement is not scored"),
        n => writeln!(out, "; {n} SANDBOX and MAY requirements are not scored"),
    }?;
    let width = report
        .requirements
        .iter()
        .map(|r| r.id.len())
        .max()
        .unwrap_or(0);
    for r in &report.requirements {
        let mark = if r.met {
            palette.pass("✓").to_string()
        } else {
            palette.fail("✗").to_string()
        };
        // A case that was not run kept nothing: it is counted apart, not among the kept.
        let mut counts = format!("{}/{} cases", r.passed.saturating_sub(r.not_run), r.cases);
        if r.not_run > 0 {
            counts.push_str(&format!(" ({} not run)", r.not_run));
        }
        if r.generated.exercised > 0 || r.generated.charged > 0 {
            counts.push_str(&format!(
                ", generated: {} charged, {} shown of {}",
                r.generated.charged, r.generated.shown, r.generated.exercised
            ));
            if r.generated.not_run > 0 {
                counts.push_str(&format!(" ({} not run)", r.generated.not_run));
            }
        }
        if !r.met && r.failed == 0 && r.generated.charged == 0 && r.not_run < r.cases {
            counts.push_str(" (never shown kept: no case where its check could hold)");
        }
        writeln!(out, "  {mark} {:<width$}  {counts}", line(&r.id))?;
    }
    Ok(())
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| format!("{prefix}{line}\n"))
        .collect()
}

fn indent_rest(text: &str, prefix: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().to_owned();
    lines.fold(first, |acc, line| format!("{acc}\n{prefix}{line}"))
}
