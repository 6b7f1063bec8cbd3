//! Typed values straight to [`Value`], with no text in between: a trip through `serde_json`
//! turns NaN into `null`, so protocol messages, regressions and exported cases that hold NaN
//! would reach an implementation, or a file, changed.

use super::text::Key;
use super::value::{Int, Object, Value};
use serde::ser::{self, Serialize};
use std::fmt;

/// `serde_json`'s private name for a raw JSON value: [`Value`]'s own `Serialize` writes its
/// numbers through one (exact integer and float literals), and this serializer reads them
/// back with parcall's reader.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Why a typed value has no JSON form (a map with non-string keys, say). Protocol messages,
/// case files and reports never hit this; it exists so the serializer is total.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToValueError(String);

impl ser::Error for ToValueError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ToValueError(msg.to_string())
    }
}

/// `value` as a JSON value; NaN, the infinities and integers of any size are kept.
pub fn try_to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, ToValueError> {
    value.serialize(Serializer)
}

/// [`try_to_value`] for parcall's own data types, whose maps all have string keys.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Value {
    try_to_value(value).expect("parcall's data types have string map keys")
}

struct Serializer;

impl ser::Serializer for Serializer {
    type Ok = Value;
    type Error = ToValueError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = Variant<SeqBuilder>;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = Variant<MapBuilder>;

    fn serialize_bool(self, v: bool) -> Result<Value, ToValueError> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, ToValueError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value, ToValueError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value, ToValueError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Value, ToValueError> {
        Ok(Value::Int(Int::from(v)))
    }
    fn serialize_i128(self, v: i128) -> Result<Value, ToValueError> {
        integer(&v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<Value, ToValueError> {
        self.serialize_i64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value, ToValueError> {
        self.serialize_i64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value, ToValueError> {
        self.serialize_i64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Value, ToValueError> {
        integer(&v.to_string())
    }
    fn serialize_u128(self, v: u128) -> Result<Value, ToValueError> {
        integer(&v.to_string())
    }
    fn serialize_f32(self, v: f32) -> Result<Value, ToValueError> {
        Ok(Value::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, ToValueError> {
        Ok(Value::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, ToValueError> {
        Ok(Value::Str(v.to_string().into()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, ToValueError> {
        Ok(Value::Str(v.to_owned().into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, ToValueError> {
        Ok(Value::List(
            v.iter().map(|&b| Value::from(i64::from(b))).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Value, ToValueError> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, ToValueError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, ToValueError> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, ToValueError> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value, ToValueError> {
        Ok(Value::Str(variant.to_owned().into()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Value, ToValueError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, ToValueError> {
        let mut object = Object::new();
        object.insert(variant.into(), value.serialize(self)?);
        Ok(Value::from(object))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, ToValueError> {
        Ok(SeqBuilder(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, ToValueError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<SeqBuilder, ToValueError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<SeqBuilder>, ToValueError> {
        Ok(Variant(variant, SeqBuilder(Vec::with_capacity(len))))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapBuilder, ToValueError> {
        Ok(MapBuilder::default())
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<MapBuilder, ToValueError> {
        Ok(MapBuilder {
            raw: name == RAW_VALUE_TOKEN,
            ..MapBuilder::default()
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<MapBuilder>, ToValueError> {
        Ok(Variant(variant, MapBuilder::default()))
    }
}

fn integer(text: &str) -> Result<Value, ToValueError> {
    Int::from_literal(text)
        .map(Value::Int)
        .ok_or_else(|| ToValueError(format!("`{text}` is not an integer")))
}

struct SeqBuilder(Vec<Value>);

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        self.0.push(value.serialize(Serializer)?);
        Ok(())
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(Value::List(self.0))
    }
}

impl ser::SerializeTuple for SeqBuilder {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        ser::SerializeSeq::end(self)
    }
}

#[derive(Default)]
struct MapBuilder {
    /// Collected first and made an object at the end: one pass over the keys for repeats,
    /// however many members (inserting one by one would scan the keys at every member).
    members: Vec<(Key, Value)>,
    key: Option<String>,
    /// Building `serde_json`'s raw value: its one field is JSON text to read.
    raw: bool,
    raw_value: Option<Value>,
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), ToValueError> {
        match key.serialize(Serializer)? {
            Value::Str(key) => {
                self.key = Some(key.into());
                Ok(())
            }
            other => Err(ToValueError(format!(
                "a map key must be a string, not {}",
                other.type_name()
            ))),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        let key = self.key.take().expect("serde calls serialize_key first");
        self.members
            .push((key.into(), value.serialize(Serializer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(Value::from(Object::from_members(self.members)))
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ToValueError> {
        let value = value.serialize(Serializer)?;
        if self.raw {
            let Value::Str(text) = value else {
                return Err(ToValueError("a raw JSON value holds text".into()));
            };
            let parsed = super::parse(&text).map_err(|e| ToValueError(e.to_string()))?;
            self.raw_value = Some(parsed);
        } else {
            self.members.push((key.into(), value));
        }
        Ok(())
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(match self.raw_value {
            Some(value) => value,
            None => Value::from(Object::from_members(self.members)),
        })
    }
}

/// An externally tagged enum variant: `{"variant": content}`.
struct Variant<B>(&'static str, B);

impl ser::SerializeTupleVariant for Variant<SeqBuilder> {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        ser::SerializeSeq::serialize_element(&mut self.1, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        let mut object = Object::new();
        object.insert(self.0.into(), ser::SerializeSeq::end(self.1)?);
        Ok(Value::from(object))
    }
}

impl ser::SerializeStructVariant for Variant<MapBuilder> {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ToValueError> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        let mut object = Object::new();
        object.insert(self.0.into(), ser::SerializeStruct::end(self.1)?);
        Ok(Value::from(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{dumps, parse, Style};

    #[test]
    fn nan_infinities_and_big_integers_survive() {
        let text = r#"{"a": NaN, "b": Infinity, "c": -Infinity, "d": 123456789012345678901234567890, "e": -0.0, "f": 1.0}"#;
        let value = parse(text).unwrap();
        let back = to_value(&value);
        assert_eq!(dumps(&back, Style::PYTHON), text);
    }

    #[test]
    fn typed_structs_keep_field_order_and_tags() {
        #[derive(serde::Serialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Message {
            Case {
                id: u64,
                value: Value,
                missing: Option<u8>,
            },
        }
        let message = Message::Case {
            id: u64::MAX,
            value: Value::Float(f64::NAN),
            missing: None,
        };
        assert_eq!(
            dumps(&to_value(&message), Style::PYTHON),
            r#"{"type": "case", "id": 18446744073709551615, "value": NaN, "missing": null}"#
        );
    }

    #[test]
    fn non_string_map_keys_are_an_error_not_a_panic() {
        let map: std::collections::BTreeMap<u8, u8> = [(1, 2)].into();
        assert!(try_to_value(&map).is_err());
    }
}
