//! The mutation report: counts, scores, and each mutant the fixed cases missed as a unified
//! diff with its location; as text for people or as one JSON document (`--format json`,
//! shape in docs/mutate.md).

use super::equivalents::Stale;
use super::{Fate, Mutant, MutantId};
use crate::spec::Function;
use crate::text::terminal;
use serde::Serialize;
use similar::TextDiff;
use std::io::{self, Write};

pub const FORMAT: &str = "parcall-mutation-report";

/// What became of one mutant, as the report says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    KilledByFixed,
    KilledByGenerated,
    Survived,
    Equivalent,
    NotRun,
}

/// The run's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every mutant not listed as equivalent was killed and the equivalents file holds.
    Pass,
    /// A survivor not listed, or an entry of the equivalents file that no longer holds.
    Fail,
    /// Some mutants could not be checked.
    Incomplete,
}

/// The whole report, as `--format json` writes it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub format: &'static str,
    pub version: u32,
    pub module: String,
    /// The suite version (`spec/VERSION`) the mutants were checked against.
    pub suite: String,
    pub seed: u64,
    pub generated_per_function: usize,
    /// The functions the module defines; every mutant is held to them.
    pub functions: Vec<Function>,
    pub equivalents_file: Option<String>,
    pub counts: Counts,
    pub score: Score,
    /// Every mutant, in source order.
    pub mutants: Vec<MutantReport>,
    /// Entries of the equivalents file that no longer hold (each fails the run).
    pub stale_equivalents: Vec<Stale>,
    pub verdict: Verdict,
    /// Always true: a truncated document lacks it.
    pub complete: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    /// Mutants made that compile (the ones counted below).
    pub made: usize,
    /// Mutants that did not compile: made, then dropped, counted nowhere else.
    pub not_compiling: usize,
    /// Changes the mutator could not write as an edit of the text (rare: a statement
    /// sharing its line with another), dropped likewise.
    pub not_written: usize,
    pub killed_by_fixed: usize,
    /// Passed every fixed case, failed a generated one.
    pub killed_only_by_generated: usize,
    /// Passed everything and are not listed as equivalent.
    pub survived: usize,
    /// Passed everything and are listed as equivalent (left out of the score).
    pub equivalent: usize,
    /// Could not be checked (the run is incomplete).
    pub not_run: usize,
}

/// Percentages of the mutants that are not equivalent (null when there are none).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Score {
    /// Killed by the fixed cases alone.
    pub fixed: Option<f64>,
    /// Killed by the fixed cases or the generated ones.
    pub fixed_and_generated: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MutantReport {
    #[serde(flatten)]
    pub id: MutantId,
    pub line: usize,
    pub end_line: usize,
    pub status: Status,
    /// The case that killed it (a fixed case id, `generated-exec` / `generated-dedup`, or
    /// `start-up`).
    pub killed_by: Option<String>,
    /// The killing case's outcome label, or why it was not run.
    pub outcome: Option<String>,
    /// For an equivalent mutant, the reason from the file.
    pub reason: Option<String>,
    /// For a mutant killed only by generated cases: the minimal counterexample, as a case
    /// file ready for `spec/cases/`.
    pub counterexample: Option<serde_json::Value>,
    /// A unified diff of the module and the mutant.
    pub diff: String,
}

/// Builds the report.
pub struct Inputs<'a> {
    pub module: &'a str,
    pub suite: &'a str,
    pub seed: u64,
    pub fuzz: usize,
    pub functions: &'a [Function],
    pub equivalents_file: Option<String>,
    pub source: &'a str,
    pub not_compiling: usize,
    pub not_written: usize,
    pub mutants: &'a [Mutant],
    pub fates: &'a [Fate],
    pub listed: &'a [Option<String>],
    pub stale: Vec<Stale>,
}

