//! The rules on the output as a whole: one message per call, in call order, each of the
//! tool message's shape, and a batch that goes on past a failed call.

use super::super::ids::*;
use super::super::{quote, quote_str, Tally};
use super::{Batch, Reading};
use crate::json::{Key, Object, Value};
use crate::reference::{Decision, Verdict};

impl<'a> Batch<'a> {
    /// The output is a list of one message per call; returns that list, `None` when the
    /// output is no list at all (and nothing else can be read).
    pub(super) fn check_output_count(&self, tally: &mut Tally) -> Option<&'a [Value]> {
        let n = self.calls.len();
        tally.applies(EXEC_OUTPUT_COUNT);
        let Some(messages) = self.run.output.as_list() else {
            tally.breaks(
                EXEC_OUTPUT_COUNT,
                self.number,
                format!(
                    "returned {} instead of a list of {n} tool messages",
                    self.run.output.type_name()
                ),
            );
            return None;
        };
        if messages.len() != n {
            tally.breaks(
                EXEC_OUTPUT_COUNT,
                self.number,
                format!("returned {} messages for {n} calls", messages.len()),
            );
        }
        Some(messages)
    }

    /// The messages come in call order; returns whether they are right but out of order.
    /// Every message is then right for some call, just not in call order: that is the one
    /// rule broken, and no per-call check can read the others' positions.
    pub(super) fn check_output_order(
        &self,
        messages: &[Value],
        decisions: &[Decision],
        tally: &mut Tally,
    ) -> bool {
        if let Some(diagnosis) = out_of_order(messages, decisions) {
            tally.breaks(EXEC_OUTPUT_ORDER, self.number, diagnosis);
            return true;
        }
        if self.calls.len() > 1 {
            tally.applies(EXEC_OUTPUT_ORDER);
        }
        false
    }

    /// Reads each call's message for its id and content, and where the batch stopped.
    pub(super) fn read(&self, messages: &'a [Value], decisions: Vec<Decision>) -> Reading<'a> {
        let n = self.calls.len();
        let fields: Vec<(Option<&str>, Option<&str>)> = (0..n)
            .map(|i| {
                let message = messages.get(i).and_then(Value::as_object);
                let field = |name| message.and_then(|m| m.get(name)).and_then(Value::as_str);
                (field("tool_call_id"), field("content"))
            })
            .collect();
        // A batch cut short right after an error is one bug (RULINGS A7): its missing
        // messages are that rule's, not every per-call rule's.
        let stopped_after = (messages.len() < n && !messages.is_empty())
            .then_some(messages.len())
            .filter(|&m| fields[m - 1].1.is_some_and(|c| c.starts_with("error:")));
        Reading {
            decisions,
            messages,
            fields,
            stopped_after,
        }
    }

    /// A failed call does not stop the batch (RULINGS A7).
    pub(super) fn check_failure_isolation(&self, reading: &Reading, tally: &mut Tally) {
        let n = self.calls.len();
        if let Some(m) = reading.stopped_after {
            tally.breaks(
                EXEC_FAILURE_ISOLATED,
                self.number,
                format!(
                    "the batch stopped after call {m}'s error: calls {}..{n} have no message",
                    m + 1
                ),
            );
        } else if reading
            .decisions
            .iter()
            .enumerate()
            .any(|(i, d)| d.verdict == Verdict::Dispatch && i + 1 < n && self.answer_is_error(i))
        {
            tally.applies(EXEC_FAILURE_ISOLATED);
        }
    }

    /// Each message is `{"role": "tool", "tool_call_id": <str>, "content": <str>}`.
    pub(super) fn check_shapes(&self, messages: &[Value], tally: &mut Tally) {
        for (i, message) in messages.iter().enumerate().take(self.calls.len()) {
            tally.applies(EXEC_OUTPUT_SHAPE);
            if let Some(problem) = shape_problem(i + 1, message) {
                tally.breaks(EXEC_OUTPUT_SHAPE, self.number, problem);
            }
        }
    }
}

/// Whether the messages answer the calls with the right ids in another order: the
/// ids given or generated are a permutation of the expected ones, not in call order.
fn out_of_order(messages: &[Value], decisions: &[Decision]) -> Option<String> {
    if messages.len() != decisions.len() || messages.len() < 2 {
        return None;
    }
    let ids: Vec<&str> = messages
        .iter()
        .map(|m| m.as_object()?.get("tool_call_id")?.as_str())
        .collect::<Option<_>>()?;
    let expected: Vec<&str> = decisions.iter().map(|d| d.id.as_str()).collect();
    if ids == expected {
        return None;
    }
    let (mut sorted, mut sorted_expected) = (ids.clone(), expected.clone());
    sorted.sort_unstable();
    sorted_expected.sort_unstable();
    if sorted != sorted_expected {
        return None;
    }
    let first = (0..ids.len()).find(|&i| ids[i] != expected[i])?;
    Some(format!(
        "message {} answers the call with id {}, but call {} has the id {}: messages must be in call order",
        first + 1,
        quote_str(ids[first]),
        first + 1,
        quote_str(expected[first])
    ))
}

/// What is wrong with the shape of the message at `position`, if anything.
fn shape_problem(position: usize, message: &Value) -> Option<String> {
    match message.as_object() {
        None => Some(format!(
            "message {position} is {}, not an object",
            message.type_name()
        )),
        Some(object) => object_problem(position, object),
    }
}

fn object_problem(position: usize, object: &Object) -> Option<String> {
    let extra: Vec<&Key> = object
        .keys()
        .filter(|k| !["role", "tool_call_id", "content"].contains(&k.as_str()))
        .collect();
    if let Some(key) = extra.first() {
        Some(format!(
            "message {position} has the extra key {}",
            quote_str(key)
        ))
    } else if object.get("role") != Some(&Value::Str("tool".into())) {
        Some(format!(
            "message {position} must have \"role\": \"tool\", got {}",
            object.get("role").map_or("no role".into(), quote)
        ))
    } else {
        ["tool_call_id", "content"]
            .iter()
            .find_map(|field| match object.get(field) {
                Some(Value::Str(_)) => None,
                None => Some(format!("message {position} has no {field}")),
                Some(other) => Some(format!(
                    "message {position}'s {field} must be a string, got {}",
                    quote(other)
                )),
            })
    }
}
