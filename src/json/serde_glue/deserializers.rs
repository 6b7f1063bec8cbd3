//! The deserializers that read typed structs from a [`Value`]: one that borrows it and one
//! that takes it apart, with the list, object and big-integer accessors they share.

use super::*;
use crate::json::value::Value;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

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
            Value::List(items) => visitor.visit_seq(Items(items.iter())),
            Value::Object(object) => {
                visitor.visit_map(Entries::new(object.iter().map(|(k, v)| {
                    let key: de::value::BorrowedStrDeserializer<'de, ShapeError> =
                        de::value::BorrowedStrDeserializer::new(k);
                    (key, v)
                })))
            }
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
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        if name == VALUE_TOKEN {
            // One clone is cheaper than a rebuild through the visitor.
            return handed_over(self.clone(), visitor);
        }
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

pub(super) fn unexpected(value: &Value) -> de::Unexpected<'_> {
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

/// A value read by taking it apart: strings and `Value` fields move out of it.
pub(super) struct Owned(pub(super) Value);

impl<'de> de::Deserializer<'de> for Owned {
    type Error = ShapeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            // As for a borrowed value: i64 or u64 when it fits one, exact digits otherwise.
            Value::Int(i) => match (i.as_i64(), i.as_str().parse::<u64>()) {
                (Some(n), _) => visitor.visit_i64(n),
                (None, Ok(n)) => visitor.visit_u64(n),
                (None, Err(_)) => visitor.visit_map(IntAccess(Some(i.as_str()))),
            },
            Value::Float(f) => visitor.visit_f64(f),
            Value::Str(s) => visitor.visit_string(s.into()),
            Value::List(items) => visitor.visit_seq(Items(items.into_iter().map(Owned))),
            Value::Object(object) => {
                visitor.visit_map(Entries::new(object.into_iter().map(|(k, v)| {
                    let key: de::value::StringDeserializer<ShapeError> =
                        String::from(k).into_deserializer();
                    (key, Owned(v))
                })))
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Owned(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        if name == VALUE_TOKEN {
            return handed_over(self.0, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Str(s) => visitor.visit_enum(s.into_deserializer()),
            other => Err(de::Error::invalid_type(
                unexpected(&other),
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

/// A list's items, each read by its own deserializer (a `&Value` or an [`Owned`] value).
pub(super) struct Items<I>(I);

impl<'de, I, D> SeqAccess<'de> for Items<I>
where
    I: ExactSizeIterator<Item = D>,
    D: de::Deserializer<'de, Error = ShapeError>,
{
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

/// An object's entries, key and value each read by its own deserializer.
pub(super) struct Entries<I, D> {
    entries: I,
    pending: Option<D>,
}

impl<I, D> Entries<I, D> {
    fn new(entries: I) -> Self {
        Entries {
            entries,
            pending: None,
        }
    }
}

impl<'de, I, K, D> MapAccess<'de> for Entries<I, D>
where
    I: ExactSizeIterator<Item = (K, D)>,
    K: de::Deserializer<'de, Error = ShapeError>,
    D: de::Deserializer<'de, Error = ShapeError>,
{
    type Error = ShapeError;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, ShapeError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some(value);
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ShapeError> {
        let value = self
            .pending
            .take()
            .ok_or_else(|| ShapeError::new("a map value was asked for before its key"))?;
        seed.deserialize(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// The private one-entry map that carries an integer too big for 64 bits.
pub(super) struct IntAccess<'a>(Option<&'a str>);

impl<'de> MapAccess<'de> for IntAccess<'_> {
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
        seed.deserialize(de::value::StrDeserializer::new(digits))
    }
}
