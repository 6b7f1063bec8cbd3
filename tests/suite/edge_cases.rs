//! Hand-picked edge cases as rstest tables, and insta snapshots of what people read: the
//! canonical keys of a fixed corpus and the outputs of the seed examples.

use parcall::json::{self, Value};
use parcall::reference::{
    canonical_key, execute_tool_calls, input, DispatchRequest, Dispatcher, Execution, Sandbox,
};
use rstest::rstest;

fn key_of(args: &str) -> String {
    let args = json::parse(args).unwrap();
    canonical_key("f", args.as_object())
}

#[rstest]
#[case::empty("{}", "f({})")]
#[case::sorted("{\"b\": 1, \"a\": 2}", "f({\"a\": 2, \"b\": 1})")]
#[case::code_point_not_utf16(
    "{\"😀\": 1, \"\u{ffff}\": 2}",
    "f({\"\\uffff\": 2, \"\\ud83d\\ude00\": 1})"
)]
#[case::del_escaped("{\"a\": \"\u{7f}\"}", "f({\"a\": \"\\u007f\"})")]
#[case::short_escapes(r#"{"a": "\"\\\n\r\t\b\f/"}"#, r#"f({"a": "\"\\\n\r\t\b\f/"})"#)]
#[case::float_exponent("{\"a\": 1E2}", "f({\"a\": 100.0})")]
#[case::float_plus_exponent("{\"a\": 1e16}", "f({\"a\": 1e+16})")]
#[case::float_small("{\"a\": 0.00001}", "f({\"a\": 1e-05})")]
#[case::negative_zero_float("{\"a\": -0.0}", "f({\"a\": -0.0})")]
#[case::negative_zero_int("{\"a\": -0}", "f({\"a\": 0})")]
#[case::overflow(
    "{\"a\": 1e400, \"b\": -1e400}",
    "f({\"a\": Infinity, \"b\": -Infinity})"
)]
#[case::huge_int(
    "{\"a\": 123456789012345678901234567890}",
    "f({\"a\": 123456789012345678901234567890})"
)]
#[case::literals(
    "{\"t\": true, \"f\": false, \"n\": null}",
    "f({\"f\": false, \"n\": null, \"t\": true})"
)]
#[case::nested_sorted(
    "{\"z\": {\"b\": [{\"d\": 1, \"c\": 2}], \"a\": []}}",
    "f({\"z\": {\"a\": [], \"b\": [{\"c\": 2, \"d\": 1}]}})"
)]
#[case::repeated_key_last_wins("{\"a\": 1, \"a\": 2}", "f({\"a\": 2})")]
#[case::one_point_zero_forms(
    "{\"a\": 1.00, \"b\": 1e0, \"c\": 10E-1}",
    "f({\"a\": 1.0, \"b\": 1.0, \"c\": 1.0})"
)]
#[case::subnormal("{\"a\": 4.9e-324}", "f({\"a\": 5e-324})")]
fn canonical_keys(#[case] args: &str, #[case] expected: &str) {
    assert_eq!(key_of(args), expected);
}

#[rstest]
#[case::int_sum("add", r#"{"a": 2, "b": 3}"#, "5")]
#[case::float_sum("add", r#"{"a": 0.1, "b": 0.2}"#, "0.30000000000000004")]
#[case::int_and_float("add", r#"{"a": 1, "b": 1.0}"#, "2.0")]
#[case::overflow("add", r#"{"a": 1e308, "b": 1e308}"#, "inf")]
#[case::nan("add", r#"{"a": 1e400, "b": -1e400}"#, "nan")]
#[case::true_division("divide", r#"{"a": 4, "b": 2}"#, "2.0")]
#[case::int_zero(
    "divide",
    r#"{"a": 1, "b": 0}"#,
    "error: divide raised ZeroDivisionError: division by zero"
)]
#[case::float_zero(
    "divide",
    r#"{"a": 1, "b": 0.0}"#,
    "error: divide raised ZeroDivisionError: float division by zero"
)]
#[case::negative_zero_quotient("divide", r#"{"a": 0, "b": -3}"#, "-0.0")]
#[case::bool_not_number(
    "add",
    r#"{"a": true, "b": 1}"#,
    "error: add argument 'a' must be a number"
)]
#[case::missing_first("add", r#"{"b": 1}"#, "error: add missing required argument 'a'")]
#[case::unexpected_sorted(
    "add",
    r#"{"a": 1, "b": 1, "z": 0, "Z": 0}"#,
    "error: add got unexpected argument 'Z'"
)]
#[case::missing_before_unexpected(
    "get_weather",
    r#"{"town": "Paris"}"#,
    "error: get_weather missing required argument 'city'"
)]
#[case::weather_normalised("get_weather", r#"{"city": " PaRiS\n"}"#, "18C, light rain")]
#[case::python_whitespace("get_weather", "{\"city\": \"\\u001cLima\\u3000\"}", "16C, overcast")]
#[case::kelvin_sign_lowercases_to_k("get_weather", "{\"city\": \"TO\\u212aYO\"}", "24C, clear")]
#[case::key_error_repr(
    "get_weather",
    r#"{"city": "Atlantis"}"#,
    "error: get_weather raised KeyError: 'Atlantis'"
)]
#[case::key_error_double_quotes(
    "lookup_doc",
    r#"{"doc_id": "it's"}"#,
    "error: lookup_doc raised KeyError: \"it's\""
)]
#[case::unknown_tool("weather", "{}", "error: unknown tool 'weather'")]
fn sandbox_contents(#[case] tool: &str, #[case] arguments: &str, #[case] expected: &str) {
    let arguments = json::parse(arguments).unwrap();
    let request = DispatchRequest {
        tool,
        arguments: arguments.as_object().unwrap(),
    };
    assert_eq!(Sandbox.dispatch(request), expected);
}

