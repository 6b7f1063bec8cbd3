//! `execute_tool_calls(calls, max_parallel=4)` (RULES A): one tool message per call, in
//! call order, with the exact id of the call it answers.

use super::execution::Execution;
use super::input::ToolCall;
use crate::json::{Object, Value};
use std::collections::HashSet;

/// The default of `max_parallel` in the exercise's signature.
pub const DEFAULT_MAX_PARALLEL: u64 = 4;

/// What `dispatch` receives (RULES A6): the call's tool and its arguments, `{}` when absent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispatchRequest<'a> {
    pub tool: &'a str,
    pub arguments: &'a Object,
}

impl DispatchRequest<'_> {
    /// The request as the JSON object Python's `dispatch` is handed.
    pub fn to_value(&self) -> Value {
        let mut request = Object::new();
        request.insert("tool".into(), self.tool.into());
        request.insert("arguments".into(), Value::from(self.arguments.clone()));
        Value::from(request)
    }
}

/// The `dispatch` function the exercise provides. `Sync` because accepted calls may be
/// dispatched concurrently.
pub trait Dispatcher: Sync {
    /// Runs one request and returns the message content.
    fn dispatch(&self, request: DispatchRequest<'_>) -> String;
}

impl<F: Fn(DispatchRequest<'_>) -> String + Sync> Dispatcher for F {
    fn dispatch(&self, request: DispatchRequest<'_>) -> String {
        self(request)
    }
}

/// What happens to one call, decided before anything runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Dispatched exactly once.
    Dispatch,
    /// Its resolved id was taken by an earlier call (RULES A3).
    Duplicate,
    /// Its position is past `max_parallel` (RULES A4).
    OverLimit,
}

/// The decision for one call: its resolved id and its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub id: String,
    pub verdict: Verdict,
}

/// One `{"role": "tool", "tool_call_id": ..., "content": ...}` message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMessage {
    pub tool_call_id: String,
    pub content: String,
}

impl ToolMessage {
    pub fn to_value(&self) -> Value {
        let mut message = Object::new();
        message.insert("role".into(), "tool".into());
        message.insert("tool_call_id".into(), self.tool_call_id.as_str().into());
        message.insert("content".into(), self.content.as_str().into());
        Value::from(message)
    }
}

/// The resolved id of the call at `position` (RULES A2): the given id when it is a non-empty
/// string, verbatim; otherwise `call_<position>`.
pub fn resolve_id(id: Option<&str>, position: usize) -> String {
    match id {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("call_{position}"),
    }
}

/// Decides every call of a batch: the duplicate check (against the resolved ids of all
/// earlier calls, whatever happened to them) comes before the limit check (RULES A3-A5).
pub fn plan(calls: &[ToolCall], max_parallel: u64) -> Vec<Decision> {
    let mut seen = HashSet::with_capacity(calls.len());
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let position = index + 1;
            let id = resolve_id(call.id.as_deref(), position);
            let verdict = if !seen.insert(id.clone()) {
                Verdict::Duplicate
            } else if position as u64 > max_parallel {
                Verdict::OverLimit
            } else {
                Verdict::Dispatch
            };
            Decision { id, verdict }
        })
        .collect()
}

/// The calls of a batch that its `decisions` ([`plan`]) dispatch, in call order.
pub fn dispatched<'c>(calls: &'c [ToolCall], decisions: &[Decision]) -> Vec<&'c ToolCall> {
    calls
        .iter()
        .zip(decisions)
        .filter(|(_, decision)| decision.verdict == Verdict::Dispatch)
        .map(|(call, _)| call)
        .collect()
}

/// The reference `execute_tool_calls`. Pure apart from what `dispatcher` does; no state
/// survives the call (RULES A8).
pub fn execute_tool_calls<D: Dispatcher + ?Sized>(
    calls: &[ToolCall],
    max_parallel: u64,
    dispatcher: &D,
    execution: Execution,
) -> Vec<ToolMessage> {
    let decisions = plan(calls, max_parallel);
    let empty = Object::new();
    let accepted = dispatched(calls, &decisions);
    let mut contents = execution
        .map(&accepted, |call| {
            dispatcher.dispatch(DispatchRequest {
                tool: &call.tool,
                arguments: call.arguments.as_ref().unwrap_or(&empty),
            })
        })
        .into_iter();
    decisions
        .into_iter()
        .map(|Decision { id, verdict }| {
            let content = match verdict {
                Verdict::Dispatch => contents.next().expect("one content per accepted call"),
                Verdict::Duplicate => format!("error: duplicate tool_call_id '{id}'"),
                Verdict::OverLimit => {
                    format!("error: too many parallel tool calls (limit {max_parallel})")
                }
            };
            ToolMessage {
                tool_call_id: id,
                content,
            }
        })
        .collect()
}
