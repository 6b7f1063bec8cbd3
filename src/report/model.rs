//! The report of a run, format version 1: what `--format json` writes, and what every other
//! renderer reads. `conformance/report.schema.json` is generated from these types.
//!
//! Stability: fields are only added in a version; renaming or removing one bumps
//! [`REPORT_VERSION`]. Case ids, requirement ids and outcome labels are stable across
//! versions of the suite (see spec/VERSION).

use crate::json::{NumberModel, Value};
use crate::judge::{Charge, Failure, GeneratedTally, Outcome, OutcomeKind};
use crate::protocol::ImplementationInfo;
use crate::spec::Function;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many tools a runtime runs at once: what its adapter declares and what parcall saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ConcurrencyReport {
    /// The declared most at once (`max_parallel`); `null`: no limit.
    pub declared: Option<u64>,
    /// The most tool invocations parcall saw outstanding at once in any case of the run.
    pub measured: usize,
}

impl ConcurrencyReport {
    /// The concurrency of a runtime-profile run whose adapter declared `runtime` (none: the
    /// reference runtime's policies), from its results; `None` when nothing was measured.
    pub fn of(
        runtime: Option<&crate::protocol::RuntimeDeclaration>,
        results: &[crate::judge::CaseResult],
    ) -> Option<ConcurrencyReport> {
        let measured = results
            .iter()
            .filter(|r| r.case.function() == Function::RunToolCalls)
            .filter_map(|r| r.concurrency)
            .max()?;
        let declared = match runtime {
            Some(runtime) => runtime.policies.max_parallel,
            None => crate::judge::runtime::reference_policies().max_parallel,
        };
        Some(ConcurrencyReport { declared, measured })
    }

    /// `declared at most 1 at once, measured 5`.
    pub fn words(&self) -> String {
        let declared = match self.declared {
            Some(limit) => format!("at most {limit} at once"),
            None => "no limit".to_owned(),
        };
        format!("declared {declared}, measured {} at once", self.measured)
    }
}

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
    /// The number model the cases were judged by (RULES E): the one the implementation
    /// declared in its handshake, `python` (the default) or `float64`.
    pub number_model: NumberModel,
    /// For a runtime adapter: the framework it drives, its version, and the policies it
    /// declared (which `RUNTIME-POLICY-DECLARED` holds it to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<crate::protocol::RuntimeDeclaration>,
    /// For a run of the runtime profile: the concurrency declared beside the one parcall
    /// measured (RULES F3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<ConcurrencyReport>,
    /// `conforms`, `does_not_conform`, or `error` (the run could not complete).
    pub verdict: Verdict,
    /// Why the implementation could not be checked at all (load error, no function, ...).
    pub error: Option<String>,
    /// `error` as one line: its cause, without what the implementation printed (absent when
    /// there is no error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_headline: Option<String>,
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

impl Report {
    /// The profile the run checked: the runtime profile when its cases are a runtime's,
    /// else the exercises.
    pub fn profile(&self) -> crate::spec::Profile {
        let runtime = self
            .cases
            .iter()
            .any(|c| c.function.profile() == crate::spec::Profile::Runtime);
        if runtime {
            crate::spec::Profile::Runtime
        } else {
            crate::spec::Profile::Exercise
        }
    }
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// How one requirement fared (RULES D). A case counts against a requirement only when
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
    /// The requirements this case shows broken, each with its diagnosis (RULES D); empty
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

/// The 1-based batch a failure is about, when it is about one.
pub fn failed_batch(outcome: &Outcome) -> Option<usize> {
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
        crate::spec::Case::Dedup(crate::spec::DedupCase { tools, .. })
        | crate::spec::Case::Runtime(crate::spec::RuntimeCase { tools, .. }) => {
            let calls = case.batch_calls().get(batch.checked_sub(1)?).copied()?;
            let tools = serde_json::to_string(tools)
                .ok()
                .and_then(|t| crate::json::parse(&t).ok())?;
            input.insert("tools".into(), tools);
            input.insert("calls".into(), calls.clone());
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
