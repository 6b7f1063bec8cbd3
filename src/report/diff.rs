//! The one diff setup: canonical pretty JSON on both sides, Patience diff with a time limit,
//! and the JSON Pointer of the first difference.

use super::palette::Palette;
use crate::json::{dumps, Style, Value};
use similar::{Algorithm, ChangeTag, TextDiff};
use std::fmt::Write;
use std::time::Duration;

/// The JSON Pointer (RFC 6901) of the first place where `actual` differs from `expected`,
/// `""` for the root.
pub fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    differences(expected, actual).into_iter().next()
}

/// Every JSON Pointer where `actual` differs from `expected`, in message order: list items
/// by index, object members in the expected object's own order (`tool_call_id` before
/// `content`), then members only `actual` has. A missing or extra list item is one pointer.
pub fn differences(expected: &Value, actual: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect(expected, actual, String::new(), &mut found);
    found
}

fn collect(expected: &Value, actual: &Value, at: String, found: &mut Vec<String>) {
    if expected == actual {
        return;
    }
    match (expected, actual) {
        (Value::List(e), Value::List(a)) => {
            for (i, (x, y)) in e.iter().zip(a).enumerate() {
                collect(x, y, format!("{at}/{i}"), found);
            }
            for i in e.len().min(a.len())..e.len().max(a.len()) {
                found.push(format!("{at}/{i}"));
            }
        }
        (Value::Object(e_members), Value::Object(a_members)) => {
            let (e, a) = (e_members.lookup(), a_members.lookup());
            let keys = e_members
                .keys()
                .chain(a_members.keys().filter(|k| !e.contains_key(k)));
            for key in keys {
                let pointer = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (e.get(key), a.get(key)) {
                    (Some(x), Some(y)) => collect(x, y, pointer, found),
                    _ => found.push(pointer),
                }
            }
        }
        _ => found.push(at),
    }
}

/// Whether two values are alike enough for a line diff to help: same container type.
pub fn alike(expected: &Value, actual: &Value) -> bool {
    matches!(
        (expected, actual),
        (Value::List(_), Value::List(_)) | (Value::Object(_), Value::Object(_))
    )
}

/// A unified diff of the pretty canonical JSON of both sides, `-` expected, `+` actual.
pub fn json_diff(expected: &Value, actual: &Value, palette: Palette) -> String {
    let left = dumps(expected, Style::PRETTY);
    let right = dumps(actual, Style::PRETTY);
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .timeout(Duration::from_millis(500))
        .diff_lines(&left, &right);
    let mut out = String::new();
    for change in diff.iter_all_changes() {
        // Values may come from the implementation: shown escaped, never obeyed.
        let line = crate::text::terminal::line(change.value().trim_end_matches('\n'));
        let _ = match change.tag() {
            ChangeTag::Delete => writeln!(out, "{}", palette.removed(format!("-{line}"))),
            ChangeTag::Insert => writeln!(out, "{}", palette.added(format!("+{line}"))),
            ChangeTag::Equal => writeln!(out, " {line}"),
        };
    }
    out
}

#[cfg(test)]
mod tests {

    /// Two objects of 100,000 members each, one value apart: found through a hashed look-up
    /// of each key (a scan of the other object's keys per key would be 10^10 comparisons).
    #[test]
    fn large_objects_are_diffed_without_a_scan_per_key() {
        let object = |changed: i64| {
            Value::from(
                (0..100_000)
                    .map(|k| {
                        let value = if k == 77_777 { changed } else { k };
                        (format!("k{k}").into(), Value::from(value))
                    })
                    .collect::<crate::json::Object>(),
            )
        };
        assert_eq!(differences(&object(0), &object(1)), ["/k77777"]);
    }

    use super::*;
    use crate::json::parse;

    #[test]
    fn pointers_name_the_first_difference() {
        let e = parse(r#"[{"a": 1, "b/c": [1, 2]}]"#).unwrap();
        let a = parse(r#"[{"a": 1, "b/c": [1, 3]}]"#).unwrap();
        assert_eq!(first_difference(&e, &a).as_deref(), Some("/0/b~1c/1"));
        assert_eq!(first_difference(&e, &e), None);
        let shorter = parse("[]").unwrap();
        assert_eq!(first_difference(&e, &shorter).as_deref(), Some("/0"));
    }
}
