//! Strategies for JSON values and JSON texts with everything that makes canonical keys hard:
//! shuffled and repeated keys, astral and control characters, U+007F, floats of every
//! magnitude (subnormals, overflow), integers of any size, and the `1` / `1.0` / `true`
//! look-alikes.

use crate::json::{Int, Key, Object, Value};
use proptest::prelude::*;

/// Characters that stress escaping: ASCII, controls, U+007F, Latin-1, BMP, astral.
pub fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => proptest::char::range('\u{0}', '\u{1f}'),
        1 => Just('\u{7f}'),
        1 => proptest::char::range('\u{80}', '\u{ff}'),
        1 => proptest::char::range('\u{100}', '\u{d7ff}'),
        1 => proptest::char::range('\u{e000}', '\u{ffff}'),
        1 => proptest::char::range('\u{10000}', '\u{10ffff}'),
        1 => prop::sample::select(vec!['"', '\\', '/', '\u{2028}', '\u{feff}', 'é', '😀']),
    ]
}

pub fn tricky_string(max_len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(tricky_char(), 0..=max_len).prop_map(|chars| chars.into_iter().collect())
}

/// Object keys: short, so that shuffles and collisions are common, but sometimes tricky.
pub fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["a", "b", "c", "A", "B", "q", "_", "city", "é", "😀", "\u{ffff}"])
            .prop_map(str::to_owned),
        1 => prop::sample::select(super::calls::EQUIVALENT.to_vec()).prop_map(str::to_owned),
        1 => tricky_string(6),
    ]
}

/// Integers of any size up to the 4,300 digits CPython converts (SPEC.md, Numbers), and the
/// small ones that collide with floats and booleans.
pub fn int() -> impl Strategy<Value = Int> {
    prop_oneof![
        15 => (-3i64..=3).prop_map(Int::from),
        10 => any::<i64>().prop_map(Int::from),
        5 => ("-?[1-9][0-9]{18,59}").prop_map(|digits| Int::from_literal(&digits).expect("digits")),
        1 => (any::<bool>(), 1000usize..=4300, any::<u64>()).prop_map(|(negative, len, seed)| long_int(negative, len, seed)),
    ]
}

/// An integer of exactly `len` digits (1,000 to 4,300: near CPython's limit), its digits
/// drawn from the seed.
fn long_int(negative: bool, len: usize, seed: u64) -> Int {
    let mut digits = String::with_capacity(len + 1);
    if negative {
        digits.push('-');
    }
    let mut state = seed | 1;
    for i in 0..len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let digit = (state % 10) as u8;
        digits.push(char::from(b'0' + if i == 0 { digit.max(1) } else { digit }));
    }
    Int::from_literal(&digits).expect("digits")
}

/// Args nested 17 to 40 objects deep, each level's keys in unsorted order (`z` before `a`),
/// with a value at the bottom: a canonical form that stops sorting at some depth shows.
pub fn deep_args() -> impl Strategy<Value = Object> {
    (17u32..=40, value(1)).prop_map(|(depth, leaf)| {
        let mut inner = leaf;
        for level in 0..depth {
            let mut object = Object::new();
            object.insert("z".into(), inner);
            object.insert("a".into(), Value::from(i64::from(level)));
            inner = Value::from(object);
        }
        match inner {
            Value::Object(object) => object,
            _ => unreachable!("depth is at least 17"),
        }
    })
}

/// Floats of every magnitude: any bit pattern (subnormals included) but NaN, the classic
/// repr edge cases, and infinities (from overflowing literals).
pub fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => any::<f64>().prop_filter("NaN is not a JSON number", |f| !f.is_nan()),
        2 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1e16, 1e15, 1e-4, 1e-5, 5e-324, 2.2250738585072014e-308,
            1.7976931348623157e308, f64::INFINITY, f64::NEG_INFINITY, 123_456_789.123_456_79, 9_007_199_254_740_992.0,
        ]),
        1 => (-400i32..400, 1u32..999).prop_map(|(e, m)| format!("{m}e{e}").parse().unwrap_or(0.0)),
    ]
}

