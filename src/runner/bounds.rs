//! Bounds on what an implementation sends back, checked on every reply before anything else
//! looks at it. A reply line is already bounded by the process layer
//! ([`crate::process::Limits::max_line_bytes`]); these bound what one line can hold, so
//! the judge, the diff and the reports never work on a 30-million-digit integer, a 50 MB
//! message or a million invocations. `parcall check` and `parcall grade` share them. A reply
//! past a bound is the case's outcome (a protocol error naming the field), never kept.

use crate::json::Value;
use crate::protocol::{HelloReply, Invocation};

/// The longest text field (a message, a traceback, what was printed), in bytes.
pub const MAX_TEXT_BYTES: usize = 256 << 10;
/// The most invocations one batch may report.
pub const MAX_INVOCATIONS: usize = 10_000;
/// The most values (every list item, object member and scalar) in one batch's output or
/// invocations. The largest spec case holds about 100.
pub const MAX_VALUES: usize = 10_000;
/// What is kept of a case's printed output once the reply passed its bounds: reports show
/// it for people, and a run keeps every case's, so it is clipped like a process's tail.
pub const KEPT_PRINTED_BYTES: usize = 16 << 10;
/// The deepest nesting of lists and objects: the one limit case files are read by too, so a
/// value a case admits always comes back within it.
pub use crate::json::MAX_DEPTH;
pub use crate::json::MAX_INTEGER_DIGITS;

/// Which part of a reply is past which bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Excess {
    #[error("{found} batch results for a case of {sent} batches")]
    Batches { found: usize, sent: usize },
    #[error("{field}: {what}")]
    Field { field: String, what: String },
}

impl Excess {
    fn field(field: &str, what: String) -> Excess {
        Excess::Field {
            field: field.to_owned(),
            what,
        }
    }
}

/// Checks what a batch returned.
pub fn check_output(batch: usize, output: &Value) -> Result<(), Excess> {
    value(&format!("batches[{batch}].output"), output)
}

/// Checks what a batch raised.
pub fn check_raised(batch: usize, message: &str, traceback: &str) -> Result<(), Excess> {
    text(&format!("batches[{batch}].message"), message)?;
    text(&format!("batches[{batch}].traceback"), traceback)
}

/// Checks what the case printed.
pub fn check_printed(printed: &str) -> Result<(), Excess> {
    text("output", printed)
}

/// Checks the `index`-th (0-based) invocation made during batch `batch`: one more than
/// [`MAX_INVOCATIONS`] is refused, and so is a tool or args past the value bounds.
pub fn check_invocation(invocation: &Invocation, index: usize, batch: usize) -> Result<(), Excess> {
    let at = |field: &str| format!("batches[{batch}].invocations[{index}].{field}");
    if index >= MAX_INVOCATIONS {
        return Err(Excess::field(
            &format!("batches[{batch}].invocations"),
            format!("more than {MAX_INVOCATIONS} invocations"),
        ));
    }
    value(&at("tool"), &invocation.tool)?;
    value(&at("args"), &invocation.args)
}

/// Checks the handshake answer: every text in it.
pub fn check_hello(hello: &HelloReply) -> Result<(), Excess> {
    let info = &hello.implementation;
    for (field, text_value) in [
        ("implementation.name", &info.name),
        ("implementation.language", &info.language),
        ("implementation.version", &info.version),
    ] {
        if text_value.len() > 200 {
            return Err(Excess::field(
                field,
                format!("{} bytes, more than 200", text_value.len()),
            ));
        }
    }
    text("output", &hello.output)?;
    text(
        "load_error",
        hello.load_error.as_deref().unwrap_or_default(),
    )?;
    if hello.problems.len() > 100 {
        return Err(Excess::field(
            "problems",
            format!("{} entries, more than 100", hello.problems.len()),
        ));
    }
    hello.problems.iter().try_for_each(|p| text("problems", p))
}

fn text(field: &str, text: &str) -> Result<(), Excess> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(Excess::field(
            field,
            format!("{} bytes, more than {MAX_TEXT_BYTES}", text.len()),
        ));
    }
    Ok(())
}

fn value(field: &str, root: &Value) -> Result<(), Excess> {
    let mut budget = MAX_VALUES;
    walk(field, root, 0, &mut budget)
}

