//! The corners implementations in other languages found past every fixed case and
//! thousands of generated ones (powers of two whose repr is not correctly rounded, ties in
//! a shortest repr, integer-like object keys, tool names a JavaScript object inherits) are
//! drawn in every default run of `parcall check`, several times each.

use crate::common::subjects;
use parcall::fuzz::generated_cases;
use parcall::generate::cases::INHERITED_NAMES;
use parcall::json::{python_repr, Value};
use parcall::spec::{Case, Function};

/// Generated cases per function in a default run.
const DEFAULT_FUZZ: usize = 500;

/// How many cases of a default run show each corner, at least.
const LEAST: usize = 5;

#[derive(Default, Debug)]
struct Corners {
    lopsided_powers: usize,
    ties: usize,
    integer_like_keys: usize,
    inherited_names: usize,
}

/// A power of two whose repr is not the correctly rounded number of its length: rounded
/// to repr's length, its exact value is another double.
fn lopsided_power(x: f64) -> bool {
    let repr = python_repr(x.abs());
    let digits = repr
        .split('e')
        .next()
        .unwrap()
        .replace('.', "")
        .trim_matches('0')
        .len();
    x != 0.0
        && x.is_finite()
        && x.abs().to_bits() & ((1 << 52) - 1) == 0
        && format!("{:.*e}", digits - 1, x.abs()).parse::<f64>() != Ok(x.abs())
}

/// A float whose shortest repr is a tie between two neighbours of the same length.
fn tie(x: f64) -> bool {
    let size = x.abs();
    (2f64.powi(49)..2f64.powi(51)).contains(&size) && [0.25, 0.75].contains(&size.fract())
}

fn floats(value: &Value, out: &mut Vec<f64>) {
    match value {
        Value::Float(f) => out.push(*f),
        Value::List(items) => items.iter().for_each(|v| floats(v, out)),
        Value::Object(object) => object.values().for_each(|v| floats(v, out)),
        _ => {}
    }
}

fn has_integer_like_keys(value: &Value) -> bool {
    match value {
        Value::List(items) => items.iter().any(has_integer_like_keys),
        Value::Object(object) => {
            let keys: Vec<&str> = object.keys().map(|k| k.as_str()).collect();
            (keys.contains(&"10") && keys.contains(&"9"))
                || object.values().any(has_integer_like_keys)
        }
        _ => false,
    }
}

fn corners_of(seed: u64) -> Corners {
    let spec = subjects::spec();
    let mut corners = Corners::default();
    for case in generated_cases(Function::RunParallelCalls, &spec.cases, DEFAULT_FUZZ, seed) {
        let Case::Dedup(case) = case.case.as_ref() else {
            continue;
        };
        let calls = Value::List(case.batches.iter().map(|b| b.calls.clone()).collect());
        let mut numbers = Vec::new();
        floats(&calls, &mut numbers);
        corners.lopsided_powers += usize::from(numbers.iter().any(|&x| lopsided_power(x)));
        corners.ties += usize::from(numbers.iter().any(|&x| tie(x)));
        corners.integer_like_keys += usize::from(has_integer_like_keys(&calls));
        let names = parcall::json::dumps(&calls, parcall::json::Style::PYTHON);
        corners.inherited_names += usize::from(
            INHERITED_NAMES
                .iter()
                .any(|name| names.contains(&format!("\"name\": \"{name}\""))),
        );
    }
    corners
}

#[test]
fn every_default_run_draws_each_corner_several_times() {
    for seed in 1..=3 {
        let corners = corners_of(seed);
        let Corners {
            lopsided_powers,
            ties,
            integer_like_keys,
            inherited_names,
        } = corners;
        assert!(
            [lopsided_powers, ties, integer_like_keys, inherited_names]
                .iter()
                .all(|&n| n >= LEAST),
            "seed {seed}: {corners:?}"
        );
    }
}

#[test]
fn the_detectors_know_the_corners() {
    assert!(lopsided_power(2f64.powi(-24)));
    assert!(!lopsided_power(2f64.powi(-25)));
    assert!(!lopsided_power(0.1));
    // 562949953421503.25 is a tie; 562949953421503.5 is not.
    assert!(tie(2f64.powi(49) + 191.25));
    assert!(!tie(2f64.powi(49) + 191.5));
}
