//! Internally tagged enums read without serde's buffering.

use super::*;
use crate::json::text::Key;
use crate::json::value::{Object, Value};
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use std::fmt;

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

pub(super) struct TaggedVisitor<T>(std::marker::PhantomData<T>);

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
pub(super) struct Chained<A> {
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
