//! Python's `repr(float)`: the shortest digits that round-trip, laid out by CPython's rules.

/// Writes `value` as CPython's `repr(float)` does (`0.5`, `2.0`, `1e+16`, `1e-05`, `-0.0`,
/// `inf`, `nan`).
pub fn python_repr(value: f64) -> String {
    let mut out = String::with_capacity(24);
    write_python_repr(&mut out, value);
    out
}

/// The exact decimal digits of an integral double, as Python's `int(x)` writes them
/// (`1.0` as `1`, `1e+16` as `10000000000000000`, `8.57e+174` with all 175 digits); `None`
/// for an infinity, NaN or a double with a fraction.
pub fn exact_integer(value: f64) -> Option<String> {
    if !value.is_finite() || value.fract() != 0.0 {
        return None;
    }
    if value.abs() < 1e15 {
        // Exact in an i64; `-0.0` is `0`, as `int(-0.0)` is.
        return Some((value as i64).to_string());
    }
    let bits = value.abs().to_bits();
    // Every double of 1e15 or more is normal: mantissa × 2^shift, the mantissa with its
    // implicit leading bit.
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    let shift = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let (start, doublings) = if shift < 0 {
        // Integral, so the bits shifted out are zeros.
        (mantissa >> -shift, 0)
    } else {
        (mantissa, shift)
    };
    // Base 10^9, least significant limb first.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs = vec![start % LIMB, (start / LIMB) % LIMB, start / (LIMB * LIMB)];
    for _ in 0..doublings {
        let mut carry = 0;
        for limb in limbs.iter_mut() {
            let doubled = *limb * 2 + carry;
            *limb = doubled % LIMB;
            carry = doubled / LIMB;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut out = String::with_capacity(limbs.len() * 9 + 1);
    if value < 0.0 {
        out.push('-');
    }
    let mut rest = limbs.iter().rev();
    if let Some(first) = rest.next() {
        out.push_str(&first.to_string());
    }
    for limb in rest {
        // Nine digits each, leading zeros kept.
        let digits = limb.to_string();
        out.extend(std::iter::repeat_n('0', 9 - digits.len()));
        out.push_str(&digits);
    }
    Some(out)
}

/// [`python_repr`] appended to `out`, without allocating: this is on the hot path of every
/// canonical key.
pub(super) fn write_python_repr(out: &mut String, value: f64) {
    if value.is_nan() {
        out.push_str("nan");
        return;
    }
    if value.is_infinite() {
        out.push_str(if value > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    if short_decimal(out, value.abs()) {
        return;
    }
    write_shortest(out, value.abs());
}

/// CPython's repr of a finite non-negative float, translated from zmij's text rather than
/// laid out again from its digits (reading the digits off the text and writing them back
/// was most of a float's cost). zmij writes the shortest round-trip digits, as CPython does
/// (the tests hold it to Ryu's digits, see [`shortest_digits`]), in fixed notation for
/// `1e-5 <= value < 1e16` and otherwise as `D.DDDe+NN`; CPython differs on `[1e-5, 1e-4)`,
/// which it writes as `D.DDe-05` (zmij: `0.0000DDD`), and pads a one-digit negative
/// exponent (`1e-07`, zmij: `1e-7`). zmij rather than Ryu: half the time per float.
fn write_shortest(out: &mut String, value: f64) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(value);
    if let Some(digits) = text.strip_prefix("0.0000") {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str("e-05");
        return;
    }
    let bytes = text.as_bytes();
    // `e-D` at the end: the only exponent CPython writes with one more digit.
    if bytes.len() > 3 && bytes[bytes.len() - 3..bytes.len() - 1] == *b"e-" {
        let (head, last) = text.split_at(text.len() - 1);
        out.push_str(head);
        out.push('0');
        out.push_str(last);
    } else {
        out.push_str(text);
    }
}

/// The fast path for the short decimals tool arguments are made of (`12.5`, `0.25`, `3.0`):
/// when `value * 10^d` is an integer `n` for some `d <= 6`, with `value` in
/// `[1e-4, 2^30)`, the smallest such `d` (trailing zeros trimmed) gives CPython's repr: `n / 10^d` is the correctly
/// rounded quotient of two exact doubles, so it parses back to `value`, and below 2^30 a
/// double's spacing (at most 2^-22) is finer than 10^-6, so no other `d`-digit decimal
/// does. Returns false (writing nothing) when it does not apply.
fn short_decimal(out: &mut String, value: f64) -> bool {
    const POWERS: [f64; 7] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6];
    if !(1e-4..1_073_741_824.0).contains(&value) {
        return false;
    }
    for (d, power) in POWERS.iter().enumerate() {
        let scaled = value * power;
        let n = scaled.round();
        if n != scaled || n / power != value {
            continue;
        }
        // Rounding in `value * power` can hide a smaller `d`: trailing zeros give it back.
        let (mut n, mut d) = (n as u64, d);
        while d > 0 && n % 10 == 0 {
            n /= 10;
            d -= 1;
        }
        let mut buffer = itoa::Buffer::new();
        let digits = buffer.format(n);
        if d == 0 {
            out.push_str(digits);
            out.push_str(".0");
        } else if digits.len() > d {
            let (whole, fraction) = digits.split_at(digits.len() - d);
            out.push_str(whole);
            out.push('.');
            out.push_str(fraction);
        } else {
            out.push_str("0.");
            (0..d - digits.len()).for_each(|_| out.push('0'));
            out.push_str(digits);
        }
        return true;
    }
    false
}

/// The shortest round-trip digits of a finite non-negative float, written into `digits`,
/// and the position of the decimal point relative to them
/// (`value = 0.DIGITS * 10^decimal_point`). Returns the digit count.
///
/// Ryu finds the shortest digits and, when two candidates of that length are equally close
/// to the exact value, rounds half to even, exactly as CPython's `dtoa` mode 0 does (e.g.
/// `-1500850849754805.25` prints as `…805.2`; Rust's own `{:e}` would print `…805.3`).
pub(super) fn shortest_digits(value: f64, digits: &mut [u8; 24]) -> (usize, i32) {
    let mut buffer = ryu::Buffer::new();
    // Ryu writes `D.DDDeN`, `DDD.DDD` or `0.000DDD`; read the digits and the point off it.
    let text = buffer.format_finite(value).as_bytes();
    let (mantissa, exponent) = match text.iter().position(|b| *b == b'e') {
        Some(at) => (&text[..at], parse_exponent(&text[at + 1..])),
        None => (text, 0),
    };
    let mut count = 0;
    let mut whole_digits = 0i32;
    let mut seen_point = false;
    let mut leading_zeros = 0i32;
    for &byte in mantissa {
        if byte == b'.' {
            seen_point = true;
            continue;
        }
        if !seen_point {
            whole_digits += 1;
        }
        if count == 0 && byte == b'0' {
            leading_zeros += 1;
            continue;
        }
        digits[count] = byte;
        count += 1;
    }
    while count > 0 && digits[count - 1] == b'0' {
        count -= 1;
    }
    if count == 0 {
        digits[0] = b'0';
        return (1, 1);
    }
    (count, whole_digits - leading_zeros + exponent)
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits
        .iter()
        .fold(0i32, |n, d| n * 10 + i32::from(d - b'0'));
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// CPython's `float_repr_style = 'short'` layout: fixed notation while
/// `-4 < decimal_point <= 16`, scientific with a signed two-digit exponent otherwise. The
/// rules as CPython states them, kept as the oracle of [`write_shortest`].
#[cfg(test)]
fn layout(out: &mut String, digits: &str, decimal_point: i32) {
    let count = digits.len() as i32;
    let zeros = |out: &mut String, n: i32| (0..n).for_each(|_| out.push('0'));
    if decimal_point > -4 && decimal_point <= 16 {
        if decimal_point <= 0 {
            out.push_str("0.");
            zeros(out, -decimal_point);
            out.push_str(digits);
        } else if decimal_point < count {
            let (whole, fraction) = digits.split_at(decimal_point as usize);
            out.push_str(whole);
            out.push('.');
            out.push_str(fraction);
        } else {
            out.push_str(digits);
            zeros(out, decimal_point - count);
            out.push_str(".0");
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exponent = decimal_point - 1;
        out.push_str(if exponent < 0 { "e-" } else { "e+" });
        let magnitude = exponent.unsigned_abs();
        if magnitude < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(magnitude));
    }
}

#[cfg(test)]
mod tests {

    /// Integral doubles written out in full, as CPython 3.11's `int(x)` printed them.
    #[test]
    fn exact_integers_are_what_python_s_int_writes() {
        for (value, expected) in [
            (1000000000000000.0_f64, "1000000000000000"),
            (9007199254740992.0_f64, "9007199254740992"),
            (1e+16_f64, "10000000000000000"),
            (8.57e+174_f64, "8569999999999999661747342515478744755966017499223000049642956630815524452269155191277095568010155080796288893770619060877345580076249754542347399686563132128781294060554944512"),
            (-7.306107542337782e+199_f64, "-73061075423377822645515799092237926897588992563314234206394847998648424266706941046237049278468717915984953980563341909852745270029930163501496736115574180889276690847274656084339722655740292075880448"),
            (1.7976931348623157e+308_f64, "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368"),
            (1.2345678901234568e+17_f64, "123456789012345680"),
            (-1000000000000000.0_f64, "-1000000000000000"),
            (4503599627370497.0_f64, "4503599627370497"),
            (0.5_f64, ""),
            (-0.0_f64, "0"),
            (f64::INFINITY, ""),
            (f64::NAN, ""),
        ] {
            let written = super::exact_integer(value).unwrap_or_default();
            assert_eq!(written, expected, "{value:e}");
        }
    }
    use super::{layout, python_repr, shortest_digits, write_shortest};
    use proptest::prelude::*;

    /// [`write_shortest`] against CPython's layout rules applied to the same digits.
    fn check_against_the_layout(value: f64) -> Result<(), TestCaseError> {
        let mut digits = [0u8; 24];
        let (count, decimal_point) = shortest_digits(value, &mut digits);
        let mut expected = String::new();
        layout(
            &mut expected,
            std::str::from_utf8(&digits[..count]).unwrap(),
            decimal_point,
        );
        let mut written = String::new();
        write_shortest(&mut written, value);
        prop_assert_eq!(written, expected, "{:e}", value);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn the_text_written_is_cpythons_layout_of_ryus_digits(bits in any::<u64>()) {
            let value = f64::from_bits(bits).abs();
            prop_assume!(value.is_finite());
            check_against_the_layout(value)?;
        }

        #[test]
        fn around_the_layouts_boundaries_too(exponent in -330i32..310, mantissa in 1u32..100_000) {
            let value = f64::from(mantissa) * 10f64.powi(exponent);
            prop_assume!(value.is_finite());
            check_against_the_layout(value)?;
        }
    }

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
