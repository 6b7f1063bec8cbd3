//! Blame (RULES D): which requirements a case shows broken, decided by each requirement's
//! own check over the case's input, what was expected, and what the implementation returned
//! and invoked. A check judges its rule relative to the implementation's other choices, so
//! one bug is charged to the rule it breaks and not to every rule downstream of it: the
//! duplicate check takes the ids the implementation gave as its premise, the invocation
//! check takes the calls it accepted, the key checks the keys it wrote.
//!
//! A check that applies to a case and finds nothing wrong *shows* its requirement; a
//! requirement is earned only where it is shown and nowhere charged. A failure no check can
//! explain (an exception, a timeout, a crash, a value of the wrong type) is charged to one
//! named requirement per function and says so.

mod dedup;
mod exec;
mod keys;
mod of_a_pass;

pub use of_a_pass::{blame_of_expected_runs, PassMemo};

use super::{BatchRun, Failure, Outcome};
use crate::json::NumberModel;
use crate::spec::{Case, Function};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeSet;

/// The requirement ids the checks charge. A test keeps them in step with the spec.
pub mod ids {
    pub const EXEC_OUTPUT_COUNT: &str = "EXEC-OUTPUT-COUNT";
    pub const EXEC_OUTPUT_ORDER: &str = "EXEC-OUTPUT-ORDER";
    pub const EXEC_OUTPUT_SHAPE: &str = "EXEC-OUTPUT-SHAPE";
    pub const EXEC_ID_GIVEN: &str = "EXEC-ID-GIVEN";
    pub const EXEC_ID_GENERATED: &str = "EXEC-ID-GENERATED";
    pub const EXEC_DUP_REJECTED: &str = "EXEC-DUP-REJECTED";
    pub const EXEC_DUP_ANY_EARLIER: &str = "EXEC-DUP-ANY-EARLIER";
    pub const EXEC_DUP_VERBATIM: &str = "EXEC-DUP-VERBATIM";
    pub const EXEC_LIMIT_POSITION: &str = "EXEC-LIMIT-POSITION";
    pub const EXEC_LIMIT_ZERO: &str = "EXEC-LIMIT-ZERO";
    pub const EXEC_LIMIT_DEFAULT: &str = "EXEC-LIMIT-DEFAULT";
    pub const EXEC_DUP_BEFORE_LIMIT: &str = "EXEC-DUP-BEFORE-LIMIT";
    pub const EXEC_DISPATCH_ONCE: &str = "EXEC-DISPATCH-ONCE";
    pub const EXEC_DISPATCH_ARGS_DEFAULT: &str = "EXEC-DISPATCH-ARGS-DEFAULT";
    pub const EXEC_CONTENT_UNCHANGED: &str = "EXEC-CONTENT-UNCHANGED";
    pub const EXEC_FAILURE_ISOLATED: &str = "EXEC-FAILURE-ISOLATED";
    pub const EXEC_NO_STATE: &str = "EXEC-NO-STATE";

    pub const DEDUP_KEY_FORMAT: &str = "DEDUP-KEY-FORMAT";
    pub const DEDUP_KEY_ORDER: &str = "DEDUP-KEY-ORDER";
    pub const DEDUP_KEY_LIST_ORDER: &str = "DEDUP-KEY-LIST-ORDER";
    pub const DEDUP_KEY_ASCII: &str = "DEDUP-KEY-ASCII";
    pub const DEDUP_KEY_LITERALS: &str = "DEDUP-KEY-LITERALS";
    pub const DEDUP_KEY_ARGS_DEFAULT: &str = "DEDUP-KEY-ARGS-DEFAULT";
    pub const DEDUP_NUMBER_FLOAT: &str = "DEDUP-NUMBER-FLOAT";
    pub const DEDUP_NUMBER_INT: &str = "DEDUP-NUMBER-INT";
    pub const DEDUP_NUMBER_DISTINCT: &str = "DEDUP-NUMBER-DISTINCT";
    pub const DEDUP_NUMBER_OVERFLOW: &str = "DEDUP-NUMBER-OVERFLOW";
    pub const DEDUP_RESULT_ENTRIES: &str = "DEDUP-RESULT-ENTRIES";
    pub const DEDUP_INVOKE_ONCE: &str = "DEDUP-INVOKE-ONCE";
    pub const DEDUP_CACHE_HIT: &str = "DEDUP-CACHE-HIT";
    pub const DEDUP_RESULT_UNCHANGED: &str = "DEDUP-RESULT-UNCHANGED";
    pub const DEDUP_UNKNOWN_TOOL: &str = "DEDUP-UNKNOWN-TOOL";
    pub const DEDUP_RAISE: &str = "DEDUP-RAISE";
    pub const DEDUP_NO_STATE: &str = "DEDUP-NO-STATE";
    pub const DEDUP_NAME_VERBATIM: &str = "DEDUP-NAME-VERBATIM";

