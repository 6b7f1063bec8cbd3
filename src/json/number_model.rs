//! Number models (RULES E): how the runtime of an implementation holds JSON numbers.
//! `python` keeps integers exact and apart from floats (RULES B2); `float64` holds every
//! number as an IEEE 754 double, as JavaScript and every runtime whose JSON reader yields
//! doubles only do.

use super::ecmascript::ecmascript_number;
use super::float_repr::write_python_repr;
use super::value::{Int, Object, Value};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// The number model an implementation declares in its handshake (`number_model`), and the
/// one its expectations are computed and its results judged by.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum NumberModel {
    /// Python's `json`: an integer literal is an exact integer of any size, a literal with a
    /// fraction or exponent is a float, and the two are different values (RULES B2).
    #[default]
    Python,
    /// One number type: every JSON number is the IEEE 754 double nearest to it, so `1` and
    /// `1.0` are one value and one key, and a number inside a key is written as
    /// ECMAScript's `Number.prototype.toString` writes it (RULES E).
    Float64,
}

/// The largest integer below which every integer is a double: 2^53.
const SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

impl NumberModel {
    /// The name used in the handshake and in reports.
    pub fn name(self) -> &'static str {
        match self {
            NumberModel::Python => "python",
            NumberModel::Float64 => "float64",
        }
    }

    /// `value` as this model holds it. Under `python`, the value itself. Under `float64`,
    /// every number becomes the double nearest to it, held in one normal form so that equal
    /// doubles are equal values: an integral double within +-2^53 as an integer (`1.0` and
    /// `-0.0` become `1` and `0`), every other double as a float (`2^60` as the float
    /// `1.152921504606847e+18`, a 4,300-digit integer as infinity); NaN stays NaN.
    pub fn normalise(self, value: &Value) -> Value {
        match (self, value) {
            (NumberModel::Python, _) => value.clone(),
            (_, Value::Int(int)) => normal_double(int.to_f64()),
            (_, Value::Float(float)) => normal_double(*float),
            (_, Value::List(items)) => {
                Value::List(items.iter().map(|item| self.normalise(item)).collect())
            }
            (_, Value::Object(object)) => Value::from(self.normalise_object(object)),
            (_, Value::Null | Value::Bool(_) | Value::Str(_)) => value.clone(),
        }
    }

    /// [`NumberModel::normalise`] of an object's members.
    pub fn normalise_object(self, object: &Object) -> Object {
        object
            .iter()
            .map(|(key, item)| (key.clone(), self.normalise(item)))
            .collect()
    }

    /// Appends a number as this model writes it inside a canonical key: Python's `json.dumps`
    /// (exact integers, floats as their `repr`, `NaN`, `Infinity`), or ECMAScript's
    /// `Number.prototype.toString` of the double (`1`, `1e-7`, `1e+21`, `NaN`, `Infinity`).
    /// Inlined into the writer, so an integer (most of the numbers a key holds) costs no
    /// call.
    #[inline]
    pub(super) fn write_number(self, out: &mut String, value: &Value) {
        match (self, value) {
            (NumberModel::Python, Value::Int(int)) => super::write::append(out, int.as_str()),
            (NumberModel::Python, Value::Float(f)) if f.is_finite() => write_python_repr(out, *f),
            (NumberModel::Python, Value::Float(f)) => out.push_str(&super::json_float(*f)),
            (NumberModel::Float64, Value::Int(int)) => {
                out.push_str(&ecmascript_number(int.to_f64()))
            }
            (NumberModel::Float64, Value::Float(f)) => out.push_str(&ecmascript_number(*f)),
            _ => unreachable!("write_number is called with numbers only"),
        }
    }
}

/// The normal form of a double under `float64`.
fn normal_double(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() <= SAFE_INTEGER {
        // Exact: an integral double of at most 2^53 converts to i64 without loss, and -0.0
        // becomes 0.
        Value::Int(Int::from(value as i64))
    } else {
        Value::Float(value)
    }
}

/// Read from the handshake: any other value is refused with a message that names the field
/// and the value (an internally tagged message loses serde's path to the field).
impl<'de> Deserialize<'de> for NumberModel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NumberModel, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        match value.as_str() {
            Some("python") => Ok(NumberModel::Python),
            Some("float64") => Ok(NumberModel::Float64),
            _ => Err(serde::de::Error::custom(format!(
                "number_model {value} is not a number model: expected \"python\" or \"float64\""
            ))),
        }
    }
}

impl fmt::Display for NumberModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::NumberModel::{Float64, Python};
    use crate::json::{dumps, parse, Style, Value};

    fn normal(text: &str) -> String {
        dumps(&Float64.normalise(&parse(text).unwrap()), Style::PYTHON)
    }

    #[test]
    fn float64_holds_every_number_as_a_double() {
        assert_eq!(
            normal("[1, 1.0, 1e0, -0.0, 0, 100.0]"),
            "[1, 1, 1, 0, 0, 100]"
        );
        assert_eq!(
            normal("[0.5, 1e-7, 1e21, 1e400, -1e400, NaN]"),
            "[0.5, 1e-07, 1e+21, Infinity, -Infinity, NaN]"
        );
        // Past 2^53, integers are the double nearest to them.
        assert_eq!(
            normal("[9007199254740993, 9007199254740995]"),
            "[9007199254740992, 9007199254740996.0]"
        );
        assert_eq!(normal("1152921504606846977"), "1.152921504606847e+18");
        assert_eq!(normal(&"9".repeat(4300)), "Infinity");
        assert_eq!(
            normal(r#"{"a": [true, null, "1.0", {"b": 2.0}]}"#),
            r#"{"a": [true, null, "1.0", {"b": 2}]}"#
        );
        assert_eq!(
            Float64.normalise(&parse("1").unwrap()),
            Float64.normalise(&parse("1.0").unwrap())
        );
        assert_ne!(Float64.normalise(&parse("1").unwrap()), Value::Bool(true));
    }

    #[test]
    fn python_changes_nothing() {
        let value = parse(r#"[1, 1.0, -0.0, 123456789012345678901234567890]"#).unwrap();
        assert_eq!(
            dumps(&Python.normalise(&value), Style::PYTHON),
            dumps(&value, Style::PYTHON)
        );
    }

    #[test]
    fn names_are_the_handshake_values() {
        assert_eq!(Python.to_string(), "python");
        assert_eq!(Float64.to_string(), "float64");
        assert_eq!(serde_json::to_string(&Float64).unwrap(), "\"float64\"");
        assert_eq!(crate::json::NumberModel::default(), Python);
    }

    #[test]
    fn other_values_are_refused_naming_the_field_and_the_value() {
        use crate::json::NumberModel;
        for (text, model) in [(r#""python""#, Python), (r#""float64""#, Float64)] {
            let read: NumberModel = crate::json::from_value(&parse(text).unwrap()).unwrap();
            assert_eq!(read, model);
        }
        for (text, shown) in [
            (r#""float32""#, r#"number_model "float32" is not"#),
            ("64", "number_model 64 is not"),
            (r#""Float64""#, r#"number_model "Float64" is not"#),
        ] {
            let error = crate::json::from_value::<NumberModel>(&parse(text).unwrap())
                .unwrap_err()
                .to_string();
            assert!(error.contains(shown), "{error}");
        }
    }
}