pub fn build(inputs: Inputs<'_>) -> Report {
    let mut counts = Counts {
        made: inputs.mutants.len(),
        not_compiling: inputs.not_compiling,
        not_written: inputs.not_written,
        ..Counts::default()
    };
    let mut mutants = Vec::with_capacity(inputs.mutants.len());
    for ((mutant, fate), reason) in inputs.mutants.iter().zip(inputs.fates).zip(inputs.listed) {
        let mut entry = MutantReport {
            id: mutant.id.clone(),
            line: mutant.line,
            end_line: mutant.end_line,
            status: Status::NotRun,
            killed_by: None,
            outcome: None,
            reason: None,
            counterexample: None,
            diff: diff(inputs.module, inputs.source, &mutant.text),
        };
        match fate {
            Fate::KilledByFixed { case, outcome } => {
                counts.killed_by_fixed += 1;
                entry.status = Status::KilledByFixed;
                entry.killed_by = Some(case.clone());
                entry.outcome = Some(outcome.clone());
            }
            Fate::KilledByGenerated {
                function,
                counterexample,
                ..
            } => {
                counts.killed_only_by_generated += 1;
                entry.status = Status::KilledByGenerated;
                entry.killed_by = Some(crate::fuzz::entry_id(*function));
                entry.counterexample = counterexample.as_ref().map(|case| {
                    crate::json::to_serde_json(&crate::json::to_value(
                        &crate::check::regressions::case_file(case),
                    ))
                });
            }
            Fate::Survived if reason.is_some() => {
                counts.equivalent += 1;
                entry.status = Status::Equivalent;
                entry.reason = reason.clone();
            }
            Fate::Survived => {
                counts.survived += 1;
                entry.status = Status::Survived;
            }
            Fate::NotRun { reason } => {
                counts.not_run += 1;
                entry.status = Status::NotRun;
                entry.outcome = Some(reason.clone());
            }
        }
        mutants.push(entry);
    }
    let judged = counts.made - counts.equivalent - counts.not_run;
    let percent = |killed: usize| (judged > 0).then(|| 100.0 * killed as f64 / judged as f64);
    let score = Score {
        fixed: percent(counts.killed_by_fixed),
        fixed_and_generated: percent(counts.killed_by_fixed + counts.killed_only_by_generated),
    };
    let verdict = if counts.not_run > 0 {
        Verdict::Incomplete
    } else if counts.survived > 0 || !inputs.stale.is_empty() {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    Report {
        format: FORMAT,
        version: 1,
        module: inputs.module.to_owned(),
        suite: inputs.suite.to_owned(),
        seed: inputs.seed,
        generated_per_function: inputs.fuzz,
        functions: inputs.functions.to_vec(),
        equivalents_file: inputs.equivalents_file,
        counts,
        score,
        mutants,
        stale_equivalents: inputs.stale,
        verdict,
        complete: true,
    }
}

/// A unified diff of the module and one mutant, two lines of context, headed by the
/// module's name (escaped: a name holding a newline must not forge a line of the report).
fn diff(module: &str, original: &str, mutant: &str) -> String {
    let module = terminal::line(module);
    TextDiff::from_lines(original, mutant)
        .unified_diff()
        .context_radius(2)
        .header(&module, &format!("{module} (mutant)"))
        .to_string()
}

pub fn json(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".into(), |v| format!("{v:.1}%"))
}

/// The report for people. Everything that came from the module (names, code) is escaped.
pub fn human(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let module = terminal::line(&report.module);
    let c = &report.counts;
    for mutant in &report.mutants {
        let title = match mutant.status {
            Status::Survived => "SURVIVED",
            Status::KilledByGenerated => "KILLED ONLY BY GENERATED CASES",
            Status::NotRun => "NOT RUN",
            Status::KilledByFixed | Status::Equivalent => continue,
        };
        writeln!(
            out,
            "{title} {module}:{}: {}",
            mutant.line,
            terminal::line(&mutant.id.to_string())
        )?;
        write!(out, "{}", terminal::multiline(&mutant.diff))?;
        if let Some(case) = &mutant.counterexample {
            let text = serde_json::to_string(case).unwrap_or_default();
            writeln!(
                out,
                "  smallest failing generated case (add it as a fixed case):\n  {}",
                terminal::line(&clipped(&text, 600))
            )?;
        }
        if let Some(reason) = mutant
            .outcome
            .as_ref()
            .filter(|_| mutant.status == Status::NotRun)
        {
            writeln!(out, "  {}", terminal::line(reason))?;
        }
        if mutant.status == Status::Survived {
            writeln!(
                out,
                "  add a case that kills it, or list it as equivalent with the reason:\n  {}",
                terminal::line(&entry_json(&mutant.id))
            )?;
        }
        writeln!(out)?;
    }
    for stale in &report.stale_equivalents {
        writeln!(
            out,
            "STALE EQUIVALENT {}: {}",
            terminal::line(&stale.id.to_string()),
            terminal::line(&stale.problem)
        )?;
    }
    if !report.stale_equivalents.is_empty() {
        writeln!(out)?;
    }
    writeln!(
        out,
        "parcall mutate {module} (suite {}, seed {}, {} generated cases per function)",
        report.suite, report.seed, report.generated_per_function
    )?;
    writeln!(
        out,
        "  mutants made                   {:>5}   (and {} that did not compile, not counted)",
        c.made, c.not_compiling
    )?;
    writeln!(
        out,
        "  killed by fixed cases          {:>5}",
        c.killed_by_fixed
    )?;
    writeln!(
        out,
        "  killed only by generated cases {:>5}",
        c.killed_only_by_generated
    )?;
    writeln!(out, "  survived                       {:>5}", c.survived)?;
    writeln!(
        out,
        "  equivalent (listed)            {:>5}{}",
        c.equivalent,
        report
            .equivalents_file
            .as_ref()
            .map_or_else(String::new, |f| format!("   ({})", terminal::line(f)))
    )?;
    if c.not_written > 0 {
        writeln!(
            out,
            "  ({} changes could not be written as an edit of the text and were left out)",
            c.not_written
        )?;
    }
    if c.not_run > 0 {
        writeln!(out, "  not run                        {:>5}", c.not_run)?;
    }
    writeln!(
        out,
        "mutation score: {} by the fixed cases alone, {} with generated cases",
        percent(report.score.fixed),
        percent(report.score.fixed_and_generated)
    )?;
    let verdict = match report.verdict {
        Verdict::Pass => "every mutant not listed as equivalent was killed".to_owned(),
        Verdict::Incomplete => format!("{} mutants could not be checked", c.not_run),
        Verdict::Fail => format!(
            "{} survived, {} stale equivalent entries",
            c.survived,
            report.stale_equivalents.len()
        ),
    };
    writeln!(out, "{verdict}")
}

/// The equivalents-file entry for a mutant, with the reason left to write.
fn entry_json(id: &MutantId) -> String {
    let entry = super::equivalents::Entry {
        scope: id.scope.clone(),
        operator: id.operator.clone(),
        original: id.original.clone(),
        mutated: id.mutated.clone(),
        occurrence: id.occurrence,
        reason: "WHY NO INPUT CAN TELL IT APART".into(),
    };
    serde_json::to_string(&entry).unwrap_or_default()
}

fn clipped(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}