#[rstest]
#[case::null_id(r#"[{"id": null, "tool": "t"}]"#, 4, &["call_1"])]
#[case::empty_id(r#"[{"id": "", "tool": "t"}, {"id": "", "tool": "t"}]"#, 4, &["call_1", "call_2"])]
#[case::collide_forward(r#"[{"tool": "t"}, {"id": "call_1", "tool": "t"}]"#, 4, &["call_1", "call_1"])]
#[case::collide_backward(r#"[{"id": "call_2", "tool": "t"}, {"tool": "t"}]"#, 4, &["call_2", "call_2"])]
fn resolved_ids(#[case] calls: &str, #[case] max_parallel: u64, #[case] expected: &[&str]) {
    let calls = input::tool_calls(&json::parse(calls).unwrap()).unwrap();
    let messages = execute_tool_calls(&calls, max_parallel, &Sandbox, Execution::Sequential);
    let ids: Vec<&str> = messages.iter().map(|m| m.tool_call_id.as_str()).collect();
    assert_eq!(ids, expected);
}

/// A corpus covering every rule of RULES B1 and B2 at once; the snapshot is what a
/// person reviews when the writer changes.
const KEY_CORPUS: &[&str] = &[
    r#"{"q": "cats"}"#,
    r#"{"b": 2, "a": 1}"#,
    r#"{"a": 1}"#,
    r#"{"a": 1.0}"#,
    r#"{"a": true}"#,
    r#"{"a": 1.00, "b": 1e0, "c": 1E2, "d": 1e16, "e": 0.00001, "f": -0.0, "g": -0, "h": 1e400}"#,
    r#"{"big": 123456789012345678901234567890, "neg": -99999999999999999999}"#,
    "{\"s\": \"Zürich 東京 😀 \u{7f} \\u0001 \\\" \\\\ \\n \\r \\t \\b \\f /\"}",
    "{\"😀\": 1, \"\u{ffff}\": 2, \"B\": 3, \"a\": 4}",
    r#"{"nested": {"z": [3, 2, 1], "a": {"y": null, "x": false}}}"#,
    r#"{"floats": [0.1, 0.30000000000000004, 5e-324, 1.7976931348623157e308, 123456789.123456789]}"#,
];

#[test]
fn canonical_keys_of_the_corpus() {
    let keys: Vec<String> = KEY_CORPUS.iter().map(|args| key_of(args)).collect();
    insta::assert_snapshot!(keys.join("\n"));
}

#[test]
fn seed_000_example_outputs() {
    let examples = [
        r#"[{"id": "toolu_01", "tool": "get_weather", "arguments": {"city": "Paris"}}, {"id": "toolu_02", "tool": "get_weather", "arguments": {"city": "Tokyo"}}]"#,
        r#"[{"tool": "add", "arguments": {"a": 1, "b": 2}}, {"tool": "lookup_doc", "arguments": {"doc_id": "shipping"}}]"#,
        r#"[{"id": "a", "tool": "divide", "arguments": {"a": 1, "b": 0}}, {"id": "b", "tool": "add", "arguments": {"a": 2, "b": 2}}]"#,
        r#"[{"id": "x", "tool": "add", "arguments": {"a": 1, "b": 1}}, {"id": "x", "tool": "add", "arguments": {"a": 2, "b": 2}}]"#,
    ];
    let outputs: Vec<String> = examples
        .iter()
        .map(|calls| {
            let calls = input::tool_calls(&json::parse(calls).unwrap()).unwrap();
            let messages = execute_tool_calls(&calls, 4, &Sandbox, Execution::CONCURRENT);
            let list = Value::List(messages.iter().map(|m| m.to_value()).collect());
            json::dumps(
                &list,
                json::Style {
                    ensure_ascii: false,
                    ..json::Style::PYTHON
                },
            )
        })
        .collect();
    insta::assert_snapshot!(outputs.join("\n"));
}
