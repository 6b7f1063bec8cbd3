//! The edits shrinking tries: the simple ones a person would make (drop a batch, cut a long
//! batch in chunks, drop a call, drop a key, zero a value, drop an answer, raise the default
//! exception, unset `max_parallel`, remove latency). Shrinking keeps every edit under which
//! the case still fails; these edits alone give cases as small as proptest's own shrinking
//! followed by them did, in a tenth of the runs.

use crate::generate::cases::GeneratedInput;
use crate::json::{Int, Object, Text, Value};
use crate::spec::{Answer, Dispatch, ToolScript};
use indexmap::IndexMap;

/// One simple edit of an input, built only when it is tried. Building every candidate up
/// front cloned the whole input once per edit, and a greedy pass accepts an early edit and
/// starts over: most of those clones were built only to be dropped (three quarters of an
/// in-process shrink was the allocator).
pub type Candidate<'a> = Box<dyn Fn() -> GeneratedInput + 'a>;

/// The scripts of a dedup case, by tool name.
type Tools = IndexMap<String, ToolScript>;

/// A change made to a copy of something, when the edit is built.
type Change<'a, T> = Box<dyn Fn(&mut T) + 'a>;

/// Whether some answer of `input` waits: a race probe, whose failure may show on one run of
/// the same input and not on the next.
pub fn has_race_probe(input: &GeneratedInput) -> bool {
    match input {
        GeneratedInput::Exec {
            dispatch: Dispatch::Scripted { tools },
            ..
        }
        | GeneratedInput::Dedup { tools, .. } => tools.values().any(ToolScript::has_latency),
        GeneratedInput::Exec { .. } => false,
    }
}

/// Every input one simple edit away from `input`, roughly biggest edits first.
pub fn candidates(input: &GeneratedInput) -> Vec<Candidate<'_>> {
    let mut out: Vec<Candidate<'_>> = Vec::new();
    match input {
        GeneratedInput::Exec { dispatch, batches } => {
            if let Dispatch::Scripted { tools } = dispatch {
                if tools.values().any(ToolScript::has_latency) {
                    out.push(Box::new(move || {
                        let mut tools = tools.clone();
                        tools.values_mut().for_each(ToolScript::clear_latency);
                        GeneratedInput::Exec {
                            dispatch: Dispatch::Scripted { tools },
                            batches: batches.clone(),
                        }
                    }));
                }
            }
            let calls: Vec<Value> = batches.iter().map(|(c, _)| c.clone()).collect();
            for edit in list_edits(calls, call_edits) {
                out.push(Box::new(move || GeneratedInput::Exec {
                    dispatch: dispatch.clone(),
                    batches: edit()
                        .into_iter()
                        .zip(batches)
                        .map(|(c, (_, m))| (c, *m))
                        .collect(),
                }));
            }
            for (i, (_, max)) in batches.iter().enumerate() {
                for m in smaller_limits(*max) {
                    out.push(Box::new(move || {
                        let mut edited = batches.clone();
                        edited[i].1 = m;
                        GeneratedInput::Exec {
                            dispatch: dispatch.clone(),
                            batches: edited,
                        }
                    }));
                }
            }
        }
        GeneratedInput::Dedup { tools, batches } => {
            out.extend(shared_args_edits(tools, batches));
            for edit in list_edits(batches.clone(), call_edits) {
                out.push(Box::new(move || GeneratedInput::Dedup {
                    tools: tools.clone(),
                    batches: edit(),
                }));
            }
            if call_count(batches) > LONG_BATCH {
                // Cut long batches down first: an edit per scripted answer would be a run
                // per answer of hundreds.
                return out;
            }
            let with_tools = |edit| tools_edit(tools, batches, edit);
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
    tools: &'a Tools,
    batches: &'a [Value],
    edit: Change<'a, Tools>,
) -> Candidate<'a> {
    Box::new(move || {
        let mut edited = tools.clone();
        edit(&mut edited);
        GeneratedInput::Dedup {
            tools: edited,
            batches: batches.to_vec(),
        }
    })
}

fn call_count(batches: &[Value]) -> usize {
    batches
        .iter()
        .filter_map(Value::as_list)
        .map(<[Value]>::len)
        .sum()
}

