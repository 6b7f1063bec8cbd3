//! Expectations under a number model (RULINGS E). A case file holds what Python's model
//! expects; for an implementation that declared `float64`, the reference runs the case's
//! inputs as a float64 runtime holds them and its results become the case's expectations.

use super::reference::{run_dedup, run_exec};
use crate::json::{self, NumberModel, Value};
use crate::judge::BatchRun;
use crate::reference::{DomainError, Execution};
use crate::spec::{
    held_scripts, Case, DedupBatch, DedupCase, Dispatch, ExecBatch, ExecCase, SpecCase,
};
use std::borrow::Cow;

/// `case` as an implementation of number model `model` is judged on it. Under `python`, the
/// case itself. Under `float64`, its inputs as written (the implementation is given them
/// so, and a number's text is its to ignore) with every batch's expected output and
/// invocations as the reference computes them from the inputs held as doubles, keys
/// written as ECMAScript writes numbers. Fails only for input outside the domain, which the
/// spec loader and the generator never let through.
pub fn expected_under(model: NumberModel, case: &SpecCase) -> Result<SpecCase, DomainError> {
    if model == NumberModel::Python {
        return Ok(case.clone());
    }
    recomputed_under(model, case)
}

/// `case` with the expectations the reference computes for number model `model`, whatever
/// its own: under `python`, a case judged under `float64` gets the case file's back.
pub fn recomputed_under(model: NumberModel, case: &SpecCase) -> Result<SpecCase, DomainError> {
    let judged = match &case.case {
        Case::Exec(exec) => Case::Exec(exec_under(model, exec)?),
        Case::Dedup(dedup) => Case::Dedup(dedup_under(model, dedup)?),
    };
    Ok(SpecCase {
        file: case.file.clone(),
        case: judged,
    })
}

/// [`expected_under`] of every case, in order (the cases themselves under `python`). A case
/// whose expectations cannot be computed is left out and returned apart, with why.
pub fn all_expected_under(
    model: NumberModel,
    cases: &[SpecCase],
) -> (Cow<'_, [SpecCase]>, Vec<(SpecCase, String)>) {
    if model == NumberModel::Python {
        return (Cow::Borrowed(cases), Vec::new());
    }
    let mut judged = Vec::with_capacity(cases.len());
    let mut refused = Vec::new();
    for case in cases {
        match expected_under(model, case) {
            Ok(case) => judged.push(case),
            Err(error) => refused.push((
                case.clone(),
                format!("not run: its expectations under the {model} number model cannot be computed: {error}"),
            )),
        }
    }
    (Cow::Owned(judged), refused)
}

fn exec_under(model: NumberModel, case: &ExecCase) -> Result<ExecCase, DomainError> {
    let dispatch = match &case.dispatch {
        Dispatch::Sandbox => Dispatch::Sandbox,
        Dispatch::Scripted { tools } => Dispatch::Scripted {
            tools: held_scripts(model, tools),
        },
    };
    let calls: Vec<Value> = case
        .batches
        .iter()
        .map(|b| model.normalise(&b.calls))
        .collect();
    let runs = run_exec(
        &dispatch,
        calls
            .iter()
            .zip(&case.batches)
            .map(|(c, b)| (c, b.max_parallel)),
        Execution::Sequential,
    )?;
    let batches = case
        .batches
        .iter()
        .zip(runs)
        .map(|(batch, run)| ExecBatch {
            calls: batch.calls.clone(),
            max_parallel: batch.max_parallel,
            invocations: typed(&run),
            expected: run.output,
        })
        .collect();
    Ok(ExecCase {
        batches,
        ..case.clone()
    })
}

fn dedup_under(model: NumberModel, case: &DedupCase) -> Result<DedupCase, DomainError> {
    let tools = held_scripts(model, &case.tools);
    let calls: Vec<Value> = case
        .batches
        .iter()
        .map(|b| model.normalise(&b.calls))
        .collect();
    let runs = run_dedup(&tools, calls.iter(), Execution::Sequential, model)?;
    let batches = case
        .batches
        .iter()
        .zip(runs)
        .map(|(batch, run)| DedupBatch {
            calls: batch.calls.clone(),
            expected: match &run.output {
                Value::Object(results) => results.clone(),
                _ => unreachable!("run_parallel_calls returns a mapping"),
            },
            invocations: typed(&run),
        })
        .collect();
    Ok(DedupCase {
        batches,
        ..case.clone()
    })
}

/// A batch's invocations, read back into the case format's types (they were written from
/// those types, so this cannot fail).
fn typed<T: serde::de::DeserializeOwned>(run: &BatchRun) -> Vec<T> {
    run.invocations
        .iter()
        .filter_map(|v| json::from_value(v).ok())
        .collect()
}
