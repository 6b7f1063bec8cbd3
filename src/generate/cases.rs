//! Strategies for whole cases: random batches for each function, and metamorphic variants
//! of the spec's own cases (keys permuted, duplicates appended, ids renamed), so a suite
//! that was memorised or overfitted still fails. Expectations come from the reference.

use super::calls::{exec_calls, long_exec_batch, max_parallel, EQUIVALENT};
use super::values::{args, deep_args, permute_keys, tricky_string, value};
use crate::json::{Object, Value};
use crate::reference::{canonical_args, dispatched, plan, DEFAULT_MAX_PARALLEL};
use crate::spec::dispatch_table_for;
use crate::spec::{Answer, Case, Dispatch, ExceptionClass, Response, SpecCase, ToolScript};
use indexmap::IndexMap;
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;

/// The inputs of a generated case: tools and batches, no expectations yet.
#[derive(Debug, Clone, PartialEq)]
pub enum GeneratedInput {
    Exec {
        dispatch: Dispatch,
        /// `calls` and `max_parallel` of each batch.
        batches: Vec<(Value, Option<u64>)>,
    },
    Dedup {
        tools: IndexMap<String, ToolScript>,
        batches: Vec<Value>,
    },
}

/// Latency for the race probes: most cases none, one in `one_in` a millisecond, enough for
/// a thread pool to start a duplicate while the first call of a key is in flight (only
/// that first call waits, see [`ToolScript::latency_ms`]), and short enough that an
/// implementation that runs calls one by one, and so pays every wait in series, stays fast.
/// Only the calls a race can show on wait ([`racing_exec_calls`], [`racing_dedup_calls`]).
fn latency(one_in: u32) -> impl Strategy<Value = u64> {
    prop_oneof![one_in - 1 => Just(0u64), 1 => Just(PROBE_MS)]
}

/// The wait of a generated race probe, in milliseconds.
const PROBE_MS: u64 = 1;

/// The spec's scripts with every wait cut to [`PROBE_MS`], where it was: a variant is one
/// more probe of the same calls, and the fixed case itself still runs with its own longer
/// waits. Kept whole, a variant of a case whose every call waits 20 or 30 ms made a
/// sequential implementation wait up to 80 ms per variant: most of what the probes cost.
fn probe_waits(tools: &IndexMap<String, ToolScript>) -> IndexMap<String, ToolScript> {
    let cut = |ms: u64| ms.min(PROBE_MS);
    let mut tools = tools.clone();
    for script in tools.values_mut() {
        script.latency_ms = cut(script.latency_ms);
        for response in &mut script.responses {
            response.latency_ms = response.latency_ms.map(cut);
        }
    }
    tools
}

/// The calls held in flight in `execute_tool_calls` batches, as (tool, canonical
/// arguments): in each batch that dispatches two calls or more, the first dispatched call
/// whose arguments no earlier batch dispatched (only the first invocation of each arguments
/// waits). While it waits the batch's other calls finish, so results come back out of call
/// order and any id a worker holds in shared state is overwritten; a sequential
/// implementation pays one wait per batch.
fn racing_exec_calls(batches: &[(Value, Option<u64>)]) -> HashSet<(String, String)> {
    let mut earlier = HashSet::new();
    let mut racing = HashSet::new();
    for (calls, max_parallel) in batches {
        let calls = crate::reference::input::tool_calls(calls).unwrap_or_default();
        let decisions = plan(&calls, max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL));
        let dispatched: Vec<(String, String)> = dispatched(&calls, &decisions)
            .into_iter()
            .map(|call| {
                let arguments = call.arguments.clone().unwrap_or_default();
                (call.tool.clone(), canonical_args(&arguments))
            })
            .collect();
        if dispatched.len() >= 2 {
            if let Some(held) = dispatched.iter().find(|call| !earlier.contains(*call)) {
                racing.insert(held.clone());
            }
        }
        earlier.extend(dispatched);
    }
    racing
}

/// The calls whose wait can reveal a race in `run_parallel_calls` batches, as (tool,
/// canonical args): those a batch calls twice or more and no earlier batch called (only the
/// first invocation of each args in a case waits), so a duplicate can start while the first
/// is in flight. Only these wait: a sequential implementation pays for nothing else.
fn racing_dedup_calls(batches: &[Value]) -> HashSet<(String, String)> {
    let mut earlier = HashSet::new();
    let mut racing = HashSet::new();
    for calls in batches {
        let mut seen = HashSet::new();
        for call in crate::reference::input::dedup_calls(calls).unwrap_or_default() {
            let key = (call.name, canonical_args(&call.args.unwrap_or_default()));
            if !seen.insert(key.clone()) && !earlier.contains(&key) {
                racing.insert(key);
            }
        }
        earlier.extend(seen);
    }
    racing
}

