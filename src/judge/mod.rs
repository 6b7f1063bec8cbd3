//! Judging (RULES C): what an implementation returned and invoked, against what a case
//! expects. A failing case is data, an [`Outcome`], never an error.

pub mod blame;
mod dispatch_order;
pub mod excerpt;
pub mod expected;
mod invocations;
mod outcome;
pub mod runs;
pub mod runtime;
pub mod runtime_concurrency;
mod verdict;

pub use blame::{blame, blame_in, Blame, Charge, GeneratedTally};
pub use invocations::{multiset_difference, same_invocation, InvocationDiff};
pub use outcome::{Failure, Outcome, OutcomeKind};
pub use verdict::{CaseResult, Judge};

use crate::json::{NumberModel, Object, Value};
use crate::spec::{Case, DedupInvocation, ExecInvocation};
use std::borrow::Cow;

/// What one batch of a case produced: the function's return value and every invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRun {
    pub output: Value,
    /// Each as its JSON object: `{"tool", "arguments"}` or `{"name", "args"}`.
    pub invocations: Vec<Value>,
}

/// The expected output and invocations of every batch of a case.
pub fn expectations(case: &Case) -> Vec<(Value, Vec<Value>)> {
    match case {
        Case::Exec(c) => c
            .batches
            .iter()
            .map(|b| {
                (
                    b.expected.clone(),
                    b.invocations.iter().map(exec_invocation).collect(),
                )
            })
            .collect(),
        Case::Dedup(c) => c
            .batches
            .iter()
            .map(|b| {
                let expected = Value::from(b.expected.clone());
                (
                    expected,
                    b.invocations.iter().map(dedup_invocation).collect(),
                )
            })
            .collect(),
        Case::Runtime(c) => runtime::expectations(c),
    }
}

/// The runs a case expects, as an implementation would return them.
pub fn expected_runs(case: &Case) -> Vec<BatchRun> {
    expectations(case)
        .into_iter()
        .map(|(output, invocations)| BatchRun {
            output,
            invocations,
        })
        .collect()
}

pub fn exec_invocation(invocation: &ExecInvocation) -> Value {
    let mut object = Object::new();
    object.insert("tool".into(), invocation.tool.as_str().into());
    object.insert(
        "arguments".into(),
        Value::from(invocation.arguments.clone()),
    );
    Value::from(object)
}

pub fn dedup_invocation(invocation: &DedupInvocation) -> Value {
    let mut object = Object::new();
    object.insert("name".into(), invocation.name.as_str().into());
    object.insert("args".into(), Value::from(invocation.args.clone()));
    Value::from(object)
}

/// Judges the runs of a case's batches, batch by batch: the first batch whose output or
/// invocations differ decides the outcome. Identical dispatch requests may receive their
/// scripted answers in any order (see `dispatch_order`). Output is checked before invocations, because a
/// wrong output usually explains wrong invocations.
pub fn judge(case: &Case, runs: &[BatchRun]) -> Outcome {
    judge_in(NumberModel::Python, case, runs)
}

/// What the batches returned and invoked, as number model `model` holds it: under
/// `float64`, `1` and `1.0` are one value, so results compare by value (RULES E).
pub fn held_in(model: NumberModel, runs: &[BatchRun]) -> Cow<'_, [BatchRun]> {
    if model == NumberModel::Python {
        return Cow::Borrowed(runs);
    }
    Cow::Owned(
        runs.iter()
            .map(|run| BatchRun {
                output: model.normalise(&run.output),
                invocations: run.invocations.iter().map(|i| model.normalise(i)).collect(),
            })
            .collect(),
    )
}

/// [`judge`] for an implementation of number model `model`, on a case whose expectations
/// are that model's (see [`expected::expected_under`]).
pub fn judge_in(model: NumberModel, case: &Case, runs: &[BatchRun]) -> Outcome {
    let expected = case.batch_count();
    if runs.len() != expected {
        return Outcome::Fail(Failure::Protocol {
            message: format!(
                "{} batch results for a case of {expected} batches",
                runs.len()
            ),
        });
    }
    judge_prefix_in(model, case, runs)
}

/// Judges the first `runs.len()` batches of a case (the ones that returned before one
/// raised, say).
pub fn judge_prefix(case: &Case, runs: &[BatchRun]) -> Outcome {
    judge_prefix_in(NumberModel::Python, case, runs)
}

/// [`judge_prefix`] under number model `model`: results compare as that model holds them.
pub fn judge_prefix_in(model: NumberModel, case: &Case, runs: &[BatchRun]) -> Outcome {
    let runs = held_in(model, runs);
    // Every case judged passes through here, most of them passing: the expectations are
    // read in place and copied only into a failure.
    for (index, run) in runs.iter().enumerate().take(case.batch_count()) {
        let batch = index + 1;
        let invocations: Vec<Value> = match case {
            Case::Exec(exec) => {
                let input = &exec.batches[index];
                // The aligned output is the same output under RULES A6 (identical
                // requests' answers put in call order), so the diff and the blame point
                // only at what no dispatch order explains.
                let aligned = dispatch_order::align(
                    model,
                    &input.calls,
                    input.max_parallel,
                    &input.expected,
                    &run.output,
                );
                if aligned.as_ref().unwrap_or(&run.output) != &input.expected {
                    return Outcome::Fail(Failure::WrongOutput {
                        batch,
                        expected: input.expected.clone(),
                        actual: aligned.unwrap_or_else(|| run.output.clone()),
                    });
                }
                input.invocations.iter().map(exec_invocation).collect()
            }
            Case::Dedup(dedup) => {
                let input = &dedup.batches[index];
                if run.output.as_object() != Some(&input.expected) {
                    return Outcome::Fail(Failure::WrongOutput {
                        batch,
                        expected: Value::from(input.expected.clone()),
                        actual: run.output.clone(),
                    });
                }
                input.invocations.iter().map(dedup_invocation).collect()
            }
            // A runtime case is read by properties over all its batches at once.
            Case::Runtime(runtime) => {
                let ended: Vec<runtime::Ended<'_>> =
                    runs.iter().map(runtime::Ended::Returned).collect();
                return runtime::verdict_in(model, runtime, &ended, None).0;
            }
        };
        let diff = multiset_difference(&invocations, &run.invocations);
        if !diff.is_empty() {
            return Outcome::Fail(Failure::WrongInvocations { batch, diff });
        }
    }
    Outcome::Pass
}
