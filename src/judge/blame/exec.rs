//! The checks of `execute_tool_calls` (RULINGS A).
//!
//! Each message is read for what the implementation decided: the id it gave the call, and
//! whether it refused the call as a duplicate, refused it as over the limit, or answered
//! it with content. The duplicate checks take the implementation's own ids as their
//! premise (an id bug is the id check's), the dispatch check takes the calls it answered
//! with content (a wrong refusal is the refusal check's).

use super::ids::*;
use super::{quote, quote_str, Tally};
use crate::json::{Key, NumberModel, Object, Value};
use crate::judge::BatchRun;
use crate::reference::{canonical_args, DEFAULT_MAX_PARALLEL};
use crate::reference::{input, plan, DispatchRequest, Dispatcher, Sandbox, ToolCall, Verdict};
use crate::spec::{dispatch_answer, held_scripts, Dispatch, ExecCase, Scripts};
use std::collections::{HashMap, HashSet};

const DUPLICATE_PREFIX: &str = "error: duplicate tool_call_id ";
const LIMIT_PREFIX: &str = "error: too many parallel tool calls";
/// Marks a premise id that is not a string (it cannot appear in a duplicate error).
const NOT_A_STRING: &str = "\u{0}not a string: ";
/// Stands for an answer parcall cannot know (to a malformed request).
const ANY_ANSWER: &str = "\u{0}any answer";

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

