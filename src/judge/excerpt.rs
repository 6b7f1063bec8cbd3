//! Bounded excerpts of what an implementation sent back, made once, when an outcome is made:
//! every report of a case (and every result a run keeps until it ends) holds an excerpt of
//! each long string and text, saying how much was cut, instead of the whole value. A reply
//! within its bounds (`runner::bounds`) can still hold megabytes, and each format used to
//! print them whole, several times over, for every case.
//!
//! A string is cut around the first place it differs from its counterpart on the other
//! side, so a diff still shows the difference, and strings that were equal (or different)
//! stay equal (or different). A list keeps [`ITEMS`] items past its first difference, and an
//! object [`ITEMS`] members beyond the ones its counterpart has, a last item (member `…`)
//! saying how many more there were: the first difference keeps its JSON Pointer, and the
//! items before it are no larger than the counterpart, which is the spec's.

use super::{Failure, Outcome};
use crate::json::{Object, Value};
use std::borrow::Cow;
use std::collections::HashSet;

/// The most characters kept of one string inside a value (an output, an invocation).
pub const VALUE_CHARS: usize = 200;
/// The most characters kept of a message or a traceback.
pub const TEXT_CHARS: usize = 4_000;
/// The most items of a list, members of an object or invocations of a failure kept beyond
/// what the first difference needs.
pub const ITEMS: usize = 50;
/// Of a window, the share shown before the character it is placed around.
const BEFORE: usize = 4;

/// `outcome` with each of its values and texts cut to an excerpt.
pub fn outcome(outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::Fail(failure) => Outcome::Fail(self::failure(failure)),
        Outcome::Skipped { reason } => Outcome::Skipped {
            reason: head(reason, TEXT_CHARS),
        },
        Outcome::Pass => Outcome::Pass,
    }
}

fn failure(failure: Failure) -> Failure {
    match failure {
        Failure::WrongOutput {
            batch,
            mut expected,
            mut actual,
        } => {
            pair(&mut expected, &mut actual);
            Failure::WrongOutput {
                batch,
                expected,
                actual,
            }
        }
        Failure::WrongInvocations { batch, mut diff } => {
            cap_list(&mut diff.missing, ITEMS);
            cap_list(&mut diff.unexpected, ITEMS);
            diff.missing.iter_mut().for_each(alone);
            diff.unexpected.iter_mut().for_each(alone);
            Failure::WrongInvocations { batch, diff }
        }
        Failure::Exception {
            batch,
            message,
            traceback,
        } => Failure::Exception {
            batch,
            message: head(message, TEXT_CHARS),
            // The end of a traceback names the exception and the frame that raised it.
            traceback: tail(traceback, TEXT_CHARS),
        },
        Failure::Crash { message } => Failure::Crash {
            message: head(message, TEXT_CHARS),
        },
        Failure::Protocol { message } => Failure::Protocol {
            message: head(message, TEXT_CHARS),
        },
        kept @ (Failure::Timeout { .. } | Failure::NotImplemented) => kept,
    }
}

/// At most `keep` characters of `text`, in a window placed around the character at index
/// `around` (about a quarter of it before), with what was cut said on either side:
/// `(1,200 characters before) …` and `… (259,800 more characters)`.
pub fn excerpt(text: &str, around: usize, keep: usize) -> Cow<'_, str> {
    let total = text.chars().count();
    if total <= keep {
        return Cow::Borrowed(text);
    }
    let start = around.saturating_sub(keep / BEFORE).min(total - keep);
    let end = start + keep;
    let mut out = String::with_capacity(keep + 64);
    if start > 0 {
        out.push_str(&format!("({} characters before) …", grouped(start)));
    }
    out.extend(text.chars().skip(start).take(keep));
    if end < total {
        out.push_str(&format!("… ({} more characters)", grouped(total - end)));
    }
    Cow::Owned(out)
}

/// The beginning of `text`.
fn head(text: String, keep: usize) -> String {
    match excerpt(&text, 0, keep) {
        Cow::Borrowed(_) => text,
        Cow::Owned(cut) => cut,
    }
}

/// The end of `text`.
fn tail(text: String, keep: usize) -> String {
    match excerpt(&text, usize::MAX, keep) {
        Cow::Borrowed(_) => text,
        Cow::Owned(cut) => cut,
    }
}

