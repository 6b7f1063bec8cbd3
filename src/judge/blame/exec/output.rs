//! The rules on the output as a whole: one message per call, in call order, each of the
//! tool message's shape, and a batch that goes on past a failed call.

use super::super::ids::*;
use super::super::{quote, quote_str, Tally};
use super::{Batch, Reading};
use crate::json::{Key, Object, Value};
use crate::reference::{Decision, Verdict};
use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};

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

    /// The messages come in call order. Returns the messages matched back to their calls:
    /// where the output holds every call's message (each its call's id and kind of answer:
    /// a duplicate error, a limit error or content) in another order, that is the one rule
    /// broken, and the other checks read each message where it belongs (RULES D: one bug,
    /// one charge), so they can still be shown on this batch.
    pub(super) fn check_output_order(
        &self,
        messages: &'a [Value],
        decisions: &[Decision],
        tally: &mut Tally,
    ) -> Cow<'a, [Value]> {
        if let Some((diagnosis, matched)) = out_of_order(messages, decisions) {
            tally.breaks(EXEC_OUTPUT_ORDER, self.number, diagnosis);
            return Cow::Owned(matched);
        }
        // Shown only where the order happened (RULES D): every call has a message, each
        // carrying its call's id in call order. No messages, or messages no call can be
        // told by, keep no order.
        if self.calls.len() > 1 && in_call_order(messages, decisions) {
            tally.applies(EXEC_OUTPUT_ORDER);
        }
        Cow::Borrowed(messages)
    }

    /// Reads each call's message for its id and content, and where the batch stopped.
    pub(super) fn read<'m>(&self, messages: &'m [Value], decisions: Vec<Decision>) -> Reading<'m> {
        let n = self.calls.len();
        let fields: Vec<(Option<&str>, Option<&str>)> = (0..n)
            .map(|i| {
                let message = messages.get(i).and_then(Value::as_object);
                let field = |name| message.and_then(|m| m.get(name)).and_then(Value::as_str);
                (field("tool_call_id"), field("content"))
            })
            .collect();
        // A batch cut short right after an error is one bug (RULES A7): its missing
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

    /// A failed call does not stop the batch (RULES A7).
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
        } else {
            // Shown only where it happened (RULES D): a failed call's message carries its
            // error, and a later call's message that call's own answer, not merely some
            // message.
            let went_on = |failed: usize| {
                self.carries_its_answer(reading, failed)
                    && (failed + 1..n).any(|j| self.carries_its_answer(reading, j))
            };
            let failed = |i: usize| {
                reading.decisions[i].verdict == Verdict::Dispatch && self.answer_is_error(i)
            };
            if (0..n.saturating_sub(1)).any(|i| failed(i) && went_on(i)) {
                tally.applies(EXEC_FAILURE_ISOLATED);
            }
        }
    }

    /// Whether call `j`'s message holds what the call is answered with: dispatch's answer
    /// to its request, or the refusal its decision names.
    fn carries_its_answer(&self, reading: &Reading, j: usize) -> bool {
        let Some(content) = reading.fields[j].1 else {
            return false;
        };
        match reading.decisions[j].verdict {
            Verdict::Dispatch => self.answers_for(j).is_some_and(|answers| {
                answers
                    .iter()
                    .any(|a| a == content || a == super::ANY_ANSWER)
            }),
            Verdict::Duplicate => content.starts_with(super::DUPLICATE_PREFIX),
            Verdict::OverLimit => content.starts_with(super::LIMIT_PREFIX),
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

/// What a message answers, as far as order goes: its id and whether it refuses the call
/// as a duplicate, refuses it as over the limit, or answers it. Two messages with one id
/// (a call and its duplicate) are told apart by the kind.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Duplicate,
    OverLimit,
    Answer,
}

fn kind_of(content: &str) -> Kind {
    if content.starts_with(super::DUPLICATE_PREFIX) {
        Kind::Duplicate
    } else if content.starts_with(super::LIMIT_PREFIX) {
        Kind::OverLimit
    } else {
        Kind::Answer
    }
}

fn expected_kind(decision: &Decision) -> Kind {
    match decision.verdict {
        Verdict::Duplicate => Kind::Duplicate,
        Verdict::OverLimit => Kind::OverLimit,
        Verdict::Dispatch => Kind::Answer,
    }
}

/// Whether there is a message for every call, each carrying its call's id, in call order.
fn in_call_order(messages: &[Value], decisions: &[Decision]) -> bool {
    messages.len() == decisions.len()
        && messages.iter().zip(decisions).all(|(message, decision)| {
            message
                .as_object()
                .and_then(|m| m.get("tool_call_id"))
                .and_then(Value::as_str)
                == Some(decision.id.as_str())
        })
}

/// Whether the messages answer the calls in another order: each is some call's (its id
/// and kind of answer), every call has one, not in call order. Returns the diagnosis and
/// the messages matched back to their calls (the k-th message of an id and kind to the
/// k-th call of that id and kind).
fn out_of_order(messages: &[Value], decisions: &[Decision]) -> Option<(String, Vec<Value>)> {
    if messages.len() != decisions.len() || messages.len() < 2 {
        return None;
    }
    let signatures: Vec<(&str, Kind)> = messages
        .iter()
        .map(|m| {
            let m = m.as_object()?;
            let id = m.get("tool_call_id")?.as_str()?;
            Some((id, kind_of(m.get("content")?.as_str()?)))
        })
        .collect::<Option<_>>()?;
    let expected: Vec<(&str, Kind)> = decisions
        .iter()
        .map(|d| (d.id.as_str(), expected_kind(d)))
        .collect();
    if signatures == expected {
        return None;
    }
    let (mut sorted, mut sorted_expected) = (signatures.clone(), expected.clone());
    sorted.sort_unstable();
    sorted_expected.sort_unstable();
    if sorted != sorted_expected {
        return None;
    }
    let mut unused: HashMap<(&str, Kind), VecDeque<usize>> = HashMap::new();
    for (i, signature) in signatures.iter().enumerate() {
        unused.entry(*signature).or_default().push_back(i);
    }
    let matched = expected
        .iter()
        .map(|signature| {
            let i = unused.get_mut(signature)?.pop_front()?;
            Some(messages[i].clone())
        })
        .collect::<Option<Vec<Value>>>()?;
    let first = (0..signatures.len()).find(|&i| signatures[i] != expected[i])?;
    let diagnosis = format!(
        "message {} answers the call with id {}{}, but call {} has the id {}{}: messages must be in call order",
        first + 1,
        quote_str(signatures[first].0),
        kind_words(signatures[first].1),
        first + 1,
        quote_str(expected[first].0),
        kind_words(expected[first].1),
    );
    Some((diagnosis, matched))
}

fn kind_words(kind: Kind) -> &'static str {
    match kind {
        Kind::Duplicate => " (as a duplicate)",
        Kind::OverLimit => " (over the limit)",
        Kind::Answer => "",
    }
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