/// Walks a value, spending one unit of `budget` per value.
fn walk(field: &str, value: &Value, depth: usize, budget: &mut usize) -> Result<(), Excess> {
    if *budget == 0 {
        return Err(Excess::field(
            field,
            format!("more than {MAX_VALUES} values"),
        ));
    }
    *budget -= 1;
    if depth > MAX_DEPTH {
        return Err(Excess::field(
            field,
            format!("nested deeper than {MAX_DEPTH}"),
        ));
    }
    match value {
        Value::Int(int) => {
            let digits = int.as_str().trim_start_matches('-').len();
            if digits > MAX_INTEGER_DIGITS {
                return Err(Excess::field(
                    field,
                    format!("an integer of {digits} digits, more than {MAX_INTEGER_DIGITS}"),
                ));
            }
        }
        Value::Str(s) => text(field, s)?,
        Value::List(items) => {
            for item in items {
                walk(field, item, depth + 1, budget)?;
            }
        }
        Value::Object(members) => {
            for (key, item) in members.iter() {
                text(field, key)?;
                walk(field, item, depth + 1, budget)?;
            }
        }
        Value::Null | Value::Bool(_) | Value::Float(_) => {}
    }
    Ok(())
}

/// `printed` cut to about [`KEPT_PRINTED_BYTES`]: its beginning and its end (where the
/// adapters note what they dropped), with a note of what was left out between them.
pub fn kept_printed(printed: String) -> String {
    if printed.len() <= KEPT_PRINTED_BYTES {
        return printed;
    }
    let mut head = KEPT_PRINTED_BYTES * 3 / 4;
    while !printed.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = printed.len() - KEPT_PRINTED_BYTES / 4;
    while !printed.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}\n[parcall: {} bytes not kept]\n{}",
        &printed[..head],
        tail - head,
        &printed[tail..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Int;

    fn invocation(args: Value) -> Invocation {
        Invocation {
            id: 1,
            call: 1,
            tool: Value::Str("t".into()),
            args,
        }
    }

    #[test]
    fn a_huge_integer_is_refused_and_named() {
        let digits = "9".repeat(MAX_INTEGER_DIGITS + 1);
        let huge = Value::List(vec![Value::Int(Int::from_literal(&digits).unwrap())]);
        let error = check_output(0, &huge).unwrap_err().to_string();
        assert!(
            error.starts_with("batches[0].output: an integer of 4301 digits"),
            "{error}"
        );
        let fits = "9".repeat(MAX_INTEGER_DIGITS);
        let fits = Value::Int(Int::from_literal(&fits).unwrap());
        assert_eq!(check_output(0, &fits), Ok(()));
        let error = check_invocation(&invocation(huge), 3, 1).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("batches[1].invocations[3].args"),
            "{error}"
        );
    }

    #[test]
    fn long_messages_and_many_invocations_are_refused() {
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        assert!(check_raised(0, &long, "")
            .unwrap_err()
            .to_string()
            .starts_with("batches[0].message"));
        assert!(check_printed(&long).is_err());
        assert_eq!(
            check_invocation(&invocation(Value::Null), MAX_INVOCATIONS - 1, 0),
            Ok(())
        );
        assert!(
            check_invocation(&invocation(Value::Null), MAX_INVOCATIONS, 0)
                .unwrap_err()
                .to_string()
                .contains("more than 10000 invocations")
        );
    }

    #[test]
    fn printed_output_is_clipped_when_kept() {
        assert_eq!(kept_printed("short".into()), "short");
        let long = format!("{}[dropped: 7]", "é".repeat(KEPT_PRINTED_BYTES));
        let kept = kept_printed(long);
        assert!(kept.len() < KEPT_PRINTED_BYTES + 40, "{}", kept.len());
        assert!(kept.contains(" bytes not kept]\n"));
        assert!(kept.ends_with("[dropped: 7]"));
    }

    #[test]
    fn the_deepest_arguments_a_case_file_admits_come_back_within_the_bound() {
        // A call's arguments sit inside the case file's file object, cases, case, batches,
        // batch, calls and call: the deepest the file admits, and not one level deeper.
        let file = |depth: usize| {
            let args = "[".repeat(depth) + &"]".repeat(depth);
            format!(
                r#"{{"cases": [{{"batches": [{{"calls": [{{"arguments": {{"a": {args}}}}}]}}]}}]}}"#
            )
        };
        let deepest = (1..MAX_DEPTH)
            .rev()
            .find(|&depth| crate::json::parse(&file(depth)).is_ok())
            .unwrap();
        assert!(deepest > 300, "a case file admits arguments {deepest} deep");
        let read = crate::json::parse(&file(deepest)).unwrap();
        let args = read.as_object().unwrap()["cases"].as_list().unwrap()[0]
            .as_object()
            .unwrap()["batches"]
            .as_list()
            .unwrap()[0]
            .as_object()
            .unwrap()["calls"]
            .as_list()
            .unwrap()[0]
            .as_object()
            .unwrap()["arguments"]
            .clone();
        let invocation = Invocation {
            id: 1,
            call: 1,
            tool: Value::Str("t".into()),
            args,
        };
        assert_eq!(check_invocation(&invocation, 0, 0), Ok(()));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut value = Value::Null;
        for _ in 0..=MAX_DEPTH + 1 {
            value = Value::List(vec![value]);
        }
        assert!(check_output(0, &value)
            .unwrap_err()
            .to_string()
            .contains("nested deeper"));
    }
}