    pub const RUNTIME_RESULT_PER_CALL: &str = "RUNTIME-RESULT-PER-CALL";
    pub const RUNTIME_ID_ECHOED: &str = "RUNTIME-ID-ECHOED";
    pub const RUNTIME_RESULT_ORDER: &str = "RUNTIME-RESULT-ORDER";
    pub const RUNTIME_CONTENT_UNCHANGED: &str = "RUNTIME-CONTENT-UNCHANGED";
    pub const RUNTIME_EXECUTE_ONCE: &str = "RUNTIME-EXECUTE-ONCE";
    pub const RUNTIME_ARGS_UNCHANGED: &str = "RUNTIME-ARGS-UNCHANGED";
    pub const RUNTIME_ERROR_ISOLATED: &str = "RUNTIME-ERROR-ISOLATED";
    pub const RUNTIME_ERROR_REPORTED: &str = "RUNTIME-ERROR-REPORTED";
    pub const RUNTIME_MALFORMED_ANSWERED: &str = "RUNTIME-MALFORMED-ANSWERED";
    pub const RUNTIME_NO_STATE: &str = "RUNTIME-NO-STATE";
    pub const RUNTIME_POLICY_DECLARED: &str = "RUNTIME-POLICY-DECLARED";

    /// The requirements of `profile` an implementation can be charged with.
    pub fn checked_in(profile: crate::spec::Profile) -> impl Iterator<Item = &'static str> {
        let runtime = profile == crate::spec::Profile::Runtime;
        CHECKED
            .iter()
            .copied()
            .filter(move |id| id.starts_with("RUNTIME-") == runtime)
    }

    /// Every requirement an implementation can be charged with. The others describe the
    /// provided sandbox (checked against the reference) or grant a freedom (a MAY).
    pub const CHECKED: &[&str] = &[
        EXEC_OUTPUT_COUNT,
        EXEC_OUTPUT_ORDER,
        EXEC_OUTPUT_SHAPE,
        EXEC_ID_GIVEN,
        EXEC_ID_GENERATED,
        EXEC_DUP_REJECTED,
        EXEC_DUP_ANY_EARLIER,
        EXEC_DUP_VERBATIM,
        EXEC_LIMIT_POSITION,
        EXEC_LIMIT_ZERO,
        EXEC_LIMIT_DEFAULT,
        EXEC_DUP_BEFORE_LIMIT,
        EXEC_DISPATCH_ONCE,
        EXEC_DISPATCH_ARGS_DEFAULT,
        EXEC_CONTENT_UNCHANGED,
        EXEC_FAILURE_ISOLATED,
        EXEC_NO_STATE,
        DEDUP_KEY_FORMAT,
        DEDUP_KEY_ORDER,
        DEDUP_KEY_LIST_ORDER,
        DEDUP_KEY_ASCII,
        DEDUP_KEY_LITERALS,
        DEDUP_KEY_ARGS_DEFAULT,
        DEDUP_NUMBER_FLOAT,
        DEDUP_NUMBER_INT,
        DEDUP_NUMBER_DISTINCT,
        DEDUP_NUMBER_OVERFLOW,
        DEDUP_RESULT_ENTRIES,
        DEDUP_INVOKE_ONCE,
        DEDUP_CACHE_HIT,
        DEDUP_RESULT_UNCHANGED,
        DEDUP_UNKNOWN_TOOL,
        DEDUP_RAISE,
        DEDUP_NO_STATE,
        DEDUP_NAME_VERBATIM,
        RUNTIME_RESULT_PER_CALL,
        RUNTIME_ID_ECHOED,
        RUNTIME_RESULT_ORDER,
        RUNTIME_CONTENT_UNCHANGED,
        RUNTIME_EXECUTE_ONCE,
        RUNTIME_ARGS_UNCHANGED,
        RUNTIME_ERROR_ISOLATED,
        RUNTIME_ERROR_REPORTED,
        RUNTIME_MALFORMED_ANSWERED,
        RUNTIME_NO_STATE,
        RUNTIME_POLICY_DECLARED,
        crate::judge::runtime_concurrency::RUNTIME_CONCURRENCY_DECLARED,
        crate::judge::runtime_concurrency::RUNTIME_CONCURRENCY_SHOWN,
    ];
}

