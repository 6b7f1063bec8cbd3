//! The value model: JSON as CPython's `json.loads` sees it, integers kept exactly.

use super::text::Text;
use compact_str::CompactString;
use std::fmt;

pub use super::object::Object;

/// A JSON value with Python's types: an integer literal stays an exact integer of any size,
/// anything with a fraction or exponent is a float.
#[derive(Debug, Clone)]
pub enum Value {
    Null,
    Bool(bool),
    Int(Int),
    Float(f64),
    Str(Text),
    List(Vec<Value>),
    /// Held inline: an object is one vector, no larger than a string, so a value stays 32
    /// bytes and reaching a member takes one pointer, not two (see [`Object`]).
    Object(Object),
}

/// An integer of any size, stored as its normalised decimal text (`-0` becomes `0`). Texts of
/// up to 24 bytes (every `i64`) live inside the value: no allocation to read, copy or drop
/// one, and no pointer to chase when writing a key (an integer in a heap block of its own was
/// a cache miss per number).
#[derive(Clone)]
pub struct Int(CompactString);

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
            (_, true) => Int::from_text("0"),
            (true, false) => Int::from_parts("-", significant),
            (false, false) => Int::from_text(significant),
        })
    }

    /// `sign` then `digits`, already normalised.
    fn from_parts(sign: &str, digits: &str) -> Int {
        let mut text = CompactString::with_capacity(sign.len() + digits.len());
        text.push_str(sign);
        text.push_str(digits);
        Int(text)
    }

    /// Normalised text as it is.
    fn from_text(text: &str) -> Int {
        Int::from_parts("", text)
    }

    /// The exact value when it fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_str().parse().ok()
    }

    /// The double nearest to the integer (infinite past the largest double), as a runtime
    /// with one number type reads it.
    pub fn to_f64(&self) -> f64 {
        // Rust parses decimal text of any length with correct rounding.
        self.as_str().parse().unwrap_or(f64::NAN)
    }

    /// The decimal text, as Python's `str(int)` writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

// Equality, hashing and debugging go by the text: the same integer always has the same one.
impl PartialEq for Int {
    fn eq(&self, other: &Int) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Int {}

impl std::hash::Hash for Int {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Int").field(&self.as_str()).finish()
    }
}

impl From<i64> for Int {
    fn from(value: i64) -> Int {
        let mut buffer = itoa::Buffer::new();
        Int::from_text(buffer.format(value))
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
        Value::Str(s.to_owned().into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s.into())
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

/// Judging equality (RULES C): types are kept (`1`, `1.0` and `true` differ), object key
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
            // Map equality: same keys and values, any order.
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
        assert_eq!(Int::from_literal("-000").unwrap(), Int::from(0));
        // Inline and on the heap alike, at the boundary and past it.
        for text in [
            "9223372036854775807",
            "-9223372036854775808",
            "1234567890123456789012",
            "-123456789012345678901",
            "12345678901234567890123",
            "-1234567890123456789012",
        ] {
            let int = Int::from_literal(text).unwrap();
            assert_eq!(int.as_str(), text);
            assert_eq!(int, Int::from_literal(&format!("{}", int)).unwrap());
            assert_eq!(format!("{int:?}"), format!("Int({text:?})"));
        }
        assert_eq!(Int::from(i64::MIN).as_str(), "-9223372036854775808");
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
        assert_eq!(Value::from(ab), Value::from(ba));
        assert_eq!(Value::Float(f64::NAN), Value::Float(f64::NAN));
    }
}
