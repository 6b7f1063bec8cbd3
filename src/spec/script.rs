//! Playing a case's tool behaviour in-process, recording every invocation: the reference's
//! tests run through these, and so does the runner when it answers for an implementation.

use super::model::{Answer, DedupInvocation, Dispatch, ExecInvocation, Response, ToolScript};
use crate::json::{NumberModel, Object, Value};
use crate::reference::{canonical_args, DispatchRequest, Dispatcher, Sandbox, Tools};
use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// The `tools` mapping of a `run_parallel_calls` case. Answer counters live as long as the
/// value, so create one per case: successive batches of a case see successive answers.
#[derive(Debug)]
pub struct CaseTools<'a> {
    scripts: &'a IndexMap<String, ToolScript>,
    state: Mutex<ScriptState<DedupInvocation>>,
}

#[derive(Debug)]
struct ScriptState<I> {
    /// Invocations so far per (tool, canonical args).
    counts: HashMap<(String, String), usize>,
    log: Vec<I>,
}

impl<I> Default for ScriptState<I> {
    fn default() -> Self {
        ScriptState {
            counts: HashMap::new(),
            log: Vec::new(),
        }
    }
}

impl<'a> CaseTools<'a> {
    pub fn new(scripts: &'a IndexMap<String, ToolScript>) -> Self {
        CaseTools {
            scripts,
            state: Mutex::default(),
        }
    }

    /// The invocations since the last call, in the order they happened.
    pub fn take_invocations(&self) -> Vec<DedupInvocation> {
        std::mem::take(&mut lock(&self.state).log)
    }
}

/// A poisoned lock only means another invocation panicked; the counters stay consistent
/// because each update is a single insert.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Tools for CaseTools<'_> {
    fn has_tool(&self, name: &str) -> bool {
        self.scripts.contains_key(name)
    }

    fn invoke(&self, name: &str, args: &Object) -> Result<Value, String> {
        let Some(script) = self.scripts.get(name) else {
            return Err(format!("KeyError: '{name}'"));
        };
        let key = canonical_args(args);
        let nth = {
            let mut state = lock(&self.state);
            state.log.push(DedupInvocation {
                name: name.to_owned(),
                args: args.clone(),
            });
            let count = state
                .counts
                .entry((name.to_owned(), key.clone()))
                .or_default();
            *count += 1;
            *count - 1
        };
        // Sleep outside the lock, so concurrent invocations really overlap.
        wait_if_first(script, &key, nth);
        tool_answer(name, script, &key, nth)
    }
}

/// The race probe: the first invocation of each args (`nth` 0) waits its response's latency
/// ([`ToolScript::latency_of`]), which keeps it in flight while a racy implementation starts
/// the same call again. Later invocations answer at once: the race has either shown by then
/// or cannot, and a sequential implementation pays the wait once per key, not once per call.
fn wait_if_first(script: &ToolScript, key: &str, nth: usize) {
    let latency = first_wait_ms(script, key, nth);
    if latency > 0 {
        std::thread::sleep(Duration::from_millis(latency));
    }
}

/// How long the `nth` invocation with canonical args `key` waits.
fn first_wait_ms(script: &ToolScript, key: &str, nth: usize) -> u64 {
    match scripted_response(script, key) {
        Some(response) if nth == 0 => script.latency_of(response),
        _ => 0,
    }
}

/// What the `nth` (0-based) invocation of a scripted `run_parallel_calls` tool with
/// canonical args `key` gives: its return value, or the `str()` of what it raises.
pub fn tool_answer(
    name: &str,
    script: &ToolScript,
    key: &str,
    nth: usize,
) -> Result<Value, String> {
    match scripted_answer(script, key, nth) {
        Some(Answer::Return { value }) => Ok(value.clone()),
        Some(Answer::Raise { message, .. }) => Err(message.clone()),
        None => Err(format!("parcall: no scripted answer for {name}({key})")),
    }
}

/// The answer to the `nth` (0-based) invocation with canonical args `key`: from the first
/// response whose args match (or that has none); the last answer repeats.
pub fn scripted_answer<'s>(script: &'s ToolScript, key: &str, nth: usize) -> Option<&'s Answer> {
    let response = scripted_response(script, key)?;
    response.answers.get(nth).or(response.answers.last())
}

/// The response that answers invocations with canonical args `key`: the first whose args
/// match, or that has none.
fn scripted_response<'s>(script: &'s ToolScript, key: &str) -> Option<&'s Response> {
    script.responses.iter().find(|response| {
        response
            .args
            .as_ref()
            .is_none_or(|args| canonical_args(args) == key)
    })
}

