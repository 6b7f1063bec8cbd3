//! Writing values as CPython's `json.dumps` does, and as the pretty canonical form for diffs.

use super::escape;
use super::float_repr::python_repr;
use super::key_order::KeyOrder;
use super::number_model::NumberModel;
use super::value::{Object, Value};
use std::cell::RefCell;

/// How to write a value. `PYTHON` is `json.dumps` with default settings; `CANONICAL` adds
/// `sort_keys=True` (RULES B1); `PRETTY` is what people read in diffs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub sort_keys: bool,
    /// Escape every character outside space..`~` as `\uhhhh` (Python's `ensure_ascii`).
    pub ensure_ascii: bool,
    /// `None`: one line with `", "` and `": "`; `Some(n)`: n spaces per level.
    pub indent: Option<usize>,
    /// How numbers are written: as Python's `json.dumps` does, or (`float64`, inside the
    /// canonical keys of RULES E) as ECMAScript writes the double.
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
    with_scratch(|scratch| scratch.writer(style).value(value, 0))
}

/// Writes an object in `style` without wrapping it in a [`Value`] first.
pub fn dumps_object(object: &Object, style: Style) -> String {
    with_scratch(|scratch| scratch.writer(style).object(object, 0))
}

/// Writes a string literal (quotes included) with `ensure_ascii` escaping.
pub fn dumps_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_str(&mut out, text);
    out
}

/// [`dumps_str`] appended to `out`.
pub fn write_str(out: &mut String, text: &str) {
    Writer {
        out,
        // A string has no members to order: an empty one allocates nothing.
        order: &mut KeyOrder::default(),
        style: Style::PYTHON,
    }
    .string(text);
}

/// JSON written by hand, piece by piece, into one string: for messages whose shape is fixed
/// and whose parts are [`Value`]s, without first building a `Value` of the whole message
/// (that copy was most of the cost of encoding a case message).
pub struct JsonText {
    scratch: Scratch,
    style: Style,
}

impl JsonText {
    pub fn new(style: Style) -> JsonText {
        JsonText {
            scratch: Scratch::default(),
            style,
        }
    }

    /// Text written as it is: punctuation, and keys the caller knows need no escape.
    pub fn raw(&mut self, text: &str) -> &mut JsonText {
        self.scratch.out.push_str(text);
        self
    }

    /// A string literal.
    pub fn string(&mut self, text: &str) -> &mut JsonText {
        self.scratch.writer(self.style).string(text);
        self
    }

    pub fn value(&mut self, value: &Value) -> &mut JsonText {
        self.scratch.writer(self.style).value(value, 0);
        self
    }

    pub fn object(&mut self, object: &Object) -> &mut JsonText {
        self.scratch.writer(self.style).object(object, 0);
        self
    }

    pub fn into_string(self) -> String {
        self.scratch.out
    }
}

/// What a [`Writer`] writes into: the output, and the key orders of the objects in it.
#[derive(Default)]
struct Scratch {
    out: String,
    order: KeyOrder,
}

impl Scratch {
    fn writer(&mut self, style: Style) -> Writer<'_> {
        Writer {
            out: &mut self.out,
            order: &mut self.order,
            style,
        }
    }
}

/// Scratch output larger than this is freed after use rather than kept for the next call.
const SCRATCH_KEPT: usize = 1 << 20;

thread_local! {
    /// Where [`dumps_object`] writes before copying into a string of the exact length: one
    /// allocation per key instead of a chain of reallocations as the output doubles and an
    /// allocation per wide object to sort (keys are written by the thousand, and wide ones
    /// are kilobytes). Only capacity and the cache of key orders outlive a call.
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Runs `write` on an empty scratch and returns what it wrote.
fn with_scratch(write: impl FnOnce(&mut Scratch)) -> String {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => {
            scratch.out.clear();
            write(&mut scratch);
            let written = scratch.out.as_str().to_owned();
            if scratch.out.capacity() > SCRATCH_KEPT {
                scratch.out = String::new();
            }
            scratch.order.trim();
            written
        }
        // Only reachable if `write` itself wrote a key; a fresh scratch keeps it correct.
        Err(_) => {
            let mut fresh = Scratch::default();
            write(&mut fresh);
            fresh.out
        }
    })
}

struct Writer<'a> {
    out: &'a mut String,
    order: &'a mut KeyOrder,
    style: Style,
}

