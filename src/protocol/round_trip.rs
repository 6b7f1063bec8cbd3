//! The two messages of an invocation's round trip, the protocol's most frequent by far,
//! taken apart and written by hand: an `invoke` read from its parsed value by moving its
//! members out, not through serde's tagged-enum machinery, and an `answer` written straight
//! from the scripted answer, not through a `Value` of the whole message. Both give exactly
//! what [`super::decode`]'s general road and [`super::encode`] give (`tests` hold them to it);
//! anything else about an `invoke` (a missing or extra field, an id that is not a `u64`)
//! takes the general road, which names what is wrong.

use super::messages::Invocation;
use crate::json::{JsonText, Style, Value};
use crate::spec::Answer;

/// The `invoke` message `value` holds, if it is one with exactly its five fields, well
/// typed; `Err` gives the value back for the general road.
pub(super) fn invocation(value: Value) -> Result<Invocation, Value> {
    let Value::Object(object) = &value else {
        return Err(value);
    };
    let well_formed = object.len() == 5
        && object.get("type").and_then(Value::as_str) == Some("invoke")
        && object.get("id").and_then(as_u64).is_some()
        && object.get("call").and_then(as_u64).is_some()
        && object.contains_key("tool")
        && object.contains_key("args");
    let Value::Object(object) = value else {
        unreachable!("matched as an object above")
    };
    if !well_formed {
        return Err(Value::Object(object));
    }
    let (mut id, mut call, mut tool, mut args) = (0, 0, Value::Null, Value::Null);
    for (key, member) in object {
        match &*key {
            "id" => id = as_u64(&member).unwrap_or_default(),
            "call" => call = as_u64(&member).unwrap_or_default(),
            "tool" => tool = member,
            "args" => args = member,
            _ => {}
        }
    }
    Ok(Invocation {
        id,
        call,
        tool,
        args,
    })
}

/// An integer that fits a `u64`, as the general road reads one (a float never is).
fn as_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Int(int) => int.as_str().parse().ok(),
        _ => None,
    }
}

/// The `answer` message (newline included) for invocation `call` of case message `id`.
pub fn answer_line(id: u64, call: u64, answer: &Answer) -> String {
    let Answer::Return { value } = answer else {
        // A scripted exception: rare, and with optional fields; the general road.
        return super::encode(&super::Request::Answer(super::InvocationAnswer {
            id,
            call,
            answer: answer.clone(),
        }));
    };
    let mut out = JsonText::new(Style {
        ensure_ascii: false,
        ..Style::PYTHON
    });
    out.raw("{\"type\": \"answer\", \"id\": ")
        .raw(itoa::Buffer::new().format(id))
        .raw(", \"call\": ")
        .raw(itoa::Buffer::new().format(call))
        .raw(", \"answer\": {\"type\": \"return\", \"value\": ")
        .value(value)
        .raw("}}\n");
    out.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::protocol::{decode, decode_as, encode, InvocationAnswer, Reply, Request};

    /// The general road: what serde's derive reads from the same line.
    fn general(line: &str) -> Result<Reply, String> {
        decode_as::<Reply>(line).map_err(|e| e.to_string())
    }

    #[test]
    fn an_invoke_reads_as_the_general_road_reads_it() {
        for line in [
            r#"{"type": "invoke", "id": 7, "call": 1, "tool": "search", "args": {"q": [1, 1.0, NaN]}}"#,
            r#"{"args": null, "tool": {"x": 1}, "call": 18446744073709551615, "id": 0, "type": "invoke"}"#,
            r#"{"type": "invoke", "id": 7, "call": 1, "tool": "t", "args": {}, "type": "invoke"}"#,
        ] {
            assert_eq!(
                decode(line).map_err(|e| e.to_string()),
                general(line),
                "{line}"
            );
            assert!(matches!(decode(line), Ok(Reply::Invoke(_))), "{line}");
        }
    }

    /// What the hand-written road does not take goes the general road, errors and all.
    #[test]
    fn an_invoke_the_fast_road_does_not_take_gets_the_general_roads_verdict() {
        for line in [
            r#"{"type": "invoke", "id": 7, "call": 1, "tool": "t"}"#,
            r#"{"type": "invoke", "id": 7, "call": 1, "tool": "t", "args": {}, "extra": 1}"#,
            r#"{"type": "invoke", "id": -1, "call": 1, "tool": "t", "args": {}}"#,
            r#"{"type": "invoke", "id": 7.0, "call": 1, "tool": "t", "args": {}}"#,
            r#"{"type": "invoke", "id": 18446744073709551616, "call": 1, "tool": "t", "args": {}}"#,
            r#"{"type": "returned", "id": 7, "call": 1, "tool": "t", "args": {}}"#,
            r#"{"type": "returned", "id": 7, "output": [1]}"#,
            r#"[1, 2]"#,
        ] {
            assert_eq!(
                decode(line).map_err(|e| e.to_string()),
                general(line),
                "{line}"
            );
        }
    }

    #[test]
    fn an_answer_line_is_the_encoded_answer_message() {
        let answers = [
            Answer::Return {
                value: parse(r#"{"b": [1, 2.5, NaN, -Infinity], "a": "é\u0000\"", "": null}"#)
                    .unwrap(),
            },
            Answer::Return {
                value: "error: x".into(),
            },
            Answer::Raise {
                message: "boom".into(),
                exception: None,
                args: Some(vec![Value::Null]),
            },
        ];
        for answer in answers {
            let general = encode(&Request::Answer(InvocationAnswer {
                id: 1 << 39,
                call: 12,
                answer: answer.clone(),
            }));
            assert_eq!(answer_line(1 << 39, 12, &answer), general);
        }
    }
}
