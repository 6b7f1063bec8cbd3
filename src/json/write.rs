//! Writing values as CPython's `json.dumps` does, and as the pretty canonical form for diffs.

use super::float_repr::python_repr;
use super::number_model::NumberModel;
use super::value::{Object, Value};
use smallvec::SmallVec;

/// How to write a value. `PYTHON` is `json.dumps` with default settings; `CANONICAL` adds
/// `sort_keys=True` (RULINGS B1); `PRETTY` is what people read in diffs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub sort_keys: bool,
    /// Escape every character outside space..`~` as `\uhhhh` (Python's `ensure_ascii`).
    pub ensure_ascii: bool,
    /// `None`: one line with `", "` and `": "`; `Some(n)`: n spaces per level.
    pub indent: Option<usize>,
    /// How numbers are written: as Python's `json.dumps` does, or (`float64`, inside the
    /// canonical keys of RULINGS E) as ECMAScript writes the double.
    pub numbers: NumberModel,
}

impl Style {
    pub const PYTHON: Style = Style {
        sort_keys: false,
        ensure_ascii: true,
        indent: None,
        numbers: NumberModel::Python,
    };
    pub const CANONICAL: Style = Style {
        sort_keys: true,
        ..Style::PYTHON
    };
    pub const PRETTY: Style = Style {
        sort_keys: true,
        ensure_ascii: false,
        indent: Some(2),
        numbers: NumberModel::Python,
    };
    /// Files people read and parcall reads back (regressions, exported cases): indented,
    /// keys in their own order (a counterexample may depend on it), Python's dialect so NaN
    /// and the infinities survive.
    pub const FILE: Style = Style {
        sort_keys: false,
        ..Style::PRETTY
    };

    /// The canonical style of a number model: [`Style::CANONICAL`] with its numbers.
    pub const fn canonical(numbers: NumberModel) -> Style {
        Style {
            numbers,
            ..Style::CANONICAL
        }
    }
}

/// Writes `value` in `style`.
pub fn dumps(value: &Value, style: Style) -> String {
    let mut out = String::new();
    Writer {
        out: &mut out,
        style,
    }
    .value(value, 0);
    out
}

/// Writes an object in `style` without wrapping it in a [`Value`] first.
pub fn dumps_object(object: &Object, style: Style) -> String {
    let mut out = String::with_capacity(128);
    Writer {
        out: &mut out,
        style,
    }
    .object(object, 0);
    out
}

/// Writes a string literal (quotes included) with `ensure_ascii` escaping.
pub fn dumps_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    Writer {
        out: &mut out,
        style: Style::PYTHON,
    }
    .string(text);
    out
}

struct Writer<'a> {
    out: &'a mut String,
    style: Style,
}

impl Writer<'_> {
    fn value(&mut self, value: &Value, depth: usize) {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(_) | Value::Float(_) => self.style.numbers.write_number(self.out, value),
            Value::Str(s) => self.string(s),
            Value::List(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    self.separator(i, depth + 1);
                    self.value(item, depth + 1);
                }
                self.close(items.is_empty(), depth, ']');
            }
            Value::Object(object) => self.object(object, depth),
        }
    }

    fn object(&mut self, object: &Object, depth: usize) {
        self.out.push('{');
        let mut entries: SmallVec<[(&String, &Value); 8]> = object.iter().collect();
        // Rust orders `str` by UTF-8 bytes, which is code-point order: Python's. Objects in
        // insertion order that are already sorted (most canonical inputs) skip the sort.
        if self.style.sort_keys && !entries.is_sorted_by(|a, b| a.0 <= b.0) {
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        }
        for (i, (key, item)) in entries.into_iter().enumerate() {
            self.separator(i, depth + 1);
            self.string(key);
            self.out.push_str(": ");
            self.value(item, depth + 1);
        }
        self.close(object.is_empty(), depth, '}');
    }

    fn separator(&mut self, index: usize, depth: usize) {
        match self.style.indent {
            None if index > 0 => self.out.push_str(", "),
            None => {}
            Some(width) => {
                if index > 0 {
                    self.out.push(',');
                }
                self.newline(width * depth);
            }
        }
    }

    fn close(&mut self, empty: bool, depth: usize, bracket: char) {
        if let (Some(width), false) = (self.style.indent, empty) {
            self.newline(width * depth);
        }
        self.out.push(bracket);
    }

    fn newline(&mut self, spaces: usize) {
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', spaces));
    }

    fn string(&mut self, text: &str) {
        self.out.reserve(text.len() + 2);
        self.out.push('"');
        // Copy runs of bytes that need no escape in one go: printable ASCII other than `"`
        // and `\`, and (without ensure_ascii) any non-control character.
        let bytes = text.as_bytes();
        let mut plain_from = 0;
        let mut index = 0;
        while index < bytes.len() {
            let byte = bytes[index];
            if byte < 0x80 {
                if (b' '..=b'~').contains(&byte) && byte != b'"' && byte != b'\\' {
                    index += 1;
                    continue;
                }
                self.out.push_str(&text[plain_from..index]);
                self.ascii_escape(byte);
                index += 1;
                plain_from = index;
                continue;
            }
            let c = text[index..]
                .chars()
                .next()
                .expect("index is on a char boundary");
            let width = c.len_utf8();
            if !self.style.ensure_ascii && !c.is_control() {
                index += width;
                continue;
            }
            self.out.push_str(&text[plain_from..index]);
            self.escape(c);
            index += width;
            plain_from = index;
        }
        self.out.push_str(&text[plain_from..]);
        self.out.push('"');
    }

    /// The escape of an ASCII byte that cannot stand as itself.
    fn ascii_escape(&mut self, byte: u8) {
        match byte {
            b'"' => self.out.push_str("\\\""),
            b'\\' => self.out.push_str("\\\\"),
            b'\n' => self.out.push_str("\\n"),
            b'\r' => self.out.push_str("\\r"),
            b'\t' => self.out.push_str("\\t"),
            0x08 => self.out.push_str("\\b"),
            0x0c => self.out.push_str("\\f"),
            other => self.escape(char::from(other)),
        }
    }

    /// `\uhhhh` in lowercase hex; characters beyond the BMP as a UTF-16 surrogate pair.
    fn escape(&mut self, c: char) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut units = [0u16; 2];
        let mut escaped = [0u8; 12];
        let mut length = 0;
        for unit in c.encode_utf16(&mut units) {
            escaped[length..length + 2].copy_from_slice(b"\\u");
            for (k, shift) in [12, 8, 4, 0].into_iter().enumerate() {
                escaped[length + 2 + k] = HEX[usize::from((*unit >> shift) & 0xf)];
            }
            length += 6;
        }
        self.out
            .push_str(std::str::from_utf8(&escaped[..length]).expect("ASCII"));
    }
}

/// A float as `json.dumps` writes it: `repr`, except the non-finite values, which Python
/// writes as the JavaScript names `NaN`, `Infinity` and `-Infinity`.
pub fn json_float(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        python_repr(value)
    }
}
