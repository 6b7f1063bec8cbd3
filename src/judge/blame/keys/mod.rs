//! Reading an implementation's cache keys (RULES B1, B2, B9, E): which call each key
//! belongs to, and which rules of the canonical key it departs from. A key is explained by
//! writing the call's key with up to two plausible departures (unsorted keys, compact
//! separators, no `ensure_ascii`, Python literals, numbers as a one-number-type runtime
//! writes them or, under `float64`, as Python writes them, an escaped name, `null` for
//! absent args, another frame than `name(...)`) and finding the one that matches.

mod args_in_key;
mod explain;
mod features;
mod style;

pub(super) use args_in_key::read_back;
pub(super) use explain::{keys_given, plausible_keys};
pub(super) use features::Features;

use super::ids::*;
use crate::json::{dumps_str, NumberModel, Object, Value};
use features::Numbers;
use style::KeyStyle;

/// One way of writing a key differently from RULES B1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Departure {
    /// Not `name + "(" + args + ")"`.
    Frame(&'static str, &'static str),
    NameQuoted,
    NameEscaped,
    Separators(&'static str, &'static str),
    KeysInInsertionOrder,
    /// In a JavaScript object's own order: integer-like keys first, ascending, then the
    /// others in the order given (`JSON.stringify`, or an object rebuilt in sorted order).
    KeysInObjectOrder,
    KeysSortedAtTopOnly,
    /// Sorted by UTF-16 unit (JavaScript's and Java's default string order), not by code
    /// point: an astral character sorts before U+E000..U+FFFF.
    KeysSortedByUtf16,
    ListsSorted,
    NotAscii,
    UppercaseHex,
    PythonLiterals,
    /// Numbers as `JSON.stringify` writes them: `1.0` as `1`, and the infinities and NaN
    /// as `null`.
    OneNumberType,
    /// Under `python`: a float with no fraction written as the integer it equals, in full
    /// (`int(x)` before the dump: `1.0` as `1`, `8.57e+174` with all its 175 digits).
    FloatsAsIntegers,
    /// Under `python`: the same below 2^53 in magnitude only, where every integer is a
    /// double (JavaScript's safe integers: `abs(x) < 2**53 and x == int(x)`); larger floats
    /// stay floats (`1e+16`).
    SafeFloatsAsIntegers,
    /// Under `float64`: numbers as Python's `json.dumps` writes the literals (`1.0` stays
    /// `1.0`), as if the runtime could tell `1` from `1.0`.
    PythonNumbers,
    /// Under `float64`: every number as Python's `repr` of a float writes the double (`1`
    /// and `1.0` both as `1.0`, `1e16` as `1e+16`), as if a double were a Python float.
    PythonFloats,
    AbsentArgsNull,
    AbsentArgsEmpty,
    /// Found by reading the key back: the args it holds differ from the call's only in
    /// numbers (the requirement says which kind) or only in the order of keys somewhere.
    ReadBack(&'static str),
    /// Found by reading the key back: it holds the call's own values, but a number is
    /// spelled otherwise than the canonical key spells it (a float with digits past its
    /// shortest round trip, `7.1202363472230444e-307` for `7.120236347223045e-307`): a
    /// departure from the number rule of that number's kind, not from the key's format.
    Respelled(&'static str),
}

impl Departure {
    /// Whether this departure changes how numbers are written (and so can make different
    /// numbers one key).
    pub(in crate::judge::blame) fn writes_numbers(self) -> bool {
        match self {
            // Read back, a key that differs only in the order of keys somewhere.
            Departure::ReadBack(requirement) | Departure::Respelled(requirement) => {
                requirement != DEDUP_KEY_ORDER
            }
            // A way of writing every number of a key.
            other => other.setting() == Departure::OneNumberType.setting(),
        }
    }

    /// The setting a departure changes: two of one setting cannot combine.
    pub(in crate::judge::blame) fn setting(self) -> u8 {
        use Departure::*;
        match self {
            Frame(..) => 0,
            NameQuoted | NameEscaped => 1,
            Separators(..) => 2,
            KeysInInsertionOrder | KeysInObjectOrder | KeysSortedAtTopOnly | KeysSortedByUtf16 => 3,
            ListsSorted => 4,
            NotAscii | UppercaseHex => 5,
            PythonLiterals => 6,
            OneNumberType | FloatsAsIntegers | SafeFloatsAsIntegers | PythonNumbers
            | PythonFloats => 7,
            AbsentArgsNull | AbsentArgsEmpty => 8,
            ReadBack(_) | Respelled(_) => 9,
        }
    }

    /// The requirements a departure breaks, given the call's args as written (a spelling of
    /// numbers breaks only the number rules whose numbers it changes: a float's rule when
    /// it changes a literal with a fraction or exponent, an integer's when it changes an
    /// integer literal).
    pub(super) fn requirements(
        self,
        model: NumberModel,
        args: Option<&Object>,
    ) -> Vec<&'static str> {
        match self {
            Departure::Frame(..) | Departure::Separators(..) => vec![DEDUP_KEY_FORMAT],
            Departure::NameQuoted | Departure::NameEscaped => vec![DEDUP_NAME_VERBATIM],
            Departure::KeysInInsertionOrder
            | Departure::KeysInObjectOrder
            | Departure::KeysSortedAtTopOnly
            | Departure::KeysSortedByUtf16 => vec![DEDUP_KEY_ORDER],
            Departure::ListsSorted => vec![DEDUP_KEY_LIST_ORDER],
            Departure::NotAscii | Departure::UppercaseHex => vec![DEDUP_KEY_ASCII],
            Departure::PythonLiterals => vec![DEDUP_KEY_LITERALS],
            Departure::AbsentArgsNull | Departure::AbsentArgsEmpty => vec![DEDUP_KEY_ARGS_DEFAULT],
            Departure::ReadBack(requirement) | Departure::Respelled(requirement) => {
                vec![requirement]
            }
            Departure::OneNumberType if model == NumberModel::Python => {
                let mut numbers = Numbers::default();
                if let Some(args) = args {
                    args.values().for_each(|v| numbers.visit(v));
                }
                let mut broken = Vec::new();
                if numbers.float_differs {
                    broken.push(DEDUP_NUMBER_FLOAT);
                }
                if numbers.int_differs {
                    broken.push(DEDUP_NUMBER_INT);
                }
                if numbers.infinite {
                    broken.push(DEDUP_NUMBER_OVERFLOW);
                }
                broken
            }
            Departure::OneNumberType
            | Departure::FloatsAsIntegers
            | Departure::SafeFloatsAsIntegers
            | Departure::PythonNumbers
            | Departure::PythonFloats => {
                let canonical = KeyStyle::canonical(model);
                let departed = canonical.with(self);
                let mut broken = Vec::new();
                if let Some(args) = args {
                    args.values()
                        .for_each(|v| respelled(model, v, canonical, departed, &mut broken));
                }
                broken
            }
        }
    }

    pub(super) fn describe(self, model: NumberModel) -> String {
        match self {
            Departure::Frame(open, close) => format!(
                "the key is not name + \"(\" + args + \")\" but name + {} + args + {}",
                dumps_str(open),
                dumps_str(close)
            ),
            Departure::NameQuoted => "the name is written as a JSON string, quoted".into(),
            Departure::NameEscaped => "the name is escaped instead of inserted verbatim".into(),
            Departure::Separators(item, key) => format!(
                "the separators are {} and {}, not json.dumps's default \", \" and \": \"",
                dumps_str(item),
                dumps_str(key)
            ),
            Departure::KeysInInsertionOrder => {
                "the object keys are in the order given, not sorted by code point".into()
            }
            Departure::KeysInObjectOrder => {
                "the object keys are in a JavaScript object's order (integer-like keys first, in numeric order, then the others as given), not sorted by code point".into()
            }
            Departure::KeysSortedAtTopOnly => {
                "only the top-level keys are sorted, not the keys of nested objects".into()
            }
            Departure::KeysSortedByUtf16 => {
                "the object keys are sorted by UTF-16 unit, not by code point".into()
            }
            Departure::ListsSorted => "lists were reordered; they must keep their order".into(),
            Departure::NotAscii => {
                "characters outside space..~ are written as themselves, not as \\uXXXX escapes"
                    .into()
            }
            Departure::UppercaseHex => "the \\u escapes use uppercase hex digits".into(),
            Departure::PythonLiterals => {
                "true, false and null are written as Python's True, False and None".into()
            }
            Departure::OneNumberType if model == NumberModel::Float64 => {
                "numbers are written as JSON.stringify writes them (Infinity and NaN as null), not as Number.prototype.toString does".into()
            }
            Departure::OneNumberType => {
                "numbers are written as a runtime with one number type writes them (1.0 as 1)"
                    .into()
            }
            Departure::FloatsAsIntegers => {
                "floats with no fraction are written as the integers they equal (int(x): 1.0 as 1, 1e+16 as 10000000000000000)".into()
            }
            Departure::SafeFloatsAsIntegers => {
                "floats with no fraction below 2^53 are written as the integers they equal (1.0 as 1), larger ones as floats (1e+16 stays 1e+16)".into()
            }
            Departure::PythonNumbers => {
                "numbers are written as Python writes them (1.0 stays 1.0), but the implementation declared float64, where 1 and 1.0 are one number, written as ECMAScript writes it (1)".into()
            }
            Departure::PythonFloats => {
                "numbers are written as Python writes a float (1 as 1.0, 1e16 as 1e+16), but the implementation declared float64, where a number is written as ECMAScript writes it (1, 10000000000000000)".into()
            }
            Departure::AbsentArgsNull => "a call without args is keyed with null, not {}".into(),
            Departure::ReadBack(DEDUP_KEY_ORDER) => {
                "read back, the key holds the call's args with keys in another order somewhere (not sorted by code point at every depth)".into()
            }
            Departure::ReadBack(DEDUP_NUMBER_INT | DEDUP_NUMBER_FLOAT)
                if model == NumberModel::Float64 =>
            {
                "read back, the key holds a number of the call's written otherwise than ECMAScript writes it (the implementation declared float64: 1.0 and 1 are both written 1)".into()
            }
            Departure::ReadBack(DEDUP_NUMBER_INT) => {
                "read back, the key holds an integer other than the call's: integers are written exactly, at any size".into()
            }
            Departure::ReadBack(DEDUP_NUMBER_OVERFLOW) => {
                "read back, the key holds a finite number where the call has an infinity: infinities are written Infinity and -Infinity".into()
            }
            Departure::ReadBack(_) => {
                "read back, the key holds a number other than the call's: a float is written as its repr".into()
            }
            Departure::AbsentArgsEmpty => {
                "a call without args is keyed with nothing between the parentheses, not {}".into()
            }
            Departure::Respelled(DEDUP_NUMBER_INT) => {
                "read back, the key holds the call's own values, but an integer is spelled otherwise than in plain decimal".into()
            }
            Departure::Respelled(_) if model == NumberModel::Float64 => {
                "read back, the key holds the call's own values, but a number is spelled otherwise than ECMAScript's String() writes it (the shortest digits that read back as it)".into()
            }
            Departure::Respelled(_) => {
                "read back, the key holds the call's own values, but a float is spelled otherwise than its repr (the shortest digits that read back as it, the even one on a tie: 7.120236347223045e-307, not 7.1202363472230444e-307)".into()
            }
        }
    }
}

