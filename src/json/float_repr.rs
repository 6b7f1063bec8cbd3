//! Python's `repr(float)`: the shortest digits that round-trip, laid out by CPython's rules.

/// Writes `value` as CPython's `repr(float)` does (`0.5`, `2.0`, `1e+16`, `1e-05`, `-0.0`,
/// `inf`, `nan`).
pub fn python_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let (digits, decimal_point) = shortest_digits(value.abs());
    format!("{sign}{}", layout(&digits, decimal_point))
}

/// The shortest round-trip digits of a finite non-negative float and the position of the
/// decimal point relative to them (`value = 0.DIGITS * 10^decimal_point`).
///
/// Rust's `{:e}` gives the shortest digit count, but when two candidates of that length are
/// equally close it does not pick the one CPython's `dtoa` picks (round half to even), e.g.
/// `-1500850849754805.25` must print as `…805.2`. So the digits are formatted again at that
/// length with Rust's exact, ties-to-even formatting, kept when they still round-trip.
fn shortest_digits(value: f64) -> (String, i32) {
    let shortest = format!("{value:e}");
    let significant = shortest
        .split_once('e')
        .map_or(0, |(m, _)| m.len() - usize::from(m.contains('.')));
    let exact = format!("{value:.*e}", significant.saturating_sub(1));
    let chosen = if exact.parse::<f64>() == Ok(value) {
        exact
    } else {
        shortest
    };
    let (mantissa, exponent) = chosen
        .split_once('e')
        .expect("`{:e}` always writes an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes a decimal exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (digits.to_owned(), exponent + 1)
}

/// CPython's `float_repr_style = 'short'` layout: fixed notation while
/// `-4 < decimal_point <= 16`, scientific with a signed two-digit exponent otherwise.
fn layout(digits: &str, decimal_point: i32) -> String {
    let count = digits.len() as i32;
    if decimal_point > -4 && decimal_point <= 16 {
        if decimal_point <= 0 {
            format!(
                "0.{}{digits}",
                "0".repeat(decimal_point.unsigned_abs() as usize)
            )
        } else if decimal_point < count {
            let (whole, fraction) = digits.split_at(decimal_point as usize);
            format!("{whole}.{fraction}")
        } else {
            format!("{digits}{}.0", "0".repeat((decimal_point - count) as usize))
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let exponent = decimal_point - 1;
        let sign = if exponent < 0 { '-' } else { '+' };
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::python_repr;

    #[test]
    fn matches_cpython_layouts() {
        let cases = [
            (0.5, "0.5"),
            (2.0, "2.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-5, "1e-05"),
            (1e-4, "0.0001"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (123456.789, "123456.789"),
            // Exactly halfway between ...805.2 and ...805.3: CPython rounds half to even.
            (-1_500_850_849_754_805.0 - 0.25, "-1500850849754805.2"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (value, expected) in cases {
            assert_eq!(python_repr(value), expected, "repr of {value:?}");
        }
    }
}