/// How many batches in a row: mostly one, sometimes two or three (state between batches).
fn batch_count() -> impl Strategy<Value = usize> {
    prop_oneof![6 => Just(1usize), 2 => Just(2usize), 1 => Just(3usize)]
}

/// A short batch with any limit, or (one in sixteen) a batch of hundreds of calls.
fn exec_batch() -> impl Strategy<Value = (Value, Option<u64>)> {
    let short = exec_calls(8).prop_flat_map(|calls| {
        let len = calls.as_list().map_or(0, <[Value]>::len);
        (Just(calls), max_parallel(len))
    });
    prop_oneof![15 => short, 1 => long_exec_batch()]
}

/// Random `execute_tool_calls` cases against the sandbox; with latency, the sandbox's
/// answers are served as scripts that wait.
pub fn exec_input() -> impl Strategy<Value = GeneratedInput> {
    (
        batch_count().prop_flat_map(|n| prop::collection::vec(exec_batch(), n)),
        latency(20),
    )
        .prop_map(|(batches, latency_ms)| {
            let racing = racing_exec_calls(&batches);
            let dispatch = if latency_ms == 0 || racing.is_empty() {
                Dispatch::Sandbox
            } else {
                let mut tools =
                    dispatch_table_for(&Dispatch::Sandbox, batches.iter().map(|(calls, _)| calls));
                hold_in_flight(&mut tools, &racing, latency_ms);
                Dispatch::Scripted { tools }
            };
            GeneratedInput::Exec { dispatch, batches }
        })
}

const KNOWN_TOOLS: [&str; 5] = ["t1", "t2", "search", "my tool", "天気"];
const UNKNOWN_TOOLS: [&str; 2] = ["unknown", "T1"];

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        8 => value(2).prop_map(|value| Answer::Return { value }),
        2 => tricky_string(10).prop_map(|message| Answer::Raise {
            message,
            exception: None,
            args: None
        }),
        2 => raise_of_a_kind(),
    ]
}

/// An exception whose `str()` is not simply its first argument (RULINGS B7a): `KeyError`
/// of one argument, no argument, several arguments, or a class with its own `__str__`.
fn raise_of_a_kind() -> impl Strategy<Value = Answer> {
    let class = prop::sample::select(vec![
        ExceptionClass::KeyError,
        ExceptionClass::RuntimeError,
        ExceptionClass::ValueError,
        ExceptionClass::ToolError,
    ]);
    let arg = prop_oneof![
        3 => tricky_string(6).prop_map(|s| Value::Str(s.into())),
        1 => (-5i64..5).prop_map(Value::from),
    ];
    let args = prop_oneof![
        2 => prop::collection::vec(arg.clone(), 1..=1),
        1 => Just(Vec::new()),
        1 => prop::collection::vec(arg, 2..=3),
    ];
    (class, args, tricky_string(8)).prop_map(|(class, args, own)| Answer::Raise {
        message: class.python_str(&args).unwrap_or(own),
        exception: Some(class),
        args: Some(args),
    })
}

/// A distinct call: a tool name, and args (`None`: the field is absent).
type Distinct = (String, Option<Object>);

fn distinct_calls() -> impl Strategy<Value = Vec<Distinct>> {
    let names: Vec<String> = KNOWN_TOOLS
        .iter()
        .chain(&UNKNOWN_TOOLS)
        .map(|s| (*s).to_owned())
        .collect();
    let some_args = prop_oneof![9 => args(2), 1 => deep_args()];
    prop::collection::vec(
        (
            prop::sample::select(names),
            prop::option::weighted(0.85, some_args),
        ),
        1..5,
    )
}

/// Many distinct calls (130 to 250): a long batch's keys.
fn many_distinct_calls() -> impl Strategy<Value = Vec<Distinct>> {
    (130usize..=250, any::<u64>(), 0usize..EQUIVALENT.len()).prop_map(|(n, seed, e)| {
        (0..n)
            .map(|i| {
                let name = KNOWN_TOOLS[(seed as usize).wrapping_add(i) % KNOWN_TOOLS.len()];
                let mut args = Object::new();
                args.insert("i".into(), Value::from(i as i64));
                if i % 3 == 0 {
                    args.insert(
                        "s".into(),
                        Value::from(EQUIVALENT[(e + i) % EQUIVALENT.len()]),
                    );
                }
                (name.to_owned(), Some(args))
            })
            .collect()
    })
}