/// The answers dispatch gave this batch's invocations, per canonical request, replayed from
/// the invocations the implementation made (the scripted answer counters run across the
/// batches of a case). `scripts` is `None` for the sandbox.
fn replay(
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
fn request_key(tool: &str, canonical: &str) -> String {
    format!("{tool}\u{0}{canonical}")
}

/// The request a call is dispatched with: its tool and its arguments (`{}` when absent).
fn request_of(call: &ToolCall) -> Value {
    let mut object = Object::new();
    object.insert("tool".into(), call.tool.as_str().into());
    object.insert(
        "arguments".into(),
        Value::from(call.arguments.clone().unwrap_or_default()),
    );
    Value::from(object)
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

impl Batch<'_> {
    /// Runs every check on this batch; returns the ids the implementation gave.
    fn check(&self, tally: &mut Tally) -> Vec<String> {
        let n = self.calls.len();
        let number = self.number;
        let limit = self.max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL);
        let decisions = plan(self.calls, limit);
        if number > 1 {
            tally.applies(EXEC_NO_STATE);
        }
        tally.applies(EXEC_OUTPUT_COUNT);
        let Some(messages) = self.run.output.as_list() else {
            tally.breaks(
                EXEC_OUTPUT_COUNT,
                number,
                format!(
                    "returned {} instead of a list of {n} tool messages",
                    self.run.output.type_name()
                ),
            );
            return Vec::new();
        };
        if messages.len() != n {
            tally.breaks(
                EXEC_OUTPUT_COUNT,
                number,
                format!("returned {} messages for {n} calls", messages.len()),
            );
        }
        if let Some(diagnosis) = self.out_of_order(messages, &decisions) {
            // Every message is right for some call, just not in call order: that is the
            // one rule broken, and no per-call check can read the others' positions.
            tally.breaks(EXEC_OUTPUT_ORDER, number, diagnosis);
            return decisions.into_iter().map(|d| d.id).collect();
        }
        if n > 1 {
            tally.applies(EXEC_OUTPUT_ORDER);
        }
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
        if let Some(m) = stopped_after {
            tally.breaks(
                EXEC_FAILURE_ISOLATED,
                number,
                format!(
                    "the batch stopped after call {m}'s error: calls {}..{n} have no message",
                    m + 1
                ),
            );
        } else if decisions
            .iter()
            .enumerate()
            .any(|(i, d)| d.verdict == Verdict::Dispatch && i + 1 < n && self.answer_is_error(i))
        {
            tally.applies(EXEC_FAILURE_ISOLATED);
        }
        let missing_explained = |i: usize| stopped_after.is_some_and(|m| i >= m);

        for (i, message) in messages.iter().enumerate().take(n) {
            self.check_shape(i, message, tally);
        }

        // The ids: the given one verbatim, or call_<position>.
        let mut premise: Vec<String> = Vec::with_capacity(n);
        for (i, call) in self.calls.iter().enumerate() {
            let position = i + 1;
            let actual = fields[i].0;
            // The premise of the duplicate checks: the id the implementation gave, even
            // when it is not a string (two calls answered with `null` share it).
            premise.push(match (actual, messages.get(i).and_then(Value::as_object)) {
                (Some(id), _) => id.to_owned(),
                (None, Some(message)) => match message.get("tool_call_id") {
                    Some(other) => format!("{NOT_A_STRING}{other}"),
                    None => decisions[i].id.clone(),
                },
                (None, None) => decisions[i].id.clone(),
            });
            if missing_explained(i) {
                continue;
            }
            let given = call.id.as_deref().filter(|id| !id.is_empty());
            let requirement = if given.is_some() {
                EXEC_ID_GIVEN
            } else {
                EXEC_ID_GENERATED
            };
            let expected = &decisions[i].id;
            match actual {
                Some(id) if id == expected => tally.applies(requirement),
                None => tally.breaks(
                    requirement,
                    number,
                    format!("call {position} has no message with a string tool_call_id"),
                ),
                Some(id) => {
                    let carried = format!("call_{}", position + self.history.calls);
                    if given.is_none() && number > 1 && id == carried {
                        tally.breaks(
                            EXEC_NO_STATE,
                            number,
                            format!(
                                "call {position} has no id: expected tool_call_id `call_{position}`, got `{id}`: the positions went on counting from the previous batch"
                            ),
                        );
                    } else if given.is_some() {
                        tally.breaks(
                            requirement,
                            number,
                            format!(
                                "call {position} has the id {}: it must come back verbatim, got {}",
                                quote_str(expected),
                                quote_str(id)
                            ),
                        );
                    } else {
                        tally.breaks(
                            requirement,
                            number,
                            format!(
                                "call {position} has no id: expected tool_call_id `{expected}` (its position in the batch), got {}",
                                quote_str(id)
                            ),
                        );
                    }
                }
            }
        }

        let expected_limit_text = format!("{LIMIT_PREFIX} (limit {limit})");
        let over = |i: usize| (i + 1) as u64 > limit;
        let duplicate_of = |i: usize| {
            (0..i)
                .filter(|&j| premise[j] == premise[i])
                .collect::<Vec<_>>()
        };
        let is_duplicate: Vec<bool> = (0..n).map(|i| !duplicate_of(i).is_empty()).collect();
        // A content that dispatch itself returned is content, even when it reads like a
        // refusal (a tool may answer anything).
        let said: Vec<Said> = fields
            .iter()
            .enumerate()
            .map(|(i, (_, content))| match content {
                Some(text)
                    if self.answers_for(i).is_some_and(|answers| {
                        answers.iter().any(|a| a == text)
                                // Answered a malformed request of its own: a call that is
                                // neither a duplicate nor over the limit and was dispatched.
                                || (answers.iter().any(|a| a == ANY_ANSWER)
                                    && !is_duplicate[i]
                                    && !over(i))
                    }) =>
                {
                    Said::Content(text)
                }
                _ => said(*content),
            })
            .collect();

        let limit_requirement = self.limit_requirement(&said, &is_duplicate, &expected_limit_text);

        // A duplicate of a generated, refused or duplicate id that is also past the limit
        // and gets the limit error breaks one of two rules; the batch's other calls say
        // which: a missed duplicate of that kind within the limit, or a plain duplicate
        // past the limit reported as over the limit.
        let special = |i: usize| {
            duplicate_of(i).iter().all(|&j| {
                let given = self.calls[j].id.as_deref().is_some_and(|id| !id.is_empty());
                !given || is_duplicate[j] || over(j)
            })
        };
        let misses_special = (0..n).any(|j| {
            is_duplicate[j] && special(j) && !over(j) && !matches!(said[j], Said::Duplicate(_))
        });
        let limit_first = (0..n).any(|j| {
            is_duplicate[j] && !special(j) && over(j) && matches!(said[j], Said::OverLimit(_))
        });
        // Refusals that start right where a count carried over from the previous batches
        // would put the limit, and not where an off-by-one would.
        let first_refused = (0..n)
            .find(|&j| !is_duplicate[j] && matches!(said[j], Said::OverLimit(_)))
            .map(|j| (j + 1) as u64);
        let carried_over = number > 1
            && first_refused.is_some_and(|p| {
                p != limit && p + self.history.calls as u64 == limit.saturating_add(1)
            });
        let mut accepted: Vec<usize> = Vec::new();
        for i in 0..n {
            if missing_explained(i) {
                continue;
            }
            let position = i + 1;
            let id = &premise[i];
            if is_duplicate[i] {
                let earlier = duplicate_of(i);
                let special = earlier.iter().all(|&j| {
                    let given = self.calls[j].id.as_deref().is_some_and(|id| !id.is_empty());
                    !given || is_duplicate[j] || over(j)
                });
                let requirement = if special {
                    EXEC_DUP_ANY_EARLIER
                } else {
                    EXEC_DUP_REJECTED
                };
                tally.applies(requirement);
                if over(i) {
                    tally.applies(EXEC_DUP_BEFORE_LIMIT);
                }
                let first = earlier[0] + 1;
                match said[i] {
                    Said::Duplicate(_) if id.starts_with(NOT_A_STRING) => {}
                    Said::Duplicate(rest) => {
                        tally.applies(EXEC_DUP_VERBATIM);
                        if rest != format!("'{id}'") {
                            tally.breaks(
                                EXEC_DUP_VERBATIM,
                                number,
                                format!(
                                    "call {position} repeats the id {} of call {first}: the error must read {}, got {}",
                                    quote_str(id),
                                    quote_str(&format!("{DUPLICATE_PREFIX}'{id}'")),
                                    quote_str(&format!("{DUPLICATE_PREFIX}{rest}"))
                                ),
                            );
                        }
                    }
                    Said::OverLimit(_) if over(i) && special && misses_special && !limit_first => {
                        tally.breaks(
                            EXEC_DUP_ANY_EARLIER,
                            number,
                            format!(
                                "call {position} repeats the id {} of call {first} (whatever happened to that call), so it must get {}; got the limit error",
                                quote_str(id),
                                quote_str(&format!("{DUPLICATE_PREFIX}'{id}'"))
                            ),
                        );
                    }
                    Said::OverLimit(_) if over(i) => tally.breaks(
                        EXEC_DUP_BEFORE_LIMIT,
                        number,
                        format!(
                            "call {position} repeats the id {} of call {first} and is past the limit: the duplicate error comes first, got the limit error",
                            quote_str(id)
                        ),
                    ),
                    other => {
                        if matches!(other, Said::Content(_)) {
                            accepted.push(i);
                        }
                        tally.breaks(
                            requirement,
                            number,
                            format!(
                                "call {position} repeats the id {} of call {first}{}, so it must get {}; got {}",
                                quote_str(id),
                                if special { " (whatever happened to that call)" } else { "" },
                                quote_str(&format!("{DUPLICATE_PREFIX}'{id}'")),
                                describe(other)
                            ),
                        );
                    }
                }
                continue;
            }
            match said[i] {
                Said::Duplicate(_) => {
                    let requirement = if number > 1 && self.history.ids.contains(id) {
                        EXEC_NO_STATE
                    } else {
                        EXEC_DUP_REJECTED
                    };
                    tally.breaks(
                        requirement,
                        number,
                        format!(
                            "call {position} was refused as a duplicate, but no earlier call of this batch has the id {}",
                            quote_str(id)
                        ),
                    );
                }
                Said::OverLimit(text) if over(i) => {
                    tally.applies(limit_requirement);
                    if self.max_parallel.is_none() {
                        tally.applies(EXEC_LIMIT_DEFAULT);
                    }
                    if text != expected_limit_text {
                        tally.breaks(
                            limit_requirement,
                            number,
                            format!(
                                "call {position} is past the limit: expected {}, got {}",
                                quote_str(&expected_limit_text),
                                quote_str(text)
                            ),
                        );
                    }
                }
                Said::OverLimit(text) => {
                    let requirement = if carried_over {
                        EXEC_NO_STATE
                    } else if limit_requirement == EXEC_LIMIT_ZERO {
                        EXEC_LIMIT_POSITION
                    } else {
                        limit_requirement
                    };
                    tally.breaks(
                        requirement,
                        number,
                        format!(
                            "call {position} is within the limit of {limit} but was refused: {}",
                            quote_str(text)
                        ),
                    );
                }
                other if over(i) => {
                    tally.breaks(
                        limit_requirement,
                        number,
                        format!(
                            "call {position} is past the limit of {limit}{}: expected {}, got {}",
                            match self.max_parallel {
                                None => " (max_parallel not passed)",
                                Some(0) => " (max_parallel = 0)",
                                Some(_) => "",
                            },
                            quote_str(&expected_limit_text),
                            describe(other)
                        ),
                    );
                    if matches!(other, Said::Content(_)) {
                        accepted.push(i);
                    }
                }
                Said::Content(content) => {
                    accepted.push(i);
                    self.check_content(i, content, tally);
                }
                Said::Nothing => {
                    accepted.push(i);
                    tally.breaks(
                        EXEC_CONTENT_UNCHANGED,
                        number,
                        format!("call {position} has no message with a string content"),
                    );
                }
            }
        }
        self.check_dispatch(&accepted, &said, tally);
        premise
    }

    /// Whether the messages answer the calls with the right ids in another order: the
    /// ids given or generated are a permutation of the expected ones, not in call order.
    fn out_of_order(
        &self,
        messages: &[Value],
        decisions: &[crate::reference::Decision],
    ) -> Option<String> {
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

    /// Which limit rule a batch's limit errors answer to.
    fn limit_requirement(&self, said: &[Said], duplicate: &[bool], expected: &str) -> &'static str {
        match self.max_parallel {
            Some(0) => EXEC_LIMIT_ZERO,
            Some(_) => EXEC_LIMIT_POSITION,
            None => {
                let limit_errors: Vec<&str> = said
                    .iter()
                    .filter_map(|s| match s {
                        Said::OverLimit(text) => Some(*text),
                        _ => None,
                    })
                    .collect();
                let over = (0..self.calls.len())
                    .any(|i| !duplicate[i] && (i + 1) as u64 > DEFAULT_MAX_PARALLEL);
                // No limit applied at all, or one that names another number: the default
                // is what is wrong. A limit of 4 applied at the wrong positions is not.
                if (over && limit_errors.is_empty()) || limit_errors.iter().any(|t| *t != expected)
                {
                    EXEC_LIMIT_DEFAULT
                } else {
                    EXEC_LIMIT_POSITION
                }
            }
        }
    }

    fn check_shape(&self, i: usize, message: &Value, tally: &mut Tally) {
        tally.applies(EXEC_OUTPUT_SHAPE);
        let position = i + 1;
        let problem = match message.as_object() {
            None => Some(format!(
                "message {position} is {}, not an object",
                message.type_name()
            )),
            Some(object) => {
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
        };
        if let Some(problem) = problem {
            tally.breaks(EXEC_OUTPUT_SHAPE, self.number, problem);
        }
    }

    /// The answers dispatch gave call `i`'s request.
    fn answers_for(&self, i: usize) -> Option<&Vec<String>> {
        self.answers.get(&self.requests[i])
    }

    fn answer_is_error(&self, i: usize) -> bool {
        self.answers_for(i)
            .is_some_and(|answers| answers.iter().any(|a| a.starts_with("error:")))
    }

    /// The content of an answered call is what its dispatch returned (RULINGS A6): any
    /// answer given to an identical request of this batch, since their order is free.
    fn check_content(&self, i: usize, content: &str, tally: &mut Tally) {
        let Some(answers) = self.answers_for(i) else {
            // Not dispatched with its request: the dispatch check says so.
            return;
        };
        if answers.iter().any(|a| a == ANY_ANSWER) {
            return;
        }
        tally.applies(EXEC_CONTENT_UNCHANGED);
        if !answers.iter().any(|a| a == content) {
            tally.breaks(
                EXEC_CONTENT_UNCHANGED,
                self.number,
                format!(
                    "call {}'s content must be what dispatch returned, {}; got {}",
                    i + 1,
                    quote_str(&answers[0]),
                    quote_str(content)
                ),
            );
        }
    }

    /// Every call the implementation answered with content is dispatched once with its
    /// request; nothing else is dispatched.
    fn check_dispatch(&self, accepted: &[usize], said: &[Said], tally: &mut Tally) {
        let number = self.number;
        let expected: Vec<Value> = accepted
            .iter()
            .map(|&i| request_of(&self.calls[i]))
            .collect();
        if !expected.is_empty() || !self.run.invocations.is_empty() {
            tally.applies(EXEC_DISPATCH_ONCE);
        }
        let mut diff = crate::judge::multiset_difference(&expected, &self.run.invocations);
        // A call without arguments dispatched with something other than {}.
        for &i in accepted {
            let call = &self.calls[i];
            if call.arguments.is_some() {
                continue;
            }
            tally.applies(EXEC_DISPATCH_ARGS_DEFAULT);
            let request = request_of(call);
            let Some(missing) = diff.missing.iter().position(|m| *m == request) else {
                continue;
            };
            let same_tool = diff.unexpected.iter().position(|u| {
                u.as_object()
                    .and_then(|o| o.get("tool"))
                    .and_then(Value::as_str)
                    == Some(call.tool.as_str())
            });
            if let Some(unexpected) = same_tool {
                let got = diff.unexpected.remove(unexpected);
                diff.missing.remove(missing);
                tally.breaks(
                    EXEC_DISPATCH_ARGS_DEFAULT,
                    number,
                    format!(
                        "call {} has no arguments: expected the request {}, got {}",
                        i + 1,
                        quote(&request),
                        quote(&got)
                    ),
                );
            }
        }
        for unexpected in &diff.unexpected {
            let refused = (0..self.calls.len()).find(|&i| {
                matches!(said[i], Said::Duplicate(_) | Said::OverLimit(_))
                    && request_of(&self.calls[i]) == *unexpected
            });
            let diagnosis = match refused {
                Some(i) => format!(
                    "call {} was refused but dispatched anyway: {}",
                    i + 1,
                    quote(unexpected)
                ),
                None if expected.contains(unexpected) => {
                    format!(
                        "{} was dispatched more often than calls ask for it",
                        quote(unexpected)
                    )
                }
                None => format!(
                    "{} was dispatched, but no call asks for it",
                    quote(unexpected)
                ),
            };
            tally.breaks(EXEC_DISPATCH_ONCE, number, diagnosis);
        }
        for missing in &diff.missing {
            let call = accepted
                .iter()
                .find(|&&i| request_of(&self.calls[i]) == *missing)
                .map_or(0, |&i| i + 1);
            tally.breaks(
                EXEC_DISPATCH_ONCE,
                number,
                format!(
                    "call {call} was answered but its request {} was never dispatched",
                    quote(missing)
                ),
            );
        }
    }
}

fn describe(said: Said) -> String {
    match said {
        Said::Duplicate(rest) => quote_str(&format!("{DUPLICATE_PREFIX}{rest}")),
        Said::OverLimit(text) | Said::Content(text) => quote_str(text),
        Said::Nothing => "no message".into(),
    }
}
