//! Reads a call's args back out of a key no way of writing explains.

use super::super::ids::*;
use super::Departure;
use crate::json::{NumberModel, Object, Value};
use crate::reference::DedupCall;

/// Reads an entry's key back as `name(args)` and compares its args with the call's as
/// written: when they differ only in numbers (as `model` writes them), or hold the same
/// values with keys in another order somewhere, the key is this call's, written against
/// that rule. `None` otherwise.
pub(in crate::judge::blame) fn read_back(
    model: NumberModel,
    call: &DedupCall,
    key: &str,
) -> Option<Departure> {
    use crate::json::{dumps, Style};
    let args_text = key
        .strip_prefix(call.name.as_str())?
        .strip_prefix('(')?
        .strip_suffix(')')?;
    let written = crate::json::parse(args_text).ok()?;
    let empty = Object::new();
    let args = Value::from(call.args.clone().unwrap_or(empty));
    if written == as_key_reads(model, &args) {
        // Same values: the text departs in how it orders keys, if it is canonical
        // otherwise, or in how it spells numbers (the enumerated departures cover the
        // rest).
        let canonical = dumps(&written, Style::canonical(model));
        let as_read = dumps(
            &written,
            Style {
                numbers: model,
                ..Style::PYTHON
            },
        );
        if as_read == args_text {
            return (canonical != args_text).then_some(Departure::ReadBack(DEDUP_KEY_ORDER));
        }
        return respelled_number(&as_read, args_text).map(Departure::Respelled);
    }
    let mut kinds = Vec::new();
    numbers_apart(model, &args, &written, &mut kinds).then_some(())?;
    if kinds.contains(&DEDUP_NUMBER_INT) {
        Some(Departure::ReadBack(DEDUP_NUMBER_INT))
    } else {
        kinds.first().map(|k| Departure::ReadBack(k))
    }
}

/// The number rule a key departs from when `given` is `expected` (the same values, written
/// in the same order) with some number spelled otherwise, such as a float with more digits
/// than its shortest round trip: the rule of the first such number's kind. `None` when the
/// texts differ anywhere else, or nowhere.
fn respelled_number(expected: &str, given: &str) -> Option<&'static str> {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut in_string = false;
    let mut rule = None;
    while i < a.len() && j < b.len() {
        if !in_string && starts_number(a[i]) && starts_number(b[j]) {
            let (end_a, end_b) = (number_end(a, i), number_end(b, j));
            if a[i..end_a] != b[j..end_b] {
                let float = a[i..end_a]
                    .iter()
                    .any(|c| matches!(c, b'.' | b'e' | b'E' | b'I' | b'N'));
                rule.get_or_insert(if float {
                    DEDUP_NUMBER_FLOAT
                } else {
                    DEDUP_NUMBER_INT
                });
            }
            (i, j) = (end_a, end_b);
            continue;
        }
        if a[i] != b[j] {
            return None;
        }
        // Inside a string an escaped character is copied as it is, quote included.
        if in_string && a[i] == b'\\' {
            if a.get(i + 1) != b.get(j + 1) {
                return None;
            }
            (i, j) = (i + 2, j + 2);
            continue;
        }
        if a[i] == b'"' {
            in_string = !in_string;
        }
        (i, j) = (i + 1, j + 1);
    }
    (i == a.len() && j == b.len()).then_some(rule)?
}

/// Whether a byte outside a string starts a number (`Infinity` and `NaN` included; the
/// literals `true`, `false` and `null` start in lowercase).
fn starts_number(byte: u8) -> bool {
    byte == b'-' || byte.is_ascii_digit() || byte == b'I' || byte == b'N'
}

/// Where the number starting at `start` ends: numbers hold only letters, digits and `+-.`.
fn number_end(text: &[u8], start: usize) -> usize {
    text[start..]
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
        .map_or(text.len(), |n| start + n)
}

