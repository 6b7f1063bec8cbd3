//! The checks of `execute_tool_calls` (RULES A).
//!
//! Each message is read for what the implementation decided: the id it gave the call, and
//! whether it refused the call as a duplicate, refused it as over the limit, or answered
//! it with content. The duplicate checks take the implementation's own ids as their
//! premise (an id bug is the id check's), the dispatch check takes the calls it answered
//! with content (a wrong refusal is the refusal check's).

mod call_ids;
mod dispatch;
mod output;
mod refusals;
mod replay;

use super::{quote_str, Tally};
use crate::json::{NumberModel, Object, Value};
use crate::judge::BatchRun;
use crate::reference::canonical_args;
use crate::reference::{input, plan, Decision, ToolCall, DEFAULT_MAX_PARALLEL};
use crate::spec::{held_scripts, Dispatch, ExecCase, Scripts};
use replay::{replay, request_key};
use std::collections::{HashMap, HashSet};

const DUPLICATE_PREFIX: &str = "error: duplicate tool_call_id ";
pub(super) const LIMIT_PREFIX: &str = "error: too many parallel tool calls";
/// Marks a premise id that is not a string (it cannot appear in a duplicate error).
pub(super) const NOT_A_STRING: &str = "\u{0}not a string: ";
/// Stands for an answer parcall cannot know (to a malformed request).
pub(super) const ANY_ANSWER: &str = "\u{0}any answer";

/// What carries over from one batch of a case to the next.
#[derive(Default)]
struct History {
    /// The ids the implementation gave in earlier batches.
    ids: HashSet<String>,
    /// Calls in earlier batches.
    calls: usize,
    /// Scripted answers given so far per (tool, canonical arguments).
    answered: HashMap<(String, String), usize>,
}

/// `runs` are as `model` holds them, and so are the calls and scripts once read: no rule of
/// `execute_tool_calls` is about how a number is written.
pub(super) fn diagnose(model: NumberModel, case: &ExecCase, runs: &[BatchRun], tally: &mut Tally) {
    let dispatch = match &case.dispatch {
        Dispatch::Scripted { tools } if model != NumberModel::Python => {
            std::borrow::Cow::Owned(Dispatch::Scripted {
                tools: held_scripts(model, tools),
            })
        }
        other => std::borrow::Cow::Borrowed(other),
    };
    let scripts = match &*dispatch {
        Dispatch::Sandbox => None,
        Dispatch::Scripted { tools } => Some(Scripts::new(tools)),
    };
    let mut history = History::default();
    for (index, run) in runs.iter().enumerate() {
        let Some(input) = case.batches.get(index) else {
            break;
        };
        let mut calls = input::tool_calls(&input.calls).unwrap_or_default();
        if model != NumberModel::Python {
            for call in &mut calls {
                call.arguments = call.arguments.as_ref().map(|a| model.normalise_object(a));
            }
        }
        let answers = replay(scripts.as_ref(), &run.invocations, &mut history.answered);
        let empty = Object::new();
        let requests = calls
            .iter()
            .map(|call| {
                let arguments = call.arguments.as_ref().unwrap_or(&empty);
                request_key(&call.tool, &canonical_args(arguments))
            })
            .collect();
        let batch = Batch {
            number: index + 1,
            calls: &calls,
            requests,
            max_parallel: input.max_parallel,
            run,
            answers,
            history: &history,
        };
        let ids = batch.check(tally);
        history.ids.extend(ids);
        history.calls += calls.len();
    }
}

/// What the implementation said about one call.
#[derive(Clone, Copy)]
enum Said<'a> {
    /// `error: duplicate tool_call_id ...`, with what follows the prefix.
    Duplicate(&'a str),
    /// `error: too many parallel tool calls ...`, the whole content.
    OverLimit(&'a str),
    Content(&'a str),
    /// No message, or a message without a string content.
    Nothing,
}

fn said(content: Option<&str>) -> Said<'_> {
    match content {
        None => Said::Nothing,
        Some(text) => {
            if let Some(rest) = text.strip_prefix(DUPLICATE_PREFIX) {
                Said::Duplicate(rest)
            } else if text.starts_with(LIMIT_PREFIX) {
                Said::OverLimit(text)
            } else {
                Said::Content(text)
            }
        }
    }
}

struct Batch<'a> {
    number: usize,
    calls: &'a [ToolCall],
    /// Each call's request key, for [`Batch::answers_for`] (asked several times per call).
    requests: Vec<String>,
    max_parallel: Option<u64>,
    run: &'a BatchRun,
    answers: HashMap<String, Vec<String>>,
    history: &'a History,
}

/// What the checks read off a batch's messages, shared by the rule families.
struct Reading<'a> {
    /// What the reference decides for each call: its id, and dispatch or refusal.
    decisions: Vec<Decision>,
    messages: &'a [Value],
    /// Each call's message's `tool_call_id` and `content`, where they are strings.
    fields: Vec<(Option<&'a str>, Option<&'a str>)>,
    /// The number of messages of a batch cut short right after an error (RULES A7).
    stopped_after: Option<usize>,
}

impl Reading<'_> {
    /// Whether call `i` has no message because the batch stopped after an error.
    fn missing_explained(&self, i: usize) -> bool {
        self.stopped_after.is_some_and(|m| i >= m)
    }
}

impl Batch<'_> {
    /// Runs every check on this batch; returns the ids the implementation gave.
    fn check(&self, tally: &mut Tally) -> Vec<String> {
        let limit = self.max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL);
        let decisions = plan(self.calls, limit);
        let Some(messages) = self.check_output_count(tally) else {
            return Vec::new();
        };
        let messages = self.check_output_order(messages, &decisions, tally);
        let reading = self.read(&messages, decisions);
        self.check_failure_isolation(&reading, tally);
        self.check_shapes(&messages, tally);
        let premise = self.check_ids(&reading, tally);
        let refusals = self.read_refusals(&reading, &premise);
        let accepted = self.check_refusals(&reading, &refusals, tally);
        self.check_dispatch(&accepted, &refusals.said, tally);
        premise
    }
}

fn describe(said: Said) -> String {
    match said {
        Said::Duplicate(rest) => quote_str(&format!("{DUPLICATE_PREFIX}{rest}")),
        Said::OverLimit(text) | Said::Content(text) => quote_str(text),
        Said::Nothing => "no message".into(),
    }
}
