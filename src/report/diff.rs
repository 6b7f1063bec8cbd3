//! The one diff setup: canonical pretty JSON on both sides, Patience diff with a time limit,
//! and the JSON Pointer of the first difference.

use super::palette::Palette;
use crate::json::{dumps, Style, Value};
use similar::{Algorithm, ChangeTag, TextDiff};
use std::fmt::Write;
use std::time::Duration;

/// The JSON Pointer (RFC 6901) of the first place where `actual` differs from `expected`,
/// `""` for the root. Object members are visited in sorted key order.
pub fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    if expected == actual {
        return None;
    }
    match (expected, actual) {
        (Value::List(e), Value::List(a)) => {
            for (i, (x, y)) in e.iter().zip(a).enumerate() {
                if let Some(rest) = first_difference(x, y) {
                    return Some(format!("/{i}{rest}"));
                }
            }
            Some(format!("/{}", e.len().min(a.len())))
        }
        (Value::Object(e), Value::Object(a)) => {
            let mut keys: Vec<&String> = e.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                match (e.get(key), a.get(key)) {
                    (Some(x), Some(y)) => {
                        if let Some(rest) = first_difference(x, y) {
                            return Some(format!("/{escaped}{rest}"));
                        }
                    }
                    _ => return Some(format!("/{escaped}")),
                }
            }
            Some(String::new())
        }
        _ => Some(String::new()),
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
        let line = super::escape::line(change.value().trim_end_matches('\n'));
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
