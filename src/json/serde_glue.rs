//! serde glue: typed structs are read from a [`Value`] (so every input keeps its number
//! literals and gets one parser), and a `Value` inside a typed struct survives the trip.
//!
//! Integers travel through serde as a one-entry map under a private key (the trick
//! `serde_json`'s `arbitrary_precision` uses), so no integer is ever narrowed to 64 bits.
//!
//! A `Value` field read from a `Value` is handed over whole rather than rebuilt node by node:
//! a spec export of 10,000 generated cases is 150 MB of JSON, and rebuilding every call,
//! expected output and scripted answer through serde's visitors was a third of `check
//! --spec`. Internally tagged enums ([`read_tagged`]) avoid serde's buffering for the same
//! reason.

use super::text::Key;
use super::value::{Int, Object, Value};
use super::write::json_float;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use std::cell::RefCell;
use std::fmt;

const INT_KEY: &str = "$parcall::int";
/// The newtype name under which a `Value` asks to be deserialised, so a deserializer that
/// holds one can hand it over whole (see [`handed_over`]).
const VALUE_TOKEN: &str = "$parcall::Value";
/// Starts an error message that carries the path where a nested read failed
/// ([`read_tagged`]), so the outer read can join the two paths.
const PATH_MARK: char = '\u{1}';

/// Why a value did not fit the typed struct it was read into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// Where, as `cases[3].batches[0]` (empty: the value itself).
    path: String,
    message: String,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ShapeError {}

impl ShapeError {
    fn new(message: impl Into<String>) -> ShapeError {
        ShapeError {
            path: String::new(),
            message: message.into(),
        }
    }

    /// The error as a message an outer deserializer carries back to [`located`]: the mark,
    /// the path's length in bytes, the mark, the path, the message. The length, not a
    /// closing mark, ends the path: a key may hold any character, the mark included.
    fn nested(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            let (path, message) = (&self.path, &self.message);
            format!("{PATH_MARK}{}{PATH_MARK}{path}{message}", path.len())
        }
    }
}

impl de::Error for ShapeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        let text = msg.to_string();
        let marked = text.strip_prefix(PATH_MARK).and_then(|rest| {
            let (length, rest) = rest.split_once(PATH_MARK)?;
            let length: usize = length.parse().ok()?;
            let path = rest.get(..length)?;
            Some(ShapeError {
                path: path.to_owned(),
                message: rest[length..].to_owned(),
            })
        });
        marked.unwrap_or_else(|| ShapeError::new(text))
    }
}

/// Reads a typed struct from a value. The error names the path of the offending field, such
/// as `cases[3].batches[0].input: unknown field "calsl"`.
pub fn from_value<T: de::DeserializeOwned>(value: &Value) -> Result<T, ShapeError> {
    serde_path_to_error::deserialize(value).map_err(located)
}

/// [`from_value`] taking the value: its strings and `Value` fields move into the result
/// instead of being copied.
pub fn from_value_owned<T: de::DeserializeOwned>(value: Value) -> Result<T, ShapeError> {
    serde_path_to_error::deserialize(Owned(value)).map_err(located)
}

/// The error with the full path: where the outer read was, then where a nested one failed.
fn located(error: serde_path_to_error::Error<ShapeError>) -> ShapeError {
    let outer = error.path().to_string();
    let inner = error.into_inner();
    ShapeError {
        // serde_path_to_error writes the root as `.`.
        path: join_path(if outer == "." { "" } else { &outer }, &inner.path),
        message: inner.message,
    }
}

/// `cases[3]` then `batches[0]` is `cases[3].batches[0]`; `[2]` joins without a dot.
fn join_path(outer: &str, inner: &str) -> String {
    match (outer, inner) {
        ("", inner) => inner.to_owned(),
        (outer, "") => outer.to_owned(),
        (outer, inner) if inner.starts_with('[') => format!("{outer}{inner}"),
        (outer, inner) => format!("{outer}.{inner}"),
    }
}

