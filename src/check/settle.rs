//! The one place a run becomes a report and its verdict is settled: the results of the
//! cases, what the generated cases found, whether the run completed. `check`, `grade` and
//! `mutate` all settle here, so they give one verdict on one implementation (RULES C).

use super::Checked;
use crate::judge::{CaseResult, GeneratedTally, OutcomeKind};
use crate::report::{
    self, CaseLocation, CaseReport, GeneratedReport, Report, RequirementSummary, Summary, Verdict,
    REPORT_VERSION,
};
use crate::runner::StartError;
use crate::spec::Spec;
use std::collections::BTreeMap;

/// What the report needs besides the run.
pub struct Context<'a> {
    pub spec: &'a Spec,
    pub target: &'a str,
    /// The command that reruns everything; `--case ID` is appended per case.
    pub rerun_base: &'a str,
}

/// The report of a run: its cases, what its generated cases found, and the verdict. A run
/// that did not complete (its budget was spent) is an error, whatever its cases say.
pub fn report(run: &Checked, context: &Context<'_>) -> Report {
    let mut report = new(run, context);
    with_generated(&mut report, run.seed, &run.generated, context);
    if let Some(reason) = &run.incomplete {
        report.verdict = Verdict::Error;
        if report.error.is_none() {
            report.error = Some(reason.clone());
            report.error_headline = Some(reason.clone());
        }
    }
    report
}

fn new(run: &Checked, context: &Context<'_>) -> Report {
    let cases: Vec<CaseReport> = run
        .results
        .iter()
        .map(|r| case_report(r, context))
        .collect();
    let summary = Summary::of(&cases);
    let mut report = Report {
        format: "parcall-report".into(),
        version: REPORT_VERSION,
        parcall: env!("CARGO_PKG_VERSION").into(),
        suite: context.spec.version.clone(),
        target: context.target.to_owned(),
        implementation: run.implementation.clone(),
        functions: run.functions.clone(),
        number_model: run.number_model,
        runtime: run.runtime.clone(),
        concurrency: crate::report::ConcurrencyReport::of(run.runtime.as_ref(), &run.results),
        verdict: match &run.start_error {
            Some(error) if error.is_runner_failure() => Verdict::Error,
            _ => Verdict::DoesNotConform,
        },
        error: run.start_error.as_ref().map(ToString::to_string),
        error_headline: run.start_error.as_ref().map(StartError::headline),
        summary,
        requirements: requirement_summaries(context.spec, &run.results),
        cases,
        seed: None,
        generated: Vec::new(),
        expectation_problems: Vec::new(),
        containment: None,
        duration_ms: run.duration.as_secs_f64() * 1e3,
        complete: true,
    };
    settle(&mut report);
    report
}

/// Counts the cases and decides the verdict: the only place that does. A run that
/// could not check the implementation keeps the verdict its error gave; otherwise it
/// conforms when no case fails the run, none was left unrun, and the expectations file
/// agrees with reality.
pub fn settle(report: &mut Report) {
    report.summary = Summary::of(&report.cases);
    if report.verdict == Verdict::Error || report.error.is_some() {
        return;
    }
    report.verdict = if report.summary.failed + report.summary.skipped > 0
        || !report.expectation_problems.is_empty()
    {
        Verdict::DoesNotConform
    } else {
        Verdict::Conforms
    };
}

/// Adds what the generated cases found (nothing when none ran): their entries, and
/// their tallies in every requirement's summary.
fn with_generated(
    report: &mut Report,
    seed: u64,
    summaries: &[crate::fuzz::Summary],
    context: &Context<'_>,
) {
    if summaries.is_empty() {
        return;
    }
    report.seed = Some(seed);
    report.generated = summaries
        .iter()
        .map(|s| GeneratedReport {
            function: s.function,
            seed: s.seed,
            cases: s.generated,
            passed: s.passed,
            failed: s.failed + s.not_run,
            not_run: s.not_run,
            shrink_runs: s.shrink_runs,
            counterexample: s.counterexample.as_ref().map(|c| c.id().to_owned()),
            requirements: s.requirements.clone(),
            counterexamples: s
                .counterexamples
                .iter()
                .map(|r| case_report(r, context))
                .collect(),
        })
        .collect();
    let mut tallies: BTreeMap<&str, GeneratedTally> = BTreeMap::new();
    for generated in &report.generated {
        for (id, tally) in &generated.requirements {
            tallies.entry(id).or_default().add(*tally);
        }
    }
    let functions: Vec<_> = report.generated.iter().map(|g| g.function).collect();
    for requirement in &context.spec.requirements {
        let checked = crate::judge::blame::ids::CHECKED.contains(&requirement.id.as_str());
        let tally = match tallies.get(requirement.id.as_str()) {
            Some(tally) => *tally,
            // A checked requirement of a function whose hidden cases ran but never showed
            // it is not earned on the public cases alone (RULES D).
            None if checked && functions.contains(&requirement.function) => {
                GeneratedTally::default()
            }
            None => continue,
        };
        let index = match report
            .requirements
            .iter()
            .position(|r| r.id == requirement.id)
        {
            Some(index) => index,
            None => {
                report.requirements.push(empty_summary(requirement));
                report.requirements.len() - 1
            }
        };
        let summary = &mut report.requirements[index];
        summary.generated = tally;
        summary.met = if checked {
            is_met_on_hidden_cases(summary)
        } else {
            is_met(summary)
        };
    }
    // Keep the spec's order.
    let order: Vec<&str> = context
        .spec
        .requirements
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    report
        .requirements
        .sort_by_key(|r| order.iter().position(|id| *id == r.id));
}

