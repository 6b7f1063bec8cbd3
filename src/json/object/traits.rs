//! The standard and serde traits of [`Object`]: equality as Python's dict `==`, indexing,
//! building from and iterating over members, and (de)serializing as a map.

use super::Object;
use crate::json::{Key, Value};
use std::fmt;

/// Map equality, as Python's dict `==`: the same keys with equal values, in any order.
impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        if self.len() != other.len() {
            return false;
        }
        // Pairwise while the keys line up (equal objects are mostly in the same order), so
        // the first different value ends it without an index of the other object.
        let pairs = self.members.iter().zip(&other.members);
        let Some(apart) = pairs.clone().position(|(a, b)| a.0 != b.0 || a.1 != b.1) else {
            return true;
        };
        if self.members[apart].0 == other.members[apart].0 {
            return false;
        }
        // Keys are distinct within an object: the first `apart` members are the same in
        // both, so the rest, each found equal among the other's rest, are the same keys.
        let other = other.lookup();
        self.members[apart..]
            .iter()
            .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<usize> for Object {
    type Output = Value;
    fn index(&self, index: usize) -> &Value {
        &self.members[index].1
    }
}

impl std::ops::Index<&str> for Object {
    type Output = Value;
    /// Panics when `key` is missing, as `IndexMap`'s does.
    fn index(&self, key: &str) -> &Value {
        self.get(key)
            .unwrap_or_else(|| panic!("no member {key:?} in the object"))
    }
}

impl std::ops::IndexMut<&str> for Object {
    /// Panics when `key` is missing, as `IndexMap`'s does.
    fn index_mut(&mut self, key: &str) -> &mut Value {
        match self.position(key) {
            Some(at) => &mut self.members[at].1,
            None => panic!("no member {key:?} in the object"),
        }
    }
}

impl FromIterator<(Key, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(members: I) -> Object {
        Object::from_members(members.into_iter().collect())
    }
}

impl<const N: usize> From<[(Key, Value); N]> for Object {
    fn from(members: [(Key, Value); N]) -> Object {
        members.into_iter().collect()
    }
}

impl Extend<(Key, Value)> for Object {
    fn extend<I: IntoIterator<Item = (Key, Value)>>(&mut self, members: I) {
        let mut all = std::mem::take(&mut self.members);
        all.extend(members);
        *self = Object::from_members(all);
    }
}

impl IntoIterator for Object {
    type Item = (Key, Value);
    type IntoIter = std::vec::IntoIter<(Key, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.members.into_iter()
    }
}

impl<'a> IntoIterator for &'a Object {
    type Item = (&'a Key, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Key, Value)>,
        fn(&'a (Key, Value)) -> (&'a Key, &'a Value),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.members.iter().map(|(k, v)| (k, v))
    }
}

impl serde::Serialize for Object {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// Read as a map, members kept as `json.loads` keeps them.
impl<'de> serde::Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Object, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = Object;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Object, A::Error> {
                // The hint is the input's claim: capped, so it cannot reserve memory at will.
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Object::from_members(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// Any JSON object.
impl schemars::JsonSchema for Object {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyObject".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object", "additionalProperties": true })
    }
}
