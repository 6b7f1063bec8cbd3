//! Canonical call keys (RULES B1, B2): `name + "(" + json.dumps(args, sort_keys=True) + ")"`,
//! and under the `float64` number model (RULES E) the same with numbers written as
//! ECMAScript writes doubles.

use crate::json::{dumps_object, NumberModel, Object, Style};

/// `json.dumps(args, sort_keys=True)`, byte for byte as CPython writes it.
pub fn canonical_args(args: &Object) -> String {
    canonical_args_in(NumberModel::Python, args)
}

/// The canonical args under a number model: under `float64`, `{"a": 1.0}` is `{"a": 1}`.
pub fn canonical_args_in(model: NumberModel, args: &Object) -> String {
    dumps_object(args, Style::canonical(model))
}

/// The cache key of a call: the name verbatim (RULES B9), then the canonical args.
pub fn canonical_key(name: &str, args: Option<&Object>) -> String {
    canonical_key_in(NumberModel::Python, name, args)
}

/// The cache key of a call under a number model.
pub fn canonical_key_in(model: NumberModel, name: &str, args: Option<&Object>) -> String {
    let args = args.map_or_else(|| "{}".to_owned(), |args| canonical_args_in(model, args));
    key_of(name, &args)
}

/// The cache key of a call whose canonical args are already written: `name(args)`.
pub fn key_of(name: &str, canonical_args: &str) -> String {
    format!("{name}({canonical_args})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn key(name: &str, args: &str) -> String {
        let args = parse(args).unwrap();
        canonical_key(name, args.as_object())
    }

    #[test]
    fn seed_example_keys() {
        assert_eq!(
            key("search", r#"{"q": "cats"}"#),
            r#"search({"q": "cats"})"#
        );
        assert_eq!(canonical_key("ping", None), "ping({})");
        assert_eq!(key("f", r#"{"b": 2, "a": 1}"#), r#"f({"a": 1, "b": 2})"#);
    }

    #[test]
    fn float64_keys_write_numbers_as_ecmascript() {
        let float64 = |args: &str| {
            let args = parse(args).unwrap();
            canonical_key_in(NumberModel::Float64, "f", args.as_object())
        };
        assert_eq!(float64(r#"{"a": 1.0}"#), float64(r#"{"a": 1}"#));
        assert_eq!(
            float64(r#"{"b": [1e-7, 1e21, 1e16, -0.0, 0.5], "a": "\u00e9", "c": true}"#),
            r#"f({"a": "\u00e9", "b": [1e-7, 1e+21, 10000000000000000, 0, 0.5], "c": true})"#
        );
        assert_eq!(
            float64(r#"{"a": [9007199254740993, NaN, 1e400, -1e400]}"#),
            r#"f({"a": [9007199254740992, NaN, Infinity, -Infinity]})"#
        );
        assert_eq!(
            float64(&format!(r#"{{"a": {}}}"#, "9".repeat(4300))),
            r#"f({"a": Infinity})"#
        );
        assert_eq!(key("f", r#"{"a": 1.0}"#), r#"f({"a": 1.0})"#);
    }
}
