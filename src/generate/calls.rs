//! Strategies for batches of calls: ids absent, `null`, empty, repeated, whitespace, and
//! colliding with generated `call_<i>` in both directions; sandbox tools with valid and
//! invalid arguments; unknown tools; duplicate dedup calls with shuffled keys.

use super::values::{args, float, permute_object, tricky_string};
use crate::json::{Int, Object, Value};
use proptest::prelude::*;

/// An id as a call may carry it: `None` is an absent `id` field.
pub fn id() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(Value::Null)),
        1 => Just(Some(Value::from(""))),
        1 => prop::sample::select(vec![" ", "\t", "  "]).prop_map(|s| Some(Value::from(s))),
        3 => prop::sample::select(vec!["a", "b", "x", "toolu_01"]).prop_map(|s| Some(Value::from(s))),
        2 => (1usize..8).prop_map(|i| Some(Value::from(format!("call_{i}")))),
        1 => tricky_string(6).prop_map(|s| Some(Value::from(s))),
        2 => prop::sample::select(EQUIVALENT.to_vec()).prop_map(|s| Some(Value::from(s))),
    ]
}

/// Canonically equivalent spellings (composed and decomposed `é` and `Å`, the Angstrom and
/// Ohm signs, a Hangul syllable and its jamo, combining marks in two orders): different
/// strings that a normalising implementation would merge.
pub const EQUIVALENT: [&str; 9] = [
    "caf\u{e9}",
    "cafe\u{301}",
    "\u{c5}",
    "A\u{30a}",
    "\u{212b}",
    "\u{2126}",
    "\u{3a9}",
    "\u{d55c}",
    "\u{1112}\u{1161}\u{11ab}",
];

/// Tool names no sandbox tool has, with control, invisible, non-ASCII and astral
/// characters, some one character away from a real tool.
const ODD_TOOL_NAMES: [&str; 10] = [
    "get_weather\u{0}",
    "add\n",
    "\tadd",
    "add\u{1f}",
    "\u{7f}",
    "add\u{200b}",
    "\u{feff}add",
    "\u{1f600}",
    "\u{5929}\u{6c17}",
    "\u{10ffff}",
];

/// A number inside the sandbox's domain: integers within +-2^53, any float.
fn sandbox_number() -> impl Strategy<Value = Value> {
    let limit = 1i64 << 53;
    prop_oneof![
        3 => (-20i64..20).prop_map(Value::from),
        1 => (-limit..=limit).prop_map(Value::from),
        2 => float().prop_map(Value::Float),
        1 => Just(Value::Int(Int::from(0))),
    ]
}

/// A value of the wrong type for some parameter (or of the right one, by chance).
fn any_argument() -> impl Strategy<Value = Value> {
    prop_oneof![
        sandbox_number(),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        prop::sample::select(vec!["Paris", "1", ""]).prop_map(Value::from),
        Just(Value::List(vec![])),
    ]
}

fn city() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        "Paris",
        "tokyo",
        " LIMA ",
        "\tParis\n",
        "Atlantis",
        "it's",
        "Zürich",
        "\u{1c}paris",
        "",
    ])
    .prop_map(Value::from)
}

fn doc_id() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        "shipping",
        "refund-policy",
        "Shipping",
        "returns",
        "it's \"x\"",
    ])
    .prop_map(Value::from)
}

