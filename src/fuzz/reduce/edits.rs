//! Edits of lists, calls and values: fewer items, fewer keys, simpler values.

use super::Change;
use crate::json::{Int, Object, Text, Value};

/// Past this many calls, a batch is only cut in chunks (see [`list_edits`]).
pub(super) const LONG_BATCH: usize = 64;

/// Edits of a list of batches: drop a batch, then edit one batch's list of calls. Each edit
/// is built when tried; the edits shared among them own one copy of the batches.
pub(super) fn list_edits(
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
pub(super) fn call_edits(call: &Value) -> Vec<Value> {
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
pub(super) fn value_edits(value: &Value) -> Vec<Value> {
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

pub(super) fn object_edits(object: &Object) -> Vec<Value> {
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
