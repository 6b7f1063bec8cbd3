//! A way of writing keys: the canonical one, or one with departures from it.

use super::Departure;
use crate::json::{dumps_str, ecmascript_number, Key, NumberModel, Object, Value};

/// How to write a key: the canonical way, with some departures.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct KeyStyle {
    frame: (&'static str, &'static str),
    name: NameStyle,
    item_separator: &'static str,
    key_separator: &'static str,
    order: Order,
    lists_sorted: bool,
    ascii: Ascii,
    python_literals: bool,
    numbers: NumberText,
    absent: &'static str,
}

/// How the numbers of a key are written.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum NumberText {
    /// Python's `json.dumps`: the canonical key under `python`.
    Python,
    /// ECMAScript's `Number.prototype.toString`: the canonical key under `float64`.
    Ecmascript,
    /// `JSON.stringify`: ECMAScript's, with the non-finite numbers as `null`.
    JsonStringify,
    /// Python's `repr` of the double, as if every number were a float (`1.0`, `1e+16`).
    PythonFloat,
    /// Python's `json.dumps`, a float with no fraction and a magnitude below `below` first
    /// made the integer it equals (`f64::INFINITY`: every one).
    IntegralFloatsAsIntegers { below: f64 },
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum NameStyle {
    Verbatim,
    Quoted,
    Escaped,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Order {
    Sorted,
    Insertion,
    /// A JavaScript object's: integer-like keys first, ascending, then insertion order.
    Object,
    TopOnly,
    Utf16,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Ascii {
    Escaped,
    Raw,
    UppercaseHex,
}

impl KeyStyle {
    /// The canonical key of a number model.
    pub(super) fn canonical(model: NumberModel) -> KeyStyle {
        KeyStyle {
            frame: ("(", ")"),
            name: NameStyle::Verbatim,
            item_separator: ", ",
            key_separator: ": ",
            order: Order::Sorted,
            lists_sorted: false,
            ascii: Ascii::Escaped,
            python_literals: false,
            numbers: match model {
                NumberModel::Python => NumberText::Python,
                NumberModel::Float64 => NumberText::Ecmascript,
            },
            absent: "{}",
        }
    }

    pub(super) fn with(mut self, departure: Departure) -> KeyStyle {
        match departure {
            Departure::Frame(open, close) => self.frame = (open, close),
            Departure::NameQuoted => self.name = NameStyle::Quoted,
            Departure::NameEscaped => self.name = NameStyle::Escaped,
            Departure::Separators(item, key) => {
                self.item_separator = item;
                self.key_separator = key;
            }
            Departure::KeysInInsertionOrder => self.order = Order::Insertion,
            Departure::KeysInObjectOrder => self.order = Order::Object,
            Departure::KeysSortedAtTopOnly => self.order = Order::TopOnly,
            Departure::KeysSortedByUtf16 => self.order = Order::Utf16,
            Departure::ListsSorted => self.lists_sorted = true,
            Departure::NotAscii => self.ascii = Ascii::Raw,
            Departure::UppercaseHex => self.ascii = Ascii::UppercaseHex,
            Departure::PythonLiterals => self.python_literals = true,
            Departure::OneNumberType => self.numbers = NumberText::JsonStringify,
            Departure::PythonNumbers => self.numbers = NumberText::Python,
            Departure::PythonFloats => self.numbers = NumberText::PythonFloat,
            Departure::FloatsAsIntegers => {
                self.numbers = NumberText::IntegralFloatsAsIntegers {
                    below: f64::INFINITY,
                }
            }
            Departure::SafeFloatsAsIntegers => {
                self.numbers = NumberText::IntegralFloatsAsIntegers {
                    below: SAFE_INTEGER_BOUND,
                }
            }
            Departure::AbsentArgsNull => self.absent = "null",
            Departure::AbsentArgsEmpty => self.absent = "",
            // Not a way of writing: found by reading a key back.
            Departure::ReadBack(_) | Departure::Respelled(_) => {}
        }
        self
    }

    /// Whether two styles write args alike: they may differ only in the name and the frame.
    pub(super) fn writes_args_as(&self, other: &KeyStyle) -> bool {
        let reframed = KeyStyle {
            frame: other.frame,
            name: other.name,
            ..*self
        };
        reframed == *other
    }

    /// The args between the frame.
    pub(super) fn args_text(&self, args: Option<&Object>) -> String {
        match args {
            None => self.absent.to_owned(),
            Some(args) => {
                let mut out = String::new();
                self.object(&mut out, args, 0);
                out
            }
        }
    }

    /// The key of a call named `name` whose args this style writes as `args_text`.
    pub(super) fn key(&self, name: &str, args_text: &str) -> String {
        let mut out = String::with_capacity(name.len() + args_text.len() + 8);
        match self.name {
            NameStyle::Verbatim => out.push_str(name),
            NameStyle::Quoted => self.string_literal(&mut out, name),
            NameStyle::Escaped => {
                let start = out.len();
                self.string_literal(&mut out, name);
                out.pop();
                out.remove(start);
            }
        }
        out.push_str(self.frame.0);
        out.push_str(args_text);
        out.push_str(self.frame.1);
        out
    }

    pub(super) fn object(&self, out: &mut String, object: &Object, depth: usize) {
        let mut entries: Vec<(&Key, &Value)> = object.iter().collect();
        match self.order {
            Order::Sorted => entries.sort_by(|a, b| a.0.cmp(b.0)),
            Order::Insertion => {}
            Order::Object => entries.sort_by_key(|(key, _)| array_index(key).unwrap_or(u32::MAX)),
            Order::TopOnly if depth == 0 => entries.sort_by(|a, b| a.0.cmp(b.0)),
            Order::TopOnly => {}
            Order::Utf16 => entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16())),
        }
        out.push('{');
        for (i, (key, value)) in entries.into_iter().enumerate() {
            if i > 0 {
                out.push_str(self.item_separator);
            }
            self.string_literal(out, key);
            out.push_str(self.key_separator);
            self.value(out, value, depth + 1);
        }
        out.push('}');
    }

    pub(super) fn value(&self, out: &mut String, value: &Value, depth: usize) {
        match value {
            Value::Null => out.push_str(if self.python_literals { "None" } else { "null" }),
            Value::Bool(b) => out.push_str(match (self.python_literals, b) {
                (false, true) => "true",
                (false, false) => "false",
                (true, true) => "True",
                (true, false) => "False",
            }),
            Value::Int(_) | Value::Float(_) => out.push_str(&self.number(value)),
            Value::Str(s) => self.string_literal(out, s),
            Value::List(items) if !self.lists_sorted => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(self.item_separator);
                    }
                    self.value(out, item, depth + 1);
                }
                out.push(']');
            }
            Value::List(items) => {
                let mut texts: Vec<String> = items
                    .iter()
                    .map(|item| {
                        let mut text = String::new();
                        self.value(&mut text, item, depth + 1);
                        text
                    })
                    .collect();
                texts.sort();
                out.push('[');
                out.push_str(&texts.join(self.item_separator));
                out.push(']');
            }
            Value::Object(object) => self.object(out, object, depth),
        }
    }

    pub(super) fn number(&self, value: &Value) -> String {
        let double = match value {
            Value::Int(i) => i.to_f64(),
            Value::Float(f) => *f,
            _ => unreachable!("number() is called with numbers only"),
        };
        match self.numbers {
            NumberText::Python => crate::json::dumps(value, crate::json::Style::PYTHON),
            NumberText::IntegralFloatsAsIntegers { below } => match value {
                Value::Float(f) if f.abs() < below => crate::json::exact_integer(*f),
                _ => None,
            }
            .unwrap_or_else(|| crate::json::dumps(value, crate::json::Style::PYTHON)),
            NumberText::JsonStringify if !double.is_finite() => "null".into(),
            NumberText::PythonFloat => crate::json::json_float(double),
            NumberText::Ecmascript | NumberText::JsonStringify => ecmascript_number(double),
        }
    }

    pub(super) fn string_literal(&self, out: &mut String, text: &str) {
        match self.ascii {
            Ascii::Escaped => crate::json::write_str(out, text),
            Ascii::UppercaseHex => out.push_str(&uppercase_escapes(&dumps_str(text))),
            Ascii::Raw => {
                out.push('"');
                // `ensure_ascii=False` escapes only what JSON requires.
                for c in text.chars() {
                    if c < ' ' || c == '"' || c == '\\' {
                        let escaped = dumps_str(&c.to_string());
                        out.push_str(&escaped[1..escaped.len() - 1]);
                    } else {
                        out.push(c);
                    }
                }
                out.push('"');
            }
        }
    }
}

/// 2^53: below it every integer is a double, the bound of JavaScript's safe integers.
pub(super) const SAFE_INTEGER_BOUND: f64 = 9_007_199_254_740_992.0;

pub(super) fn uppercase_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at + 2]);
        let hex_end = (at + 6).min(rest.len());
        out.push_str(&rest[at + 2..hex_end].to_ascii_uppercase());
        rest = &rest[hex_end..];
    }
    out.push_str(rest);
    out
}

/// The array index a JavaScript object key is, if it is one: the canonical decimal text of
/// an integer below 2^32 - 1. A JavaScript object lists these first, in numeric order.
pub(in crate::judge::blame) fn array_index(key: &str) -> Option<u32> {
    let canonical =
        key == "0" || (!key.starts_with('0') && key.bytes().all(|b| b.is_ascii_digit()));
    let index: u32 = key.parse().ok().filter(|_| canonical && !key.is_empty())?;
    (index < u32::MAX).then_some(index)
}
