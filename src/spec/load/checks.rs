//! What is wrong inside a case (its id, its batches, its numbers), and across cases
//! (unique ids, links to requirements).

use super::super::model::{
    Answer, DedupCase, Dispatch, ExceptionClass, ExecCase, RuntimeCase, ToolScript,
};
use super::super::requirements::Requirement;
use super::{Case, SpecCase};
use crate::json::Value;
use crate::reference::{input, Sandbox};
use std::collections::HashMap;

/// What is wrong inside one case, independent of other cases; `longest_integer` is the
/// digit count of its longest integer.
pub(super) fn case_problems(case: &SpecCase, longest_integer: Option<usize>) -> Vec<String> {
    let mut problems = Vec::new();
    let id = case.id();
    let id_ok = !id.is_empty()
        && id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !id_ok {
        problems.push("the id must be lowercase words and digits joined by `-`".to_owned());
    }
    if case.requirements().is_empty() {
        problems.push("names no requirement".to_owned());
    }
    match &*case.case {
        Case::Exec(exec) => exec_problems(exec, &mut problems),
        Case::Dedup(dedup) => dedup_problems(dedup, &mut problems),
        Case::Runtime(runtime) => runtime_problems(runtime, &mut problems),
    }
    if let Some(digits) = longest_integer.filter(|&d| d > MAX_INTEGER_DIGITS) {
        problems.push(format!(
            "holds an integer of {digits} digits; CPython converts at most \
             {MAX_INTEGER_DIGITS} (SPEC.md, Numbers)"
        ));
    }
    problems
}

use crate::json::MAX_INTEGER_DIGITS;

/// The digit count (sign excluded) of the longest integer anywhere in `value`.
pub(super) fn longest_integer(value: &Value) -> Option<usize> {
    match value {
        Value::Int(int) => Some(int.as_str().trim_start_matches('-').len()),
        Value::List(items) => items.iter().filter_map(longest_integer).max(),
        Value::Object(object) => object.values().filter_map(longest_integer).max(),
        _ => None,
    }
}

pub(super) fn exec_problems(case: &ExecCase, problems: &mut Vec<String>) {
    if case.batches.is_empty() {
        problems.push("has no batch".to_owned());
    }
    for (index, batch) in case.batches.iter().enumerate() {
        let checked = input::tool_calls(&batch.calls).and_then(|calls| match case.dispatch {
            Dispatch::Sandbox => Sandbox::check_domain(&calls),
            Dispatch::Scripted { .. } => Ok(()),
        });
        if let Err(error) = checked {
            problems.push(format!("batch {}: outside the domain: {error}", index + 1));
        }
        let calls = batch.calls.as_list().map_or(0, <[Value]>::len);
        let messages = batch.expected.as_list().map_or(0, <[Value]>::len);
        if calls != messages {
            problems.push(format!(
                "batch {}: expects {messages} messages for {calls} calls (RULES A1: one per call)",
                index + 1
            ));
        }
    }
    if let Dispatch::Scripted { tools } = &case.dispatch {
        raise_problems(tools, problems);
        for (name, script) in tools {
            let answers = script.responses.iter().flat_map(|r| &r.answers);
            if answers.clone().any(|a| {
                // A raise is fine: dispatch answers it with `error: <message>` (SPEC.md).
                !matches!(
                    a,
                    Answer::Return {
                        value: Value::Str(_)
                    } | Answer::Raise { .. }
                )
            }) {
                problems.push(format!(
                    "scripted dispatch tool `{name}` must only return strings (or raise)"
                ));
            }
        }
    }
}

