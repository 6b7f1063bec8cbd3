//! The exercise's sandbox world and its `dispatch` (RULES sandbox): four tools,
//! their argument specs, and Python's `str()` of what they return or raise.

use super::execute::{DispatchRequest, Dispatcher};
use super::input::{DomainError, ToolCall};
use super::python;
use crate::json::{python_repr, Int, Object, Value};

const WEATHER: [(&str, &str); 3] = [
    ("paris", "18C, light rain"),
    ("tokyo", "24C, clear"),
    ("lima", "16C, overcast"),
];

const DOCS: [(&str, &str); 2] = [
    (
        "refund-policy",
        "Refunds are accepted within 30 days with a receipt.",
    ),
    ("shipping", "Standard shipping takes 3-5 business days."),
];

/// The JSON-Schema-style type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    String,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Number => "number",
            Kind::String => "string",
        }
    }

    /// `true` and `false` are not numbers here, although Python's `bool` is an `int`.
    fn admits(self, value: &Value) -> bool {
        match self {
            Kind::Number => matches!(value, Value::Int(_) | Value::Float(_)),
            Kind::String => matches!(value, Value::Str(_)),
        }
    }
}

/// The tools and their parameters, in parameter order.
const TOOLS: [(&str, &[(&str, Kind)]); 4] = [
    ("add", &[("a", Kind::Number), ("b", Kind::Number)]),
    ("divide", &[("a", Kind::Number), ("b", Kind::Number)]),
    ("get_weather", &[("city", Kind::String)]),
    ("lookup_doc", &[("doc_id", Kind::String)]),
];

/// The largest integer the sandbox's arithmetic takes (RULES A: integers within +-2^53).
const MAX_SAFE_INTEGER: i64 = 1 << 53;

/// The sandbox `dispatch`. Stateless, so one value serves every batch and thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sandbox;

impl Dispatcher for Sandbox {
    fn dispatch(&self, request: DispatchRequest<'_>) -> String {
        let Some((tool, params)) = TOOLS.iter().find(|(name, _)| *name == request.tool) else {
            return format!("error: unknown tool '{}'", request.tool);
        };
        if let Some(problem) = argument_problem(params, request.arguments) {
            return format!("error: {tool} {problem}");
        }
        match run(tool, request.arguments) {
            Ok(text) => text,
            Err(exception) => format!("error: {tool} raised {exception}"),
        }
    }
}

impl Sandbox {
    /// Checks that every call stays inside the sandbox's numeric domain: integer arguments of
    /// `add` and `divide` within +-2^53.
    pub fn check_domain(calls: &[ToolCall]) -> Result<(), DomainError> {
        for (index, call) in calls.iter().enumerate() {
            if !matches!(call.tool.as_str(), "add" | "divide") {
                continue;
            }
            for (argument, value) in call.arguments.iter().flatten() {
                if let Value::Int(int) = value {
                    if safe_integer(int).is_none() {
                        return Err(DomainError::SandboxInteger {
                            position: index + 1,
                            argument: argument.to_string(),
                            value: int.to_string(),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

fn safe_integer(int: &Int) -> Option<i64> {
    int.as_i64().filter(|n| n.abs() <= MAX_SAFE_INTEGER)
}

/// The first problem with the arguments: a missing one (parameter order), then an
/// unexpected one (sorted), then a wrong type (parameter order).
fn argument_problem(params: &[(&str, Kind)], arguments: &Object) -> Option<String> {
    if let Some((name, _)) = params
        .iter()
        .find(|(name, _)| !arguments.contains_key(name))
    {
        return Some(format!("missing required argument '{name}'"));
    }
    let unexpected = arguments
        .keys()
        .filter(|key| !params.iter().any(|(name, _)| name == key))
        .min();
    if let Some(name) = unexpected {
        return Some(format!("got unexpected argument '{name}'"));
    }
    params
        .iter()
        .find(|(name, kind)| !kind.admits(&arguments[*name]))
        .map(|(name, kind)| format!("argument '{name}' must be a {}", kind.name()))
}

/// A sandbox number: Python keeps `int` and `float` apart, and so must the arithmetic.
#[derive(Debug, Clone, Copy)]
enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    fn of(value: &Value) -> Number {
        match value {
            Value::Int(int) => match safe_integer(int) {
                Some(n) => Number::Int(n),
                // Outside the domain (`check_domain` refuses it); rounding keeps this total.
                None => Number::Float(int.as_str().parse().unwrap_or(f64::NAN)),
            },
            Value::Float(f) => Number::Float(*f),
            _ => unreachable!("argument types are checked before the tool runs"),
        }
    }

    /// Exact for the integers of the domain (at most 2^53 in magnitude).
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Float(f) => f,
        }
    }

    fn is_zero(self) -> bool {
        self.as_f64() == 0.0
    }
}

/// What a sandbox tool raises, shown as Python shows it: `Type: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Raised {
    #[error("ZeroDivisionError: division by zero")]
    IntDivisionByZero,
    #[error("ZeroDivisionError: float division by zero")]
    FloatDivisionByZero,
    /// `key` is already the Python `repr` of the key looked up.
    #[error("KeyError: {key}")]
    KeyError { key: String },
}

/// Runs a tool whose arguments are valid: `Ok(str(result))` or what it raised.
fn run(tool: &str, arguments: &Object) -> Result<String, Raised> {
    let string = |name: &str| arguments[name].as_str().unwrap_or_default();
    match tool {
        "add" => Ok(add(
            Number::of(&arguments["a"]),
            Number::of(&arguments["b"]),
        )),
        "divide" => divide(Number::of(&arguments["a"]), Number::of(&arguments["b"])),
        "get_weather" => lookup(
            &WEATHER,
            &python::lower(python::strip(string("city"))),
            string("city"),
        ),
        "lookup_doc" => lookup(&DOCS, string("doc_id"), string("doc_id")),
        _ => unreachable!("only the tools of TOOLS reach here"),
    }
}

fn add(a: Number, b: Number) -> String {
    match (a, b) {
        // Both within 2^53, so the sum fits an i64 exactly.
        (Number::Int(a), Number::Int(b)) => (a + b).to_string(),
        _ => python_repr(a.as_f64() + b.as_f64()),
    }
}

/// True division. Operands of the domain convert to floats exactly, and IEEE division is
/// correctly rounded, as CPython's `int / int` is.
fn divide(a: Number, b: Number) -> Result<String, Raised> {
    if b.is_zero() {
        return Err(match (a, b) {
            (Number::Int(_), Number::Int(_)) => Raised::IntDivisionByZero,
            _ => Raised::FloatDivisionByZero,
        });
    }
    Ok(python_repr(a.as_f64() / b.as_f64()))
}

fn lookup(table: &[(&str, &str)], key: &str, given: &str) -> Result<String, Raised> {
    table
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| (*v).to_owned())
        .ok_or_else(|| Raised::KeyError {
            key: python::repr_str(given),
        })
}
