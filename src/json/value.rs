//! The value model: JSON as CPython's `json.loads` sees it, integers kept exactly.

use indexmap::IndexMap;
use std::fmt;

/// An object: insertion order kept (Python dicts do), a repeated key keeps its first position
/// and its last value, exactly like `json.loads`.
pub type Object = IndexMap<String, Value>;

/// A JSON value with Python's types: an integer literal stays an exact integer of any size,
/// anything with a fraction or exponent is a float.
#[derive(Debug, Clone)]
pub enum Value {
    Null,
    Bool(bool),
    Int(Int),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Object(Object),
}

/// An integer of any size, stored as its normalised decimal text (`-0` becomes `0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Int(Box<str>);

impl Int {
    /// Builds an integer from a JSON integer literal: an optional `-` and ASCII digits.
    /// Returns `None` for anything else.
    pub fn from_literal(text: &str) -> Option<Int> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let significant = digits.trim_start_matches('0');
        Some(match (negative, significant.is_empty()) {
            (_, true) => Int("0".into()),
            (true, false) => Int(format!("-{significant}").into()),
            (false, false) => Int(significant.into()),
        })
    }

    /// The exact value when it fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }

    /// The double nearest to the integer (infinite past the largest double), as a runtime
    /// with one number type reads it.
    pub fn to_f64(&self) -> f64 {
        // Rust parses decimal text of any length with correct rounding.
        self.0.parse().unwrap_or(f64::NAN)
    }

    /// The decimal text, as Python's `str(int)` writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<i64> for Int {
    fn from(value: i64) -> Int {
        Int(value.to_string().into())
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Value {
    /// Python's type name for the value, for error messages (`dict`, `list`, `str`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Object(_) => "object",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n.into())
    }
}

impl From<Object> for Value {
    fn from(o: Object) -> Value {
        Value::Object(o)
    }
}

/// Judging equality (RULINGS C): types are kept (`1`, `1.0` and `true` differ), object key
/// order is ignored, list order is not. Floats compare as Python's `==` does, except that NaN
/// equals NaN, because a NaN result that matches a NaN expectation is a conforming answer.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            // IndexMap's equality is map equality: same keys and values, any order.
            (Value::Object(a), Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    /// Python's `json.dumps(value)` with default settings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::write::dumps(self, super::write::Style::PYTHON))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_literals_normalise_like_python() {
        assert_eq!(Int::from_literal("-0").unwrap().as_str(), "0");
        assert_eq!(Int::from_literal("007").unwrap().as_str(), "7");
        assert_eq!(Int::from_literal("-12").unwrap().as_str(), "-12");
        assert!(Int::from_literal("1.0").is_none());
        assert!(Int::from_literal("-").is_none());
    }

    #[test]
    fn equality_keeps_types_and_ignores_key_order() {
        assert_ne!(Value::from(1), Value::Float(1.0));
        assert_ne!(Value::from(1), Value::Bool(true));
        let ab: Object = [("a".into(), 1.into()), ("b".into(), 2.into())]
            .into_iter()
            .collect();
        let ba: Object = [("b".into(), 2.into()), ("a".into(), 1.into())]
            .into_iter()
            .collect();
        assert_eq!(Value::Object(ab), Value::Object(ba));
        assert_eq!(Value::Float(f64::NAN), Value::Float(f64::NAN));
    }
}
