//! A [`Value`] through serde: deserialized from any format (integers of any size kept),
//! serialized as Python's `json` would write it, and described as a JSON schema.

use super::*;
use crate::json::value::{Int, Object, Value};
use crate::json::write::json_float;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use std::fmt;

impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        // Asked for as a newtype so parcall's own deserializers can hand the value over whole.
        deserializer.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
    }
}

pub(super) struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match take_handed_over() {
            Some(value) => Ok(value),
            None => d.deserialize_any(self),
        }
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Int(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Int(
            Int::from_literal(&n.to_string()).expect("decimal digits"),
        ))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Str(s.to_owned().into()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s.into()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // Collected, then made an object in one pass over the keys for repeats.
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == INT_KEY && members.is_empty() {
                let digits: String = map.next_value()?;
                let int = Int::from_literal(&digits)
                    .ok_or_else(|| de::Error::custom("malformed integer literal"))?;
                return Ok(Value::Int(int));
            }
            members.push((key.into(), map.next_value()?));
        }
        Ok(Value::from(Object::from_members(members)))
    }
}

/// A value serialises structurally, its numbers as the exact text `json.dumps` writes
/// (through `serde_json`'s raw values), so integers of any size and float reprs survive.
/// Strict JSON has no `Infinity`: infinities are written `1e400` and `-1e400`, literals that
/// every JSON reader (CPython's, JavaScript's, parcall's) reads back as infinite. NaN has no
/// such literal and is left to the serializer (`serde_json` writes `null`); the protocol
/// writes values with [`super::dumps`], in Python's dialect, where NaN survives.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        let raw = |text: String| {
            serde_json::value::RawValue::from_string(text).map_err(serde::ser::Error::custom)
        };
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => raw(i.to_string())?.serialize(serializer),
            Value::Float(f) if f.is_finite() => raw(json_float(*f))?.serialize(serializer),
            Value::Float(f) if f.is_infinite() => {
                raw(if *f > 0.0 { "1e400" } else { "-1e400" }.to_owned())?.serialize(serializer)
            }
            Value::Float(f) => serializer.serialize_f64(*f),
            Value::Str(s) => serializer.serialize_str(s),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, item) in object.iter() {
                    map.serialize_entry(key, item)?;
                }
                map.end()
            }
        }
    }
}

/// Any JSON value.
impl schemars::JsonSchema for Value {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyValue".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!(true)
    }
}

/// The value as a `serde_json::Value`, for tools that need one (schema validators, say).
/// Lossy where serde_json cannot follow: infinities become the largest finite floats, NaN
/// becomes null, integers beyond 64 bits become floats.
pub fn to_serde_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Int(i) => serde_json::from_str(i.as_str())
            .unwrap_or_else(|_| i.as_str().parse::<f64>().unwrap_or(0.0).into()),
        Value::Float(f) if f.is_nan() => serde_json::Value::Null,
        Value::Float(f) => f.clamp(f64::MIN, f64::MAX).into(),
        Value::Str(s) => s.as_str().into(),
        Value::List(items) => items.iter().map(to_serde_json).collect(),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| (k.clone(), to_serde_json(v)))
            .collect(),
    }
}