/// A long batch over `distinct`: every key once in order, then late repeats of the earliest
/// keys, so a cache that forgets shows; each pick with the seed that reorders its args.
fn long_picks(distinct: usize, seed: u64) -> Vec<(usize, u64)> {
    let repeats = 20 + (seed % 40) as usize;
    (0..distinct)
        .chain((0..repeats).map(|r| r.wrapping_mul(7) % (distinct / 4).max(1)))
        .map(|i| (i, seed.rotate_left(i as u32)))
        .collect()
}

/// Random `run_parallel_calls` cases: a few distinct calls drawn many times (duplicates,
/// keys reordered), over one to three batches, with per-call answers that change on a
/// second invocation, raising tools, unknown tools and, sometimes, latency.
pub fn dedup_input() -> impl Strategy<Value = GeneratedInput> {
    let short = (distinct_calls(), batch_count(), latency(10)).prop_flat_map(
        |(distinct, batches, latency_ms)| {
            let picks = prop::collection::vec((any::<prop::sample::Index>(), any::<u64>()), 0..10);
            let answers =
                prop::collection::vec(prop::collection::vec(answer(), 1..=2), distinct.len());
            let calls = distinct.clone();
            let batches = prop::collection::vec(picks, batches).prop_map(move |picks| {
                picks
                    .iter()
                    .map(|batch| dedup_batch(batch.iter().map(|(i, seed)| (i.get(&calls), *seed))))
                    .collect::<Vec<_>>()
            });
            (Just(distinct), batches, answers, Just(latency_ms))
        },
    );
    // One in sixteen: one batch of hundreds of calls over hundreds of keys, no latency.
    let long = (many_distinct_calls(), any::<u64>()).prop_flat_map(|(distinct, seed)| {
        let picks = long_picks(distinct.len(), seed);
        let batch = dedup_batch(picks.iter().map(|&(i, seed)| (&distinct[i], seed)));
        let answers = prop::collection::vec(prop::collection::vec(answer(), 1..=2), distinct.len());
        (Just(distinct), Just(vec![batch]), answers, Just(0u64))
    });
    prop_oneof![15 => short, 1 => long].prop_map(|(distinct, batches, answers, latency_ms)| {
        let mut tools = scripts(&distinct, answers);
        if latency_ms > 0 {
            let racing = racing_dedup_calls(&batches);
            hold_in_flight(&mut tools, &racing, latency_ms);
        }
        GeneratedInput::Dedup { tools, batches }
    })
}

/// Gives `latency_ms` to the responses that answer the `racing` (tool, canonical args).
fn hold_in_flight(
    tools: &mut IndexMap<String, ToolScript>,
    racing: &HashSet<(String, String)>,
    latency_ms: u64,
) {
    for (name, script) in tools.iter_mut() {
        for response in &mut script.responses {
            // A response without args answers every args: holding it would hold them all.
            let Some(args) = &response.args else {
                continue;
            };
            if racing.contains(&(name.clone(), canonical_args(args))) {
                response.latency_ms = Some(latency_ms);
            }
        }
    }
}

/// A batch of calls: each distinct call with its args keys reordered by the seed.
fn dedup_batch<'d>(picks: impl Iterator<Item = (&'d Distinct, u64)>) -> Value {
    Value::List(
        picks
            .map(|((name, args), seed)| {
                let mut call = Object::new();
                call.insert("name".into(), Value::Str(name.clone().into()));
                if let Some(args) = args {
                    call.insert(
                        "args".into(),
                        permute_keys(&Value::from(args.clone()), seed),
                    );
                }
                Value::from(call)
            })
            .collect(),
    )
}

/// One script per known tool that the calls name: an answer list per distinct args.
fn scripts(distinct: &[Distinct], answers: Vec<Vec<Answer>>) -> IndexMap<String, ToolScript> {
    let mut tools: IndexMap<String, ToolScript> = IndexMap::new();
    for ((name, args), answers) in distinct.iter().zip(answers) {
        if !KNOWN_TOOLS.contains(&name.as_str()) {
            continue;
        }
        let script = tools.entry(name.clone()).or_insert_with(|| ToolScript {
            latency_ms: 0,
            responses: Vec::new(),
        });
        script.responses.push(Response {
            args: Some(args.clone().unwrap_or_default()),
            latency_ms: None,
            answers,
        });
    }
    tools
}

