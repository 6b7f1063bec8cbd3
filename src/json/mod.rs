//! JSON with Python's semantics: the value model, a reader and writers faithful to CPython's
//! `json` module, Python's float `repr`, and the glue that lets serde types hold such values.

mod ecmascript;
mod escape;
mod float_repr;
mod key_order;
mod number_model;
mod object;
mod parse;
mod serde_glue;
mod text;
mod to_value;
mod value;
mod write;

/// The most digits of an integer: CPython's own default limit for converting an integer to
/// text (`sys.get_int_max_str_digits()`), so also what `json` reads and writes. "Any size"
/// in RULES B2 stops here (SPEC.md, Numbers), and replies are bounded by it.
pub const MAX_INTEGER_DIGITS: usize = 4300;

/// The deepest nesting of lists and objects, one limit for everything parcall reads: a case
/// file, a message from an implementation, what the runner bounds a reply by. A case's
/// values sit a few levels inside its file, and a few levels inside the message that carries
/// them, so whatever a case file admits reaches every adapter and comes back within it
/// (RULES F8).
pub const MAX_DEPTH: usize = 512;

pub use ecmascript::ecmascript_number;
pub use float_repr::{exact_integer, python_repr};
pub use number_model::NumberModel;
pub use parse::{list_member, parse, parse_item, ListMember, ParseError};
pub(crate) use serde_glue::deserialize_tagged;
pub use serde_glue::{
    from_file, from_value, from_value_owned, read_regular_file, tagged_deserialize, to_serde_json,
    FileError, NoFields, ShapeError, Tagged, MAX_INPUT_FILE_BYTES,
};
pub use text::{Key, Text};
pub use to_value::{to_value, try_to_value, ToValueError};
pub use value::{Int, Object, Value};
pub use write::{dumps, dumps_object, dumps_str, json_float, write_str, JsonText, Style};
