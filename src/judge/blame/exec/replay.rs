//! Replays the answers dispatch gave a batch's requests, so the content checks know what
//! each call's content had to be.

use super::ANY_ANSWER;
use crate::json::{Object, Value};
use crate::reference::canonical_args;
use crate::reference::{DispatchRequest, Dispatcher, Sandbox, ToolCall};
use crate::spec::{dispatch_answer, Scripts};
use std::collections::HashMap;

/// The answers dispatch gave this batch's invocations, per canonical request, replayed from
/// the invocations the implementation made (the scripted answer counters run across the
/// batches of a case). `scripts` is `None` for the sandbox.
pub(super) fn replay(
    scripts: Option<&Scripts<'_>>,
    invocations: &[Value],
    answered: &mut HashMap<(String, String), usize>,
) -> HashMap<String, Vec<String>> {
    let mut answers: HashMap<String, Vec<String>> = HashMap::new();
    for invocation in invocations {
        let Some((tool, arguments)) = request_parts(invocation) else {
            continue;
        };
        if invocation
            .as_object()
            .and_then(|o| o.get("arguments"))
            .is_none_or(|a| a.as_object().is_none())
        {
            // What the adapter answered a malformed request is its own business: any
            // content is taken as that answer (the dispatch check charges the request).
            answers
                .entry(request_key(tool, &canonical_args(arguments)))
                .or_default()
                .push(ANY_ANSWER.to_owned());
            continue;
        }
        let key = canonical_args(arguments);
        let answer = match scripts {
            None => Sandbox.dispatch(DispatchRequest { tool, arguments }),
            Some(scripts) => match scripts.get(tool) {
                None => format!("error: unknown tool '{tool}'"),
                Some(script) => {
                    let count = answered.entry((tool.to_owned(), key.clone())).or_default();
                    *count += 1;
                    dispatch_answer(tool, script, &key, *count - 1)
                }
            },
        };
        answers
            .entry(request_key(tool, &key))
            .or_default()
            .push(answer);
    }
    answers
}

/// The tool and arguments of a recorded request. Arguments that are not an object (`null`
/// from a call without arguments) were answered as `{}` would be; the dispatch check
/// charges the request itself.
fn request_parts(invocation: &Value) -> Option<(&str, &Object)> {
    static EMPTY: std::sync::LazyLock<Object> = std::sync::LazyLock::new(Object::new);
    let object = invocation.as_object()?;
    let tool = object.get("tool")?.as_str()?;
    let arguments = object
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&EMPTY);
    Some((tool, arguments))
}

/// `canonical` is the arguments' canonical JSON.
pub(super) fn request_key(tool: &str, canonical: &str) -> String {
    format!("{tool}\u{0}{canonical}")
}

/// The request a call is dispatched with: its tool and its arguments (`{}` when absent).
pub(super) fn request_of(call: &ToolCall) -> Value {
    let mut object = Object::new();
    object.insert("tool".into(), call.tool.as_str().into());
    object.insert(
        "arguments".into(),
        Value::from(call.arguments.clone().unwrap_or_default()),
    );
    Value::from(object)
}