thread_local! {
    /// The value a deserializer is handing over to [`ValueVisitor`]: filled just before the
    /// visitor is called and emptied by whichever takes it first (see [`handed_over`]).
    static HANDED_OVER: RefCell<Option<Value>> = const { RefCell::new(None) };
}

/// Calls `visitor.visit_newtype_struct` with `value` handed over: a `ValueVisitor` (possibly
/// behind wrappers such as serde_path_to_error's, which only forward) takes it whole; any
/// other visitor (serde's buffering for a tagged enum, say) gets a deserializer that takes
/// it and reads it as usual. Either way the slot is empty again on return, so a value can
/// never reach a visitor it was not meant for.
fn handed_over<'de, V: Visitor<'de>>(value: Value, visitor: V) -> Result<V::Value, ShapeError> {
    let previous = HANDED_OVER.with(|slot| slot.replace(Some(value)));
    let result = visitor.visit_newtype_struct(TakeHandedOver);
    HANDED_OVER.with(|slot| slot.replace(previous));
    result
}

fn take_handed_over() -> Option<Value> {
    HANDED_OVER.with(|slot| slot.borrow_mut().take())
}

/// Stands for the value in the slot: any request takes it out and reads it.
struct TakeHandedOver;

impl<'de> de::Deserializer<'de> for TakeHandedOver {
    type Error = ShapeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        let value = take_handed_over()
            .ok_or_else(|| ShapeError::new("parcall: a handed-over value was read twice"))?;
        Owned(value).deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        let value = take_handed_over()
            .ok_or_else(|| ShapeError::new("parcall: a handed-over value was read twice"))?;
        Owned(value).deserialize_option(visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
        ignored_any newtype_struct enum
    }
}

/// An internally tagged enum (`{"type": "raise", "message": ...}`) read without serde's
/// buffering: `#[serde(tag = ...)]`'s derive copies the whole object into a tree of its own
/// and then rebuilds every `Value` in it, which for a case file is the whole file. Here, when
/// the tag comes first (as parcall and its adapters write it), the variant's fields are read
/// straight from the rest of the object; otherwise the object is collected first.
///
/// Implement it with a mirror struct per variant (`#[serde(deny_unknown_fields)]`, the
/// variant's fields and attributes) and derive nothing; `Deserialize` comes from
/// [`tagged_deserialize`].
pub trait Tagged: Sized {
    /// The field naming the variant.
    const TAG: &'static str;
    /// The variants' names, as written.
    const VARIANTS: &'static [&'static str];
    /// Reads variant `index`'s fields from `fields`, an object without the tag.
    fn read_variant<'de, D: de::Deserializer<'de>>(
        index: usize,
        fields: D,
    ) -> Result<Self, D::Error>;
}

/// `impl Deserialize` for [`Tagged`] enums.
macro_rules! deserialize_tagged {
    ($($enum:ty),*) => {$(
        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::json::tagged_deserialize(deserializer)
            }
        }
    )*};
}
pub(crate) use deserialize_tagged;

/// `Deserialize::deserialize` of a [`Tagged`] enum.
pub fn tagged_deserialize<'de, T: Tagged, D: de::Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(TaggedVisitor(std::marker::PhantomData::<T>))
}

/// The fields of a variant that has none: only the tag is allowed.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFields {}

struct TaggedVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an object whose `{}` is one of {:?}",
            T::TAG,
            T::VARIANTS
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        use de::Error;
        // The entries before the tag (a file's `$schema`, say) are kept aside and read with
        // the rest once the variant is known.
        let mut before = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key != T::TAG {
                before.push((key.into(), map.next_value()?));
                continue;
            }
            let name: String = map.next_value()?;
            let index = T::VARIANTS
                .iter()
                .position(|v| *v == name)
                .ok_or_else(|| A::Error::unknown_variant(&name, T::VARIANTS))?;
            let fields = Chained {
                // A key given twice keeps its last value, as the rest of the map does.
                before: Object::from_members(before).into_iter(),
                pending: None,
                rest: map,
            };
            return T::read_variant(index, de::value::MapAccessDeserializer::new(fields));
        }
        Err(A::Error::missing_field(T::TAG))
    }
}

