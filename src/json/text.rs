//! Strings kept inside the value when short: object keys and string values. A string in a
//! heap block of its own was a cache miss for every member read in key order and every string
//! written, most of the time of writing a canonical key (BENCHMARKS.md section 1); nearly every
//! key and most values a tool call carries are at most 24 bytes.

use compact_str::CompactString;
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

/// A string, stored inline up to 24 bytes. It hashes, compares and orders as its text does
/// (`str`'s `Hash`, `Eq` and `Ord`), so an [`super::Object`] is looked up by `&str`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Text(CompactString);

/// An object's key.
pub type Key = Text;

impl Text {
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn push_str(&mut self, text: &str) {
        self.0.push_str(text);
    }

    pub fn push(&mut self, c: char) {
        self.0.push(c);
    }
}

impl FromIterator<char> for Text {
    fn from_iter<I: IntoIterator<Item = char>>(chars: I) -> Text {
        Text(CompactString::from_iter(chars))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

// `Borrow<str>` requires the hash of a key to be the hash of its text.
impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text(CompactString::new(text))
    }
}

impl From<String> for Text {
    /// A short text is copied inside the key (`CompactString::from` would keep the heap
    /// block); a long one keeps its block.
    fn from(text: String) -> Text {
        if text.len() <= std::mem::size_of::<Text>() {
            Text::from(text.as_str())
        } else {
            Text(CompactString::from(text))
        }
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Text {
        Text::from(text.as_str())
    }
}

impl From<Text> for String {
    fn from(key: Text) -> String {
        key.0.into_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        CompactString::deserialize(deserializer).map(Text)
    }
}

impl schemars::JsonSchema for Text {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        String::schema_name()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    #[test]
    fn a_key_hashes_compares_and_orders_as_its_text() {
        let hash = |value: &dyn Fn(&mut DefaultHasher)| {
            let mut hasher = DefaultHasher::new();
            value(&mut hasher);
            hasher.finish()
        };
        let texts = [
            "",
            "a",
            "field_37",
            "exactly twenty-four byte",
            "a key longer than 24 bytes, on the heap",
            "天気",
            "\u{10ffff}",
        ];
        for text in texts {
            let key = Text::from(text);
            assert_eq!(key.as_str(), text);
            assert_eq!(hash(&|h| key.hash(h)), hash(&|h| text.hash(h)), "{text:?}");
            assert_eq!(String::from(key.clone()), text);
            assert_eq!(format!("{key:?}"), format!("{text:?}"));
        }
        let mut keys: Vec<Text> = texts.iter().map(|t| Text::from(*t)).collect();
        let mut sorted = texts.to_vec();
        keys.sort();
        sorted.sort();
        assert!(keys.iter().map(Text::as_str).eq(sorted));
    }
}
