//! The report of a run, format version 1: what `--format json` writes, and what every other
//! renderer reads. `conformance/report.schema.json` is generated from these types.
//!
//! Stability: fields are only added in a version; renaming or removing one bumps
//! [`REPORT_VERSION`]. Case ids, requirement ids and outcome labels are stable across
//! versions of the suite (see spec/VERSION).

use crate::json::{NumberModel, Value};
use crate::judge::{Charge, Failure, GeneratedTally, Outcome, OutcomeKind};
use crate::protocol::ImplementationInfo;
use crate::runner::{CaseResult, Run};
use crate::spec::{Function, Spec};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

/// The report format's version.
pub const REPORT_VERSION: u32 = 1;

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Report {
    /// Always `parcall-report`.
    pub format: String,
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// The parcall release that ran.
    pub parcall: String,
    /// The suite version (spec/VERSION).
    pub suite: String,
    /// What was checked: the module path or the `--cmd` line.
    pub target: String,
    /// As the implementation announced itself; absent when it could not start.
    pub implementation: Option<ImplementationInfo>,
    /// The functions the implementation defines.
    pub functions: Vec<Function>,
    /// The number model the cases were judged by (RULINGS E): the one the implementation
    /// declared in its handshake, `python` (the default) or `float64`.
    pub number_model: NumberModel,
    /// `conforms`, `does_not_conform`, or `error` (the run could not complete).
    pub verdict: Verdict,
    /// Why the implementation could not be checked at all (load error, no function, ...).
    pub error: Option<String>,
    pub summary: Summary,
    /// One entry per requirement that the selected cases check.
    pub requirements: Vec<RequirementSummary>,
    pub cases: Vec<CaseReport>,
    /// The seed of the generated cases, when any ran: `--seed` with it reproduces the run.
    pub seed: Option<u64>,
    /// What the generated cases of each function found. Each function also has one entry
    /// in `cases` (id `generated-exec` or `generated-dedup`): a pass, or the minimal
    /// counterexample's failure.
    pub generated: Vec<GeneratedReport>,
    /// Where the expectations file and reality disagree (each one fails the run).
    pub expectation_problems: Vec<String>,
    /// How the implementation's processes were kept from outliving the run: `PID
    /// namespace`, or `child subreaper (...)` where no namespace could be made.
    pub containment: Option<String>,
    /// Wall time of the run, in milliseconds.
    pub duration_ms: f64,
    /// Always `true`, and always the last field: a report cut short (a killed CI step, a
    /// full disk) lacks it, so truncation is detectable.
    pub complete: bool,
}

/// The generated cases of one function.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GeneratedReport {
    pub function: Function,
    pub seed: u64,
    pub cases: usize,
    pub passed: usize,
    /// Cases that did not pass, the ones not run included: what `failed` has meant since
    /// version 1, kept so a consumer testing `failed > 0` still sees a run that stopped.
    pub failed: usize,
    /// How many of `failed` were drawn but not run: the function was given up on, or the
    /// budget spent.
    pub not_run: usize,
    /// Runs of the implementation spent shrinking the first failure.
    pub shrink_runs: usize,
    /// The id under which the minimal counterexample was recorded, if one was found.
    pub counterexample: Option<String>,
    /// Per requirement: what these generated cases said about it.
    pub requirements: std::collections::BTreeMap<String, GeneratedTally>,
    /// For each requirement charged by a generated case, the smallest such case found
    /// (shrunk while it stays charged to it), with its charges: the feedback a student
    /// gets for that requirement.
    pub counterexamples: Vec<CaseReport>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Conforms,
    DoesNotConform,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    /// Failures not covered by the expectations file.
    pub failed: usize,
    pub skipped: usize,
    /// Failures the expectations file lists with the outcome they showed.
    pub expected_failures: usize,
}

/// How one requirement fared (RULINGS D). A case counts against a requirement only when
/// the requirement's own check finds it broken there (a charge); a requirement is met when
/// no case, fixed or generated, is charged to it and some case shows it kept, and, where
/// generated cases exercise it, some generated case too (fixed cases are public, so they
/// alone cannot show a rule is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RequirementSummary {
    pub id: String,
    pub function: Function,
    /// `MUST`, `SHOULD` or `MAY`.
    pub level: String,
    pub statement: String,
    /// Fixed cases that exercise it: tagged with it, or where its check applies.
    pub cases: usize,
    /// Of those, the ones not charged to it.
    pub passed: usize,
    /// Of those, the ones charged to it.
    pub failed: usize,
    /// Of the ones not charged to it, those that were not run (the implementation could
    /// not start, the function was given up on, the budget was spent): counted in
    /// `passed`, which predates this field, but showing nothing.
    pub not_run: usize,
    /// Fixed cases where its check applied and held.
    pub shown: usize,
    /// What the generated cases said about it.
    pub generated: GeneratedTally,
    pub met: bool,
}

/// A line of a case file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CaseLocation {
    pub path: String,
    pub line: usize,
}