/// `259800` as `259,800`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Cuts the strings of `expected` and `actual` where they stand at the same place, each
/// around where the two first differ; what only one side has is cut from its beginning.
fn pair(expected: &mut Value, actual: &mut Value) {
    match (expected, actual) {
        (Value::Str(e), Value::Str(a)) => {
            let around = e
                .as_str()
                .chars()
                .zip(a.as_str().chars())
                .take_while(|(x, y)| x == y)
                .count();
            cut(e, around);
            cut(a, around);
        }
        (Value::List(e), Value::List(a)) => {
            let shared = e.len().min(a.len());
            let first = e.iter().zip(a.iter()).position(|(x, y)| x != y);
            let keep = first.unwrap_or(shared) + ITEMS;
            cap_list(e, keep);
            cap_list(a, keep);
            for (x, y) in e.iter_mut().zip(a.iter_mut()) {
                pair(x, y);
            }
            let shared = e.len().min(a.len());
            e.iter_mut().skip(shared).for_each(alone);
            a.iter_mut().skip(shared).for_each(alone);
        }
        (Value::Object(e), Value::Object(a)) => {
            cap_object(a, |key| e.contains_key(key));
            for (key, y) in a.iter_mut() {
                match e.get_mut(key.as_str()) {
                    Some(x) => pair(x, y),
                    None => alone(y),
                }
            }
            let only_expected: Vec<String> = e
                .keys()
                .filter(|k| !a.contains_key(k.as_str()))
                .map(|k| k.as_str().to_owned())
                .collect();
            for key in only_expected {
                e.get_mut(&key).into_iter().for_each(alone);
            }
            keys(e);
            keys(a);
        }
        (e, a) => {
            alone(e);
            alone(a);
        }
    }
}

/// Cuts every string of `value` from its beginning.
fn alone(value: &mut Value) {
    match value {
        Value::Str(text) => cut(text, 0),
        Value::List(items) => {
            cap_list(items, ITEMS);
            items.iter_mut().for_each(alone);
        }
        Value::Object(members) => {
            cap_object(members, |_| false);
            members.values_mut().for_each(alone);
            keys(members);
        }
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {}
    }
}

/// The first `keep` items of `items`, then one saying how many more there were (when that
/// saves anything).
fn cap_list(items: &mut Vec<Value>, keep: usize) {
    if items.len() > keep + 1 {
        let more = items.len() - keep;
        items.truncate(keep);
        items.push(Value::Str(
            format!("… ({} more items)", grouped(more)).into(),
        ));
    }
}

