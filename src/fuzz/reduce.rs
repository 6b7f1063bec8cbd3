//! Greedy reduction after proptest's shrinking: proptest shrinks each number and string
//! along its own axis, which leaves big recursive values big. This pass tries the simple
//! edits a person would (drop a batch, drop a call, drop a key, zero a value, drop an
//! answer, remove latency) and keeps every edit that still fails.

use crate::generate::cases::GeneratedInput;
use crate::json::{Int, Object, Value};

/// Every input one simple edit away from `input`, roughly biggest edits first.
pub fn candidates(input: &GeneratedInput) -> Vec<GeneratedInput> {
    let mut out = Vec::new();
    match input {
        GeneratedInput::Exec { dispatch, batches } => {
            let calls: Vec<Value> = batches.iter().map(|(c, _)| c.clone()).collect();
            for edited in list_edits(&calls, call_edits) {
                let batches = edited
                    .into_iter()
                    .zip(batches)
                    .map(|(c, (_, m))| (c, *m))
                    .collect();
                out.push(GeneratedInput::Exec {
                    dispatch: dispatch.clone(),
                    batches,
                });
            }
            for (i, (calls, max)) in batches.iter().enumerate() {
                for m in smaller_limits(*max) {
                    let mut edited = batches.clone();
                    edited[i] = (calls.clone(), m);
                    out.push(GeneratedInput::Exec {
                        dispatch: dispatch.clone(),
                        batches: edited,
                    });
                }
            }
        }
        GeneratedInput::Dedup { tools, batches } => {
            out.extend(shared_args_edits(tools, batches));
            for edited in list_edits(batches, call_edits) {
                out.push(GeneratedInput::Dedup {
                    tools: tools.clone(),
                    batches: edited,
                });
            }
            let calls: usize = batches
                .iter()
                .filter_map(Value::as_list)
                .map(<[Value]>::len)
                .sum();
            if calls > LONG_BATCH {
                // Cut long batches down first: an edit per scripted answer would copy every
                // script once per answer (quadratic, gigabytes for hundreds of keys).
                return out;
            }
            for name in tools.keys() {
                let mut edited = tools.clone();
                edited.shift_remove(name);
                out.push(GeneratedInput::Dedup {
                    tools: edited,
                    batches: batches.clone(),
                });
            }
            for (name, script) in tools {
                if script.latency_ms > 0 {
                    let mut edited = tools.clone();
                    edited[name].latency_ms = 0;
                    out.push(GeneratedInput::Dedup {
                        tools: edited,
                        batches: batches.clone(),
                    });
                }
                for (r, response) in script.responses.iter().enumerate() {
                    if response.answers.len() > 1 {
                        let mut edited = tools.clone();
                        edited[name].responses[r].answers.truncate(1);
                        out.push(GeneratedInput::Dedup {
                            tools: edited,
                            batches: batches.clone(),
                        });
                    }
                    for (a, answer) in response.answers.iter().enumerate() {
                        if let crate::spec::Answer::Return { value } = answer {
                            for simpler in value_edits(value) {
                                let mut edited = tools.clone();
                                edited[name].responses[r].answers[a] =
                                    crate::spec::Answer::Return { value: simpler };
                                out.push(GeneratedInput::Dedup {
                                    tools: edited,
                                    batches: batches.clone(),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Smaller values of a `max_parallel`, largest cut first: half, then three quarters, seven
/// eighths and so on down to one less. Only "half" and "one less" made a limit just above
/// what a failure needs (say 200, failing above 100) take a hundred accepted edits, each
/// followed by a new pass over every other edit: thousands of runs.
fn smaller_limits(max: Option<u64>) -> Vec<Option<u64>> {
    let Some(n) = max.filter(|&n| n > 0) else {
        return Vec::new();
    };
    let mut limits = Vec::new();
    let mut cut = n - n / 2;
    while cut > 0 {
        limits.push(Some(n - cut));
        cut /= 2;
    }
    limits.push(Some(n - 1));
    limits.dedup();
    limits
}

/// Past this many calls, a batch is only cut in chunks (see [`list_edits`]).
const LONG_BATCH: usize = 64;

/// Edits of a list of batches: drop a batch, then edit one batch's list of calls.
fn list_edits(batches: &[Value], item_edits: fn(&Value) -> Vec<Value>) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    if batches.len() > 1 {
        for i in 0..batches.len() {
            let mut edited = batches.to_vec();
            edited.remove(i);
            out.push(edited);
        }
    }
    for (i, batch) in batches.iter().enumerate() {
        let Value::List(calls) = batch else { continue };
        // Long batches (hundreds of calls) first lose whole chunks, halves down to sixteenths,
        // and only those: one candidate per call would be a copy of the batch per call
        // (quadratic memory, gigabytes for a batch of 300) and a run per call.
        for parts in [2, 4, 8, 16] {
            if calls.len() < 4 * parts {
                break;
            }
            let size = calls.len().div_ceil(parts);
            for start in (0..calls.len()).step_by(size) {
                let mut edited = calls.clone();
                edited.drain(start..(start + size).min(calls.len()));
                out.push(replace(batches, i, Value::List(edited)));
            }
        }
        if calls.len() > LONG_BATCH {
            continue;
        }
        for j in 0..calls.len() {
            let mut edited = calls.clone();
            edited.remove(j);
            out.push(replace(batches, i, Value::List(edited)));
        }
        for (j, call) in calls.iter().enumerate() {
            for simpler in item_edits(call) {
                let mut edited = calls.clone();
                edited[j] = simpler;
                out.push(replace(batches, i, Value::List(edited)));
            }
        }
    }
    out
}

fn replace(batches: &[Value], index: usize, batch: Value) -> Vec<Value> {
    let mut edited = batches.to_vec();
    edited[index] = batch;
    edited
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
                Value::Str(String::new()),
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
        out.push(Value::Object(edited));
    }
    for (key, item) in object {
        for simpler in value_edits(item) {
            let mut edited = object.clone();
            edited[key] = simpler;
            out.push(Value::Object(edited));
        }
        if key.chars().count() > 1 {
            let mut edited = Object::new();
            for (k, v) in object {
                let short: String = if k == key {
                    k.chars().take(1).collect()
                } else {
                    k.clone()
                };
                edited.insert(short, v.clone());
            }
            if edited.len() == object.len() {
                out.push(Value::Object(edited));
            }
        }
    }
    out
}

/// Simplifies one args object everywhere it occurs at once: in every call with those args
/// (duplicates stay duplicates) and in the scripts' responses (answers stay attached).
fn shared_args_edits(
    tools: &indexmap::IndexMap<String, crate::spec::ToolScript>,
    batches: &[Value],
) -> Vec<GeneratedInput> {
    use crate::reference::canonical_args;
    // Long batches are cut in chunks first: an edit per distinct args would copy them all.
    let calls: usize = batches
        .iter()
        .filter_map(Value::as_list)
        .map(<[Value]>::len)
        .sum();
    if calls > LONG_BATCH {
        return Vec::new();
    }
    let mut distinct: Vec<Object> = Vec::new();
    for call in batches.iter().filter_map(Value::as_list).flatten() {
        if let Some(Value::Object(args)) = call.as_object().and_then(|c| c.get("args")) {
            if !distinct
                .iter()
                .any(|d| canonical_args(d) == canonical_args(args))
            {
                distinct.push(args.clone());
            }
        }
    }
    let mut out = Vec::new();
    for args in &distinct {
        let key = canonical_args(args);
        for simpler in object_edits(args) {
            let Value::Object(simpler) = simpler else {
                continue;
            };
            let swap = |candidate: &Object| {
                if canonical_args(candidate) == key {
                    simpler.clone()
                } else {
                    candidate.clone()
                }
            };
            let batches = batches
                .iter()
                .map(|batch| match batch {
                    Value::List(calls) => Value::List(
                        calls
                            .iter()
                            .map(|call| match call {
                                Value::Object(fields) => {
                                    let mut fields = fields.clone();
                                    if let Some(Value::Object(a)) = fields.get("args") {
                                        let replaced = swap(a);
                                        fields["args"] = Value::Object(replaced);
                                    }
                                    Value::Object(fields)
                                }
                                other => other.clone(),
                            })
                            .collect(),
                    ),
                    other => other.clone(),
                })
                .collect();
            let mut tools = tools.clone();
            for script in tools.values_mut() {
                for response in &mut script.responses {
                    if let Some(a) = &response.args {
                        response.args = Some(swap(a));
                    }
                }
            }
            out.push(GeneratedInput::Dedup { tools, batches });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::smaller_limits;

    #[test]
    fn limits_shrink_by_halving_cuts_down_to_one_less() {
        assert_eq!(
            smaller_limits(Some(200)),
            [100, 150, 175, 188, 194, 197, 199].map(Some)
        );
        assert_eq!(smaller_limits(Some(1)), [Some(0)]);
        assert_eq!(smaller_limits(Some(0)), []);
        assert_eq!(smaller_limits(None), []);
        assert!(smaller_limits(Some(u64::MAX)).iter().all(|l| l < &Some(u64::MAX)));
    }
}