/// Any JSON value Python's `json.loads` can produce (except NaN), nested up to `depth`.
pub fn value(depth: u32) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        int().prop_map(Value::Int),
        float().prop_map(Value::Float),
        tricky_string(8).prop_map(|s| Value::Str(s.into())),
    ];
    leaf.prop_recursive(depth, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::List),
            object_of(inner).prop_map(Value::from),
        ]
    })
}

/// Objects whose values come from `values`, keys in generation order (so shuffled relative to
/// sorted order).
pub fn object_of(values: impl Strategy<Value = Value>) -> impl Strategy<Value = Object> {
    prop::collection::vec((key(), values), 0..5)
        .prop_map(|entries| entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

/// An args object for `run_parallel_calls`.
pub fn args(depth: u32) -> impl Strategy<Value = Object> {
    object_of(value(depth))
}

/// The same value with every object's keys in another order, at every depth: the canonical
/// key must not change.
pub fn permute_keys(value: &Value, seed: u64) -> Value {
    match value {
        Value::List(items) => Value::List(items.iter().map(|v| permute_keys(v, seed)).collect()),
        Value::Object(object) => Value::from(permute_object(object, seed)),
        other => other.clone(),
    }
}

/// [`permute_keys`] for an object.
pub fn permute_object(object: &Object, seed: u64) -> Object {
    let mut entries: Vec<(Key, Value)> = object
        .iter()
        .map(|(k, v)| (k.clone(), permute_keys(v, seed)))
        .collect();
    // A deterministic shuffle: rotate by the seed, then reverse on odd seeds.
    if !entries.is_empty() {
        let shift = (seed as usize) % entries.len();
        entries.rotate_left(shift);
        if seed % 2 == 1 {
            entries.reverse();
        }
    }
    entries.into_iter().collect()
}

/// JSON texts written with every liberty the grammar allows: number literals in all their
/// spellings (`1E2`, `1.00`, `-0`, `2.5e+3`, 40-digit integers, `1e400`), `\uhhhh` escapes
/// for any character, and repeated keys. Feeding the same text to CPython and to parcall
/// tests the reader and the writer together.
pub fn json_text(depth: u32) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        number_literal(),
        string_literal(),
    ];
    leaf.prop_recursive(depth, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec((key_literal(), inner), 0..5).prop_map(|entries| {
                let body: Vec<String> = entries
                    .into_iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect();
                format!("{{{}}}", body.join(", "))
            }),
        ]
    })
}

fn number_literal() -> impl Strategy<Value = String> {
    let int_part = prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,3}", "[1-9][0-9]{15,45}"];
    let fraction = prop::option::of("[0-9]{1,20}");
    let exponent = prop::option::of(("[eE]", "[+-]?", "[0-9]{1,3}"));
    (any::<bool>(), int_part, fraction, exponent).prop_map(|(negative, int, fraction, exponent)| {
        let mut literal = String::new();
        if negative {
            literal.push('-');
        }
        literal.push_str(&int);
        if let Some(fraction) = fraction {
            literal.push('.');
            literal.push_str(&fraction);
        }
        if let Some((e, sign, digits)) = exponent {
            literal.push_str(&e);
            literal.push_str(&sign);
            literal.push_str(&digits);
        }
        literal
    })
}

fn key_literal() -> impl Strategy<Value = String> {
    key().prop_map(|k| encode_string(&k, 0))
}

fn string_literal() -> impl Strategy<Value = String> {
    (tricky_string(8), any::<u64>()).prop_map(|(s, seed)| encode_string(&s, seed))
}

/// A string literal, escaping characters with `\uhhhh` where the seed's bits say so (and
/// always where JSON requires it).
fn encode_string(s: &str, seed: u64) -> String {
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        let escape = c < ' ' || c == '"' || c == '\\' || (seed >> (i % 64)) & 1 == 1;
        if escape {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04X}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}