fn empty_summary(requirement: &crate::spec::Requirement) -> RequirementSummary {
    RequirementSummary {
        id: requirement.id.clone(),
        function: requirement.function,
        level: requirement.level.as_str().into(),
        statement: requirement.statement.clone(),
        cases: 0,
        passed: 0,
        failed: 0,
        not_run: 0,
        shown: 0,
        generated: GeneratedTally::default(),
        met: false,
    }
}

/// RULES D: nowhere charged, shown somewhere, and shown by a generated case wherever
/// generated cases exercise it.
fn is_met(r: &RequirementSummary) -> bool {
    r.failed == 0
        && r.generated.charged == 0
        && r.shown + r.generated.shown > 0
        && (r.generated.exercised == 0 || r.generated.shown > 0)
}

/// RULES D where hidden cases ran: nowhere charged, and shown happening by a hidden
/// generated case (one whose calls match no public batch), so that output that only
/// replays the public cases, or skips the work, earns nothing.
fn is_met_on_hidden_cases(r: &RequirementSummary) -> bool {
    r.failed == 0 && r.generated.charged == 0 && r.generated.shown > 0
}

/// Results of fixed cases (spec cases and replayed regressions); the generated entries are
/// tallied by the generated cases' run.
fn is_fixed(result: &CaseResult) -> bool {
    !result.case.origin.is_generated()
}

fn requirement_summaries(spec: &Spec, results: &[CaseResult]) -> Vec<RequirementSummary> {
    let fixed: Vec<&CaseResult> = results.iter().filter(|r| is_fixed(r)).collect();
    spec.requirements
        .iter()
        .filter_map(|requirement| {
            let id = &requirement.id;
            let checked = crate::judge::blame::ids::CHECKED.contains(&id.as_str());
            let exercising: Vec<&&CaseResult> = fixed
                .iter()
                .filter(|r| {
                    r.case.requirements().contains(id)
                        || r.blame.shown.contains(id)
                        || r.blame.charges(id)
                })
                .collect();
            if exercising.is_empty() {
                return None;
            }
            // Requirements without a check (the sandbox's, a MAY) are judged by their
            // tagged cases passing.
            let (failed, shown) = if checked {
                (
                    exercising.iter().filter(|r| r.blame.charges(id)).count(),
                    exercising
                        .iter()
                        .filter(|r| r.blame.shown.contains(id))
                        .count(),
                )
            } else {
                let passed = exercising.iter().filter(|r| r.outcome.is_pass()).count();
                (exercising.len() - passed, passed)
            };
            let mut summary = empty_summary(requirement);
            summary.cases = exercising.len();
            summary.passed = exercising.len() - failed;
            summary.failed = failed;
            // A requirement without a check counts a case that did not run among the failed
            // (it did not pass), so only a checked one has cases not run among the others.
            summary.not_run = if checked {
                exercising
                    .iter()
                    .filter(|r| r.outcome.kind() == OutcomeKind::Skipped)
                    .count()
            } else {
                0
            };
            summary.shown = shown;
            summary.met = is_met(&summary);
            Some(summary)
        })
        .collect()
}

pub(super) fn case_report(result: &CaseResult, context: &Context<'_>) -> CaseReport {
    let case = &result.case;
    CaseReport {
        id: case.id().to_owned(),
        function: case.function(),
        file: case.origin.file(),
        location: context.spec.locations.get(case.id()).map(|l| CaseLocation {
            path: l.path.clone(),
            line: l.line,
        }),
        description: case.description().to_owned(),
        requirements: case.requirements().to_vec(),
        outcome: result.outcome.kind(),
        charges: result.blame.charges.clone(),
        expected_failure: false,
        expected_reason: None,
        detail: result.outcome.clone(),
        input: report::failed_batch(&result.outcome)
            .and_then(|batch| report::batch_input(&case.case, batch)),
        inputs: report::failed_batch(&result.outcome)
            .map(|last| {
                (1..=last)
                    .filter_map(|batch| report::batch_input(&case.case, batch))
                    .collect()
            })
            .unwrap_or_default(),
        printed: result.printed.clone(),
        process_output: result.process_output.clone(),
        duration_ms: result.duration.as_secs_f64() * 1e3,
        rerun: match &case.origin.rerun_args() {
            Some(args) => format!("{} {args}", context.rerun_base),
            None => format!(
                "{} --case {}",
                context.rerun_base,
                shell_words::quote(case.id())
            ),
        },
    }
}
