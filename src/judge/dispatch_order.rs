//! RULES A6 and C: `execute_tool_calls` may dispatch its accepted calls in any order and
//! concurrently. When identical requests of one batch receive different scripted answers
//! (`count` answering "first", then "second"), which call gets which answer depends on that
//! order, so every assignment some dispatch order could produce is right.
//!
//! Scripted answers are counted per (tool, canonical arguments), so the answers a group of
//! identical requests receives are the same multiset whatever the order; only their
//! assignment to the group's calls varies. The judge therefore accepts an output whose
//! contents within each such group are a permutation of the expected ones.

use crate::json::{NumberModel, Value};
use crate::reference::{canonical_args_in, input, plan, Verdict, DEFAULT_MAX_PARALLEL};
use std::collections::HashMap;

/// `actual` with the contents of every group of identical dispatched requests put in the
/// expected order, where they are a permutation of the expected contents; everything else
/// (ids, other calls, shapes) is left as it is for the judge to compare. Returns `None` when
/// nothing needs moving. Requests are identical as number model `model` sees them.
pub(super) fn align(
    model: NumberModel,
    calls: &Value,
    max_parallel: Option<u64>,
    expected: &Value,
    actual: &Value,
) -> Option<Value> {
    let groups = identical_requests(model, calls, max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL));
    let (Some(expected_list), Some(actual_list)) = (expected.as_list(), actual.as_list()) else {
        return None;
    };
    if expected_list.len() != actual_list.len() {
        return None;
    }
    let mut aligned: Option<Vec<Value>> = None;
    for positions in groups {
        // `get`: a hand-written case may expect fewer messages than it has calls.
        fn at(list: &[Value], i: usize) -> Option<&str> {
            list.get(i).and_then(content)
        }
        let wanted: Option<Vec<&str>> = positions.iter().map(|&i| at(expected_list, i)).collect();
        let given: Option<Vec<&str>> = positions.iter().map(|&i| at(actual_list, i)).collect();
        let (Some(wanted), Some(given)) = (wanted, given) else {
            continue;
        };
        if wanted == given || !same_multiset(&wanted, &given) {
            continue;
        }
        let list = aligned.get_or_insert_with(|| actual_list.to_vec());
        for (&position, text) in positions.iter().zip(&wanted) {
            if let Some(Value::Object(message)) = list.get_mut(position) {
                message.insert("content".into(), Value::Str((*text).to_owned().into()));
            }
        }
    }
    aligned.map(Value::List)
}

/// The 0-based positions of the dispatched calls of a batch, grouped by canonical request,
/// keeping only groups of two or more (a lone request has one possible answer).
fn identical_requests(model: NumberModel, calls: &Value, max_parallel: u64) -> Vec<Vec<usize>> {
    // A batch outside the domain was refused by the loader; it has no groups.
    let Ok(calls) = input::tool_calls(calls) else {
        return Vec::new();
    };
    let decisions = plan(&calls, max_parallel);
    let empty = crate::json::Object::new();
    let mut groups: HashMap<(String, String), Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (index, (call, decision)) in calls.iter().zip(&decisions).enumerate() {
        if decision.verdict != Verdict::Dispatch {
            continue;
        }
        let key = (
            call.tool.clone(),
            canonical_args_in(model, call.arguments.as_ref().unwrap_or(&empty)),
        );
        let group = groups.entry(key.clone()).or_default();
        if group.is_empty() {
            order.push(key);
        }
        group.push(index);
    }
    order
        .into_iter()
        .filter_map(|key| groups.remove(&key))
        .filter(|positions| positions.len() > 1)
        .collect()
}

/// The `content` of a message, when it is an object holding a string there.
fn content(message: &Value) -> Option<&str> {
    match message {
        Value::Object(object) => match object.get("content") {
            Some(Value::Str(text)) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

fn same_multiset(a: &[&str], b: &[&str]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn messages(contents: &[&str]) -> Value {
        Value::List(
            contents
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    parse(&format!(
                        r#"{{"role": "tool", "tool_call_id": "call_{}", "content": {}}}"#,
                        i + 1,
                        crate::json::dumps_str(c)
                    ))
                    .unwrap()
                })
                .collect(),
        )
    }

    const TWO_COUNTS: &str =
        r#"[{"tool": "count"}, {"tool": "other"}, {"tool": "count", "arguments": {}}]"#;

    #[test]
    fn a_reversed_assignment_of_identical_requests_is_aligned() {
        let calls = parse(TWO_COUNTS).unwrap();
        let expected = messages(&["first", "x", "second"]);
        let actual = messages(&["second", "x", "first"]);
        assert_eq!(
            align(NumberModel::Python, &calls, None, &expected, &actual),
            Some(expected)
        );
    }

    #[test]
    fn answers_no_order_could_give_are_left_for_the_judge() {
        let calls = parse(TWO_COUNTS).unwrap();
        let expected = messages(&["first", "x", "second"]);
        // Both calls got the first answer: the tool ran once, or the cache was shared.
        assert_eq!(
            align(
                NumberModel::Python,
                &calls,
                None,
                &expected,
                &messages(&["first", "x", "first"])
            ),
            None
        );
        // Different requests never trade answers.
        assert_eq!(
            align(
                NumberModel::Python,
                &calls,
                None,
                &expected,
                &messages(&["x", "first", "second"])
            ),
            None
        );
    }

    #[test]
    fn calls_that_are_not_dispatched_are_not_grouped() {
        let calls = parse(TWO_COUNTS).unwrap();
        // With a limit of 1, only the first call is dispatched: nothing can be reordered.
        let expected = messages(&["first", "limit", "limit"]);
        assert_eq!(
            align(
                NumberModel::Python,
                &calls,
                Some(1),
                &expected,
                &messages(&["limit", "limit", "first"])
            ),
            None
        );
    }

    #[test]
    fn a_case_expecting_fewer_messages_than_calls_is_no_panic() {
        let calls = parse(TWO_COUNTS).unwrap();
        let short = messages(&["first"]);
        assert_eq!(
            align(NumberModel::Python, &calls, None, &short, &short),
            None
        );
    }

    #[test]
    fn requests_are_grouped_by_canonical_text() {
        // `0.0` and `-0.0` are equal numbers but different requests.
        let calls = parse(r#"[{"tool": "add", "arguments": {"a": 0.0}}, {"tool": "add", "arguments": {"a": -0.0}}]"#).unwrap();
        assert!(identical_requests(NumberModel::Python, &calls, 4).is_empty());
        let calls = parse(r#"[{"tool": "add", "arguments": {"a": 1, "b": 2}}, {"tool": "add", "arguments": {"b": 2, "a": 1}}]"#).unwrap();
        assert_eq!(
            identical_requests(NumberModel::Python, &calls, 4),
            vec![vec![0, 1]]
        );
    }

    #[test]
    fn under_float64_one_and_one_point_zero_are_one_request() {
        let calls = parse(r#"[{"tool": "add", "arguments": {"a": 1.0}}, {"tool": "add", "arguments": {"a": 1}}, {"tool": "add", "arguments": {"a": true}}]"#).unwrap();
        assert!(identical_requests(NumberModel::Python, &calls, 4).is_empty());
        assert_eq!(
            identical_requests(NumberModel::Float64, &calls, 4),
            vec![vec![0, 1]]
        );
    }
}