/// Smaller limits than `max` (a missing one is the default, 4), the smallest first, 0 and 1,
/// then half, three quarters, seven eighths and so on down to one less; and no limit at all
/// when that is no bigger. A small limit is a small case: a failure past the limit needs one
/// call more than it. Only "half" and "one less" made a limit just above what a failure
/// needs (say 200, failing above 100) take a hundred accepted edits, each followed by a new
/// pass over every other edit: thousands of runs. Every edit lowers the limit in force or
/// unsets one equal to the default, so no two edits undo each other.
fn smaller_limits(max: Option<u64>) -> Vec<Option<u64>> {
    use crate::reference::DEFAULT_MAX_PARALLEL;
    let n = max.unwrap_or(DEFAULT_MAX_PARALLEL);
    let mut limits: Vec<Option<u64>> = [0, 1].into_iter().filter(|&m| m < n).map(Some).collect();
    let mut cut = n - n / 2;
    while cut > 0 && n > 0 {
        limits.push(Some(n - cut));
        cut /= 2;
    }
    if n > 0 {
        limits.push(Some(n - 1));
    }
    if max.is_some_and(|n| n >= DEFAULT_MAX_PARALLEL) {
        limits.push(None);
    }
    let mut seen = std::collections::HashSet::new();
    limits.retain(|m| seen.insert(*m));
    limits
}

/// Past this many calls, a batch is only cut in chunks (see [`list_edits`]).
const LONG_BATCH: usize = 64;

/// Edits of a list of batches: drop a batch, then edit one batch's list of calls. Each edit
/// is built when tried; the edits shared among them own one copy of the batches.
fn list_edits(
    batches: Vec<Value>,
    item_edits: fn(&Value) -> Vec<Value>,
) -> Vec<Box<dyn Fn() -> Vec<Value>>> {
    let batches = std::rc::Rc::new(batches);
    let mut out: Vec<Box<dyn Fn() -> Vec<Value>>> = Vec::new();
    let mut edit = |change: Change<'static, Vec<Value>>| {
        let batches = std::rc::Rc::clone(&batches);
        out.push(Box::new(move || {
            let mut edited = batches.to_vec();
            change(&mut edited);
            edited
        }));
    };
    if batches.len() > 1 {
        for i in 0..batches.len() {
            edit(Box::new(move |b| {
                b.remove(i);
            }));
        }
    }
    for (i, batch) in batches.iter().enumerate() {
        let Value::List(calls) = batch else { continue };
        let in_batch = move |change: Change<'static, Vec<Value>>| -> Change<'static, Vec<Value>> {
            Box::new(move |b: &mut Vec<Value>| {
                if let Value::List(calls) = &mut b[i] {
                    change(calls);
                }
            })
        };
        // Long batches (hundreds of calls) first lose whole chunks, halves down to sixteenths,
        // and only those: an edit per call would be a run per call.
        let len = calls.len();
        for parts in [2, 4, 8, 16] {
            if len < 4 * parts {
                break;
            }
            let size = len.div_ceil(parts);
            for start in (0..len).step_by(size) {
                edit(in_batch(Box::new(move |c| {
                    c.drain(start..(start + size).min(len));
                })));
            }
        }
        if len > LONG_BATCH {
            continue;
        }
        for j in 0..len {
            edit(in_batch(Box::new(move |c| {
                c.remove(j);
            })));
        }
        for (j, call) in calls.iter().enumerate() {
            for simpler in item_edits(call) {
                edit(in_batch(Box::new(move |c| c[j] = simpler.clone())));
            }
        }
    }
    out
}

/// Edits of one call: drop its `id`, simplify its arguments or args object.
fn call_edits(call: &Value) -> Vec<Value> {
    let Value::Object(fields) = call else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(id) = fields.get("id") {
        let mut edited = fields.clone();
        edited.shift_remove("id");
        out.push(Value::Object(edited));
        if matches!(id, Value::Str(text) if text.chars().count() > 1 && !text.starts_with("call_"))
        {
            let mut readable = fields.clone();
            readable["id"] = Value::Str("a".into());
            out.push(Value::Object(readable));
        }
    }
    for field in ["arguments", "args"] {
        if let Some(value) = fields.get(field) {
            for simpler in value_edits(value) {
                let mut edited = fields.clone();
                edited[field] = simpler;
                out.push(Value::Object(edited));
            }
        }
    }
    out
}

