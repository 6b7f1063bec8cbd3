//! serde glue: typed structs are read from a [`Value`] (so every input keeps its number
//! literals and gets one parser), and a `Value` inside a typed struct survives the trip.
//!
//! Integers travel through serde as a one-entry map under a private key (the trick
//! `serde_json`'s `arbitrary_precision` uses), so no integer is ever narrowed to 64 bits.

use super::value::{Int, Object, Value};
use super::write::json_float;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use std::fmt;

const INT_KEY: &str = "$parcall::int";

/// Why a value did not fit the typed struct it was read into.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(String);

impl de::Error for ShapeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ShapeError(msg.to_string())
    }
}

/// Reads a typed struct from a value. The error names the path of the offending field, such
/// as `cases[3].batches[0].input: unknown field "calsl"`.
pub fn from_value<T: de::DeserializeOwned>(value: &Value) -> Result<T, ShapeError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." {
            inner
        } else {
            ShapeError(format!("{path}: {inner}"))
        }
    })
}

impl<'de> de::Deserializer<'de> for &'de Value {
    type Error = ShapeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            // An integer reaches a typed field as i64 or u64 when it fits one (so a `u64`
            // field takes all of 0..=2^64-1), and as its exact digits otherwise.
            Value::Int(i) => match (i.as_i64(), i.as_str().parse::<u64>()) {
                (Some(n), _) => visitor.visit_i64(n),
                (None, Ok(n)) => visitor.visit_u64(n),
                (None, Err(_)) => visitor.visit_map(IntAccess(Some(i.as_str()))),
            },
            Value::Float(f) => visitor.visit_f64(*f),
            Value::Str(s) => visitor.visit_borrowed_str(s),
            Value::List(items) => visitor.visit_seq(ListAccess(items.iter())),
            Value::Object(object) => visitor.visit_map(ObjectAccess {
                entries: object.iter(),
                pending: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        match self {
            Value::Str(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a string naming a variant",
            )),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Int(i) => de::Unexpected::Other(i.as_str()),
        Value::Float(f) => de::Unexpected::Float(*f),
        Value::Str(s) => de::Unexpected::Str(s),
        Value::List(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

struct ListAccess<'de>(std::slice::Iter<'de, Value>);

impl<'de> SeqAccess<'de> for ListAccess<'de> {
    type Error = ShapeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ShapeError> {
        self.0.next().map(|item| seed.deserialize(item)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct ObjectAccess<'de> {
    entries: indexmap::map::Iter<'de, String, Value>,
    pending: Option<&'de Value>,
}

impl<'de> MapAccess<'de> for ObjectAccess<'de> {
    type Error = ShapeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ShapeError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some(value);
        let key: de::value::BorrowedStrDeserializer<'de, ShapeError> =
            de::value::BorrowedStrDeserializer::new(key);
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ShapeError> {
        let value = self
            .pending
            .take()
            .ok_or_else(|| ShapeError("a map value was asked for before its key".into()))?;
        seed.deserialize(value)
    }
}

/// The private one-entry map that carries an integer too big for 64 bits.
struct IntAccess<'de>(Option<&'de str>);

impl<'de> MapAccess<'de> for IntAccess<'de> {
    type Error = ShapeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ShapeError> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(INT_KEY))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ShapeError> {
        let digits = self.0.take().unwrap_or_default();
        seed.deserialize(de::value::BorrowedStrDeserializer::new(digits))
    }
}

impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

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
        Ok(Value::Str(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Object::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == INT_KEY && object.is_empty() {
                let digits: String = map.next_value()?;
                let int = Int::from_literal(&digits)
                    .ok_or_else(|| de::Error::custom("malformed integer literal"))?;
                return Ok(Value::Int(int));
            }
            object.insert(key, map.next_value()?);
        }
        Ok(Value::Object(object))
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
                for (key, item) in object {
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

/// The largest input file parcall reads (spec case files, expectations, rubrics,
/// regressions): far above any real one, far below what would exhaust memory.
pub const MAX_INPUT_FILE_BYTES: u64 = 256 << 20;

/// Reads a regular file as UTF-8 text. Opened without blocking and checked to be a regular
/// file before anything is read, so a FIFO or a device at the path is refused at once
/// instead of hanging the run; larger than [`MAX_INPUT_FILE_BYTES`] is refused too.
pub fn read_regular_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if metadata.len() > MAX_INPUT_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {} MiB",
            MAX_INPUT_FILE_BYTES >> 20
        )));
    }
    let mut text = String::new();
    file.take(MAX_INPUT_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Reads a JSON file into a typed value; the error names the file, and the line and column
/// or the field path of the problem.
pub fn from_file<T: de::DeserializeOwned>(path: &std::path::Path) -> Result<T, String> {
    let text =
        read_regular_file(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let value =
        super::parse(&text).map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
    from_value(&value).map_err(|e| format!("{}: {e}", path.display()))
}