impl Writer<'_> {
    /// Inlined into its callers, so a member whose value is a scalar (nearly all of them)
    /// costs no call; lists and objects are calls of their own.
    #[inline]
    fn value(&mut self, value: &Value, depth: usize) {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(int) if self.style.numbers == NumberModel::Python => {
                append(self.out, int.as_str())
            }
            Value::Int(_) | Value::Float(_) => self.style.numbers.write_number(self.out, value),
            Value::Str(s) => self.string(s),
            Value::List(items) => self.list(items, depth),
            Value::Object(object) => self.object(object, depth),
        }
    }

    #[inline(never)]
    fn list(&mut self, items: &[Value], depth: usize) {
        items.iter().for_each(prefetch_contents);
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            self.separator(i, depth + 1);
            self.value(item, depth + 1);
        }
        self.close(items.is_empty(), depth, ']');
    }

    fn object(&mut self, object: &Object, depth: usize) {
        object.values().for_each(prefetch_contents);
        self.out.push('{');
        // One member or none is in key order already: no order to push.
        if self.style.sort_keys && object.len() > 1 {
            self.sorted_members(object, depth);
        } else {
            for (i, (key, item)) in object.iter().enumerate() {
                self.member(i, key, item, depth);
            }
        }
        self.close(object.is_empty(), depth, '}');
    }

    /// The members of `object` in Python's order of keys (`sort_keys=True`).
    fn sorted_members(&mut self, object: &Object, depth: usize) {
        let members = object.members();
        let start = self.order.push(object);
        let mut next = self.order.index(start);
        for i in 0..members.len() {
            let (key, item) = &members[next];
            if i + 1 < members.len() {
                next = self.order.index(start + i + 1);
            }
            self.member(i, key, item, depth);
        }
        self.order.pop(start);
    }

    fn member(&mut self, index: usize, key: &str, item: &Value, depth: usize) {
        self.separator(index, depth + 1);
        self.string(key);
        self.out.push_str(": ");
        self.value(item, depth + 1);
    }

    #[inline]
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

    /// A string literal. A call of its own: inlined into every member, it made writing a
    /// wide object longer (BENCHMARKS.md section 1).
    #[inline(never)]
    fn string(&mut self, text: &str) {
        escape::string(self.out, text, self.style.ensure_ascii);
    }
}

/// Appends `text` to `out`. A text of up to 16 bytes (a number's digits, most keys) is
/// copied as two overlapping words into reserved room, not by a `memcpy` call: calls for a
/// few bytes each were a tenth of writing a wide object (BENCHMARKS.md section 1).
#[inline]
pub(super) fn append(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    if n > 16 {
        out.push_str(text);
        return;
    }
    out.reserve(16);
    let len = out.len();
    // SAFETY: `reserve` made room for 16 bytes after `len` and the stores below end at most
    // `n <= 16` bytes after it. The loads read `bytes[..n]` only (overlapping when `n` is not
    // a word's length). The `n` bytes taken into the length are a copy of `text`, whole: UTF-8.
    unsafe {
        let from = bytes.as_ptr();
        let to = out.as_mut_vec().as_mut_ptr().add(len);
        match n {
            8..=16 => {
                to.cast::<u64>()
                    .write_unaligned(from.cast::<u64>().read_unaligned());
                to.add(n - 8)
                    .cast::<u64>()
                    .write_unaligned(from.add(n - 8).cast::<u64>().read_unaligned());
            }
            4..=7 => {
                to.cast::<u32>()
                    .write_unaligned(from.cast::<u32>().read_unaligned());
                to.add(n - 4)
                    .cast::<u32>()
                    .write_unaligned(from.add(n - 4).cast::<u32>().read_unaligned());
            }
            1..=3 => {
                // The first, middle and last bytes cover every byte of 1 to 3.
                *to = *from;
                *to.add(n / 2) = *from.add(n / 2);
                *to.add(n - 1) = *from.add(n - 1);
            }
            _ => {}
        }
        out.as_mut_vec().set_len(len + n);
    }
}

/// Starts loading what `value` points to (a list's items, an object, a long string) into
/// the cache without waiting for it. Called on every member of a container before any is
/// written, so the cache misses of siblings overlap instead of coming one after the other:
/// args are small trees of separate heap blocks, and on the adversarial corpus waiting on
/// them was most of the writing time (BENCHMARKS.md section 1).
#[inline]
fn prefetch_contents(value: &Value) {
    let target: *const u8 = match value {
        Value::Str(text) => text.as_ptr(),
        Value::Int(int) => int.as_str().as_ptr(),
        Value::List(items) => items.as_ptr().cast(),
        // The members' block: the object itself is inside the value, already loaded.
        Value::Object(object) => object.members().as_ptr().cast(),
        Value::Null | Value::Bool(_) | Value::Float(_) => return,
    };
    prefetch(target);
}

/// Asks the CPU to start loading the cache line at `target`.
#[inline]
fn prefetch(target: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and changes no memory, whatever the
    // address (newer compilers no longer require `unsafe` here).
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(target.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = target;
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

#[cfg(test)]
mod tests {
    use super::append;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn append_appends_every_length(before in ".{0,20}", text in ".{0,20}") {
            let mut out = before.clone();
            append(&mut out, &text);
            prop_assert_eq!(out, before + &text);
        }

        /// Any string, of every length around the 16 bytes copied by words: the unsafe copy
        /// leaves what `push_str` would, and UTF-8, as the checked conversion confirms.
        #[test]
        fn append_matches_push_str_on_any_string(before in any::<String>(), text in any::<String>()) {
            let mut out = before.clone();
            append(&mut out, &text);
            let checked = String::from_utf8(out.into_bytes()).unwrap();
            let mut expected = before;
            expected.push_str(&text);
            prop_assert_eq!(checked, expected);
        }
    }
}