/// A requirement a case shows broken: where and how, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Charge {
    pub requirement: String,
    /// The 1-based batch the diagnosis is about.
    pub batch: usize,
    /// For example: "call 2 has no id: expected tool_call_id `call_2` (its position in the
    /// batch), got `call_1`".
    pub diagnosis: String,
    /// `false` for a failure no check explains (an exception, a timeout, a crash, a value
    /// of the wrong type), charged to the function's named requirement.
    pub explained: bool,
}

/// What one case says about the requirements: the ones it shows broken, and the ones whose
/// checks applied and held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blame {
    pub charges: Vec<Charge>,
    pub shown: BTreeSet<String>,
}

impl Blame {
    /// The requirements charged, each once, in the order first charged.
    pub fn charged(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.charges
            .iter()
            .map(|c| c.requirement.as_str())
            .filter(|r| seen.insert(*r))
            .collect()
    }

    pub fn charges(&self, requirement: &str) -> bool {
        self.charges.iter().any(|c| c.requirement == requirement)
    }
}

/// What the generated cases of a run said about one requirement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct GeneratedTally {
    /// Generated cases where its check applies to the expected output.
    pub exercised: usize,
    /// Generated cases where its check applied and held.
    pub shown: usize,
    /// Generated cases charged to it.
    pub charged: usize,
    /// Of the ones exercising it, those that were not run (the function was given up on,
    /// the budget was spent): they show nothing, and partial credit counts them lost.
    pub not_run: usize,
}

impl GeneratedTally {
    pub fn add(&mut self, other: GeneratedTally) {
        self.exercised += other.exercised;
        self.shown += other.shown;
        self.charged += other.charged;
        self.not_run += other.not_run;
    }
}

/// The requirements whose checks apply to a case: the ones its expected output shows.
pub fn applicable(case: &Case) -> BTreeSet<String> {
    applicable_in(NumberModel::Python, case)
}

/// [`applicable`] for a case whose expectations are number model `model`'s.
pub fn applicable_in(model: NumberModel, case: &Case) -> BTreeSet<String> {
    of_a_pass::blame_of_expected_runs(model, case).shown
}

/// The requirement a failure no check explains is charged to: the one that says what the
/// function must return.
pub fn unexplained_requirement(function: Function) -> &'static str {
    match function {
        Function::ExecuteToolCalls => ids::EXEC_OUTPUT_COUNT,
        Function::RunParallelCalls => ids::DEDUP_RESULT_ENTRIES,
        Function::RunToolCalls => ids::RUNTIME_RESULT_PER_CALL,
    }
}

/// Diagnoses a judged case: `runs` are the batches that returned, `outcome` the judge's
/// verdict on them (or the exception, timeout or crash that ended the case).
pub fn blame(case: &Case, runs: &[BatchRun], outcome: &Outcome) -> Blame {
    blame_in(NumberModel::Python, case, runs, outcome)
}

/// [`blame`] for an implementation of number model `model`, on a case whose expectations
/// are that model's: values compare as the model holds them, and keys are read as the
/// model writes them, with the calls as written telling which number rule a key breaks.
pub fn blame_in(model: NumberModel, case: &Case, runs: &[BatchRun], outcome: &Outcome) -> Blame {
    let mut tally = Tally::default();
    let runs = super::held_in(model, runs);
    match case {
        Case::Exec(exec) => exec::diagnose(model, exec, &runs, &mut tally),
        Case::Dedup(dedup) => dedup::diagnose(model, dedup, &runs, &mut tally),
        Case::Runtime(runtime) => {
            let ended: Vec<_> = runs.iter().map(super::runtime::Ended::Returned).collect();
            let (_, blame) = super::runtime::verdict_in(model, runtime, &ended, None);
            // Runs given as values carry no measured concurrency: they are the reference
            // runtime's, which runs one tool at a time.
            let invocations: Vec<usize> = runs.iter().map(|r| r.invocations.len()).collect();
            let (_, blame) = super::runtime_concurrency::judged(
                &super::runtime::reference_policies(),
                &super::runtime_concurrency::one_at_a_time(&invocations),
                Outcome::Pass,
                blame,
            );
            return with_unexplained(blame, Function::RunToolCalls, runs.len(), outcome);
        }
    }
    with_unexplained(tally.finish(), case.function(), runs.len(), outcome)
}