/// Metamorphic variants of the spec's cases of one function: the same case with object keys
/// permuted at every depth, a few calls appended again (duplicates), and given ids renamed;
/// its tools wait where the case's wait, for `PROBE_MS`.
pub fn variant_input(cases: Arc<Vec<SpecCase>>) -> impl Strategy<Value = GeneratedInput> {
    let count = cases.len().max(1);
    (0..count, any::<u64>(), 0usize..3).prop_filter_map(
        "the spec has no case of this function",
        move |(index, seed, extra)| {
            let case = cases.get(index)?;
            Some(variant(&case.case, seed, extra))
        },
    )
}

fn variant(case: &Case, seed: u64, extra: usize) -> GeneratedInput {
    match case {
        Case::Exec(c) => GeneratedInput::Exec {
            dispatch: match &c.dispatch {
                Dispatch::Scripted { tools } => Dispatch::Scripted {
                    tools: probe_waits(tools),
                },
                Dispatch::Sandbox => Dispatch::Sandbox,
            },
            batches: c
                .batches
                .iter()
                .map(|b| {
                    (
                        append_again(
                            &rename_ids(&permute_keys(&b.calls, seed), seed),
                            seed,
                            extra,
                        ),
                        b.max_parallel,
                    )
                })
                .collect(),
        },
        Case::Dedup(c) => GeneratedInput::Dedup {
            tools: probe_waits(&c.tools),
            batches: c
                .batches
                .iter()
                .map(|b| append_again(&permute_keys(&b.calls, seed), seed, extra))
                .collect(),
        },
    }
}

/// Appends `extra` calls of the list again (picked by the seed).
fn append_again(calls: &Value, seed: u64, extra: usize) -> Value {
    let Value::List(items) = calls else {
        return calls.clone();
    };
    let mut items = items.clone();
    for k in 0..extra {
        if items.is_empty() {
            break;
        }
        let pick = (seed as usize).wrapping_add(k * 7) % items.len();
        items.push(items[pick].clone());
    }
    Value::List(items)
}

