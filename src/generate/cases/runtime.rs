//! Generated runtime-profile inputs: one model turn of tool calls (sometimes the same turn
//! again, for state across turns) over scripted tools that return strings or really raise.
//! Every distinct call answers with its own string, so a result given to the wrong call
//! shows; the first call is sometimes held in flight, so results that come back in
//! completion order show.

use super::super::values::{tricky_string, value};
use super::dedup::raise_of_a_kind;
use super::GeneratedInput;
use crate::json::{Object, Value};
use crate::reference::canonical_args;
use crate::spec::{Answer, Response, ToolScript, RUNTIME_MAX_DIGITS};
use indexmap::IndexMap;
use proptest::prelude::*;

/// The tools a generated case gives the runtime.
pub const RUNTIME_TOOLS: [&str; 3] = ["search", "get_weather", "lookup"];
/// A tool name no generated case gives: a call naming it is a malformed call.
pub const MISSING_TOOL: &str = "no_such_tool";

/// Argument names a runtime might take for its own: its tool machinery's parameters
/// (`self`, `config`, `run_manager`, `callbacks`, `ctx`, `context`, `state`, `store`),
/// Python's catch-alls, and the fields of a tool call.
pub const SPECIAL_ARGUMENT_NAMES: [&str; 14] = [
    "self",
    "config",
    "callbacks",
    "run_manager",
    "ctx",
    "context",
    "kwargs",
    "args",
    "type",
    "id",
    "name",
    "tool_call_id",
    "state",
    "store",
];

/// Milliseconds the first call of a turn is held, so the turn's other calls finish first.
const HELD_MS: u64 = 5;

/// An argument name: plain most of the time, special or odd sometimes.
fn argument_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec!["q", "city", "n", "limit", "query", "é", "天気"]).prop_map(str::to_owned),
        2 => prop::sample::select(SPECIAL_ARGUMENT_NAMES.to_vec()).prop_map(str::to_owned),
        1 => "[a-z][a-z_]{0,6}",
    ]
}