/// The entries of a tagged object other than the tag: those read before it, then the rest.
struct Chained<A> {
    before: std::vec::IntoIter<(Key, Value)>,
    pending: Option<(Key, Value)>,
    rest: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Chained<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some((key, value)) = self.before.next() else {
            return self.rest.next_key_seed(seed);
        };
        let read = seed.deserialize(de::value::StrDeserializer::<ShapeError>::new(&key));
        // An unknown key names itself in the path, as one read after the tag does.
        let read = read.map_err(|e| {
            let at_key = ShapeError {
                path: join_path(&key, &e.path),
                message: e.message,
            };
            de::Error::custom(at_key.nested())
        });
        self.pending = Some((key, value));
        read.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let Some((key, value)) = self.pending.take() else {
            return self.rest.next_value_seed(seed);
        };
        let mut track = serde_path_to_error::Track::new();
        let read = seed.deserialize(serde_path_to_error::Deserializer::new(
            Owned(value),
            &mut track,
        ));
        read.map_err(|e| {
            let located = located(serde_path_to_error::Error::new(track.path(), e));
            let at_key = ShapeError {
                path: join_path(&key, &located.path),
                message: located.message,
            };
            de::Error::custom(at_key.nested())
        })
    }
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

/// A value read by taking it apart: strings and `Value` fields move out of it.
struct Owned(Value);

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
struct Items<I>(I);

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
struct Entries<I, D> {
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
struct IntAccess<'a>(Option<&'a str>);

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

impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        // Asked for as a newtype so parcall's own deserializers can hand the value over whole.
        deserializer.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
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
    from_value_owned(value).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::protocol::{BatchReply, Reply};
    use crate::spec::{Answer, CaseFile};

    fn read<T: de::DeserializeOwned>(json: &str) -> Result<T, String> {
        let value = parse(json).unwrap();
        let borrowed = from_value::<T>(&value).map_err(|e| e.to_string());
        let owned = from_value_owned::<T>(value).map_err(|e| e.to_string());
        // Both ways of reading give the same value or the same error.
        assert_eq!(borrowed.is_ok(), owned.is_ok());
        if let (Err(a), Err(b)) = (&borrowed, &owned) {
            assert_eq!(a, b);
        }
        owned
    }

    #[test]
    fn a_tagged_enum_reads_alike_wherever_its_tag_is() {
        let first: Answer = read(r#"{"type": "raise", "message": "m", "args": [1]}"#).unwrap();
        let middle: Answer = read(r#"{"message": "m", "type": "raise", "args": [1]}"#).unwrap();
        let last: Answer = read(r#"{"message": "m", "args": [1], "type": "raise"}"#).unwrap();
        assert_eq!(first, middle);
        assert_eq!(first, last);
        let reply = r#"{"type": "result", "id": 3, "output": "", "batches": [{"status": "returned", "output": {"k": [1, 2.5, 123456789012345678901234567890]}, "invocations": []}]}"#;
        let late = r#"{"id": 3, "output": "", "batches": [{"output": {"k": [1, 2.5, 123456789012345678901234567890]}, "invocations": [], "status": "returned"}], "type": "result"}"#;
        assert_eq!(read::<Reply>(reply).unwrap(), read::<Reply>(late).unwrap());
        let Reply::Result(result) = read::<Reply>(reply).unwrap() else {
            panic!("a result")
        };
        let BatchReply::Returned { output, .. } = &result.batches[0] else {
            panic!("returned")
        };
        assert_eq!(
            *output,
            parse(r#"{"k": [1, 2.5, 123456789012345678901234567890]}"#).unwrap()
        );
    }

    #[test]
    fn a_tagged_enum_refuses_what_the_derive_refused() {
        let error = |json: &str| read::<Answer>(json).unwrap_err();
        assert!(error(r#"{"message": "m"}"#).contains("missing field `type`"));
        assert!(error(r#"{"type": "throw"}"#).contains("unknown variant `throw`"));
        assert!(error(r#"{"type": "raise"}"#).contains("missing field `message`"));
        assert!(error(r#"{"type": "return", "value": 1, "message": "m"}"#)
            .contains("unknown field `message`"));
        assert!(error(r#""raise""#).contains("invalid type"));
        // A variant without fields takes nothing but its tag.
        let bye = read::<Reply>(r#"{"type": "bye", "id": 1}"#).unwrap_err();
        assert!(bye.contains("unknown field `id`"), "{bye}");
        assert_eq!(read::<Reply>(r#"{"type": "bye"}"#).unwrap(), Reply::Bye);
    }

    #[test]
    fn an_error_inside_a_tagged_variant_names_its_full_path() {
        // The answer lacks its message; the file's and the answer's tags come first, last
        // or after a field, and the path is the same every time.
        for (file_before, file_after, answer) in [
            (
                r#""function": "run_parallel_calls","#,
                "",
                r#"{"type": "raise"}"#,
            ),
            (
                "",
                r#","function": "run_parallel_calls""#,
                r#"{"args": [], "type": "raise"}"#,
            ),
            (
                r#""$schema": "x", "function": "run_parallel_calls","#,
                "",
                r#"{"args": [], "type": "raise"}"#,
            ),
        ] {
            let file = format!(
                r#"{{{file_before} "topic": "t", "cases": [{{"id": "a", "description": "d",
                "requirements": ["R"], "batches": [], "tools": {{"f": {{"responses":
                [{{"answers": [{{"type": "return", "value": 1}}, {answer}]}}]}}}}}}]{file_after}}}"#
            );
            assert_eq!(
                read::<CaseFile>(&file).unwrap_err(),
                "cases[0].tools.f.responses[0].answers[1]: missing field `message`"
            );
        }
        // An unknown field names itself in the path wherever the tag is.
        for answer in [
            r#"{"type": "raise", "message": "m", "bogus": 1}"#,
            r#"{"bogus": 1, "message": "m", "type": "raise"}"#,
        ] {
            let error = read::<Answer>(answer).unwrap_err();
            assert!(error.starts_with("bogus: unknown field `bogus`"), "{error}");
        }
        // A key holding the character that marks paths in nested errors stays whole.
        for key in ["x", r"\u0001x", r"\u00011\u0001x"] {
            let reply = format!(
                r#"{{"batches": [{{"status": "returned", "output": 1, "invocations": [], "{key}": 1}}], "id": 1, "output": "", "type": "result"}}"#
            );
            let key = parse(&format!("\"{key}\"")).unwrap();
            let key = key.as_str().unwrap();
            let error = read::<Reply>(&reply).unwrap_err();
            assert!(
                error.starts_with(&format!("batches[0].{key}: unknown field `{key}`")),
                "{error:?}"
            );
        }
        // An error in a field read before the tag names that field.
        let schema = read::<CaseFile>(
            r#"{"$schema": 1, "function": "run_parallel_calls", "topic": "t", "cases": []}"#,
        )
        .unwrap_err();
        assert!(schema.starts_with("$schema: invalid type"), "{schema}");
    }

    #[test]
    fn a_value_inside_a_buffered_enum_is_read_as_usual() {
        // serde's own internally tagged enums buffer their content: a `Value` in one must
        // come out whole even though it asks to be handed over.
        #[derive(serde::Deserialize, Debug, PartialEq)]
        #[serde(tag = "kind")]
        enum Buffered {
            Holds { value: Value, other: Option<Value> },
        }
        let json =
            r#"{"kind": "Holds", "value": {"a": [1, -0.0, "x", null, 1e400]}, "other": null}"#;
        let read = read::<Buffered>(json).unwrap();
        assert_eq!(
            read,
            Buffered::Holds {
                value: parse(r#"{"a": [1, -0.0, "x", null, 1e400]}"#).unwrap(),
                other: None,
            }
        );
        // Nothing is left in the slot for a later read to pick up.
        assert!(take_handed_over().is_none());
        let next: Vec<Value> = read_values("[2, 3]");
        assert_eq!(next, vec![Value::from(2i64), Value::from(3i64)]);
    }

    fn read_values(json: &str) -> Vec<Value> {
        from_value(&parse(json).unwrap()).unwrap()
    }
}
