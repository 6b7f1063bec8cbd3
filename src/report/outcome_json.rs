//! The JSON shape of a case's `detail` in the report: the judge's own [`Outcome`] and
//! [`Failure`], written by the report format's rules. The shape is the report's contract,
//! not the judge's (the judge keeps no JSON Pointers), so it is written here, next to the
//! other renderers, and the judge's types stay free of serialisation concerns.
//!
//! The shape, stable since report version 1: `null` for a pass; otherwise an object whose
//! `kind` (`wrong_output`, `wrong_invocations`, `exception`, `timeout`, `crash`, `protocol`,
//! `not_implemented`, `skipped`) comes first, followed by that kind's fields. Long strings
//! and texts are the excerpts the judge keeps (`judge::excerpt`), which say what was cut.

use crate::json::Value;
use crate::judge::{Failure, Outcome};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::borrow::Cow;

/// `CaseReport::detail`: `null` when the case passed.
pub(super) fn detail<S: Serializer>(outcome: &Outcome, serializer: S) -> Result<S::Ok, S::Error> {
    match outcome {
        Outcome::Pass => serializer.serialize_none(),
        Outcome::Fail(failure) => serializer.serialize_some(failure),
        Outcome::Skipped { reason } => {
            let mut map = serializer.serialize_map(Some(2))?;
            map.serialize_entry("kind", "skipped")?;
            map.serialize_entry("reason", reason)?;
            map.end()
        }
    }
}

impl Serialize for Failure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Failure::WrongOutput {
                batch,
                expected,
                actual,
            } => {
                map.serialize_entry("kind", "wrong_output")?;
                map.serialize_entry("batch", batch)?;
                let pointer = super::diff::first_difference(expected, actual).unwrap_or_default();
                map.serialize_entry("pointer", &pointer)?;
                map.serialize_entry("pointers", &super::diff::differences(expected, actual))?;
                map.serialize_entry("expected", expected)?;
                map.serialize_entry("actual", actual)?;
            }
            Failure::WrongInvocations { batch, diff } => {
                map.serialize_entry("kind", "wrong_invocations")?;
                map.serialize_entry("batch", batch)?;
                map.serialize_entry("missing", &diff.missing)?;
                map.serialize_entry("unexpected", &diff.unexpected)?;
            }
            Failure::Exception {
                batch,
                message,
                traceback,
            } => {
                map.serialize_entry("kind", "exception")?;
                map.serialize_entry("batch", batch)?;
                map.serialize_entry("message", message)?;
                map.serialize_entry("traceback", traceback)?;
            }
            Failure::Timeout { seconds } => {
                map.serialize_entry("kind", "timeout")?;
                map.serialize_entry("seconds", seconds)?;
            }
            Failure::Crash { message } => {
                map.serialize_entry("kind", "crash")?;
                map.serialize_entry("message", message)?;
            }
            Failure::Protocol { message } => {
                map.serialize_entry("kind", "protocol")?;
                map.serialize_entry("message", message)?;
            }
            Failure::NotImplemented => map.serialize_entry("kind", "not_implemented")?,
        }
        map.end()
    }
}

/// The schema of a `detail` that is not `null`. Named `Detail` in
/// `conformance/report.schema.json`, as it always was.
impl JsonSchema for Outcome {
    fn schema_name() -> Cow<'static, str> {
        "Detail".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let batch = generator.subschema_for::<usize>();
        let seconds = generator.subschema_for::<f64>();
        let any = generator.subschema_for::<Value>();
        let variant = |kind: &str, properties: serde_json::Value, required: &[&str]| {
            let mut properties = properties;
            properties["kind"] = serde_json::json!({"type": "string", "const": kind});
            let mut names = vec!["kind"];
            names.extend_from_slice(required);
            serde_json::json!({"type": "object", "properties": properties, "required": names})
        };
        let string = serde_json::json!({"type": "string"});
        let variants = vec![
            variant(
                "wrong_output",
                serde_json::json!({
                    "batch": batch,
                    "pointer": {
                        "description": "JSON Pointer of the first difference in the output.",
                        "type": "string"
                    },
                    "pointers": {
                        "description": "Every differing JSON Pointer, in message order (`tool_call_id` before `content`).",
                        "type": "array",
                        "items": {"type": "string"}
                    },
                    "expected": any,
                    "actual": any,
                }),
                &["batch", "pointer", "pointers", "expected", "actual"],
            ),
            variant(
                "wrong_invocations",
                serde_json::json!({
                    "batch": batch,
                    "missing": {
                        "description": "Expected invocations that did not happen (repeated as often as missing).",
                        "type": "array",
                        "items": any
                    },
                    "unexpected": {
                        "description": "Invocations that happened but were not expected.",
                        "type": "array",
                        "items": any
                    },
                }),
                &["batch", "missing", "unexpected"],
            ),
            variant(
                "exception",
                serde_json::json!({"batch": batch, "message": string, "traceback": string}),
                &["batch", "message", "traceback"],
            ),
            variant(
                "timeout",
                serde_json::json!({"seconds": seconds}),
                &["seconds"],
            ),
            variant(
                "crash",
                serde_json::json!({"message": string}),
                &["message"],
            ),
            variant(
                "protocol",
                serde_json::json!({"message": string}),
                &["message"],
            ),
            variant("not_implemented", serde_json::json!({}), &[]),
            variant(
                "skipped",
                serde_json::json!({"reason": string}),
                &["reason"],
            ),
        ];
        schemars::json_schema!({
            "description": description(),
            "oneOf": variants,
        })
    }
}