/// The members of `object` whose key is `wanted`, the first [`ITEMS`] others, and a last
/// member `…` saying how many more there were (when that saves anything).
fn cap_object(object: &mut Object, wanted: impl Fn(&str) -> bool) {
    let others = object.keys().filter(|k| !wanted(k.as_str())).count();
    if others <= ITEMS + 1 {
        return;
    }
    let mut kept = 0;
    let mut members: Vec<_> = object
        .iter()
        .filter(|(k, _)| {
            wanted(k.as_str()) || {
                kept += 1;
                kept <= ITEMS
            }
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let note = format!("({} more members)", grouped(others - ITEMS));
    members.push(("…".into(), Value::Str(note.into())));
    *object = Object::from_members(members);
}

fn cut(text: &mut crate::json::Text, around: usize) {
    if let Cow::Owned(cut) = excerpt(text.as_str(), around, VALUE_CHARS) {
        *text = cut.into();
    }
}

/// Long keys cut from their beginning, unless two would then be one key: the members, and
/// the pointers to them, stay as they were.
fn keys(object: &mut Object) {
    if object.keys().all(|k| k.as_str().len() <= VALUE_CHARS) {
        return;
    }
    let members: Vec<(String, Value)> = object
        .iter()
        .map(|(k, v)| (excerpt(k.as_str(), 0, VALUE_CHARS).into_owned(), v.clone()))
        .collect();
    let mut seen = HashSet::with_capacity(members.len());
    if members.iter().all(|(k, _)| seen.insert(k.as_str())) {
        *object = Object::from_members(members.into_iter().map(|(k, v)| (k.into(), v)).collect());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn short_texts_are_kept_whole_and_long_ones_say_what_was_cut() {
        assert_eq!(excerpt("short", 0, 10), "short");
        let long = "é".repeat(260_000);
        let head = excerpt(&long, 0, 200);
        assert!(head.ends_with("… (259,800 more characters)"), "{head}");
        assert_eq!(head.chars().filter(|c| *c == 'é').count(), 200);
        let tail = excerpt(&long, usize::MAX, 200);
        assert!(tail.starts_with("(259,800 characters before) …"), "{tail}");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }

    /// Strings cut around their first difference: the difference is still shown, and the
    /// pointers to the differences are the ones of the whole values.
    #[test]
    fn a_diff_keeps_its_first_difference_and_its_pointers() {
        let right = "r".repeat(1_000);
        let expected = parse(&format!(r#"[{{"content": "{right}"}}, "same", "{right}"]"#)).unwrap();
        let padded = format!("{right}{}", "x".repeat(259_000));
        let actual = parse(&format!(
            r#"[{{"content": "{padded}"}}, "same", "{right}"]"#
        ))
        .unwrap();
        let pointers = crate::report::diff::differences(&expected, &actual);
        let Outcome::Fail(Failure::WrongOutput {
            expected: e,
            actual: a,
            ..
        }) = outcome(Outcome::Fail(Failure::WrongOutput {
            batch: 1,
            expected: expected.clone(),
            actual,
        }))
        else {
            panic!("not a wrong output");
        };
        assert_eq!(crate::report::diff::differences(&e, &a), pointers);
        let (e, a) = (
            crate::json::to_serde_json(&e),
            crate::json::to_serde_json(&a),
        );
        let shown = a[0]["content"].as_str().unwrap();
        assert!(shown.starts_with("(950 characters before) …"), "{shown}");
        assert!(shown.contains("rx"), "{shown}");
        assert!(shown.ends_with("… (258,850 more characters)"), "{shown}");
        assert!(e[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("(800 characters before) …"));
        assert_eq!(e[1], "same");
    }

    #[test]
    fn long_keys_are_cut_unless_they_would_merge() {
        let long = |end: &str| format!("{}{end}", "k".repeat(1_000));
        let mut distinct = parse(&format!(r#"{{"{}": 1, "b": 2}}"#, long("a"))).unwrap();
        alone(&mut distinct);
        assert!(distinct
            .as_object()
            .unwrap()
            .keys()
            .all(|k| k.as_str().len() < 300));
        let mut merging = parse(&format!(r#"{{"{}": 1, "{}": 2}}"#, long("a"), long("b"))).unwrap();
        alone(&mut merging);
        assert_eq!(merging.as_object().unwrap().len(), 2);
    }

    /// A list and an object of thousands of values keep what the first difference needs and
    /// fifty more, and say how many more there were.
    #[test]
    fn long_lists_and_objects_keep_their_first_difference() {
        let numbers = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        let expected = parse(&format!("[{}]", numbers(3))).unwrap();
        let actual = parse(&format!("[{}, -1]", numbers(9_999))).unwrap();
        let pointer = crate::report::diff::first_difference(&expected, &actual);
        let (mut e, mut a) = (expected.clone(), actual);
        pair(&mut e, &mut a);
        assert_eq!(e, expected);
        let items = a.as_list().unwrap();
        assert_eq!(items.len(), 3 + ITEMS + 1);
        assert_eq!(items.last().unwrap().as_str(), Some("… (9,947 more items)"));
        assert_eq!(crate::report::diff::first_difference(&e, &a), pointer);
        let members = (0..5_000)
            .map(|i| format!(r#""k{i}": {i}"#))
            .collect::<Vec<_>>();
        let mut wide = parse(&format!("{{{}}}", members.join(", "))).unwrap();
        let mut small = parse(r#"{"k4999": 0}"#).unwrap();
        pair(&mut small, &mut wide);
        let wide = wide.as_object().unwrap();
        assert_eq!(wide.len(), ITEMS + 2);
        assert!(wide.contains_key("k4999"));
        assert_eq!(
            wide.get("…").unwrap().as_str(),
            Some("(4,949 more members)")
        );
    }

    #[test]
    fn tracebacks_keep_their_end() {
        let traceback = format!("{}ValueError: boom", "frame\n".repeat(10_000));
        let Outcome::Fail(Failure::Exception { traceback, .. }) =
            outcome(Outcome::Fail(Failure::Exception {
                batch: 1,
                message: "m".into(),
                traceback,
            }))
        else {
            panic!("not an exception");
        };
        assert!(traceback.ends_with("ValueError: boom"));
        assert!(
            traceback.starts_with("(56,016 characters before) …"),
            "{traceback}"
        );
    }
}
