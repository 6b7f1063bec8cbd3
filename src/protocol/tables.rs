//! What parcall sends to run a case, and the tables it answers the case's invocations from.
//! For `execute_tool_calls` the sandbox's answer to every dispatch request the case's
//! batches could make is computed once, so `dispatch` is answered as scripted tools are;
//! for `run_parallel_calls` the case's own scripts answer. The implementation gets only the
//! tools' names.

use super::messages::{BatchRequest, CaseRequest};
use crate::json::Object;
use crate::json::{JsonText, NumberModel, Style, Value};
use crate::spec::{
    dispatch_table_for, held_scripts, Case, ExecCase, Function, RuntimeCase, ToolScript,
};
use indexmap::IndexMap;

/// The message that runs `case`, with correlation id `id`: the calls go as written.
pub fn case_request(id: u64, case_id: &str, case: &Case) -> CaseRequest {
    let (function, tools, batches) = parts(case);
    CaseRequest {
        id,
        case: case_id.to_owned(),
        function,
        tools: tools.into_iter().map(str::to_owned).collect(),
        parameters: match case {
            Case::Runtime(runtime) => parameters(runtime),
            _ => IndexMap::new(),
        },
        batches: batches
            .into_iter()
            .map(|(calls, max_parallel)| BatchRequest {
                calls: calls.clone(),
                max_parallel,
            })
            .collect(),
    }
}

/// Each batch's calls and `max_parallel`.
type Batches<'c> = Vec<(&'c Value, Option<u64>)>;

/// The function, the tools' names and each batch's arguments.
fn parts(case: &Case) -> (Function, Vec<&str>, Batches<'_>) {
    match case {
        Case::Exec(exec) => (
            Function::ExecuteToolCalls,
            Vec::new(),
            exec.batches
                .iter()
                .map(|b| (&b.calls, b.max_parallel))
                .collect(),
        ),
        Case::Dedup(dedup) => (
            Function::RunParallelCalls,
            dedup.tools.keys().map(String::as_str).collect(),
            dedup.batches.iter().map(|b| (&b.calls, None)).collect(),
        ),
        Case::Runtime(runtime) => (
            Function::RunToolCalls,
            runtime.tools.keys().map(String::as_str).collect(),
            runtime.batches.iter().map(|b| (&b.calls, None)).collect(),
        ),
    }
}

/// Each tool's JSON Schema of its arguments: an object whose properties are every argument
/// name the case's calls give the tool, in the order first given, each any value. A runtime
/// that builds its tools from a schema (most do) then accepts every call the case makes,
/// and one that validates arguments has nothing to reject.
fn parameters(case: &RuntimeCase) -> IndexMap<String, Value> {
    let mut names: IndexMap<&str, Vec<&str>> = case
        .tools
        .keys()
        .map(|t| (t.as_str(), Vec::new()))
        .collect();
    let calls = case
        .batches
        .iter()
        .filter_map(|b| b.calls.as_list())
        .flatten();
    for call in calls.filter_map(Value::as_object) {
        let tool = call.get("name").and_then(Value::as_str);
        let arguments = call.get("arguments").and_then(Value::as_object);
        if let (Some(seen), Some(arguments)) = (tool.and_then(|t| names.get_mut(t)), arguments) {
            for name in arguments.keys() {
                if !seen.contains(&name.as_str()) {
                    seen.push(name);
                }
            }
        }
    }
    names
        .into_iter()
        .map(|(tool, arguments)| {
            let mut properties = Object::new();
            for name in arguments {
                properties.insert(name.into(), Value::from(Object::new()));
            }
            let mut schema = Object::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), Value::from(properties));
            schema.insert("additionalProperties".into(), Value::Bool(false));
            (tool.to_owned(), Value::from(schema))
        })
        .collect()
}

