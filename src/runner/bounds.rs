//! Bounds on what an implementation sends back, checked on every reply before anything else
//! looks at it. A reply line is already bounded by the process layer
//! ([`crate::process::Limits::max_line_bytes`]); these bound what one line can hold, so
//! the judge, the diff and the reports never work on a 30-million-digit integer, a 50 MB
//! message or a million invocations. `parcall check` and `parcall grade` share them. A reply
//! past a bound is the case's outcome (a protocol error naming the field), never kept.

use crate::json::Value;
use crate::protocol::{BatchReply, CaseReply, HelloReply};

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
pub use crate::json::MAX_INTEGER_DIGITS;
/// The deepest nesting of lists and objects.
pub const MAX_DEPTH: usize = 200;

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

/// Checks a case reply to a request of `batches_sent` batches; says which field is past
/// which bound.
pub fn check_case(reply: &CaseReply, batches_sent: usize) -> Result<(), Excess> {
    if reply.batches.len() > batches_sent {
        return Err(Excess::Batches {
            found: reply.batches.len(),
            sent: batches_sent,
        });
    }
    text("output", &reply.output)?;
    for (index, batch) in reply.batches.iter().enumerate() {
        let at = |field: &str| format!("batches[{index}].{field}");
        let invocations = match batch {
            BatchReply::Returned {
                output,
                invocations,
            } => {
                value(&at("output"), output)?;
                invocations
            }
            BatchReply::Raised {
                message,
                traceback,
                invocations,
            } => {
                text(&at("message"), message)?;
                text(&at("traceback"), traceback)?;
                invocations
            }
        };
        if invocations.len() > MAX_INVOCATIONS {
            return Err(Excess::field(
                &at("invocations"),
                format!(
                    "{} invocations, more than {MAX_INVOCATIONS}",
                    invocations.len()
                ),
            ));
        }
        let mut budget = MAX_VALUES;
        for (n, invocation) in invocations.iter().enumerate() {
            walk(
                &at(&format!("invocations[{n}]")),
                invocation,
                0,
                &mut budget,
            )?;
        }
    }
    Ok(())
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

    fn returned(output: Value, invocations: Vec<Value>) -> CaseReply {
        CaseReply {
            id: 1,
            batches: vec![BatchReply::Returned {
                output,
                invocations,
            }],
            output: String::new(),
        }
    }

    #[test]
    fn a_huge_integer_is_refused_and_named() {
        let digits = "9".repeat(MAX_INTEGER_DIGITS + 1);
        let reply = returned(
            Value::List(vec![Value::Int(Int::from_literal(&digits).unwrap())]),
            vec![],
        );
        let error = check_case(&reply, 1).unwrap_err().to_string();
        assert!(
            error.starts_with("batches[0].output: an integer of 4301 digits"),
            "{error}"
        );
        let fits = "9".repeat(MAX_INTEGER_DIGITS);
        let reply = returned(Value::Int(Int::from_literal(&fits).unwrap()), vec![]);
        assert_eq!(check_case(&reply, 1), Ok(()));
    }

    #[test]
    fn long_messages_and_many_invocations_are_refused() {
        let raised = CaseReply {
            id: 1,
            batches: vec![BatchReply::Raised {
                message: "x".repeat(MAX_TEXT_BYTES + 1),
                traceback: String::new(),
                invocations: vec![],
            }],
            output: String::new(),
        };
        assert!(check_case(&raised, 1)
            .unwrap_err()
            .to_string()
            .starts_with("batches[0].message"));
        let many = returned(Value::Null, vec![Value::Null; MAX_INVOCATIONS + 1]);
        assert!(check_case(&many, 1)
            .unwrap_err()
            .to_string()
            .contains("10001 invocations"));
        assert_eq!(
            check_case(&returned(Value::Null, vec![]), 0),
            Err(Excess::Batches { found: 1, sent: 0 })
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
    fn deep_nesting_is_refused() {
        let mut value = Value::Null;
        for _ in 0..=MAX_DEPTH + 1 {
            value = Value::List(vec![value]);
        }
        assert!(check_case(&returned(value, vec![]), 1)
            .unwrap_err()
            .to_string()
            .contains("nested deeper"));
    }
}
