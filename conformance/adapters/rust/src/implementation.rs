//! The implementation under test: replace these two functions with your runtime's.

use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// RULES A: one tool message per call, ids by position when missing, duplicates and calls
/// past the limit rejected, everything else dispatched once.
pub fn execute_tool_calls(calls: &[Value], max_parallel: u64, dispatch: &dyn Fn(&Value) -> Value) -> Value {
    let mut seen = HashSet::new();
    let messages: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let position = index as u64 + 1;
            let id = match call.get("id").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => format!("call_{position}"),
            };
            let content = if seen.contains(&id) {
                json!(format!("error: duplicate tool_call_id '{id}'"))
            } else if position > max_parallel {
                json!(format!("error: too many parallel tool calls (limit {max_parallel})"))
            } else {
                let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                dispatch(&json!({"tool": call["tool"], "arguments": arguments}))
            };
            seen.insert(id.clone());
            json!({"role": "tool", "tool_call_id": id, "content": content})
        })
        .collect();
    Value::Array(messages)
}

/// Python's `json.dumps(value, sort_keys=True)`. Numbers are written as they arrived, which
/// is Python's form because the runner writes them so (a literal typed by hand, like
/// `1.00`, would stay `1.00` where Python writes `1.0`).
fn dumps(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let mut out = String::from("\"");
            for unit in s.encode_utf16() {
                match unit {
                    0x22 => out.push_str("\\\""),
                    0x5c => out.push_str("\\\\"),
                    0x0a => out.push_str("\\n"),
                    0x0d => out.push_str("\\r"),
                    0x09 => out.push_str("\\t"),
                    0x08 => out.push_str("\\b"),
                    0x0c => out.push_str("\\f"),
                    0x20..=0x7e => out.push(unit as u8 as char),
                    _ => out.push_str(&format!("\\u{unit:04x}")),
                }
            }
            out.push('"');
            out
        }
        Value::Array(items) => format!("[{}]", items.iter().map(dumps).collect::<Vec<_>>().join(", ")),
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys.iter().map(|k| format!("{}: {}", dumps(&json!(k)), dumps(&object[*k]))).collect();
            format!("{{{}}}", entries.join(", "))
        }
                // Infinities arrive as overflowing literals (1e400); Python writes them Infinity.
                Value::Number(n) if n.to_string().parse::<f64>().is_ok_and(f64::is_infinite) => {
            if n.to_string().starts_with('-') { "-Infinity" } else { "Infinity" }.to_owned()
        }
        other => other.to_string(),
    }
}

/// RULES B: each distinct call (by canonical key) runs once; duplicates share the result.
pub fn run_parallel_calls(
    known: &dyn Fn(&str) -> bool,
    invoke: &dyn Fn(&str, &Value) -> Result<Value, crate::ToolError>,
    calls: &[Value],
) -> Value {
    let mut cache = Map::new();
    for call in calls {
        let name = call["name"].as_str().unwrap_or_default();
        let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
        let key = format!("{name}({})", dumps(&args));
        if cache.contains_key(&key) {
            continue;
        }
        let result = if !known(name) {
            json!(format!("error: unknown tool '{name}'"))
        } else {
            invoke(name, &args).unwrap_or_else(|error| json!(format!("error: {error}")))
        };
        cache.insert(key, result);
    }
    Value::Object(cache)
}
