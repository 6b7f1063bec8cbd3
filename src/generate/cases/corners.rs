//! Corners random args almost never reach, each of which an implementation in another
//! language got wrong while passing every fixed case and thousands of generated ones:
//! powers of two whose repr is not the correctly rounded number of its length, floats whose
//! shortest repr is a tie between two digits, integer-like object keys (which a JavaScript
//! object orders numerically) and tool names a JavaScript object inherits (`toString`).
//! A share of the generated `run_parallel_calls` cases holds one of them, so every default
//! run shows each (stratified like [`super::dedup`]'s number twins).

use super::dedup::{Distinct, KNOWN_TOOLS};
use crate::json::{Object, Value};
use proptest::prelude::*;

/// The exponents `e` whose `2^e` has a repr (the shortest digits that read back) other than
/// the correctly rounded number of the same length, which does not read back: below a
/// power of two the doubles are twice as close, so its interval is lopsided. `2^-1017` is
/// `7.120236347223045e-307`; rounding its exact value to 16 digits gives
/// `7.120236347223044e-307`, another double, so a writer that tries 1, 2, ... correctly
/// rounded digits until one reads back writes 17: `7.1202363472230444e-307`. These are all
/// 46 such of the 2,098 finite powers of two (a unit test recomputes them).
const LOPSIDED_POWERS: [i32; 46] = [
    -1017, -1007, -957, -921, -808, -791, -788, -778, -705, -695, -662, -652, -549, -509, -496,
    -489, -383, -366, -296, -140, -97, -77, -44, -24, 89, 122, 132, 172, 182, 275, 305, 345, 378,
    398, 405, 481, 534, 544, 554, 574, 594, 710, 803, 863, 896, 976,
];

/// Inherited members of a JavaScript object: `tools[name]` finds them on the prototype, so
/// `tools[name] === undefined` does not tell an unknown tool (the judge reads what such a
/// lookup returns as an unknown tool's result gone wrong).
pub const INHERITED_NAMES: [&str; 8] = [
    "toString",
    "constructor",
    "__proto__",
    "hasOwnProperty",
    "valueOf",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
];

/// Keys a JavaScript object orders numerically, before every other key (`"9"` before
/// `"10"`), where Python sorts them as strings (`"10"` before `"9"`); and keys that look
/// alike but are not array indices (`"01"`, `"-1"`), which keep their place.
const INTEGER_LIKE_KEYS: [&str; 8] = ["0", "1", "2", "99", "100", "4294967294", "01", "-1"];

/// One of the corners, as one or two distinct calls.
pub(super) fn corner_calls() -> impl Strategy<Value = Vec<Distinct>> {
    let tool = prop::sample::select(KNOWN_TOOLS.to_vec()).prop_map(str::to_owned);
    prop_oneof![
        (tool.clone(), lopsided_powers()).prop_map(|(name, x)| vec![(name, Some(one("x", x)))]),
        (tool.clone(), ties()).prop_map(|(name, x)| vec![(name, Some(one("x", x)))]),
        (tool.clone(), integer_like_keys()).prop_map(|(name, args)| vec![(name, Some(args))]),
        (tool, prop::sample::select(INHERITED_NAMES.to_vec())).prop_map(|(known, inherited)| {
            vec![
                (inherited.to_owned(), Some(Object::new())),
                (known, Some(Object::new())),
            ]
        }),
    ]
}

fn one(key: &str, value: Value) -> Object {
    let mut object = Object::new();
    object.insert(key.into(), value);
    object
}

/// One or two powers of two from [`LOPSIDED_POWERS`], with either sign.
fn lopsided_powers() -> impl Strategy<Value = Value> {
    let power = (
        prop::sample::select(LOPSIDED_POWERS.to_vec()),
        any::<bool>(),
    )
        .prop_map(|(e, negative)| Value::Float(signed(power_of_two(e), negative)));
    prop::collection::vec(power, 1..=2).prop_map(Value::List)
}

/// A float whose shortest repr is a tie, one that rounds down to the even digit and one
/// that rounds up to it, so a writer that breaks ties either way shows: the doubles
/// `k + 1/4` and `k + 3/4` with `2^49 <= k < 2^51`. There the doubles are 1/8 or 1/4 apart,
/// so both one-decimal neighbours (`k.2` and `k.3` for `k.25`) read back and are equally
/// near, and no integer does. (Ties are rare elsewhere: a tie's exact value must have just
/// one digit more than its repr.)
fn ties() -> impl Strategy<Value = Value> {
    let k = || (1u64 << 49)..(1u64 << 51);
    (k(), k(), any::<bool>(), any::<bool>()).prop_map(|(down, up, negative_down, negative_up)| {
        Value::List(vec![
            Value::Float(signed(down as f64 + 0.25, negative_down)),
            Value::Float(signed(up as f64 + 0.75, negative_up)),
        ])
    })
}

/// `2^e`, exactly, for every finite power of two (`-1074..=1023`), subnormals included.
fn power_of_two(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

fn signed(x: f64, negative: bool) -> f64 {
    if negative {
        -x
    } else {
        x
    }
}

/// Args with `"10"` and `"9"` and a few other integer-like keys, at the top or one level
/// down.
fn integer_like_keys() -> impl Strategy<Value = Object> {
    let others = prop::sample::subsequence(INTEGER_LIKE_KEYS.to_vec(), 0..=3);
    (others, any::<bool>(), any::<u64>()).prop_map(|(others, nested, seed)| {
        let mut object = Object::new();
        for (i, key) in ["10", "9"].iter().chain(&others).enumerate() {
            object.insert((*key).into(), Value::from(i as i64));
        }
        object.insert("a".into(), Value::from(seed as i64 % 1000));
        if nested {
            one("n", Value::from(object))
        } else {
            object
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::python_repr;

    /// The significant digits of a float's text, without sign, point, exponent or
    /// surrounding zeros.
    fn digits(text: &str) -> String {
        let mantissa = text.split(['e', 'E']).next().unwrap_or_default();
        mantissa
            .chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
            .trim_matches('0')
            .to_owned()
    }

    #[test]
    fn the_lopsided_powers_are_every_power_of_two_whose_repr_is_not_correctly_rounded() {
        let lopsided: Vec<i32> = (-1074..=1023)
            .filter(|&e| {
                let x = power_of_two(e);
                let rounded = (0..17)
                    .map(|precision| format!("{x:.precision$e}"))
                    .find(|text| text.parse::<f64>() == Ok(x))
                    .expect("17 digits read back");
                digits(&rounded) != digits(&python_repr(x))
            })
            .collect();
        assert_eq!(lopsided, LOPSIDED_POWERS);
    }

    #[test]
    fn the_ties_read_back_from_both_neighbours_and_repr_takes_the_even_one() {
        for (x, repr, odd) in [
            // 562949953421503.25 and 1125899906842627.75, exactly.
            (
                2f64.powi(49) + 191.25,
                "562949953421503.2",
                "562949953421503.3",
            ),
            (
                2f64.powi(50) + 3.75,
                "1125899906842627.8",
                "1125899906842627.7",
            ),
        ] {
            assert_eq!(python_repr(x), repr);
            assert_eq!(odd.parse::<f64>(), Ok(x));
        }
    }
}
