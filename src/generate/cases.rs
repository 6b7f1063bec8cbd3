//! Strategies for whole cases: random batches for each function, and metamorphic variants
//! of the spec's own cases (keys permuted, duplicates appended, ids renamed), so a suite
//! that was memorised or overfitted still fails. Expectations come from the reference.

use super::calls::{exec_calls, long_exec_batch, max_parallel, EQUIVALENT};
use super::values::{args, deep_args, permute_keys, tricky_string, value};
use crate::json::{Object, Value};
use crate::protocol::dispatch_table_for;
use crate::spec::{Answer, Case, Dispatch, ExceptionClass, Response, SpecCase, ToolScript};
use indexmap::IndexMap;
use proptest::prelude::*;
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
/// The cases given latency are only those where a race can show ([`can_race_exec`],
/// [`can_race_dedup`]).
fn latency(one_in: u32) -> impl Strategy<Value = u64> {
    prop_oneof![one_in - 1 => Just(0u64), 1 => Just(1u64)]
}

/// Whether waiting can reveal a race in `execute_tool_calls` batches: some batch dispatches
/// two calls or more (calls finishing out of order, ids checked by racing workers), and
/// none is long (hundreds of first calls would wait in series in a sequential
/// implementation, for nothing a short batch does not show).
fn can_race_exec(batches: &[(Value, Option<u64>)]) -> bool {
    let len = |calls: &Value| calls.as_list().map_or(0, <[Value]>::len);
    batches.iter().any(|(calls, _)| len(calls) >= 2)
        && batches.iter().all(|(calls, _)| len(calls) <= 16)
}

/// Whether waiting can reveal a race in `run_parallel_calls` batches: some batch calls one
/// distinct call twice that no earlier batch called (only the first invocation of each
/// args in a case waits), so a duplicate can start while the first is in flight.
fn can_race_dedup(picks: &[Vec<usize>]) -> bool {
    let mut earlier = std::collections::HashSet::new();
    picks.iter().any(|batch| {
        let mut seen = std::collections::HashSet::new();
        let repeats_a_fresh_call = batch
            .iter()
            .any(|i| !seen.insert(*i) && !earlier.contains(i));
        earlier.extend(seen);
        repeats_a_fresh_call
    })
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
            let dispatch = if latency_ms == 0 || !can_race_exec(&batches) {
                Dispatch::Sandbox
            } else {
                let mut tools =
                    dispatch_table_for(&Dispatch::Sandbox, batches.iter().map(|(calls, _)| calls));
                tools
                    .values_mut()
                    .for_each(|script| script.latency_ms = latency_ms);
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
        3 => tricky_string(6).prop_map(Value::Str),
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
    let short = (distinct_calls(), batch_count(), latency(10))
        .prop_flat_map(|(distinct, batches, latency_ms)| {
            let picks = prop::collection::vec((any::<prop::sample::Index>(), any::<u64>()), 0..10);
            let answers =
                prop::collection::vec(prop::collection::vec(answer(), 1..=2), distinct.len());
            (
                Just(distinct),
                prop::collection::vec(picks, batches),
                answers,
                Just(latency_ms),
            )
        })
        .prop_map(|(distinct, picks, answers, latency_ms)| {
            let indices: Vec<Vec<usize>> = picks
                .iter()
                .map(|batch| batch.iter().map(|(i, _)| i.index(distinct.len())).collect())
                .collect();
            let latency_ms = if can_race_dedup(&indices) {
                latency_ms
            } else {
                0
            };
            let batches = picks
                .iter()
                .map(|batch| dedup_batch(batch.iter().map(|(i, seed)| (i.get(&distinct), *seed))))
                .collect();
            (distinct, batches, answers, latency_ms)
        });
    // One in sixteen: one batch of hundreds of calls over hundreds of keys, no latency.
    let long = (many_distinct_calls(), any::<u64>()).prop_flat_map(|(distinct, seed)| {
        let picks = long_picks(distinct.len(), seed);
        let batch = dedup_batch(picks.iter().map(|&(i, seed)| (&distinct[i], seed)));
        let answers = prop::collection::vec(prop::collection::vec(answer(), 1..=2), distinct.len());
        (Just(distinct), Just(vec![batch]), answers, Just(0u64))
    });
    prop_oneof![15 => short, 1 => long].prop_map(|(distinct, batches, answers, latency_ms)| {
        GeneratedInput::Dedup {
            tools: scripts(&distinct, answers, latency_ms),
            batches,
        }
    })
}

/// A batch of calls: each distinct call with its args keys reordered by the seed.
fn dedup_batch<'d>(picks: impl Iterator<Item = (&'d Distinct, u64)>) -> Value {
    Value::List(
        picks
            .map(|((name, args), seed)| {
                let mut call = Object::new();
                call.insert("name".into(), Value::Str(name.clone()));
                if let Some(args) = args {
                    call.insert(
                        "args".into(),
                        permute_keys(&Value::Object(args.clone()), seed),
                    );
                }
                Value::Object(call)
            })
            .collect(),
    )
}

/// One script per known tool that the calls name: an answer list per distinct args.
fn scripts(
    distinct: &[Distinct],
    answers: Vec<Vec<Answer>>,
    latency_ms: u64,
) -> IndexMap<String, ToolScript> {
    let mut tools: IndexMap<String, ToolScript> = IndexMap::new();
    for ((name, args), answers) in distinct.iter().zip(answers) {
        if !KNOWN_TOOLS.contains(&name.as_str()) {
            continue;
        }
        let script = tools.entry(name.clone()).or_insert_with(|| ToolScript {
            latency_ms,
            responses: Vec::new(),
        });
        script.responses.push(Response {
            args: Some(args.clone().unwrap_or_default()),
            answers,
        });
    }
    tools
}

/// Metamorphic variants of the spec's cases of one function: the same case with object keys
/// permuted at every depth, a few calls appended again (duplicates), and given ids renamed.
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
            dispatch: c.dispatch.clone(),
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
            tools: c.tools.clone(),
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
    use super::can_race_dedup;

    #[test]
    fn only_a_call_repeated_before_any_earlier_batch_made_it_can_race() {
        // Only the first invocation of each args in a case waits: a call that batch 1
        // already made answers at once in batch 2, so repeating it there shows no race.
        assert!(can_race_dedup(&[vec![0, 1, 1]]));
        assert!(can_race_dedup(&[vec![0], vec![1, 1]]));
        assert!(!can_race_dedup(&[vec![0], vec![0, 0]]));
        assert!(!can_race_dedup(&[vec![0, 1], vec![2]]));
    }
}