/// Values one simple step smaller than `value`, keeping its type where the type matters.
pub fn value_edits(value: &Value) -> Vec<Value> {
    match value {
        Value::Object(object) => object_edits(object),
        Value::List(items) => {
            let mut out = Vec::new();
            for i in 0..items.len() {
                let mut edited = items.clone();
                edited.remove(i);
                out.push(Value::List(edited));
            }
            for (i, item) in items.iter().enumerate() {
                for simpler in value_edits(item) {
                    let mut edited = items.clone();
                    edited[i] = simpler;
                    out.push(Value::List(edited));
                }
            }
            out
        }
        Value::Str(s) if !s.is_empty() => {
            let mut shorter: Vec<char> = s.chars().collect();
            shorter.pop();
            let mut out = vec![
                Value::Str(Text::default()),
                Value::Str(shorter.into_iter().collect()),
            ];
            // A readable stand-in, for the feedback a person reads.
            if s != "a" {
                out.push(Value::Str("a".into()));
            }
            out
        }
        Value::Int(i) if i.as_str() != "0" => {
            let mut out = vec![Value::Int(Int::from(0))];
            if i.as_str().len() > 2 {
                out.push(Value::Int(Int::from(1)));
            }
            out
        }
        Value::Float(f) if *f != 1.0 && *f != 0.5 => vec![Value::Float(1.0), Value::Float(0.5)],
        _ => Vec::new(),
    }
}

fn object_edits(object: &Object) -> Vec<Value> {
    let mut out = Vec::new();
    for key in object.keys() {
        let mut edited = object.clone();
        edited.shift_remove(key);
        out.push(Value::from(edited));
    }
    for (key, item) in object {
        for simpler in value_edits(item) {
            let mut edited = object.clone();
            *edited.get_mut(key).expect("a key of the object") = simpler;
            out.push(Value::from(edited));
        }
        if key.chars().count() > 1 {
            let edited: Object = object
                .iter()
                .map(|(k, v)| {
                    let short: String = if k == key {
                        k.chars().take(1).collect()
                    } else {
                        k.to_string()
                    };
                    (short.into(), v.clone())
                })
                .collect();
            if edited.len() == object.len() {
                out.push(Value::from(edited));
            }
        }
    }
    out
}

/// Simplifies one args object everywhere it occurs at once: in every call with those args
/// (duplicates stay duplicates) and in the scripts' responses (answers stay attached).
fn shared_args_edits<'a>(tools: &'a Tools, batches: &'a [Value]) -> Vec<Candidate<'a>> {
    use crate::reference::canonical_args;
    // Long batches are cut in chunks first: an edit per distinct args would be a run each.
    if call_count(batches) > LONG_BATCH {
        return Vec::new();
    }
    let mut distinct: Vec<(String, &Object)> = Vec::new();
    for call in batches.iter().filter_map(Value::as_list).flatten() {
        if let Some(Value::Object(args)) = call.as_object().and_then(|c| c.get("args")) {
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
                            if let Some(Value::Object(a)) = fields.get_mut("args") {
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
                GeneratedInput::Dedup { tools, batches }
            }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::smaller_limits;

    #[test]
    fn limits_shrink_to_the_smallest_first_then_by_halving_cuts_down_to_one_less() {
        assert_eq!(
            smaller_limits(Some(200)),
            [
                Some(0),
                Some(1),
                Some(100),
                Some(150),
                Some(175),
                Some(188),
                Some(194),
                Some(197),
                Some(199),
                None
            ]
        );
        // No limit is the default, 4: smaller ones are simpler, and unsetting one is only
        // offered where it lowers the limit or keeps it.
        assert_eq!(smaller_limits(None), [0, 1, 2, 3].map(Some));
        assert_eq!(
            smaller_limits(Some(4)),
            [Some(0), Some(1), Some(2), Some(3), None]
        );
        assert_eq!(smaller_limits(Some(3)), [0, 1, 2].map(Some));
        assert_eq!(smaller_limits(Some(1)), [Some(0)]);
        assert_eq!(smaller_limits(Some(0)), []);
        assert!(smaller_limits(Some(u64::MAX))
            .iter()
            .all(|l| l.unwrap_or(4) < u64::MAX));
    }
}