/// Arguments as a model writes them: JSON text, so any value but NaN and the infinities
/// (RFC 8259 has none; a framework parses what the model wrote).
fn arguments() -> impl Strategy<Value = Object> {
    prop::collection::vec((argument_name(), value(2).prop_map(finite)), 0..4)
        .prop_map(|entries| entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

/// `value` with every NaN or infinity replaced by the largest finite double of its sign,
/// and every integer a double cannot hold finitely (a float64 runtime reads it as an
/// infinity, which its JSON cannot write back) by the largest 64-bit one.
fn finite(value: Value) -> Value {
    match value {
        Value::Float(f) if f.is_nan() => Value::Float(0.5),
        Value::Float(f) if f.is_infinite() => Value::Float(f.signum() * f64::MAX),
        Value::Int(i) if i.as_str().trim_start_matches('-').len() > RUNTIME_MAX_DIGITS => {
            Value::from(i64::MAX)
        }
        Value::List(items) => Value::List(items.into_iter().map(finite).collect()),
        Value::Object(object) => Value::from(
            object
                .into_iter()
                .map(|(k, v)| (k, finite(v)))
                .collect::<Object>(),
        ),
        other => other,
    }
}

/// How a call's id is written: `None` leaves the field out.
#[derive(Debug, Clone)]
enum IdKind {
    Plain(u32),
    Odd(String),
    Empty,
    Null,
    SameAsEarlier(prop::sample::Index),
}

fn id_kind() -> impl Strategy<Value = IdKind> {
    prop_oneof![
        14 => any::<u32>().prop_map(IdKind::Plain),
        2 => prop_oneof![
            tricky_string(8),
            Just(" ".to_owned()),
            Just("call_1".to_owned()),
            Just("x".repeat(300)),
            Just("line\nbreak".to_owned()),
        ].prop_map(IdKind::Odd),
        1 => Just(IdKind::Empty),
        1 => Just(IdKind::Null),
        1 => any::<prop::sample::Index>().prop_map(IdKind::SameAsEarlier),
    ]
}

/// One drawn call: its id, which tool (an index into the tools, or the missing tool), its
/// arguments, and whether it repeats an earlier call's tool and arguments instead.
type DrawnCall = (IdKind, Option<usize>, Object, Option<prop::sample::Index>);

fn drawn_call() -> impl Strategy<Value = DrawnCall> {
    (
        id_kind(),
        prop::option::weighted(0.93, 0..RUNTIME_TOOLS.len()),
        arguments(),
        prop::option::weighted(0.15, any::<prop::sample::Index>()),
    )
}

/// Random runtime cases: one to six calls in a turn, answered by scripts that return a
/// string of their own or raise (one in six), the turn sometimes run twice.
pub fn runtime_input() -> impl Strategy<Value = GeneratedInput> {
    (
        prop::collection::vec(drawn_call(), 1..=6),
        prop::collection::vec(
            prop_oneof![5 => tricky_string(6).prop_map(Some), 1 => Just(None)],
            6,
        ),
        prop::collection::vec(raise_of_a_kind(), 6),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(drawn, suffixes, raises, twice, held)| {
            let calls = runtime_calls(&drawn);
            let mut tools = runtime_scripts(&calls, &suffixes, raises);
            if held && calls.len() >= 2 {
                hold_first(&mut tools, &calls[0]);
            }
            let turn = Value::List(calls);
            let batches = if twice {
                vec![turn.clone(), turn]
            } else {
                vec![turn]
            };
            GeneratedInput::Runtime { tools, batches }
        })
}

/// The calls of one turn as the runtime is given them.
fn runtime_calls(drawn: &[DrawnCall]) -> Vec<Value> {
    let mut calls: Vec<Value> = Vec::with_capacity(drawn.len());
    let mut ids: Vec<Option<String>> = Vec::with_capacity(drawn.len());
    for (position, (kind, tool, arguments, repeat)) in drawn.iter().enumerate() {
        let (tool, arguments) = match repeat.filter(|_| position > 0) {
            Some(index) => {
                let earlier = calls[index.index(position)].as_object().expect("a call");
                (earlier["name"].clone(), earlier["arguments"].clone())
            }
            None => {
                let name = tool.map_or(MISSING_TOOL, |t| RUNTIME_TOOLS[t]);
                (Value::from(name), Value::from(arguments.clone()))
            }
        };
        let id = match kind {
            IdKind::Plain(n) => Some(format!("call_{n:08x}{position}")),
            IdKind::Odd(text) => Some(text.clone()),
            IdKind::Empty => Some(String::new()),
            IdKind::Null => None,
            IdKind::SameAsEarlier(index) if position > 0 => ids[index.index(position)].clone(),
            IdKind::SameAsEarlier(_) => Some(format!("call_first{position}")),
        };
        let mut call = Object::new();
        call.insert("id".into(), id.clone().map_or(Value::Null, Value::from));
        call.insert("name".into(), tool);
        call.insert("arguments".into(), arguments);
        ids.push(id);
        calls.push(Value::from(call));
    }
    calls
}

/// A script per tool: each distinct arguments its calls give answers with its own string
/// (`<tool> #<n>` and a drawn suffix), or raises (one distinct call in six).
fn runtime_scripts(
    calls: &[Value],
    suffixes: &[Option<String>],
    raises: Vec<Answer>,
) -> IndexMap<String, ToolScript> {
    let mut tools: IndexMap<String, ToolScript> = RUNTIME_TOOLS
        .iter()
        .map(|name| {
            let script = ToolScript {
                latency_ms: 0,
                responses: Vec::new(),
            };
            ((*name).to_owned(), script)
        })
        .collect();
    let mut raises = raises.into_iter();
    let mut distinct = 0usize;
    for call in calls.iter().filter_map(Value::as_object) {
        let name = call["name"].as_str().unwrap_or_default();
        let arguments = call["arguments"].as_object().cloned().unwrap_or_default();
        let Some(script) = tools.get_mut(name) else {
            continue;
        };
        let key = canonical_args(&arguments);
        let known = script
            .responses
            .iter()
            .any(|r| r.args.as_ref().is_some_and(|a| canonical_args(a) == key));
        if known {
            continue;
        }
        let suffix = &suffixes[distinct % suffixes.len()];
        let answer = match (suffix, raises.next()) {
            (None, Some(raise)) => raise,
            (suffix, _) => Answer::Return {
                value: Value::from(format!(
                    "{name} #{distinct}{}",
                    suffix.as_deref().unwrap_or_default()
                )),
            },
        };
        script.responses.push(Response {
            args: Some(arguments),
            latency_ms: None,
            answers: vec![answer],
        });
        distinct += 1;
    }
    tools
}

/// Holds the first invocation of `call`'s tool and arguments in flight.
fn hold_first(tools: &mut IndexMap<String, ToolScript>, call: &Value) {
    let Some(call) = call.as_object() else { return };
    let name = call["name"].as_str().unwrap_or_default();
    let key = canonical_args(&call["arguments"].as_object().cloned().unwrap_or_default());
    if let Some(script) = tools.get_mut(name) {
        for response in &mut script.responses {
            if response
                .args
                .as_ref()
                .is_some_and(|a| canonical_args(a) == key)
            {
                response.latency_ms = Some(HELD_MS);
            }
        }
    }
}
