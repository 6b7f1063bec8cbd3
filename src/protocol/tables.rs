//! The tool behaviour a case message carries. The runner owns the tools: for
//! `execute_tool_calls` it computes the sandbox's answer to every dispatch request the
//! case's batches could make; for `run_parallel_calls` it sends the case's scripts.

use super::messages::{BatchRequest, CaseRequest};
use crate::json::{NumberModel, Object, Value};
use crate::reference::{canonical_args, input, DispatchRequest, Dispatcher, Sandbox};
use crate::spec::{Answer, Case, Dispatch, ExecCase, Response, ToolScript};
use indexmap::IndexMap;
use std::collections::HashSet;

/// The message that runs `case`, with correlation id `id`, for an implementation of number
/// model `model`: the calls go as written, and under `float64` the sandbox answers each
/// request as the model holds it (`{"a": 1}` and `{"a": 1.0}` are one request then).
pub fn case_request(id: u64, case_id: &str, case: &Case, model: NumberModel) -> CaseRequest {
    match case {
        Case::Exec(exec) => CaseRequest {
            id,
            case: case_id.to_owned(),
            function: crate::spec::Function::ExecuteToolCalls,
            tools: dispatch_table(exec, model),
            batches: exec
                .batches
                .iter()
                .map(|b| BatchRequest {
                    calls: b.calls.clone(),
                    max_parallel: b.max_parallel,
                })
                .collect(),
        },
        Case::Dedup(dedup) => CaseRequest {
            id,
            case: case_id.to_owned(),
            function: crate::spec::Function::RunParallelCalls,
            tools: dedup.tools.clone(),
            batches: dedup
                .batches
                .iter()
                .map(|b| BatchRequest {
                    calls: b.calls.clone(),
                    max_parallel: None,
                })
                .collect(),
        },
    }
}

/// Every distinct `(tool, arguments)` the calls of the batches name, `arguments` defaulting
/// to `{}`, in first-appearance order. Requests are told apart by their canonical text, as
/// the adapters look them up: value equality would merge `0.0` with `-0.0` (IEEE `==`) and
/// leave the adapter without an answer for one of them.
fn requests<'v>(batches: impl Iterator<Item = &'v Value>) -> Vec<(String, Object)> {
    let mut seen = HashSet::new();
    let mut requests = Vec::new();
    for calls in batches {
        // The loader has checked the domain; a batch outside it contributes nothing.
        for call in input::tool_calls(calls).unwrap_or_default() {
            let arguments = call.arguments.unwrap_or_default();
            if seen.insert((call.tool.clone(), canonical_args(&arguments))) {
                requests.push((call.tool, arguments));
            }
        }
    }
    requests
}

/// What `dispatch` answers, as scripts by tool name. Tools the scripts do not know get the
/// sandbox's unknown-tool answer, so every request a batch names has an entry.
fn dispatch_table(case: &ExecCase, model: NumberModel) -> IndexMap<String, ToolScript> {
    if model == NumberModel::Python {
        return dispatch_table_for(&case.dispatch, case.batches.iter().map(|b| &b.calls));
    }
    let held: Vec<Value> = case
        .batches
        .iter()
        .map(|b| model.normalise(&b.calls))
        .collect();
    dispatch_table_for(&case.dispatch, held.iter())
}

/// [`dispatch_table`] for any dispatcher and batches of calls.
pub fn dispatch_table_for<'v>(
    dispatch: &Dispatch,
    batches: impl Iterator<Item = &'v Value>,
) -> IndexMap<String, ToolScript> {
    let mut table = match dispatch {
        Dispatch::Scripted { tools } => tools.clone(),
        Dispatch::Sandbox => IndexMap::new(),
    };
    let scripted = matches!(dispatch, Dispatch::Scripted { .. });
    for (tool, arguments) in requests(batches) {
        if scripted && table.contains_key(&tool) {
            continue;
        }
        let content = if scripted {
            format!("error: unknown tool '{tool}'")
        } else {
            Sandbox.dispatch(DispatchRequest {
                tool: &tool,
                arguments: &arguments,
            })
        };
        let script = table.entry(tool).or_insert_with(|| ToolScript {
            latency_ms: 0,
            responses: Vec::new(),
        });
        let args = if scripted { None } else { Some(arguments) };
        script.responses.push(Response {
            args,
            answers: vec![Answer::Return {
                value: Value::Str(content),
            }],
        });
    }
    table
}