/// Whether a number written in a key is plausibly the call's own, rounded or respelled:
/// the same sign and size and the same leading digits.
fn near(call: &Value, written: &Value) -> bool {
    let digits = |v: &Value| -> Option<(bool, String, i64)> {
        // (negative, leading significant digits, decimal exponent)
        let text = match v {
            Value::Int(i) => i.as_str().to_owned(),
            Value::Float(f) if f.is_finite() => format!("{f:e}"),
            _ => return None,
        };
        let negative = text.starts_with('-');
        let body = text.trim_start_matches('-');
        let (mantissa, exponent) = match body.split_once('e') {
            Some((m, e)) => (m.replace('.', ""), e.parse::<i64>().ok()?),
            None => (body.to_owned(), body.len() as i64 - 1),
        };
        // Padded with zeros, so `2` is `200000` and never matches `1` (`100000`).
        let significant: String = mantissa
            .trim_start_matches('0')
            .chars()
            .chain(std::iter::repeat('0'))
            .take(6)
            .collect();
        Some((negative, significant, exponent))
    };
    match (digits(call), digits(written)) {
        // A rounding may drop or carry one digit.
        (Some(a), Some(b)) => a.0 == b.0 && a.1 == b.1 && (a.2 - b.2).abs() <= 1,
        // An integer too long for a double, written as one: infinite, same sign.
        (Some((negative, _, exponent)), None) => {
            exponent > 308
                && matches!(written, Value::Float(f) if f.is_infinite() && (*f < 0.0) == negative)
        }
        // An infinity written as the largest number the writer allows (`1e308`, a
        // JSON-safe stand-in): same sign, at the edge of the doubles.
        (None, Some((negative, _, exponent))) => {
            exponent >= 307
                && matches!(call, Value::Float(f) if f.is_infinite() && (*f < 0.0) == negative)
        }
        _ => false,
    }
}

/// `value` as the canonical key of `model` writes it, read back as Python reads JSON: under
/// `python` the value itself; under `float64`, `1.0` reads back as `1`, `2^60` as
/// `1152921504606847000`, `1e-7` as the float.
fn as_key_reads(model: NumberModel, value: &Value) -> Value {
    match (model, value) {
        (NumberModel::Python, _) => value.clone(),
        (_, Value::Int(_) | Value::Float(_)) => {
            let text = crate::json::dumps(value, crate::json::Style::canonical(model));
            crate::json::parse(&text).expect("ECMAScript numbers are JSON in Python's dialect")
        }
        (_, Value::List(items)) => {
            Value::List(items.iter().map(|v| as_key_reads(model, v)).collect())
        }
        (_, Value::Object(object)) => Value::from(
            object
                .iter()
                .map(|(k, v)| (k.clone(), as_key_reads(model, v)))
                .collect::<Object>(),
        ),
        _ => value.clone(),
    }
}

/// Whether two values differ only in numbers (same shape, same keys, same strings),
/// collecting which number rule each difference from how `model` writes the call's number
/// is about: the rule of the call's literal.
fn numbers_apart(
    model: NumberModel,
    call: &Value,
    written: &Value,
    kinds: &mut Vec<&'static str>,
) -> bool {
    match (call, written) {
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            // A number written as the canonical key writes it (an infinity or a NaN
            // included, which have no digits to compare) is the call's own.
            if as_key_reads(model, call) == *written {
                return true;
            }
            {
                kinds.push(match call {
                    Value::Float(f) if !f.is_finite() => DEDUP_NUMBER_OVERFLOW,
                    Value::Int(_) => DEDUP_NUMBER_INT,
                    _ => DEDUP_NUMBER_FLOAT,
                });
            }
            near(call, written)
        }
        (Value::List(a), Value::List(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| numbers_apart(model, x, y, kinds))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && {
                let b = b.lookup();
                a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| numbers_apart(model, x, y, kinds)))
            }
        }
        _ => call == written,
    }
}
