//! Invocations compare as multisets: concurrency makes their order meaningless, their
//! count and exact arguments are everything (RULES A6, B4).

use crate::json::{dumps, Style, Value};
use std::collections::HashMap;

/// Invocations a case expected that did not happen, and ones that happened unexpectedly
/// (each repeated as often as it is missing or extra).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InvocationDiff {
    pub missing: Vec<Value>,
    pub unexpected: Vec<Value>,
}

impl InvocationDiff {
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty()
    }
}

/// Whether two invocations are the same one, as [`multiset_difference`] identifies them:
/// the same canonical JSON (`-0.0` is not `0.0`, which `Value`'s equality, Python's, holds
/// equal).
pub fn same_invocation(a: &Value, b: &Value) -> bool {
    dumps(a, Style::CANONICAL) == dumps(b, Style::CANONICAL)
}

/// `expected - actual` and `actual - expected` as multisets. Invocations are identified by
/// their canonical JSON, so the arguments must arrive exactly (`1` is not `1.0`, `-0.0` is
/// not `0.0`), while object key order does not matter.
pub fn multiset_difference(expected: &[Value], actual: &[Value]) -> InvocationDiff {
    // Each invocation's canonical JSON, written once.
    let key = |value: &Value| dumps(value, Style::CANONICAL);
    let expected_keys: Vec<String> = expected.iter().map(key).collect();
    let actual_keys: Vec<String> = actual.iter().map(key).collect();
    // Most passing cases report their invocations in the order expected.
    if expected_keys == actual_keys {
        return InvocationDiff::default();
    }
    let mut balance: HashMap<&str, isize> = HashMap::new();
    for key in &expected_keys {
        *balance.entry(key).or_insert(0) += 1;
    }
    for key in &actual_keys {
        *balance.entry(key).or_insert(0) -= 1;
    }
    let mut diff = InvocationDiff::default();
    // Report in the order the invocations were listed, so the report is stable.
    let listed = expected
        .iter()
        .zip(&expected_keys)
        .chain(actual.iter().zip(&actual_keys));
    for (value, key) in listed {
        if let Some(count) = balance.remove(key.as_str()) {
            let target = if count > 0 {
                &mut diff.missing
            } else {
                &mut diff.unexpected
            };
            target.extend(std::iter::repeat_n(value.clone(), count.unsigned_abs()));
        }
    }
    diff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn values(text: &str) -> Vec<Value> {
        parse(text).unwrap().as_list().unwrap().to_vec()
    }

    #[test]
    fn order_is_ignored_counts_are_not() {
        let expected = values(r#"[{"a": 1}, {"b": 2}, {"b": 2}]"#);
        assert!(
            multiset_difference(&expected, &values(r#"[{"b": 2}, {"a": 1}, {"b": 2}]"#)).is_empty()
        );
        let diff = multiset_difference(&expected, &values(r#"[{"a": 1}, {"a": 1.0}]"#));
        assert_eq!(diff.missing, values(r#"[{"b": 2}, {"b": 2}]"#));
        assert_eq!(diff.unexpected, values(r#"[{"a": 1.0}]"#));
        // Equal values that are not the same JSON (IEEE `==` says -0.0 is 0.0) differ.
        let diff = multiset_difference(&values(r#"[{"a": 0.0}]"#), &values(r#"[{"a": -0.0}]"#));
        assert_eq!(diff.missing, values(r#"[{"a": 0.0}]"#));
        assert_eq!(diff.unexpected, values(r#"[{"a": -0.0}]"#));
    }
}