pub(super) fn runtime_problems(case: &RuntimeCase, problems: &mut Vec<String>) {
    if case.batches.is_empty() {
        problems.push("has no batch".to_owned());
    }
    for (index, batch) in case.batches.iter().enumerate() {
        let Some(calls) = batch.calls.as_list() else {
            problems.push(format!("batch {}: `calls` must be a list", index + 1));
            continue;
        };
        for (position, call) in calls.iter().enumerate() {
            let call = call.as_object();
            let id_ok = call
                .and_then(|c| c.get("id"))
                .is_none_or(|id| matches!(id, Value::Str(_) | Value::Null));
            let name_ok = call
                .and_then(|c| c.get("name"))
                .is_some_and(|n| n.as_str().is_some());
            let args_ok = call
                .and_then(|c| c.get("arguments"))
                .is_some_and(|a| a.as_object().is_some());
            let finite = call
                .and_then(|c| c.get("arguments"))
                .is_none_or(|a| !has_non_finite(a));
            if !finite {
                problems.push(format!(
                    "batch {}: call {}: arguments hold NaN, an infinity, or an integer of more than {} digits: JSON text (what a model writes) has no NaN or infinity, and a float64 runtime reads such an integer as one",
                    index + 1,
                    position + 1,
                    super::super::model::RUNTIME_MAX_DIGITS
                ));
            }
            if !(id_ok && name_ok && args_ok) {
                problems.push(format!(
                    "batch {}: call {}: must be {{\"id\": string or null, \"name\": string, \"arguments\": object}}",
                    index + 1,
                    position + 1
                ));
            }
        }
    }
    raise_problems(&case.tools, problems);
    for (name, script) in &case.tools {
        if script.responses.iter().any(|r| r.answers.is_empty()) {
            problems.push(format!("tool `{name}` has a response without answers"));
        }
    }
}

fn has_non_finite(value: &Value) -> bool {
    match value {
        Value::Float(f) => !f.is_finite(),
        Value::Int(i) => {
            i.as_str().trim_start_matches('-').len() > super::super::model::RUNTIME_MAX_DIGITS
        }
        Value::List(items) => items.iter().any(has_non_finite),
        Value::Object(object) => object.values().any(has_non_finite),
        _ => false,
    }
}

pub(super) fn dedup_problems(case: &DedupCase, problems: &mut Vec<String>) {
    if case.batches.is_empty() {
        problems.push("has no batch".to_owned());
    }
    for (index, batch) in case.batches.iter().enumerate() {
        if let Err(error) = input::dedup_calls(&batch.calls) {
            problems.push(format!("batch {}: outside the domain: {error}", index + 1));
        }
    }
    raise_problems(&case.tools, problems);
    for (name, script) in &case.tools {
        if script.responses.iter().any(|r| r.answers.is_empty()) {
            problems.push(format!("tool `{name}` has a response without answers"));
        }
    }
}

/// A `raise` answer's `message` must be what CPython's `str()` gives for its class and args
/// (RULES B7a), so that every adapter, whether it builds the real exception or only
/// carries the message, shows the same text.
pub(super) fn raise_problems(
    tools: &indexmap::IndexMap<String, ToolScript>,
    problems: &mut Vec<String>,
) {
    for (name, script) in tools {
        for answer in script.responses.iter().flat_map(|r| &r.answers) {
            let Answer::Raise {
                message,
                exception,
                args,
            } = answer
            else {
                continue;
            };
            let class = exception.unwrap_or(ExceptionClass::RuntimeError);
            let args = args
                .clone()
                .unwrap_or_else(|| vec![Value::from(message.as_str())]);
            if let Some(shown) = class.python_str(&args) {
                if &shown != message {
                    problems.push(format!(
                        "tool `{name}` raises {}{}, whose str() is {shown:?}, not the message {message:?}",
                        class.name(),
                        crate::reference::python::repr_value(&Value::List(args.clone()))
                            .replacen('[', "(", 1)
                            .trim_end_matches(']')
                            .to_owned()
                            + ")"
                    ));
                }
            }
        }
    }
}

/// Ids unique across files; every case names existing requirements of its own function.
pub(super) fn check_links(
    requirements: &[Requirement],
    cases: &[SpecCase],
    problems: &mut Vec<String>,
) {
    let by_id: HashMap<&str, &Requirement> =
        requirements.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut first_seen: HashMap<&str, String> = HashMap::new();
    for case in cases {
        if let Some(other) = first_seen.insert(case.id(), case.origin.file()) {
            problems.push(format!(
                "{}: case id {} is already used in {other}",
                case.origin.file(),
                case.id()
            ));
        }
        for requirement in case.requirements() {
            match by_id.get(requirement.as_str()) {
                None => problems.push(format!(
                    "{}: case {}: names unknown requirement {requirement}",
                    case.origin.file(),
                    case.id()
                )),
                Some(r) if r.function != case.function() => problems.push(format!(
                    "{}: case {}: requirement {requirement} is about {}, not {}",
                    case.origin.file(),
                    case.id(),
                    r.function,
                    case.function()
                )),
                Some(_) => {}
            }
        }
    }
}
