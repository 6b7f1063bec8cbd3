//! The few pieces of CPython's behaviour the sandbox and scripted exceptions show: `repr`
//! and `str` of the values `json.loads` makes, `strip`, `lower`.

use super::python_unicode::{NOT_PRINTABLE, SPACE};
use crate::json::{python_repr, Value};
use std::fmt::Write;

fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let code = u32::from(c);
    ranges
        .binary_search_by(|&(low, high)| {
            if high < code {
                std::cmp::Ordering::Less
            } else if low > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `str.isprintable()` for one character, as CPython 3.11 answers it.
pub fn is_printable(c: char) -> bool {
    !in_ranges(NOT_PRINTABLE, c)
}

/// `str.isspace()` for one character, as CPython 3.11 answers it (it differs from Rust's
/// `char::is_whitespace`, for example on U+001C..U+001F).
pub fn is_space(c: char) -> bool {
    in_ranges(SPACE, c)
}

/// `s.strip()`.
pub(crate) fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `s.lower()`: full Unicode lowercase mapping, final sigma included, as `str::to_lowercase`.
pub(crate) fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// `repr(s)` for a string: single quotes unless the text holds `'` and no `"`, backslash
/// escapes for the quote, `\`, `\t`, `\n`, `\r`, `\xhh`, `\uhhhh`, `\Uhhhhhhhh` for what is
/// not printable.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            c if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            c if u32::from(c) >= 0x80 && is_printable(c) => out.push(c),
            c => {
                let code = u32::from(c);
                let written = match code {
                    0..=0xFF => write!(out, "\\x{code:02x}"),
                    0x100..=0xFFFF => write!(out, "\\u{code:04x}"),
                    _ => write!(out, "\\U{code:08x}"),
                };
                written.expect("writing to a String cannot fail");
            }
        }
    }
    out.push(quote);
    out
}

/// `repr(v)` of a value as `json.loads` makes it: `None`, `True`, ints in decimal, floats as
/// `repr(float)` (`inf`, `nan`), strings as [`repr_str`], lists and dicts with `, ` and `: `.
pub(crate) fn repr_value(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Int(int) => int.as_str().to_owned(),
        Value::Float(float) => python_repr(*float),
        Value::Str(text) => repr_str(text),
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(repr_value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(object) => {
            let entries: Vec<String> = object
                .iter()
                .map(|(k, v)| format!("{}: {}", repr_str(k), repr_value(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// `str(v)`: a string unchanged, anything else as [`repr_value`].
pub(crate) fn str_value(value: &Value) -> String {
    match value {
        Value::Str(text) => text.to_string(),
        other => repr_value(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_of_values_follows_cpython() {
        let value =
            crate::json::parse(r#"[null, true, 1, 1.0, 1e400, "it's", {"k": [false]}]"#).unwrap();
        assert_eq!(
            repr_value(&value),
            "[None, True, 1, 1.0, inf, \"it's\", {'k': [False]}]"
        );
        assert_eq!(str_value(&Value::from("x")), "x");
    }

    #[test]
    fn repr_follows_cpython() {
        assert_eq!(repr_str("Atlantis"), "'Atlantis'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("both ' and \""), "'both \\' and \"'");
        assert_eq!(
            repr_str("a\u{7f}\u{85}\u{a0}\u{200b}😀\t"),
            "'a\\x7f\\x85\\xa0\\u200b😀\\t'"
        );
        assert_eq!(repr_str("\u{e0001}"), "'\\U000e0001'");
    }

    #[test]
    fn strip_uses_python_whitespace() {
        assert_eq!(strip("\u{1c} paris\u{3000}"), "paris");
        assert_eq!(strip("\u{200b}paris"), "\u{200b}paris");
    }
}
