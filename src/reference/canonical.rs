//! Canonical call keys (RULINGS B1, B2): `name + "(" + json.dumps(args, sort_keys=True) + ")"`.

use crate::json::{dumps_object, Object, Style};

/// `json.dumps(args, sort_keys=True)`, byte for byte as CPython writes it.
pub fn canonical_args(args: &Object) -> String {
    dumps_object(args, Style::CANONICAL)
}

/// The cache key of a call: the name verbatim (RULINGS B9), then the canonical args.
pub fn canonical_key(name: &str, args: Option<&Object>) -> String {
    let args = args.map_or_else(|| "{}".to_owned(), canonical_args);
    format!("{name}({args})")
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
}