fn object(entries: Vec<(&str, Value)>) -> Object {
    entries.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// `(tool, arguments)`: mostly valid sandbox calls, sometimes broken arguments or an unknown
/// tool; `None` arguments means the field is absent.
pub fn sandbox_request() -> impl Strategy<Value = (String, Option<Object>)> {
    let arithmetic = (
        prop::sample::select(vec!["add", "divide"]),
        sandbox_number(),
        sandbox_number(),
    )
        .prop_map(|(tool, a, b)| (tool.to_owned(), Some(object(vec![("a", a), ("b", b)]))));
    let weather = city().prop_map(|c| ("get_weather".to_owned(), Some(object(vec![("city", c)]))));
    let doc = doc_id().prop_map(|d| ("lookup_doc".to_owned(), Some(object(vec![("doc_id", d)]))));
    let broken = (
        prop::sample::select(vec!["add", "divide", "get_weather", "lookup_doc"]),
        prop::collection::vec(
            (
                prop::sample::select(vec!["a", "b", "city", "doc_id", "zz", "B"]),
                any_argument(),
            ),
            0..4,
        ),
    )
        .prop_map(|(tool, entries)| {
            (
                tool.to_owned(),
                Some(entries.into_iter().map(|(k, v)| (k.into(), v)).collect()),
            )
        });
    let unknown = prop::sample::select(vec!["get_time", "Add", "search", ""])
        .prop_map(|t| (t.to_owned(), Some(Object::new())));
    let odd = (
        prop::sample::select(ODD_TOOL_NAMES.to_vec()),
        sandbox_number(),
    )
        .prop_map(|(t, a)| {
            let arguments = object(vec![("a", a), ("b", Value::from(1))]);
            (t.to_owned(), Some(arguments))
        });
    let bare =
        prop::sample::select(vec!["add", "get_weather", "ping"]).prop_map(|t| (t.to_owned(), None));
    prop_oneof![
        4 => arithmetic,
        3 => weather,
        2 => doc,
        2 => broken,
        1 => unknown,
        1 => odd,
        1 => bare
    ]
}

/// A batch of `execute_tool_calls` calls against the sandbox, as the JSON list sent to an
/// implementation.
pub fn exec_calls(max_len: usize) -> impl Strategy<Value = Value> {
    prop::collection::vec((id(), sandbox_request()), 0..=max_len)
        .prop_map(|calls| batch_of(calls.into_iter()))
}

/// A batch of `execute_tool_calls` calls that mostly succeed: additions of small integers,
/// now and then a division by zero or a call without arguments (one failure each); their
/// ids mostly absent, from a few letters or a generated id's, so that duplicates of given
/// and generated ids are common.
pub fn plain_exec_calls(max_len: usize) -> impl Strategy<Value = Value> {
    let numbers = |tool: &'static str, b: std::ops::Range<i64>| {
        (-20i64..20, b).prop_map(move |(a, b)| {
            let arguments = object(vec![("a", Value::from(a)), ("b", Value::from(b))]);
            (tool.to_owned(), Some(arguments))
        })
    };
    let addition = prop_oneof![
        8 => numbers("add", -20..20),
        1 => numbers("divide", 0..1),
        1 => Just(("add".to_owned(), None)),
    ];
    let plain_id = prop_oneof![
        3 => Just(None),
        2 => prop::sample::select(vec!["a", "b"]).prop_map(|s| Some(Value::from(s))),
        1 => prop::sample::select(vec!["call_1", "call_2"]).prop_map(|s| Some(Value::from(s))),
        1 => id(),
    ];
    // One batch in four is one call longer than the default limit: the shortest that
    // shows it.
    let len = prop_oneof![
        3 => 0..=max_len,
        1 => Just(crate::reference::DEFAULT_MAX_PARALLEL as usize + 1),
    ];
    len.prop_flat_map(move |len| prop::collection::vec((plain_id.clone(), addition.clone()), len))
        .prop_map(|calls| batch_of(calls.into_iter()))
}

/// The JSON list of calls `(id, (tool, arguments))`, fields absent where `None`.
fn batch_of(calls: impl Iterator<Item = (Option<Value>, (String, Option<Object>))>) -> Value {
    Value::List(
        calls
            .map(|(id, (tool, arguments))| {
                let mut call = Object::new();
                if let Some(id) = id {
                    call.insert("id".into(), id);
                }
                call.insert("tool".into(), Value::Str(tool.into()));
                if let Some(arguments) = arguments {
                    call.insert("arguments".into(), Value::from(arguments));
                }
                Value::from(call)
            })
            .collect(),
    )
}

