//! Strategies for whole cases: random batches for each function, and metamorphic variants
//! of the spec's own cases (keys permuted, duplicates appended, ids renamed), so a suite
//! that was memorised or overfitted still fails. Expectations come from the reference.

use crate::json::Value;
use crate::reference::{canonical_args, dispatched, plan, DEFAULT_MAX_PARALLEL};
use crate::spec::{Dispatch, ToolScript};
use indexmap::IndexMap;
use proptest::prelude::*;
use std::collections::HashSet;

mod corners;
mod dedup;
mod exec;
mod runtime;
mod variants;

pub use corners::INHERITED_NAMES;
pub use dedup::{dedup_input, dedup_long_input, dedup_plain_input};
pub use exec::{exec_input, exec_long_input, exec_plain_input};
pub use runtime::{runtime_input, MISSING_TOOL, RUNTIME_TOOLS, SPECIAL_ARGUMENT_NAMES};
pub use variants::variant_input;

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
    /// A runtime-profile case: tools, and each turn's calls.
    Runtime {
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

#[cfg(test)]
mod tests {
    use super::variants::variant;
    use super::*;
    use crate::json::parse;
    use crate::spec::Case;
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
                GeneratedInput::Exec { .. } | GeneratedInput::Runtime { .. } => {}
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
            | GeneratedInput::Dedup { tools, .. }
            | GeneratedInput::Runtime { tools, .. } => Some(tools.clone()),
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
                Case::Runtime(c) => longest(&c.tools),
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