/// The number rules a spelling of numbers breaks in `value` under `model`: for each
/// number it writes otherwise than the canonical key does, the rule of its literal (a
/// float's, an integer's, or, for a number whose double is not finite under `float64`, the
/// overflow rule's).
fn respelled(
    model: NumberModel,
    value: &Value,
    canonical: KeyStyle,
    departed: KeyStyle,
    broken: &mut Vec<&'static str>,
) {
    let (double, literal_rule) = match value {
        Value::Int(i) => (i.to_f64(), DEDUP_NUMBER_INT),
        Value::Float(f) => (*f, DEDUP_NUMBER_FLOAT),
        Value::List(items) => {
            for item in items {
                respelled(model, item, canonical, departed, broken);
            }
            return;
        }
        Value::Object(object) => {
            for item in object.values() {
                respelled(model, item, canonical, departed, broken);
            }
            return;
        }
        Value::Null | Value::Bool(_) | Value::Str(_) => return,
    };
    if canonical.number(value) == departed.number(value) {
        return;
    }
    let rule = if model == NumberModel::Float64 && !double.is_finite() {
        DEDUP_NUMBER_OVERFLOW
    } else {
        literal_rule
    };
    if !broken.contains(&rule) {
        broken.push(rule);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::reference::DedupCall;

    fn call(name: &str, args: &str) -> DedupCall {
        DedupCall {
            name: name.into(),
            args: parse(args).unwrap().as_object().cloned(),
        }
    }

    fn explain(call: &DedupCall, key: &str) -> Option<Vec<Departure>> {
        let plausible = plausible_keys(
            NumberModel::Python,
            call,
            &Features::of(NumberModel::Python, call.args.as_ref()),
        );
        let entries = std::collections::HashSet::from([key]);
        keys_given(&[plausible.as_slice()], &entries)[0]
            .clone()
            .map(|(_, d)| d)
    }

    #[test]
    fn a_json_stringify_key_is_read_as_its_four_departures_and_a_javascript_objects_order() {
        let c = call("f", r#"{"b": {"10": 1, "9": 2, "z": Infinity}, "a": "é"}"#);
        let features = Features::of(NumberModel::Float64, c.args.as_ref());
        let plausible = plausible_keys(NumberModel::Float64, &c, &features);
        // JSON.stringify of the object JavaScript builds from these args.
        let key = r#"f({"b":{"9":2,"10":1,"z":null},"a":"é"})"#;
        let entries = std::collections::HashSet::from([key]);
        let (_, departures) = keys_given(&[plausible.as_slice()], &entries)[0]
            .clone()
            .expect("explained");
        assert_eq!(
            departures,
            vec![
                Departure::KeysInObjectOrder,
                Departure::Separators(",", ":"),
                Departure::NotAscii,
                Departure::OneNumberType
            ]
        );
        // A batch keyed so: the object's order where a call has integer-like keys, the order
        // given where it has none, each call with the departures that concern it.
        let plain = call("f", r#"{"b": 1, "a": "x"}"#);
        let plain_plausible = plausible_keys(
            NumberModel::Float64,
            &plain,
            &Features::of(NumberModel::Float64, plain.args.as_ref()),
        );
        let plain_key = r#"f({"b":1,"a":"x"})"#;
        let entries = std::collections::HashSet::from([key, plain_key]);
        let given = keys_given(
            &[plausible.as_slice(), plain_plausible.as_slice()],
            &entries,
        );
        assert_eq!(given[0].as_ref().unwrap().0, key);
        let plain_departures = &given[1].as_ref().unwrap().1;
        assert_eq!(plain_departures.len(), 2, "{plain_departures:?}");
        assert!(plain_departures.contains(&Departure::KeysInInsertionOrder));
        assert!(plain_departures.contains(&Departure::Separators(",", ":")));
    }

    #[test]
    fn one_keying_function_explains_the_batch() {
        let calls = [
            call("f", r#"{"a": 1, "b": 2}"#),
            call("f", r#"{"b": 2, "a": 1}"#),
        ];
        let plausible: Vec<_> = calls
            .iter()
            .map(|c| {
                plausible_keys(
                    NumberModel::Python,
                    c,
                    &Features::of(NumberModel::Python, c.args.as_ref()),
                )
            })
            .collect();
        let entries =
            std::collections::HashSet::from([r#"f({"a": 1, "b": 2})"#, r#"f({"b": 2, "a": 1})"#]);
        let plausible: Vec<&[_]> = plausible.iter().map(Vec::as_slice).collect();
        let given = keys_given(&plausible, &entries);
        assert_eq!(given[0].as_ref().unwrap().0, r#"f({"a": 1, "b": 2})"#);
        assert_eq!(given[1].as_ref().unwrap().0, r#"f({"b": 2, "a": 1})"#);
        assert_eq!(
            given[1].as_ref().unwrap().1,
            vec![Departure::KeysInInsertionOrder]
        );
    }

    #[test]
    fn departures_are_found_and_named() {
        let c = call("f", r#"{"b": 1.0, "a": "é"}"#);
        assert_eq!(explain(&c, r#"f({"a": "\u00e9", "b": 1.0})"#), Some(vec![]));
        assert_eq!(
            explain(&c, r#"f({"b": 1.0, "a": "\u00e9"})"#),
            Some(vec![Departure::KeysInInsertionOrder])
        );
        assert_eq!(
            explain(&c, r#"f({"a":"\u00e9","b":1.0})"#),
            Some(vec![Departure::Separators(",", ":")])
        );
        assert_eq!(
            explain(&c, r#"f({"a": "é", "b": 1})"#),
            Some(vec![Departure::NotAscii, Departure::OneNumberType])
        );
        assert_eq!(explain(&c, "nothing like it"), None);
        assert_eq!(
            Departure::OneNumberType.requirements(NumberModel::Python, c.args.as_ref()),
            vec![DEDUP_NUMBER_FLOAT]
        );
    }

    #[test]
    fn absent_args_and_names() {
        let c = DedupCall {
            name: "a\"b".into(),
            args: None,
        };
        assert_eq!(explain(&c, "a\"b({})"), Some(vec![]));
        assert_eq!(
            explain(&c, "a\"b(null)"),
            Some(vec![Departure::AbsentArgsNull])
        );
        assert_eq!(
            explain(&c, "a\\\"b({})"),
            Some(vec![Departure::NameEscaped])
        );
    }

    #[test]
    fn a_float_spelled_with_extra_digits_breaks_the_float_rule_not_the_format() {
        // 2^-1017: the correctly rounded 16 digits do not read back, the shortest do.
        let c = call("f", r#"{"b": "7.0", "a": [7.120236347223045e-307]}"#);
        let key = r#"f({"a": [7.1202363472230444e-307], "b": "7.0"})"#;
        for model in [NumberModel::Python, NumberModel::Float64] {
            assert_eq!(
                read_back(model, &c, key),
                Some(Departure::Respelled(DEDUP_NUMBER_FLOAT))
            );
        }
        // Digits that differ inside a string are not a number's.
        let key = r#"f({"a": [7.120236347223045e-307], "b": "7.00"})"#;
        assert_eq!(read_back(NumberModel::Python, &c, key), None);
    }

    #[test]
    fn a_key_holding_other_short_numbers_is_not_read_as_the_calls() {
        // 2 is not 1.0 respelled: numbers of few digits are near only when their digits are.
        let c = call("f", r#"{"xs": [2, 1]}"#);
        for model in [NumberModel::Python, NumberModel::Float64] {
            assert_eq!(read_back(model, &c, r#"f({"xs": [1.0, 2.0]})"#), None);
            assert_eq!(read_back(model, &c, r#"f({"xs": [3, 1]})"#), None);
        }
        assert_eq!(
            read_back(NumberModel::Python, &c, r#"f({"xs": [2.0, 1.0]})"#),
            Some(Departure::ReadBack(DEDUP_NUMBER_INT))
        );
        // 0.30000000000000004 written with fewer digits is still the call's.
        let c = call("f", r#"{"a": 0.30000000000000004}"#);
        assert_eq!(
            read_back(NumberModel::Python, &c, r#"f({"a": 0.3})"#),
            Some(Departure::ReadBack(DEDUP_NUMBER_FLOAT))
        );
    }
}
