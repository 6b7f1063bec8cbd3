//! The edits of an input of scripted tools (`run_parallel_calls`, and the runtime profile's
//! `run_tool_calls`): args shared by calls, fewer calls, and simpler scripts (fewer tools,
//! no latency, fewer and simpler answers).

use super::edits::{call_edits, list_edits, LONG_BATCH};
use super::edits::{object_edits, value_edits};
use super::{Candidate, Change, Tools};
use crate::generate::cases::GeneratedInput;
use crate::json::{Object, Value};
use crate::spec::Answer;

/// Which input the edits are of: the calls' field that holds their args, and how the
/// input is built from scripts and batches.
#[derive(Clone, Copy)]
pub(super) struct Shape {
    pub(super) args: &'static str,
    pub(super) make: fn(Tools, Vec<Value>) -> GeneratedInput,
}

pub(super) const DEDUP: Shape = Shape {
    args: "args",
    make: |tools, batches| GeneratedInput::Dedup { tools, batches },
};

pub(super) const RUNTIME: Shape = Shape {
    args: "arguments",
    make: |tools, batches| GeneratedInput::Runtime { tools, batches },
};

pub(super) fn candidates<'a>(
    shape: Shape,
    tools: &'a Tools,
    batches: &'a [Value],
) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate<'a>> = Vec::new();
    out.extend(shared_args_edits(shape, tools, batches));
    for edit in list_edits(batches.to_vec(), call_edits) {
        out.push(Box::new(move || (shape.make)(tools.clone(), edit())));
    }
    if call_count(batches) > LONG_BATCH {
        // Cut long batches down first: an edit per scripted answer would be a run
        // per answer of hundreds.
        return out;
    }
    out.extend(script_edits(shape, tools, batches));
    out
}

/// The edits of the scripts: a tool dropped, its latency removed, its answers fewer and
/// simpler.
fn script_edits<'a>(shape: Shape, tools: &'a Tools, batches: &'a [Value]) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate<'a>> = Vec::new();
    let with_tools = |edit| tools_edit(shape, tools, batches, edit);
    for name in tools.keys() {
        out.push(with_tools(Box::new(move |t| {
            t.shift_remove(name);
        })));
    }
    for (name, script) in tools {
        if script.has_latency() {
            out.push(with_tools(Box::new(move |t| t[name].clear_latency())));
        }
        for (r, response) in script.responses.iter().enumerate() {
            if response.answers.len() > 1 {
                out.push(with_tools(Box::new(move |t| {
                    t[name].responses[r].answers.truncate(1)
                })));
            }
            for (a, answer) in response.answers.iter().enumerate() {
                for simpler in answer_edits(answer) {
                    out.push(with_tools(Box::new(move |t| {
                        t[name].responses[r].answers[a] = simpler.clone()
                    })));
                }
            }
        }
    }
    out
}

/// Simpler answers: a smaller returned value; for an exception, the default class raised with
/// its message alone, then a shorter message (the message stays what `str()` of the
/// exception gives, so every edit is a valid script).
fn answer_edits(answer: &Answer) -> Vec<Answer> {
    match answer {
        Answer::Return { value } => value_edits(value)
            .into_iter()
            .map(|value| Answer::Return { value })
            .collect(),
        Answer::Raise {
            message,
            exception,
            args,
        } => {
            if exception.is_some() || args.is_some() {
                return vec![Answer::Raise {
                    message: message.clone(),
                    exception: None,
                    args: None,
                }];
            }
            value_edits(&Value::Str(message.clone().into()))
                .into_iter()
                .filter_map(|shorter| match shorter {
                    Value::Str(message) => Some(Answer::Raise {
                        message: message.into(),
                        exception: None,
                        args: None,
                    }),
                    _ => None,
                })
                .collect()
        }
    }
}

/// An edit of the scripts, the batches as they are.
fn tools_edit<'a>(
    shape: Shape,
    tools: &'a Tools,
    batches: &'a [Value],
    edit: Change<'a, Tools>,
) -> Candidate<'a> {
    Box::new(move || {
        let mut edited = tools.clone();
        edit(&mut edited);
        (shape.make)(edited, batches.to_vec())
    })
}

fn call_count(batches: &[Value]) -> usize {
    batches
        .iter()
        .filter_map(Value::as_list)
        .map(<[Value]>::len)
        .sum()
}

/// Simplifies one args object everywhere it occurs at once: in every call with those args
/// (duplicates stay duplicates) and in the scripts' responses (answers stay attached).
fn shared_args_edits<'a>(
    shape: Shape,
    tools: &'a Tools,
    batches: &'a [Value],
) -> Vec<Candidate<'a>> {
    use crate::reference::canonical_args;
    // Long batches are cut in chunks first: an edit per distinct args would be a run each.
    if call_count(batches) > LONG_BATCH {
        return Vec::new();
    }
    let mut distinct: Vec<(String, &Object)> = Vec::new();
    for call in batches.iter().filter_map(Value::as_list).flatten() {
        if let Some(Value::Object(args)) = call.as_object().and_then(|c| c.get(shape.args)) {
            let key = canonical_args(args);
            if !distinct.iter().any(|(seen, _)| *seen == key) {
                distinct.push((key, args));
            }
        }
    }
    let mut out: Vec<Candidate<'a>> = Vec::new();
    for (key, args) in distinct {
        let key = std::rc::Rc::new(key);
        for simpler in object_edits(args) {
            let Value::Object(simpler) = simpler else {
                continue;
            };
            let key = std::rc::Rc::clone(&key);
            out.push(Box::new(move || {
                let swap = |candidate: &mut Object| {
                    if canonical_args(candidate) == *key {
                        *candidate = simpler.clone();
                    }
                };
                let mut batches = batches.to_vec();
                for batch in &mut batches {
                    let Value::List(calls) = batch else { continue };
                    for call in calls {
                        if let Value::Object(fields) = call {
                            if let Some(Value::Object(a)) = fields.get_mut(shape.args) {
                                swap(a);
                            }
                        }
                    }
                }
                let mut tools = tools.clone();
                for script in tools.values_mut() {
                    for response in &mut script.responses {
                        if let Some(a) = &mut response.args {
                            swap(a);
                        }
                    }
                }
                (shape.make)(tools, batches)
            }));
        }
    }
    out
}