/// Renames every given, non-empty id consistently (`x` -> `x~7`), leaving `call_<n>`-like
/// ids alone so collisions with generated ids keep their meaning.
fn rename_ids(calls: &Value, seed: u64) -> Value {
    let Value::List(items) = calls else {
        return calls.clone();
    };
    let suffix = format!("~{}", seed % 1000);
    Value::List(
        items
            .iter()
            .map(|call| {
                let mut call = call.clone();
                if let Value::Object(fields) = &mut call {
                    if let Some(Value::Str(id)) = fields.get_mut("id") {
                        if !id.is_empty() && !id.starts_with("call_") {
                            id.push_str(&suffix);
                        }
                    }
                }
                call
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use proptest::strategy::ValueTree;

    fn keys(pairs: &[(&str, &str)]) -> HashSet<(String, String)> {
        pairs
            .iter()
            .map(|(tool, args)| ((*tool).to_owned(), (*args).to_owned()))
            .collect()
    }

    #[test]
    fn only_a_call_repeated_before_any_earlier_batch_made_it_waits() {
        // Only the first invocation of each args in a case waits: a call that batch 1
        // already made answers at once in batch 2, so repeating it there shows no race.
        let batches = |text: &str| -> Vec<Value> {
            let parsed = parse(text).unwrap();
            parsed.as_list().unwrap().to_vec()
        };
        let a = r#"{"name": "t1", "args": {"k": 1, "j": 2}}"#;
        let a_reordered = r#"{"name": "t1", "args": {"j": 2, "k": 1}}"#;
        let b = r#"{"name": "t2"}"#;
        let b_empty = r#"{"name": "t2", "args": {}}"#;
        let racing_a = keys(&[("t1", r#"{"j": 2, "k": 1}"#)]);
        let racing_b = keys(&[("t2", "{}")]);
        let none = HashSet::new();
        let of = |text: String| racing_dedup_calls(&batches(&text));
        assert_eq!(of(format!("[[{b}, {a}, {a_reordered}]]")), racing_a);
        assert_eq!(of(format!("[[{a}], [{b}, {b_empty}]]")), racing_b);
        assert_eq!(of(format!("[[{a}], [{a}, {a}]]")), none);
        assert_eq!(of(format!("[[{a}, {b}], [{a}]]")), none);
    }

    #[test]
    fn one_fresh_dispatched_call_of_each_batch_of_several_waits() {
        let batch = |calls: &str, limit: Option<u64>| (parse(calls).unwrap(), limit);
        let call = |id: &str, n: i64| {
            format!(r#"{{"id": "{id}", "tool": "add", "arguments": {{"a": {n}, "b": 1}}}}"#)
        };
        let key = |n: i64| format!(r#"{{"a": {n}, "b": 1}}"#);
        // The first dispatched call: not a duplicate id, not past the limit.
        let first = call("x", 1);
        let (dup, second, third) = (call("x", 9), call("y", 2), call("z", 3));
        assert_eq!(
            racing_exec_calls(&[batch(&format!("[{first}, {dup}, {second}]"), None)]),
            keys(&[("add", &key(1))])
        );
        // A batch that dispatches one call has nothing to overlap; a call an earlier batch
        // dispatched answers at once, so the next fresh one waits.
        assert_eq!(
            racing_exec_calls(&[
                batch(&format!("[{first}, {second}]"), Some(1)),
                batch(&format!("[{first}, {third}]"), None),
            ]),
            keys(&[("add", &key(3))])
        );
        assert_eq!(
            racing_exec_calls(&[batch(&format!("[{first}, {dup}]"), None)]),
            HashSet::new()
        );
    }

    #[test]
    fn generated_latency_is_only_on_the_responses_of_racing_calls() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut exec, mut dedup) = (0, 0);
        for _ in 0..3000 {
            let input = prop_oneof![exec_input(), dedup_input()]
                .new_tree(&mut runner)
                .unwrap()
                .current();
            match input {
                GeneratedInput::Exec {
                    dispatch: Dispatch::Scripted { tools },
                    batches,
                } => {
                    let racing = racing_exec_calls(&batches);
                    assert_eq!(waiting(&tools), racing);
                    assert!(!racing.is_empty() && racing.len() <= batches.len());
                    exec += 1;
                }
                GeneratedInput::Dedup { tools, batches } => {
                    let waits = waiting(&tools);
                    if !waits.is_empty() {
                        // Unknown tools have no script to wait in.
                        let mut racing = racing_dedup_calls(&batches);
                        racing.retain(|(name, _)| tools.contains_key(name));
                        assert_eq!(waits, racing);
                        dedup += 1;
                    }
                }
                GeneratedInput::Exec { .. } => {}
            }
        }
        assert!(
            exec > 20 && dedup > 20,
            "{exec} exec and {dedup} dedup cases waited"
        );
    }

    #[test]
    fn variants_wait_where_the_spec_case_waits_for_a_probe_s_time() {
        let spec = crate::spec::Spec::embedded().unwrap();
        let scripts = |input: &GeneratedInput| match input {
            GeneratedInput::Exec {
                dispatch: Dispatch::Scripted { tools },
                ..
            }
            | GeneratedInput::Dedup { tools, .. } => Some(tools.clone()),
            GeneratedInput::Exec { .. } => None,
        };
        let mut slow = 0;
        for case in &spec.cases {
            let original = variant(&case.case, 0, 0);
            let Some(tools) = scripts(&original) else {
                continue;
            };
            let varied = scripts(&variant(&case.case, 7, 2)).unwrap();
            let longest = |tools: &IndexMap<String, ToolScript>| {
                let waits = tools
                    .values()
                    .flat_map(|script| script.responses.iter().map(|r| script.latency_of(r)));
                waits.max().unwrap_or(0)
            };
            assert!(longest(&varied) <= PROBE_MS, "{}", case.id());
            for (name, script) in &tools {
                assert_eq!(
                    script.has_latency(),
                    varied[name].has_latency(),
                    "{}",
                    case.id()
                );
            }
            let original_waits = match &*case.case {
                Case::Exec(c) => match &c.dispatch {
                    Dispatch::Scripted { tools } => longest(tools),
                    Dispatch::Sandbox => 0,
                },
                Case::Dedup(c) => longest(&c.tools),
            };
            slow += usize::from(original_waits > PROBE_MS);
        }
        assert!(
            slow >= 3,
            "the spec has cases that wait longer than a probe"
        );
    }

    /// The (tool, canonical args) whose first invocation waits.
    fn waiting(tools: &IndexMap<String, ToolScript>) -> HashSet<(String, String)> {
        let mut out = HashSet::new();
        for (name, script) in tools {
            assert_eq!(script.latency_ms, 0, "generated latency is per response");
            for response in &script.responses {
                if script.latency_of(response) > 0 {
                    let args = response.args.clone().unwrap_or_default();
                    out.insert((name.clone(), canonical_args(&args)));
                }
            }
        }
        out
    }
}
