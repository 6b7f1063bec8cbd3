//! The input domain of both functions (RULES A and B): values outside it are refused with
//! an error naming the call's position and the field, before any work is done.

use crate::json::{Object, Value};
use thiserror::Error;

/// One call of `execute_tool_calls`: `{"tool": str, "id"?: str | null, "arguments"?: object}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub tool: String,
    /// `None` when the id is absent or `null`.
    pub id: Option<String>,
    /// `None` when the arguments are absent (dispatched as `{}`).
    pub arguments: Option<Object>,
}

/// One call of `run_parallel_calls`: `{"name": str, "args"?: object}`.
#[derive(Debug, Clone, PartialEq)]
pub struct DedupCall {
    pub name: String,
    /// `None` when the args are absent (keyed and invoked as `{}`).
    pub args: Option<Object>,
}

/// Why an input is outside a function's domain. Positions are 1-based, like RULES.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DomainError {
    #[error("`calls` must be a list, got {found}")]
    CallsNotAList { found: &'static str },
    #[error("call {position}: must be an object, got {found}")]
    CallNotAnObject {
        position: usize,
        found: &'static str,
    },
    #[error("call {position}: field `{field}` is required")]
    MissingField {
        position: usize,
        field: &'static str,
    },
    #[error("call {position}: field `{field}` must be {expected}, got {found}")]
    WrongType {
        position: usize,
        field: &'static str,
        expected: &'static str,
        found: &'static str,
    },
    #[error("call {position}: unknown field `{field}` (a call has only {allowed})")]
    UnknownField {
        position: usize,
        field: String,
        allowed: &'static str,
    },
    #[error("`max_parallel` must be a non-negative integer, got {found}")]
    MaxParallel { found: String },
    #[error("call {position}: field `arguments.{argument}` is the integer {value}, outside the sandbox's range of +-2^53")]
    SandboxInteger {
        position: usize,
        argument: String,
        value: String,
    },
}

/// Reads the `calls` of `execute_tool_calls`.
pub fn tool_calls(calls: &Value) -> Result<Vec<ToolCall>, DomainError> {
    each_call(calls, "`tool`, `id` and `arguments`", |position, call| {
        Ok(ToolCall {
            tool: required_str(call, position, "tool")?,
            id: match call.get("id") {
                None | Some(Value::Null) => None,
                Some(Value::Str(id)) => Some(id.to_string()),
                Some(other) => return Err(wrong_type(position, "id", "a string or null", other)),
            },
            arguments: optional_object(call, position, "arguments")?,
        })
    })
}

/// Reads the `calls` of `run_parallel_calls`.
pub fn dedup_calls(calls: &Value) -> Result<Vec<DedupCall>, DomainError> {
    each_call(calls, "`name` and `args`", |position, call| {
        Ok(DedupCall {
            name: required_str(call, position, "name")?,
            args: optional_object(call, position, "args")?,
        })
    })
}

/// Reads `max_parallel`: a non-negative integer. Limits beyond `u64` saturate, which changes
/// nothing since no batch has that many calls.
pub fn max_parallel(value: &Value) -> Result<u64, DomainError> {
    match value {
        Value::Int(int) if !int.as_str().starts_with('-') => {
            Ok(int.as_str().parse().unwrap_or(u64::MAX))
        }
        other => Err(DomainError::MaxParallel {
            found: other.to_string(),
        }),
    }
}

fn each_call<T>(
    calls: &Value,
    allowed: &'static str,
    read: impl Fn(usize, &Object) -> Result<T, DomainError>,
) -> Result<Vec<T>, DomainError> {
    let Value::List(items) = calls else {
        return Err(DomainError::CallsNotAList {
            found: calls.type_name(),
        });
    };
    let fields: Vec<&str> = allowed.split('`').skip(1).step_by(2).collect();
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let position = index + 1;
            let Value::Object(call) = item else {
                return Err(DomainError::CallNotAnObject {
                    position,
                    found: item.type_name(),
                });
            };
            if let Some(field) = call.keys().find(|k| !fields.contains(&k.as_str())) {
                return Err(DomainError::UnknownField {
                    position,
                    field: field.to_string(),
                    allowed,
                });
            }
            read(position, call)
        })
        .collect()
}

fn required_str(
    call: &Object,
    position: usize,
    field: &'static str,
) -> Result<String, DomainError> {
    match call.get(field) {
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(wrong_type(position, field, "a string", other)),
        None => Err(DomainError::MissingField { position, field }),
    }
}

fn optional_object(
    call: &Object,
    position: usize,
    field: &'static str,
) -> Result<Option<Object>, DomainError> {
    match call.get(field) {
        None => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o.clone())),
        Some(other) => Err(wrong_type(position, field, "an object", other)),
    }
}

fn wrong_type(
    position: usize,
    field: &'static str,
    expected: &'static str,
    found: &Value,
) -> DomainError {
    DomainError::WrongType {
        position,
        field,
        expected,
        found: found.type_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn exec_error(text: &str) -> String {
        tool_calls(&parse(text).unwrap()).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_call_and_field() {
        assert_eq!(
            exec_error(r#"{"tool": "add"}"#),
            "`calls` must be a list, got object"
        );
        assert_eq!(
            exec_error(r#"[{"tool": "add"}, 3]"#),
            "call 2: must be an object, got integer"
        );
        assert_eq!(
            exec_error(r#"[{"id": "a"}]"#),
            "call 1: field `tool` is required"
        );
        assert_eq!(
            exec_error(r#"[{"tool": "add", "id": 7}]"#),
            "call 1: field `id` must be a string or null, got integer"
        );
        assert_eq!(
            exec_error(r#"[{"tool": "add", "arguments": []}]"#),
            "call 1: field `arguments` must be an object, got list"
        );
        assert_eq!(
            exec_error(r#"[{"tool": "add", "args": {}}]"#),
            "call 1: unknown field `args` (a call has only `tool`, `id` and `arguments`)"
        );
    }

    #[test]
    fn max_parallel_is_a_non_negative_integer() {
        assert_eq!(max_parallel(&parse("0").unwrap()), Ok(0));
        assert_eq!(
            max_parallel(&parse("99999999999999999999999").unwrap()),
            Ok(u64::MAX)
        );
        for bad in ["-1", "true", "2.0", "null"] {
            assert!(
                max_parallel(&parse(bad).unwrap()).is_err(),
                "{bad} accepted"
            );
        }
    }
}
