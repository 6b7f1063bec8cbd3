//! ECMAScript's `Number.prototype.toString` (radix 10), the number format of
//! `JSON.stringify`: how a runtime with one number type (RULES E) writes a number.

use super::float_repr::shortest_digits;

/// Writes `value` as ECMAScript does: `1`, `0.5`, `1e+21`, `1e-7`, `-0` as `0`, `NaN`,
/// `Infinity`.
pub fn ecmascript_number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value == 0.0 {
        return "0".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    // The shortest digits that round-trip, the closest to the value, ties to even: what
    // ECMAScript requires (Number::toString, step 5) and CPython's repr also writes.
    let mut buffer = [0u8; 24];
    let (count, decimal_point) = shortest_digits(value.abs(), &mut buffer);
    let digits = std::str::from_utf8(&buffer[..count]).expect("ASCII digits");
    let k = count as i64;
    let n = i64::from(decimal_point);
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let sign = if n - 1 < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{first}{fraction}e{sign}{}", (n - 1).abs())
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::ecmascript_number;

    #[test]
    fn writes_numbers_as_json_stringify_does() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
            (-2.5, "-2.5"),
            (1e16, "10000000000000000"),
            (9007199254740993.0, "9007199254740992"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
            // Exactly halfway between two shortest candidates: ECMAScript takes the even one
            // (Number::toString, step 5), as CPython's repr does; Rust's `{:e}` does not.
            (257_777_001_483_431.0 + 0.125, "257777001483431.12"),
            (-1_500_850_849_754_805.0 - 0.25, "-1500850849754805.2"),
        ];
        for (value, expected) in cases {
            assert_eq!(ecmascript_number(*value), *expected, "{value:e}");
        }
    }
}
