//! Invocations compare as multisets: concurrency makes their order meaningless, their
//! count and exact arguments are everything (RULINGS A6, B4).

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

/// `expected - actual` and `actual - expected` as multisets. Invocations are identified by
/// their canonical JSON, so the arguments must arrive exactly (`1` is not `1.0`, `-0.0` is
/// not `0.0`), while object key order does not matter.
pub fn multiset_difference(expected: &[Value], actual: &[Value]) -> InvocationDiff {
    let mut balance: HashMap<String, (isize, &Value)> = HashMap::new();
    for value in expected {
        balance
            .entry(dumps(value, Style::CANONICAL))
            .or_insert((0, value))
            .0 += 1;
    }
    for value in actual {
        balance
            .entry(dumps(value, Style::CANONICAL))
            .or_insert((0, value))
            .0 -= 1;
    }
    let mut diff = InvocationDiff::default();
    // Report in the order the invocations were listed, so the report is stable.
    for value in expected.iter().chain(actual) {
        let key = dumps(value, Style::CANONICAL);
        if let Some((count, _)) = balance.remove(&key) {
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
    }
}
