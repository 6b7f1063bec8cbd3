//! The reference runtime of the runtime profile (spec/SPEC.md, "The runtime profile"): every
//! call of a turn runs once, in call order, and is answered under its own id, a tool's
//! exception as `Error: <class>: <str(e)>`, a tool it was not given as an error of its own.

use crate::json::{dumps, Object, Style, Value};

/// The text of the result of a call whose tool raised: the reference runtime's declared
/// error policy.
pub const ERROR_CONTENT: &str = "Error: {type}: {message}";

/// What invoking a tool gave: its value, or the class and `str()` of what it raised.
pub type Invoked = Result<Value, (String, String)>;

/// The tool messages answering `calls` (`[{"id", "name", "arguments"}]`), in call order;
/// `has_tool` says which tools the runtime was given, `invoke` runs one.
pub fn run_tool_calls(
    calls: &[Value],
    has_tool: impl Fn(&str) -> bool,
    invoke: impl Fn(&str, &Object) -> Invoked,
) -> Value {
    let answer = |call: &Value| {
        let call = call.as_object().cloned().unwrap_or_default();
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let arguments = call
            .get("arguments")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let content = if has_tool(name) {
            match invoke(name, &arguments) {
                Ok(Value::Str(text)) => text.to_string(),
                Ok(other) => dumps(&other, Style::PYTHON),
                Err((class, message)) => ERROR_CONTENT
                    .replace("{type}", &class)
                    .replace("{message}", &message),
            }
        } else {
            let name = dumps(&Value::from(name), Style::PYTHON);
            format!("Error: no tool named {name}")
        };
        let mut message = Object::new();
        let id = call.get("id").cloned().unwrap_or(Value::Null);
        message.insert("tool_call_id".into(), id);
        message.insert("content".into(), Value::from(content));
        Value::from(message)
    };
    Value::List(calls.iter().map(answer).collect())
}