/// `blame`, charged with the failure no check explained, if `outcome` is one: to the
/// function's named requirement, and it says so.
pub fn with_unexplained(
    mut blame: Blame,
    function: Function,
    returned: usize,
    outcome: &Outcome,
) -> Blame {
    if let Outcome::Fail(failure) = outcome {
        if blame.charges.is_empty() {
            let requirement = unexplained_requirement(function);
            let batch = match failure {
                Failure::WrongOutput { batch, .. }
                | Failure::WrongInvocations { batch, .. }
                | Failure::Exception { batch, .. } => *batch,
                _ => returned + 1,
            };
            blame.shown.remove(requirement);
            blame.charges.push(Charge {
                requirement: requirement.to_owned(),
                batch,
                diagnosis: unexplained_diagnosis(failure),
                explained: false,
            });
        }
    }
    blame
}

/// The blame of a case that ended without batch results to diagnose (not started, skipped,
/// a protocol error before any batch returned).
pub fn blame_without_runs(case: &Case, outcome: &Outcome) -> Blame {
    blame(case, &[], outcome)
}

/// The diagnosis of a failure no check explains.
fn unexplained_diagnosis(failure: &Failure) -> String {
    let what = match failure {
        Failure::Exception { message, .. } => {
            format!("the function raised {}", first_line(message))
        }
        Failure::Timeout { seconds } => format!("no answer within {seconds} s"),
        Failure::Crash { message } => format!("the process died: {}", first_line(message)),
        Failure::Protocol { message } => format!("protocol error: {}", first_line(message)),
        Failure::NotImplemented => "the function is not defined".to_owned(),
        Failure::WrongOutput { .. } => "the output differs in a way no rule's check names".into(),
        Failure::WrongInvocations { .. } => {
            "the invocations differ in a way no rule's check names".into()
        }
    };
    format!("{what} (no rule's check explains this failure, so it is charged here)")
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// What the checks of one case found, batch by batch.
#[derive(Default)]
struct Tally {
    applied: BTreeSet<&'static str>,
    charges: Vec<Charge>,
    /// How many more times each (requirement, batch) was broken after its first diagnosis.
    more: Vec<usize>,
}

impl Tally {
    /// A check applied to this case.
    fn applies(&mut self, requirement: &'static str) {
        self.applied.insert(requirement);
    }

    /// A check found its rule broken. The first diagnosis per requirement and batch is
    /// kept; later ones are counted.
    fn breaks(&mut self, requirement: &'static str, batch: usize, diagnosis: String) {
        self.applied.insert(requirement);
        if let Some(index) = self
            .charges
            .iter()
            .position(|c| c.requirement == requirement && c.batch == batch)
        {
            self.more[index] += 1;
            return;
        }
        self.charges.push(Charge {
            requirement: requirement.to_owned(),
            batch,
            diagnosis,
            explained: true,
        });
        self.more.push(0);
    }

    fn finish(self) -> Blame {
        let charged: BTreeSet<&str> = self
            .charges
            .iter()
            .map(|c| c.requirement.as_str())
            .collect();
        let shown = self
            .applied
            .iter()
            .filter(|r| !charged.contains(*r))
            .map(|r| (*r).to_owned())
            .collect();
        let charges = self
            .charges
            .into_iter()
            .zip(self.more)
            .map(|(mut charge, more)| {
                if more > 0 {
                    charge.diagnosis =
                        format!("{} (and {more} more in this batch)", charge.diagnosis);
                }
                charge
            })
            .collect();
        Blame { charges, shown }
    }
}

/// A value as it appears inside a diagnosis: short, one line, JSON.
fn quote(value: &crate::json::Value) -> String {
    if let Some(words) = value.as_str().and_then(unscripted) {
        return words;
    }
    let text = crate::json::dumps(value, crate::json::Style::PYTHON);
    shorten(&text)
}

/// What parcall's dispatch or tools answer a request no script covers (a request no call of
/// the case makes), said in words: the text itself is parcall's, and a student reading
/// "got ..." would take it for their own output.
fn unscripted(text: &str) -> Option<String> {
    let request = text
        .strip_prefix("error: ")
        .unwrap_or(text)
        .strip_prefix("parcall: no scripted answer for ")?;
    Some(format!(
        "the answer to a request no call of this case makes ({})",
        shorten(request)
    ))
}

fn shorten(text: &str) -> String {
    const LIMIT: usize = 120;
    if text.chars().count() <= LIMIT {
        return text.to_owned();
    }
    let kept: String = text.chars().take(LIMIT - 3).collect();
    format!("{kept}...")
}

/// A string shown in a diagnosis: JSON-quoted, so invisible characters are visible.
fn quote_str(text: &str) -> String {
    unscripted(text).unwrap_or_else(|| shorten(&crate::json::dumps_str(text)))
}

#[cfg(test)]
mod tests;