/// The description of `Detail`, with the excerpts' bounds.
fn description() -> String {
    use crate::judge::excerpt::{ITEMS, TEXT_CHARS, VALUE_CHARS};
    format!(
        "The facts behind an outcome. What came from the implementation is an excerpt: a \
         string inside `expected`, `actual`, `missing` or `unexpected` longer than \
         {VALUE_CHARS} characters keeps {VALUE_CHARS} of them, around where it first differs \
         from its counterpart, and a message or traceback keeps {TEXT_CHARS} (a traceback its \
         end), each saying how many characters were cut (`… (259,800 more characters)`, \
         `(1,200 characters before) …`). A list keeps {ITEMS} items past its first \
         difference, an object {ITEMS} members beyond its counterpart's, and `missing` and \
         `unexpected` {ITEMS} invocations, a last item (`… (9,947 more items)`) or member \
         (`…`) saying how many more there were; `pointer` is the first difference of the \
         whole values, `pointers` those of the excerpts."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::InvocationDiff;

    /// Every kind of `detail`, and a pass.
    fn every_outcome() -> Vec<Outcome> {
        let value = |text: &str| crate::json::parse(text).unwrap();
        let failures = vec![
            Failure::WrongOutput {
                batch: 2,
                expected: value(r#"[{"a": 1}, {"a": 2}]"#),
                actual: value(r#"[{"a": 1}, {"a": 3}]"#),
            },
            Failure::WrongInvocations {
                batch: 1,
                diff: InvocationDiff {
                    missing: vec![value(r#"{"tool": "add"}"#)],
                    unexpected: Vec::new(),
                },
            },
            Failure::Exception {
                batch: 1,
                message: "KeyError: 'x'".into(),
                traceback: "line 3".into(),
            },
            Failure::Timeout { seconds: 2.5 },
            Failure::Crash {
                message: "killed by signal 9".into(),
            },
            Failure::Protocol {
                message: "garbage".into(),
            },
            Failure::NotImplemented,
        ];
        let mut outcomes: Vec<Outcome> = failures.into_iter().map(Outcome::Fail).collect();
        outcomes.push(Outcome::Skipped {
            reason: "not run: filtered out".into(),
        });
        outcomes.push(Outcome::Pass);
        outcomes
    }

    fn to_json(outcome: &Outcome) -> String {
        let mut out = Vec::new();
        detail(outcome, &mut serde_json::Serializer::new(&mut out)).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The shape the report's consumers were promised: `kind` first, the pointers of a
    /// wrong output computed from its values.
    #[test]
    fn every_kind_keeps_its_report_shape() {
        let texts: Vec<String> = every_outcome().iter().map(to_json).collect();
        assert_eq!(
            texts,
            [
                r#"{"kind":"wrong_output","batch":2,"pointer":"/1/a","pointers":["/1/a"],"expected":[{"a":1},{"a":2}],"actual":[{"a":1},{"a":3}]}"#,
                r#"{"kind":"wrong_invocations","batch":1,"missing":[{"tool":"add"}],"unexpected":[]}"#,
                r#"{"kind":"exception","batch":1,"message":"KeyError: 'x'","traceback":"line 3"}"#,
                r#"{"kind":"timeout","seconds":2.5}"#,
                r#"{"kind":"crash","message":"killed by signal 9"}"#,
                r#"{"kind":"protocol","message":"garbage"}"#,
                r#"{"kind":"not_implemented"}"#,
                r#"{"kind":"skipped","reason":"not run: filtered out"}"#,
                "null",
            ]
        );
    }

    /// The hand-written schema and the hand-written serialiser describe one shape: each
    /// kind's object has exactly the properties its schema variant lists, all required.
    /// (Checked by hand: loading a schema validator into the library's tests makes other
    /// tests' type inference ambiguous; the suite validates whole reports with one.)
    #[test]
    fn the_schema_lists_exactly_the_fields_of_every_kind() {
        let schema = serde_json::to_value(schemars::schema_for!(Outcome)).unwrap();
        let variants = schema["oneOf"].as_array().unwrap();
        assert_eq!(variants.len(), 8);
        for outcome in every_outcome().iter().filter(|o| !o.is_pass()) {
            let instance: serde_json::Value = serde_json::from_str(&to_json(outcome)).unwrap();
            let kind = &instance["kind"];
            let variant = variants
                .iter()
                .find(|v| &v["properties"]["kind"]["const"] == kind)
                .unwrap_or_else(|| panic!("no schema variant for {kind}"));
            let mut fields: Vec<&String> = instance.as_object().unwrap().keys().collect();
            let mut properties: Vec<&String> =
                variant["properties"].as_object().unwrap().keys().collect();
            let mut required: Vec<&str> = variant["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            fields.sort();
            properties.sort();
            required.sort_unstable();
            assert_eq!(fields, properties, "{kind}");
            assert_eq!(
                fields.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                required,
                "{kind}"
            );
        }
    }
}
