//! Args compared as a runtime with one number type compares them (1 == 1.0 == true).

use crate::json::{Key, Object, Value};
use crate::reference::DedupCall;

/// A call's args with numbers and booleans as a runtime with one number type compares them
/// (1 == 1.0 == true), written so that two calls' forms are equal exactly when their args
/// are: object members in key order, every string and list with its length. `None` for args
/// holding a NaN, which equals nothing.
pub(super) fn loose_form(call: &DedupCall) -> Option<Vec<u8>> {
    fn text(out: &mut Vec<u8>, tag: u8, text: &str) {
        out.push(tag);
        out.extend_from_slice(&text.len().to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    fn object(out: &mut Vec<u8>, object: &Object) -> Option<()> {
        let mut members: Vec<(&Key, &Value)> = object.iter().collect();
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out.push(b'{');
        out.extend_from_slice(&members.len().to_le_bytes());
        for (key, value) in members {
            text(out, b'k', key);
            form(out, value)?;
        }
        Some(())
    }
    fn form(out: &mut Vec<u8>, value: &Value) -> Option<()> {
        if let Some(double) = loose_double(value) {
            if double.is_nan() {
                return None;
            }
            // -0.0 == 0.0: one form for both.
            let double = if double == 0.0 { 0.0 } else { double };
            out.push(b'n');
            out.extend_from_slice(&double.to_bits().to_le_bytes());
            return Some(());
        }
        match value {
            Value::Null => out.push(b'z'),
            Value::Str(s) => text(out, b's', s),
            Value::Int(i) => text(out, b'i', i.as_str()),
            Value::List(items) => {
                out.push(b'[');
                out.extend_from_slice(&items.len().to_le_bytes());
                for item in items {
                    form(out, item)?;
                }
            }
            Value::Object(members) => object(out, members)?,
            Value::Bool(_) | Value::Float(_) => unreachable!("read as a double above"),
        }
        Some(())
    }
    let mut out = Vec::new();
    object(&mut out, call.args.as_ref().unwrap_or(&Object::new()))?;
    Some(out)
}

/// A number as a double, if it is one a runtime could confuse with another: booleans,
/// floats, and integers a double holds exactly (longer ones stay themselves: their rule is
/// DEDUP-NUMBER-INT).
fn loose_double(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Int(i) if i.as_str().trim_start_matches('-').len() <= 15 => Some(i.to_f64()),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn call(args: &str) -> DedupCall {
        DedupCall {
            name: "t".into(),
            args: Some(
                crate::json::parse(args)
                    .unwrap()
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        }
    }

    fn loosely_equal(a: &DedupCall, b: &DedupCall) -> bool {
        matches!((loose_form(a), loose_form(b)), (Some(a), Some(b)) if a == b)
    }

    /// Loose equality as the definition reads, pair by pair: what the forms must agree with.
    fn loose_eq(a: &Value, b: &Value) -> bool {
        match (loose_double(a), loose_double(b)) {
            (Some(x), Some(y)) => return x == y,
            (Some(_), None) | (None, Some(_)) => return false,
            (None, None) => {}
        }
        match (a, b) {
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| loose_eq(a, b))
            }
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len() && {
                    let b = b.lookup();
                    a.iter()
                        .all(|(k, v)| b.get(k).is_some_and(|w| loose_eq(v, w)))
                }
            }
            (a, b) => a == b,
        }
    }

    /// The same value as another runtime might hold it: some numbers as floats or booleans,
    /// keys in another order.
    fn loosen(value: &Value, seed: u64) -> Value {
        let value = crate::generate::values::permute_keys(value, seed);
        fn walk(value: &Value, seed: &mut u64) -> Value {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let flip = *seed >> 63 == 1;
            match value {
                Value::Int(i) if flip && i.as_str().len() <= 15 => Value::Float(i.to_f64()),
                Value::Float(f) if *f == 0.0 && flip => Value::Bool(false),
                Value::Float(f) if *f == 0.0 => Value::Float(-0.0),
                Value::Float(f) if *f == 1.0 && flip => Value::Bool(true),
                Value::List(items) => Value::List(items.iter().map(|v| walk(v, seed)).collect()),
                Value::Object(object) => Value::from(
                    object
                        .iter()
                        .map(|(k, v)| (k.clone(), walk(v, seed)))
                        .collect::<Object>(),
                ),
                other => other.clone(),
            }
        }
        let mut seed = seed;
        walk(&value, &mut seed)
    }

    proptest! {
        #[test]
        fn loose_forms_are_equal_exactly_when_the_args_are_loosely_equal(
            a in crate::generate::values::args(3),
            b in crate::generate::values::args(3),
            seed in any::<u64>(),
        ) {
            let of = |args: &Object| DedupCall { name: "t".into(), args: Some(args.clone()) };
            let loosened = loosen(&Value::from(a.clone()), seed);
            let loosened = loosened.as_object().unwrap();
            for (x, y) in [(&a, loosened), (&a, &b)] {
                let expected = loose_eq(&Value::from(x.clone()), &Value::from(y.clone()));
                prop_assert_eq!(loosely_equal(&of(x), &of(y)), expected, "{:?} {:?}", x, y);
            }
        }
    }

    #[test]
    fn loosely_equal_compares_numbers_as_one_number_type_would() {
        let equal = [
            (r#"{"a": 1}"#, r#"{"a": 1.0}"#),
            (r#"{"a": true}"#, r#"{"a": 1}"#),
            (r#"{"a": [0, {"b": false}]}"#, r#"{"a": [0.0, {"b": 0}]}"#),
            (r#"{"a": 1, "b": "x"}"#, r#"{"b": "x", "a": 1.0}"#),
            (r#"{"a": -0.0}"#, r#"{"a": 0}"#),
            (r#"{"a": 1e400}"#, r#"{"a": 1e999}"#),
        ];
        for (a, b) in equal {
            assert!(loosely_equal(&call(a), &call(b)), "{a} {b}");
        }
        let different = [
            (r#"{"a": 1}"#, r#"{"a": 2}"#),
            (r#"{"a": 1}"#, r#"{"a": "1"}"#),
            (r#"{"a": 1}"#, r#"{"a": 1, "b": 1}"#),
            (r#"{"a": [1]}"#, r#"{"a": [1, 1]}"#),
            (r#"{"a": ["x", "y"]}"#, r#"{"a": ["xy"]}"#),
            (r#"{"a": null}"#, r#"{"a": 0}"#),
            // Past 15 digits an integer keeps its own rule (DEDUP-NUMBER-INT).
            (
                r#"{"a": 1152921504606846976}"#,
                r#"{"a": 1.152921504606846976e18}"#,
            ),
        ];
        for (a, b) in different {
            assert!(!loosely_equal(&call(a), &call(b)), "{a} {b}");
        }
        assert!(loosely_equal(
            &DedupCall {
                name: "t".into(),
                args: None
            },
            &call("{}")
        ));
        // A NaN equals nothing, not even itself.
        let nan = DedupCall {
            name: "t".into(),
            args: Some([("a".into(), Value::Float(f64::NAN))].into_iter().collect()),
        };
        assert!(!loosely_equal(&nan, &nan));
    }
}
