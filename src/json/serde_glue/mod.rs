//! serde glue: typed structs are read from a [`Value`] (so every input keeps its number
//! literals and gets one parser), and a `Value` inside a typed struct survives the trip.
//!
//! Integers travel through serde as a one-entry map under a private key (the trick
//! `serde_json`'s `arbitrary_precision` uses), so no integer is ever narrowed to 64 bits.
//!
//! A `Value` field read from a `Value` is handed over whole rather than rebuilt node by node:
//! a large spec export is mostly calls, expected outputs and scripted answers, and
//! rebuilding each through serde's visitors was much of `check --spec` (BENCHMARKS.md
//! section 3). Internally tagged enums ([`read_tagged`]) avoid serde's buffering for the same
//! reason.

mod deserializers;
mod files;
mod tagged;
mod value_serde;

use deserializers::*;

pub use files::{from_file, read_regular_file, FileError, MAX_INPUT_FILE_BYTES};
pub(crate) use tagged::deserialize_tagged;
pub use tagged::{tagged_deserialize, NoFields, Tagged};
pub use value_serde::to_serde_json;

use super::value::Value;
use serde::de::{self, Visitor};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::protocol::{Reply, Request};
    use crate::spec::{Answer, CaseFile};

    fn read<T: de::DeserializeOwned>(json: &str) -> Result<T, ShapeError> {
        let value = parse(json).unwrap();
        let borrowed = from_value::<T>(&value);
        let owned = from_value_owned::<T>(value);
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
        let reply = r#"{"type": "returned", "id": 3, "output": {"k": [1, 2.5, 123456789012345678901234567890]}}"#;
        let late = r#"{"id": 3, "output": {"k": [1, 2.5, 123456789012345678901234567890]}, "type": "returned"}"#;
        assert_eq!(read::<Reply>(reply).unwrap(), read::<Reply>(late).unwrap());
        let Reply::Returned { output, .. } = read::<Reply>(reply).unwrap() else {
            panic!("returned")
        };
        assert_eq!(
            output,
            parse(r#"{"k": [1, 2.5, 123456789012345678901234567890]}"#).unwrap()
        );
    }

    #[test]
    fn a_tagged_enum_refuses_what_the_derive_refused() {
        let error = |json: &str| read::<Answer>(json).unwrap_err().to_string();
        assert!(error(r#"{"message": "m"}"#).contains("missing field `type`"));
        assert!(error(r#"{"type": "throw"}"#).contains("unknown variant `throw`"));
        assert!(error(r#"{"type": "raise"}"#).contains("missing field `message`"));
        assert!(error(r#"{"type": "return", "value": 1, "message": "m"}"#)
            .contains("unknown field `message`"));
        assert!(error(r#""raise""#).contains("invalid type"));
        // A variant without fields takes nothing but its tag.
        let bye = read::<Reply>(r#"{"type": "bye", "id": 1}"#)
            .unwrap_err()
            .to_string();
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
                read::<CaseFile>(&file).unwrap_err().to_string(),
                "cases[0].tools.f.responses[0].answers[1]: missing field `message`"
            );
        }
        // An unknown field names itself in the path wherever the tag is.
        for answer in [
            r#"{"type": "raise", "message": "m", "bogus": 1}"#,
            r#"{"bogus": 1, "message": "m", "type": "raise"}"#,
        ] {
            let error = read::<Answer>(answer).unwrap_err().to_string();
            assert!(error.starts_with("bogus: unknown field `bogus`"), "{error}");
        }
        // A key holding the character that marks paths in nested errors stays whole.
        for key in ["x", r"\u0001x", r"\u00011\u0001x"] {
            let request = format!(
                r#"{{"answer": {{"type": "return", "value": 1, "{key}": 1}}, "id": 1, "call": 2, "type": "answer"}}"#
            );
            let key = parse(&format!("\"{key}\"")).unwrap();
            let key = key.as_str().unwrap();
            let error = read::<Request>(&request).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("answer.{key}: unknown field `{key}`")),
                "{error:?}"
            );
        }
        // An error in a field read before the tag names that field.
        let schema = read::<CaseFile>(
            r#"{"$schema": 1, "function": "run_parallel_calls", "topic": "t", "cases": []}"#,
        )
        .unwrap_err()
        .to_string();
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