/// The line (newline included) that runs `case`: the message [`case_request`] builds,
/// encoded as [`super::encode`] would encode it, written straight from the case instead of
/// through a copy of it and a `Value` of the whole message. `tests` hold the two to the
/// same bytes on every case of the spec and generated ones.
pub fn case_line(id: u64, case_id: &str, case: &Case) -> String {
    let (function, tools, batches) = parts(case);
    let mut out = JsonText::new(Style {
        ensure_ascii: false,
        ..Style::PYTHON
    });
    out.raw("{\"type\": \"case\", \"id\": ")
        .raw(&id.to_string())
        .raw(", \"case\": ")
        .string(case_id)
        .raw(", \"function\": ")
        .string(function.name())
        .raw(", \"tools\": [");
    for (i, name) in tools.into_iter().enumerate() {
        out.raw(if i == 0 { "" } else { ", " }).string(name);
    }
    out.raw("]");
    if let Case::Runtime(runtime) = case {
        out.raw(", \"parameters\": {");
        for (i, (tool, schema)) in parameters(runtime).iter().enumerate() {
            out.raw(if i == 0 { "" } else { ", " })
                .string(tool)
                .raw(": ")
                .value(schema);
        }
        out.raw("}");
    }
    out.raw(", \"batches\": [");
    for (i, (calls, max_parallel)) in batches.into_iter().enumerate() {
        out.raw(if i == 0 {
            "{\"calls\": "
        } else {
            ", {\"calls\": "
        })
        .value(calls);
        if let Some(limit) = max_parallel {
            out.raw(", \"max_parallel\": ").raw(&limit.to_string());
        }
        out.raw("}");
    }
    out.raw("]}\n");
    out.into_string()
}

/// The scripts parcall answers `case`'s invocations from, for an implementation of number
/// model `model`, by tool name. For `execute_tool_calls`: what `dispatch` answers, every
/// tool the batches name included (the sandbox's unknown-tool answer for the ones it does
/// not know); under `float64` each request as the model holds it (`{"a": 1}` and
/// `{"a": 1.0}` are one request then). For `run_parallel_calls`: the case's scripts, their
/// args held as the model holds them.
pub fn answer_tables(case: &Case, model: NumberModel) -> IndexMap<String, ToolScript> {
    match case {
        Case::Exec(exec) => dispatch_table(exec, model),
        Case::Dedup(dedup) if model == NumberModel::Python => dedup.tools.clone(),
        Case::Dedup(dedup) => held_scripts(model, &dedup.tools),
        Case::Runtime(runtime) if model == NumberModel::Python => runtime.tools.clone(),
        Case::Runtime(runtime) => held_scripts(model, &runtime.tools),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{encode, Request};
    use crate::spec::Spec;

    #[test]
    fn a_case_line_is_the_encoded_case_request_byte_for_byte() {
        let spec = Spec::embedded().unwrap();
        let mut cases: Vec<_> = spec.cases.clone();
        for function in Function::EVERY {
            cases.extend(crate::fuzz::generated_cases(function, &spec.cases, 300, 11));
        }
        let mut limits = 0;
        for case in &cases {
            if let Case::Exec(exec) = &*case.case {
                limits += exec
                    .batches
                    .iter()
                    .filter(|b| b.max_parallel.is_some())
                    .count();
            }
            let request = case_request(42, "c2a", &case.case);
            assert_eq!(
                case_line(42, "c2a", &case.case),
                encode(&Request::Case(request)),
                "case {}",
                case.id()
            );
        }
        // The cases cover what the writer handles by hand: limits.
        assert!(limits > 0);
    }

    /// Nothing of a tool's behaviour reaches the implementation: not an answer, not a
    /// latency, not the args a script answers.
    #[test]
    fn a_case_line_names_the_tools_and_nothing_of_their_scripts() {
        let spec = Spec::embedded().unwrap();
        for case in &spec.cases {
            let line = case_line(1, "c1", &case.case);
            for needle in ["\"answers\"", "\"responses\"", "latency_ms", "\"return\""] {
                assert!(!line.contains(needle), "{}: {line}", case.id());
            }
        }
    }
}
