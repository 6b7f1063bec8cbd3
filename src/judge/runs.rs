//! The reference run on a case's inputs with the case's recording tools: what every batch
//! returns and invokes. Expectations under a number model are computed from it, the spec
//! tests check the case files against it, and the in-process reference subject and
//! `parcall reference` answer with it.

use super::{dedup_invocation, exec_invocation, BatchRun};
use crate::json::{NumberModel, Object, Value};
use crate::reference::{
    execute_tool_calls, input, run_parallel_calls_in, DomainError, Execution, Tools,
    DEFAULT_MAX_PARALLEL,
};
use crate::spec::{
    held_scripts, Case, CaseDispatch, CaseTools, DedupCase, Dispatch, ExecCase, RuntimeCase,
    ToolScript,
};
use indexmap::IndexMap;
use std::borrow::Cow;

/// The arguments of one call of `execute_tool_calls`.
pub type ExecArguments<'a> = (&'a Value, Option<u64>);

/// Runs every batch of `case` on the reference, as a runtime of number model `model` runs
/// it: on the inputs as that model holds them once read (under `python`, as written). Fails
/// only for input outside the domain, which the spec loader already refuses.
pub fn run_case(
    model: NumberModel,
    case: &Case,
    execution: Execution,
) -> Result<Vec<BatchRun>, DomainError> {
    match case {
        Case::Exec(c) => run_exec_case(model, c, execution),
        Case::Dedup(c) => run_dedup_case(model, c, execution),
        Case::Runtime(c) => Ok(run_runtime_case(model, c, execution)),
    }
}

/// [`run_case`] of an `execute_tool_calls` case.
pub fn run_exec_case(
    model: NumberModel,
    case: &ExecCase,
    execution: Execution,
) -> Result<Vec<BatchRun>, DomainError> {
    let dispatch = match &case.dispatch {
        Dispatch::Scripted { tools } if model != NumberModel::Python => Dispatch::Scripted {
            tools: held_scripts(model, tools),
        },
        dispatch => dispatch.clone(),
    };
    let calls = held_calls(model, case.batches.iter().map(|b| &b.calls));
    let limits = case.batches.iter().map(|b| b.max_parallel);
    run_exec(
        &dispatch,
        calls.iter().map(AsRef::as_ref).zip(limits),
        execution,
    )
}

/// [`run_case`] of a `run_parallel_calls` case.
pub fn run_dedup_case(
    model: NumberModel,
    case: &DedupCase,
    execution: Execution,
) -> Result<Vec<BatchRun>, DomainError> {
    let held;
    let tools = if model == NumberModel::Python {
        &case.tools
    } else {
        held = held_scripts(model, &case.tools);
        &held
    };
    let calls = held_calls(model, case.batches.iter().map(|b| &b.calls));
    run_dedup(tools, calls.iter().map(AsRef::as_ref), execution, model)
}

/// [`run_case`] of a runtime-profile case: the reference runtime, every call run once in
/// call order against the case's scripts, which raise for real.
pub fn run_runtime_case(
    model: NumberModel,
    case: &RuntimeCase,
    execution: Execution,
) -> Vec<BatchRun> {
    let held;
    let scripts = if model == NumberModel::Python {
        &case.tools
    } else {
        held = held_scripts(model, &case.tools);
        &held
    };
    let tools = CaseTools::new(scripts, execution);
    held_calls(model, case.batches.iter().map(|b| &b.calls))
        .iter()
        .map(|calls| {
            let output = crate::reference::runtime::run_tool_calls(
                calls.as_list().unwrap_or_default(),
                |name| tools.has_tool(name),
                |name, args| tools.answer(name, args).into_invoked(),
            );
            BatchRun {
                output,
                invocations: tools
                    .take_invocations()
                    .iter()
                    .map(dedup_invocation)
                    .collect(),
            }
        })
        .collect()
}

/// Each batch's calls as number model `model` holds them, borrowed under `python`.
fn held_calls<'a>(
    model: NumberModel,
    calls: impl Iterator<Item = &'a Value>,
) -> Vec<Cow<'a, Value>> {
    calls
        .map(|calls| match model {
            NumberModel::Python => Cow::Borrowed(calls),
            _ => Cow::Owned(model.normalise(calls)),
        })
        .collect()
}

/// Runs `execute_tool_calls` once per batch against one dispatcher (its answer counters
/// span the batches, as a case's do). It writes no numbers of its own: under a number model
/// it runs on the inputs as that model holds them (see [`super::expected`]).
pub fn run_exec<'a>(
    dispatch: &Dispatch,
    batches: impl Iterator<Item = ExecArguments<'a>>,
    execution: Execution,
) -> Result<Vec<BatchRun>, DomainError> {
    let dispatch = CaseDispatch::new(dispatch, execution);
    batches
        .map(|(calls, max_parallel)| {
            let calls = input::tool_calls(calls)?;
            let max_parallel = max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL);
            let messages = execute_tool_calls(&calls, max_parallel, &dispatch, execution);
            Ok(BatchRun {
                output: Value::List(messages.iter().map(|m| m.to_value()).collect()),
                invocations: dispatch
                    .take_invocations()
                    .iter()
                    .map(exec_invocation)
                    .collect(),
            })
        })
        .collect()
}

/// Runs `run_parallel_calls` once per batch with one set of scripted tools, keys written by
/// `model`.
pub fn run_dedup<'a>(
    tools: &IndexMap<String, ToolScript>,
    batches: impl Iterator<Item = &'a Value>,
    execution: Execution,
    model: NumberModel,
) -> Result<Vec<BatchRun>, DomainError> {
    let tools = CaseTools::new(tools, execution);
    batches
        .map(|calls| {
            let calls = input::dedup_calls(calls)?;
            let results = run_parallel_calls_in(model, &tools, &calls, execution);
            Ok(BatchRun {
                output: Value::from(
                    results
                        .into_iter()
                        .map(|(k, v)| (k.into(), v))
                        .collect::<Object>(),
                ),
                invocations: tools
                    .take_invocations()
                    .iter()
                    .map(dedup_invocation)
                    .collect(),
            })
        })
        .collect()
}