/// The `dispatch` of an `execute_tool_calls` case: the sandbox, or scripted string answers.
#[derive(Debug)]
pub struct CaseDispatch<'a> {
    dispatch: &'a Dispatch,
    state: Mutex<ScriptState<ExecInvocation>>,
}

impl<'a> CaseDispatch<'a> {
    pub fn new(dispatch: &'a Dispatch) -> Self {
        CaseDispatch {
            dispatch,
            state: Mutex::default(),
        }
    }

    /// The dispatch requests since the last call, in the order they happened.
    pub fn take_invocations(&self) -> Vec<ExecInvocation> {
        std::mem::take(&mut lock(&self.state).log)
    }

    fn scripted(
        &self,
        tools: &IndexMap<String, ToolScript>,
        request: DispatchRequest<'_>,
    ) -> String {
        let Some(script) = tools.get(request.tool) else {
            return format!("error: unknown tool '{}'", request.tool);
        };
        let key = canonical_args(request.arguments);
        let nth = {
            let mut state = lock(&self.state);
            let count = state
                .counts
                .entry((request.tool.to_owned(), key.clone()))
                .or_default();
            *count += 1;
            *count - 1
        };
        wait_if_first(script, &key, nth);
        dispatch_answer(request.tool, script, &key, nth)
    }
}

/// What the `nth` (0-based) scripted `dispatch` of `tool` with canonical arguments `key`
/// returns.
pub fn dispatch_answer(tool: &str, script: &ToolScript, key: &str, nth: usize) -> String {
    match scripted_answer(script, key, nth) {
        Some(Answer::Return {
            value: Value::Str(text),
        }) => text.to_string(),
        // The loader refuses scripted dispatch answers that are not strings.
        Some(Answer::Return { value }) => value.to_string(),
        Some(Answer::Raise { message, .. }) => format!("error: {message}"),
        None => format!("error: parcall: no scripted answer for {tool}({key})"),
    }
}

impl Dispatcher for CaseDispatch<'_> {
    fn dispatch(&self, request: DispatchRequest<'_>) -> String {
        lock(&self.state).log.push(ExecInvocation {
            tool: request.tool.to_owned(),
            arguments: request.arguments.clone(),
        });
        match self.dispatch {
            Dispatch::Sandbox => Sandbox.dispatch(request),
            Dispatch::Scripted { tools } => self.scripted(tools, request),
        }
    }
}

/// Tool scripts as number model `model` holds them (RULINGS E): the args its responses match
/// and the values they answer. Under `python`, the scripts themselves.
pub fn held_scripts(
    model: NumberModel,
    scripts: &IndexMap<String, ToolScript>,
) -> IndexMap<String, ToolScript> {
    let answer = |answer: &Answer| match answer {
        Answer::Return { value } => Answer::Return {
            value: model.normalise(value),
        },
        Answer::Raise {
            message,
            exception,
            args,
        } => Answer::Raise {
            message: message.clone(),
            exception: *exception,
            args: args
                .as_ref()
                .map(|args| args.iter().map(|a| model.normalise(a)).collect()),
        },
    };
    scripts
        .iter()
        .map(|(name, script)| {
            let responses = script
                .responses
                .iter()
                .map(|response| Response {
                    args: response.args.as_ref().map(|a| model.normalise_object(a)),
                    latency_ms: response.latency_ms,
                    answers: response.answers.iter().map(answer).collect(),
                })
                .collect();
            let script = ToolScript {
                latency_ms: script.latency_ms,
                responses,
            };
            (name.clone(), script)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn a_response_latency_outranks_the_script_latency_on_the_first_invocation_only() {
        let script: ToolScript = crate::json::from_value(
            &parse(
                r#"{"latency_ms": 5, "responses": [
                {"args": {"k": 1}, "latency_ms": 2, "answers": [{"type": "return", "value": 1}]},
                {"args": {"k": 2}, "latency_ms": 0, "answers": [{"type": "return", "value": 2}]},
                {"answers": [{"type": "return", "value": 3}]}
            ]}"#,
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(first_wait_ms(&script, r#"{"k": 1}"#, 0), 2);
        assert_eq!(first_wait_ms(&script, r#"{"k": 1}"#, 1), 0);
        assert_eq!(first_wait_ms(&script, r#"{"k": 2}"#, 0), 0);
        assert_eq!(first_wait_ms(&script, r#"{"k": 3}"#, 0), 5);
        assert_eq!(first_wait_ms(&script, r#"{"k": 3}"#, 2), 0);
        let mut cleared = script.clone();
        cleared.clear_latency();
        assert!(script.has_latency() && !cleared.has_latency());
    }
}
