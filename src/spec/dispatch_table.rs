//! The dispatch table of a case: what its dispatcher answers each request its batches
//! name, written as tool scripts, so an implementation's adapter can answer from a table.

use super::model::{Answer, Dispatch, Response, ToolScript};
use crate::json::{Object, Value};
use crate::reference::{canonical_args, input, DispatchRequest, Dispatcher, Sandbox};
use indexmap::IndexMap;
use std::collections::HashSet;

/// What `dispatch` answers the requests the batches of calls name, as scripts by tool name:
/// the scripts themselves, plus the unknown-tool answer for every tool they do not know
/// (or, for the sandbox, the sandbox's answer to each request), so that every request a
/// batch names has an entry.
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
            latency_ms: None,
            answers: vec![Answer::Return {
                value: Value::Str(content.into()),
            }],
        });
    }
    table
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