/// `max_parallel` for a plain batch of `len` calls: often the limit that leaves the last
/// call alone past it (absent when the default does that), otherwise any.
pub fn plain_max_parallel(len: usize) -> impl Strategy<Value = Option<u64>> {
    let last_alone = len.saturating_sub(1) as u64;
    let last_alone = (last_alone != crate::reference::DEFAULT_MAX_PARALLEL).then_some(last_alone);
    prop_oneof![
        2 => Just(last_alone),
        3 => max_parallel(len),
    ]
}

/// Limits beyond any batch, at every scale up to the largest a case file holds.
pub const HUGE_LIMITS: [u64; 8] = [
    1 << 10,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) + 1,
    (1 << 53) + 1,
    (1 << 63) - 1,
    1 << 63,
    u64::MAX,
];

/// `max_parallel` for a batch of `len` calls: omitted (`None`), zero, inside, just beyond,
/// and far beyond at every scale.
pub fn max_parallel(len: usize) -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(0)),
        4 => (0..=len as u64 + 2).prop_map(Some),
        1 => prop::sample::select(HUGE_LIMITS.to_vec()).prop_map(Some),
    ]
}

/// A long batch of `execute_tool_calls` (100 to 330 calls): distinct given ids and absent
/// ones, then late repeats of early ids (given, and `call_<i>` naming a generated one), with
/// a limit mostly beyond the batch, so an id set that forgets or a capped limit shows.
pub fn long_exec_batch() -> impl Strategy<Value = (Value, Option<u64>)> {
    (100usize..=300, 1usize..30, any::<u64>()).prop_flat_map(|(len, repeats, seed)| {
        let calls = long_exec_calls(len, repeats, seed);
        let total = len + repeats;
        let limit = prop_oneof![
            3 => prop::sample::select(HUGE_LIMITS.to_vec()).prop_map(Some),
            1 => ((total as u64).saturating_sub(2)..=total as u64 + 2).prop_map(Some),
            1 => Just(None),
        ];
        (Just(calls), limit)
    })
}

fn long_exec_calls(len: usize, repeats: usize, seed: u64) -> Value {
    let given = |i: usize| (seed >> (i % 61)) & 3 != 0;
    let mut calls: Vec<Value> = (0..len)
        .map(|i| {
            let id = given(i).then(|| format!("k{i}"));
            add_call(id, i)
        })
        .collect();
    for r in 0..repeats {
        // Repeat an id from the first quarter: far behind by now.
        let early = (seed as usize).wrapping_add(r * 7919) % (len / 4).max(1);
        let id = if given(early) {
            format!("k{early}")
        } else {
            format!("call_{}", early + 1)
        };
        calls.push(add_call(Some(id), r));
    }
    Value::List(calls)
}

fn add_call(id: Option<String>, i: usize) -> Value {
    let mut call = Object::new();
    if let Some(id) = id {
        call.insert("id".into(), Value::Str(id.into()));
    }
    call.insert("tool".into(), Value::from("add"));
    let arguments = object(vec![("a", Value::from(i as i64)), ("b", Value::from(1))]);
    call.insert("arguments".into(), Value::from(arguments));
    Value::from(call)
}

/// A batch of `run_parallel_calls` calls over `names`, with many duplicates: calls are
/// drawn from a few distinct ones, and a repeat may list its args keys in another order.
pub fn dedup_calls(names: Vec<String>, max_len: usize) -> impl Strategy<Value = Value> {
    let distinct = prop::collection::vec(
        (
            prop::sample::select(names),
            prop::option::weighted(0.85, args(2)),
        ),
        1..5,
    );
    (
        distinct,
        prop::collection::vec((any::<prop::sample::Index>(), any::<u64>()), 0..=max_len),
    )
        .prop_map(|(distinct, picks)| {
            Value::List(
                picks
                    .into_iter()
                    .map(|(index, seed)| {
                        let (name, args) = index.get(&distinct);
                        let mut call = Object::new();
                        call.insert("name".into(), Value::Str(name.clone().into()));
                        if let Some(args) = args {
                            call.insert("args".into(), Value::from(permute_object(args, seed)));
                        }
                        Value::from(call)
                    })
                    .collect(),
            )
        })
}