/// One case: what it checks and how it went.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CaseReport {
    pub id: String,
    pub function: Function,
    /// The case file, relative to the spec folder.
    pub file: String,
    /// Where the case is written, for CI annotations: `spec/<file>` for the built-in spec,
    /// the file under the folder for `--spec DIR`, and the line of its id. Absent for
    /// generated cases and regressions.
    pub location: Option<CaseLocation>,
    pub description: String,
    pub requirements: Vec<String>,
    /// `pass`, `wrong output`, `wrong invocations`, `exception`, `timeout`, `crash`,
    /// `protocol error`, `not implemented` or `skipped`.
    pub outcome: OutcomeKind,
    /// A failure the expectations file lists with this very outcome: it does not fail the
    /// run.
    pub expected_failure: bool,
    /// The expectations file's reason for an expected failure (may be empty).
    pub expected_reason: Option<String>,
    /// The requirements this case shows broken, each with its diagnosis (RULINGS D); empty
    /// when it passed.
    pub charges: Vec<Charge>,
    /// Details of a failure or a skip; absent when the case passed.
    // The judge's own outcome, written in the report's shape by `outcome_json` (a doc
    // comment here would change the published schema's description).
    #[serde(serialize_with = "super::outcome_json::detail")]
    #[schemars(with = "Option<Outcome>")]
    pub detail: Outcome,
    /// The arguments of the batch that failed: `calls` and `max_parallel`
    /// (`execute_tool_calls`) or `tools` and `calls` (`run_parallel_calls`).
    pub input: Option<Value>,
    /// The arguments of every batch up to the one that failed (batches run in a row, and
    /// an earlier one may be what the failure is about). Empty when the case passed.
    pub inputs: Vec<Value>,
    /// What the implementation printed during the case.
    pub printed: String,
    /// The tail of the process's own output, for crashes and timeouts.
    pub process_output: String,
    pub duration_ms: f64,
    /// A command that reruns only this case.
    pub rerun: String,
}

/// What a case means for the run: the one place that decides it from the outcome and the
/// expectations file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    /// A failure that fails the run.
    Failed,
    /// A failure the expectations file lists with this very outcome.
    ExpectedFailure,
    /// Not run.
    Skipped,
}

impl CaseReport {
    pub fn status(&self) -> Status {
        match self.outcome {
            OutcomeKind::Pass => Status::Passed,
            OutcomeKind::Skipped => Status::Skipped,
            OutcomeKind::WrongOutput
            | OutcomeKind::WrongInvocations
            | OutcomeKind::Exception
            | OutcomeKind::Timeout
            | OutcomeKind::Crash
            | OutcomeKind::Protocol
            | OutcomeKind::NotImplemented => {
                if self.expected_failure {
                    Status::ExpectedFailure
                } else {
                    Status::Failed
                }
            }
        }
    }

    /// A failure that fails the run.
    pub fn fails_the_run(&self) -> bool {
        self.status() == Status::Failed
    }
}

impl Summary {
    /// Counts the cases by [`Status`].
    pub fn of(cases: &[CaseReport]) -> Summary {
        let mut summary = Summary {
            total: cases.len(),
            passed: 0,
            failed: 0,
            skipped: 0,
            expected_failures: 0,
        };
        for case in cases {
            match case.status() {
                Status::Passed => summary.passed += 1,
                Status::Failed => summary.failed += 1,
                Status::ExpectedFailure => summary.expected_failures += 1,
                Status::Skipped => summary.skipped += 1,
            }
        }
        summary
    }
}

/// What the report needs besides the run.
pub struct Context<'a> {
    pub spec: &'a Spec,
    pub target: &'a str,
    /// The command that reruns everything; `--case ID` is appended per case.
    pub rerun_base: &'a str,
}

impl Report {
    pub fn new(run: &Run, context: &Context<'_>) -> Report {
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
            verdict: match &run.start_error {
                Some(error) if error.is_runner_failure() => Verdict::Error,
                _ => Verdict::DoesNotConform,
            },
            error: run.start_error.as_ref().map(ToString::to_string),
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
        report.settle();
        report
    }

    /// Counts the cases and decides the verdict: the only place that does. A run that
    /// could not check the implementation keeps the verdict its error gave; otherwise it
    /// conforms when no case fails the run, none was left unrun, and the expectations file
    /// agrees with reality.
    pub fn settle(&mut self) {
        self.summary = Summary::of(&self.cases);
        if self.verdict == Verdict::Error || self.error.is_some() {
            return;
        }
        self.verdict = if self.summary.failed + self.summary.skipped > 0
            || !self.expectation_problems.is_empty()
        {
            Verdict::DoesNotConform
        } else {
            Verdict::Conforms
        };
    }

    /// Adds what the generated cases found (nothing when none ran): their entries, and
    /// their tallies in every requirement's summary.
    pub fn with_generated(
        mut self,
        seed: u64,
        summaries: &[crate::fuzz::Summary],
        context: &Context<'_>,
    ) -> Report {
        if summaries.is_empty() {
            return self;
        }
        self.seed = Some(seed);
        self.generated = summaries
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
        for generated in &self.generated {
            for (id, tally) in &generated.requirements {
                tallies.entry(id).or_default().add(*tally);
            }
        }
        for requirement in &context.spec.requirements {
            let Some(tally) = tallies.get(requirement.id.as_str()) else {
                continue;
            };
            let index = match self
                .requirements
                .iter()
                .position(|r| r.id == requirement.id)
            {
                Some(index) => index,
                None => {
                    self.requirements.push(empty_summary(requirement));
                    self.requirements.len() - 1
                }
            };
            let summary = &mut self.requirements[index];
            summary.generated = *tally;
            summary.met = is_met(summary);
        }
        // Keep the spec's order.
        let order: Vec<&str> = context
            .spec
            .requirements
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        self.requirements
            .sort_by_key(|r| order.iter().position(|id| *id == r.id));
        self
    }
}

/// The requirements a case is charged to, each once; its tags when it failed without a
/// charge (a skip).
pub fn charged(case: &CaseReport) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for charge in &case.charges {
        if !ids.contains(&charge.requirement) {
            ids.push(charge.requirement.clone());
        }
    }
    if ids.is_empty() {
        ids = case.requirements.clone();
    }
    ids
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

/// RULINGS D: nowhere charged, shown somewhere, and shown by a generated case wherever
/// generated cases exercise it.
fn is_met(r: &RequirementSummary) -> bool {
    r.failed == 0
        && r.generated.charged == 0
        && r.shown + r.generated.shown > 0
        && (r.generated.exercised == 0 || r.generated.shown > 0)
}

/// Results of fixed cases (spec cases and replayed regressions); the generated entries
/// (the ones with their own rerun arguments) are tallied by the generated cases' run.
fn is_fixed(result: &CaseResult) -> bool {
    result.rerun_args.is_none()
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

fn case_report(result: &CaseResult, context: &Context<'_>) -> CaseReport {
    let case = &result.case;
    CaseReport {
        id: case.id().to_owned(),
        function: case.function(),
        file: case.file.clone(),
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
        input: failed_batch(&result.outcome).and_then(|batch| batch_input(&case.case, batch)),
        inputs: failed_batch(&result.outcome)
            .map(|last| {
                (1..=last)
                    .filter_map(|batch| batch_input(&case.case, batch))
                    .collect()
            })
            .unwrap_or_default(),
        printed: result.printed.clone(),
        process_output: result.process_output.clone(),
        duration_ms: result.duration.as_secs_f64() * 1e3,
        rerun: match &result.rerun_args {
            Some(args) => format!("{} {args}", context.rerun_base),
            None => format!(
                "{} --case {}",
                context.rerun_base,
                shell_words::quote(case.id())
            ),
        },
    }
}

/// The 1-based batch a failure is about, when it is about one.
fn failed_batch(outcome: &Outcome) -> Option<usize> {
    match outcome {
        Outcome::Fail(Failure::WrongOutput { batch, .. })
        | Outcome::Fail(Failure::WrongInvocations { batch, .. })
        | Outcome::Fail(Failure::Exception { batch, .. }) => Some(*batch),
        Outcome::Fail(_) => Some(1),
        _ => None,
    }
}

/// An unsigned integer, exactly.
fn unsigned(value: u64) -> crate::json::Int {
    crate::json::Int::from_literal(itoa::Buffer::new().format(value))
        .expect("the decimal text of a u64 is an integer literal")
}

/// The arguments of batch `batch` (1-based) of a case, as an object.
pub fn batch_input(case: &crate::spec::Case, batch: usize) -> Option<Value> {
    use crate::json::Object;
    let mut input = Object::new();
    match case {
        crate::spec::Case::Exec(c) => {
            let b = c.batches.get(batch.checked_sub(1)?)?;
            input.insert("calls".into(), b.calls.clone());
            if let Some(limit) = b.max_parallel {
                // Any u64 is in the domain: a cast to i64 showed 2^64 - 1 as -1.
                input.insert("max_parallel".into(), Value::Int(unsigned(limit)));
            }
        }
        crate::spec::Case::Dedup(c) => {
            let b = c.batches.get(batch.checked_sub(1)?)?;
            let tools = serde_json::to_string(&c.tools)
                .ok()
                .and_then(|t| crate::json::parse(&t).ok())?;
            input.insert("tools".into(), tools);
            input.insert("calls".into(), b.calls.clone());
        }
    }
    Some(Value::from(input))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits an implementer debugging 64-bit overflow needs to read exactly.
    #[test]
    fn max_parallel_keeps_every_u64_exact() {
        for limit in [0, i64::MAX as u64, 1 << 63, u64::MAX] {
            let case = crate::spec::Case::Exec(crate::spec::ExecCase {
                id: "x".into(),
                description: String::new(),
                requirements: Vec::new(),
                dispatch: Default::default(),
                batches: vec![crate::spec::ExecBatch {
                    calls: Value::List(Vec::new()),
                    max_parallel: Some(limit),
                    expected: Value::List(Vec::new()),
                    invocations: Vec::new(),
                }],
            });
            let input = batch_input(&case, 1).unwrap();
            assert_eq!(
                crate::json::dumps(&input, crate::json::Style::PYTHON),
                format!(r#"{{"calls": [], "max_parallel": {limit}}}"#)
            );
        }
    }
}
