//! The specification as properties: invariants, metamorphic relations, and the reference
//! against naive oracles written straight from the exercise statements.

use parcall::generate::{calls, values};
use parcall::json::{Object, Value};
use parcall::reference::{
    canonical_key, execute_tool_calls, input, resolve_id, run_parallel_calls, DispatchRequest,
    Dispatcher, Execution, Results, Sandbox, ToolCall, Tools, DEFAULT_MAX_PARALLEL,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// `cases` cases, with failures persisted in the committed proptest-regressions/ folder.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/proptest-regressions/properties.txt"
            )),
        )),
        ..ProptestConfig::default()
    }
}

/// A dispatcher that records requests and answers with the sandbox.
#[derive(Default)]
struct Recorder(Mutex<Vec<(String, Object)>>);

impl Dispatcher for Recorder {
    fn dispatch(&self, request: DispatchRequest<'_>) -> String {
        self.0
            .lock()
            .unwrap()
            .push((request.tool.to_owned(), request.arguments.clone()));
        Sandbox.dispatch(request)
    }
}

impl Recorder {
    fn sorted(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|(t, a)| canonical_key(t, Some(a)))
            .collect();
        all.sort();
        all
    }
}

fn exec_batch() -> impl Strategy<Value = (Vec<ToolCall>, u64)> {
    calls::exec_calls(10)
        .prop_flat_map(|calls| {
            let len = calls.as_list().map_or(0, <[Value]>::len);
            (Just(calls), calls::max_parallel(len))
        })
        .prop_map(|(calls, max)| {
            (
                input::tool_calls(&calls).unwrap(),
                max.unwrap_or(DEFAULT_MAX_PARALLEL),
            )
        })
}

/// Seed 000 read literally, as a student would write it.
fn naive_execute(calls: &[ToolCall], max_parallel: u64) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let id = match call.id.as_deref() {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => format!("call_{}", i + 1),
        };
        let content = if seen.contains(&id) {
            format!("error: duplicate tool_call_id '{id}'")
        } else if (i + 1) as u64 > max_parallel {
            format!("error: too many parallel tool calls (limit {max_parallel})")
        } else {
            let arguments = call.arguments.clone().unwrap_or_default();
            Sandbox.dispatch(DispatchRequest {
                tool: &call.tool,
                arguments: &arguments,
            })
        };
        seen.insert(id.clone());
        out.push((id, content));
    }
    out
}

fn pairs(messages: &[parcall::reference::ToolMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|m| (m.tool_call_id.clone(), m.content.clone()))
        .collect()
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn exec_matches_the_naive_oracle((calls, max) in exec_batch()) {
        let messages = execute_tool_calls(&calls, max, &Sandbox, Execution::Sequential);
        prop_assert_eq!(pairs(&messages), naive_execute(&calls, max));
    }

    #[test]
    fn exec_output_has_one_message_per_call_with_the_resolved_id((calls, max) in exec_batch()) {
        let messages = execute_tool_calls(&calls, max, &Sandbox, Execution::Sequential);
        prop_assert_eq!(messages.len(), calls.len());
        for (i, (call, message)) in calls.iter().zip(&messages).enumerate() {
            let given = call.id.as_deref().filter(|id| !id.is_empty());
            let expected = given.map_or_else(|| format!("call_{}", i + 1), str::to_owned);
            prop_assert_eq!(&message.tool_call_id, &expected);
            prop_assert_eq!(resolve_id(call.id.as_deref(), i + 1), expected);
        }
    }

    #[test]
    fn exec_duplicate_comes_before_limit_and_limit_is_by_position((calls, max) in exec_batch()) {
        let messages = execute_tool_calls(&calls, max, &Sandbox, Execution::Sequential);
        for (i, message) in messages.iter().enumerate() {
            let earlier = messages[..i].iter().any(|m| m.tool_call_id == message.tool_call_id);
            if earlier {
                prop_assert_eq!(&message.content, &format!("error: duplicate tool_call_id '{}'", message.tool_call_id));
            } else if (i + 1) as u64 > max {
                prop_assert_eq!(&message.content, &format!("error: too many parallel tool calls (limit {max})"));
            }
        }
    }

    #[test]
    fn exec_dispatches_exactly_the_accepted_calls_once((calls, max) in exec_batch()) {
        let recorder = Recorder::default();
        let messages = execute_tool_calls(&calls, max, &recorder, Execution::CONCURRENT);
        let mut expected: Vec<String> = calls.iter().zip(&messages).enumerate()
            .filter(|(i, (_, m))| !messages[..*i].iter().any(|e| e.tool_call_id == m.tool_call_id) && (*i as u64) < max)
            .map(|(_, (c, _))| canonical_key(&c.tool, Some(&c.arguments.clone().unwrap_or_default())))
            .collect();
        expected.sort();
        prop_assert_eq!(recorder.sorted(), expected);
    }

    #[test]
    fn exec_prefix_property((calls, max) in exec_batch(), cut in any::<prop::sample::Index>()) {
        let k = cut.index(calls.len() + 1);
        let whole = execute_tool_calls(&calls, max, &Sandbox, Execution::Sequential);
        let prefix = execute_tool_calls(&calls[..k], max, &Sandbox, Execution::Sequential);
        prop_assert_eq!(&whole[..k], &prefix[..]);
    }

    #[test]
    fn exec_sequential_and_concurrent_agree((calls, max) in exec_batch()) {
        prop_assert_eq!(
            execute_tool_calls(&calls, max, &Sandbox, Execution::Sequential),
            execute_tool_calls(&calls, max, &Sandbox, Execution::CONCURRENT)
        );
    }
}

/// Tools named `t*` answer with their name and args; `boom*` raise; anything else is
/// unknown. Every invocation is recorded, and may wait so concurrent runs overlap.
struct Probe {
    latency: Duration,
    log: Mutex<Vec<String>>,
}

impl Probe {
    fn new(latency_ms: u64) -> Self {
        Probe {
            latency: Duration::from_millis(latency_ms),
            log: Mutex::new(Vec::new()),
        }
    }

    fn invoked(&self) -> Vec<String> {
        let mut log = self.log.lock().unwrap().clone();
        log.sort();
        log
    }
}

impl Tools for Probe {
    fn has_tool(&self, name: &str) -> bool {
        name.starts_with('t') || name.starts_with("boom")
    }

    fn invoke(&self, name: &str, args: &Object) -> Result<Value, parcall::reference::Raised> {
        self.log
            .lock()
            .unwrap()
            .push(canonical_key(name, Some(args)));
        std::thread::sleep(self.latency);
        if name.starts_with("boom") {
            return Err(parcall::reference::Raised(format!("{name} failed")));
        }
        Ok(Value::List(vec![name.into(), Value::from(args.clone())]))
    }
}

fn names() -> Vec<String> {
    ["t1", "t2", "boom", "unknown"].map(str::to_owned).to_vec()
}

fn dedup_batch() -> impl Strategy<Value = Vec<parcall::reference::DedupCall>> {
    calls::dedup_calls(names(), 12).prop_map(|calls| input::dedup_calls(&calls).unwrap())
}

/// Seed 003's own solution, transcribed.
fn naive_dedup(tools: &Probe, calls: &[parcall::reference::DedupCall]) -> HashMap<String, Value> {
    let mut cache = HashMap::new();
    for call in calls {
        let args = call.args.clone().unwrap_or_default();
        let key = format!(
            "{}({})",
            call.name,
            parcall::json::dumps(&Value::from(args.clone()), parcall::json::Style::CANONICAL)
        );
        if cache.contains_key(&key) {
            continue;
        }
        let result = if !tools.has_tool(&call.name) {
            Value::from(format!("error: unknown tool '{}'", call.name))
        } else {
            tools
                .invoke(&call.name, &args)
                .unwrap_or_else(|e| Value::from(format!("error: {e}")))
        };
        cache.insert(key, result);
    }
    cache
}

fn as_map(results: &Results) -> HashMap<String, Value> {
    results
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn dedup_matches_the_naive_oracle(calls in dedup_batch()) {
        let results = run_parallel_calls(&Probe::new(0), &calls, Execution::Sequential);
        prop_assert_eq!(as_map(&results), naive_dedup(&Probe::new(0), &calls));
    }

    #[test]
    fn dedup_invokes_each_distinct_known_key_once(calls in dedup_batch()) {
        let probe = Probe::new(0);
        let results = run_parallel_calls(&probe, &calls, Execution::CONCURRENT);
        let mut expected: Vec<String> = results.keys()
            .filter(|k| probe.has_tool(&k[..k.find('(').unwrap()]))
            .cloned()
            .collect();
        expected.sort();
        prop_assert_eq!(probe.invoked(), expected);
    }

    #[test]
    fn dedup_key_order_at_any_depth_changes_nothing(calls in dedup_batch(), seed in any::<u64>()) {
        let permuted: Vec<_> = calls.iter().map(|c| parcall::reference::DedupCall {
            name: c.name.clone(),
            args: c.args.as_ref().map(|a| values::permute_object(a, seed)),
        }).collect();
        for (a, b) in calls.iter().zip(&permuted) {
            prop_assert_eq!(canonical_key(&a.name, a.args.as_ref()), canonical_key(&b.name, b.args.as_ref()));
        }
        prop_assert_eq!(
            as_map(&run_parallel_calls(&Probe::new(0), &calls, Execution::Sequential)),
            as_map(&run_parallel_calls(&Probe::new(0), &permuted, Execution::Sequential))
        );
    }

    #[test]
    fn dedup_appending_duplicates_changes_and_invokes_nothing(calls in dedup_batch(), picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6)) {
        prop_assume!(!calls.is_empty());
        let probe = Probe::new(0);
        let before = run_parallel_calls(&probe, &calls, Execution::Sequential);
        let invoked = probe.invoked().len();
        let mut longer = calls.clone();
        longer.extend(picks.iter().map(|p| p.get(&calls).clone()));
        let probe = Probe::new(0);
        let after = run_parallel_calls(&probe, &longer, Execution::Sequential);
        prop_assert_eq!(before, after);
        prop_assert_eq!(probe.invoked().len(), invoked);
    }

    #[test]
    fn dedup_sequential_and_concurrent_agree(calls in dedup_batch()) {
        prop_assert_eq!(
            run_parallel_calls(&Probe::new(0), &calls, Execution::Sequential),
            run_parallel_calls(&Probe::new(0), &calls, Execution::CONCURRENT)
        );
    }
}

proptest! {
    // Slow tools: fewer cases, each one a real race if the cache were checked racily.
    #![proptest_config(config(25))]

    #[test]
    fn dedup_at_most_one_invocation_per_key_under_concurrency(calls in dedup_batch()) {
        let probe = Probe::new(2);
        let results = run_parallel_calls(&probe, &calls, Execution::CONCURRENT);
        let invoked = probe.invoked();
        let mut distinct = invoked.clone();
        distinct.dedup();
        prop_assert_eq!(invoked.len(), distinct.len());
        prop_assert!(invoked.len() <= results.len());
    }
}

#[test]
fn canonical_keys_are_stable_under_permutation_of_generated_values() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (values::value(4), any::<u64>());
    for _ in 0..500 {
        let (value, seed) = strategy.new_tree(&mut runner).unwrap().current();
        let text = |v: &Value| parcall::json::dumps(v, parcall::json::Style::CANONICAL);
        assert_eq!(text(&value), text(&values::permute_keys(&value, seed)));
    }
}

/// Arguments whose values Python's `==` or IEEE `==` call equal while `json.dumps` tells
/// them apart (`0`, `0.0`, `-0.0`, `false`; `1`, `1.0`, `true`; NaN; an integer past 2^64).
fn look_alike_calls() -> impl Strategy<Value = Value> {
    let look_alikes = prop::sample::select(vec![
        "0",
        "0.0",
        "-0.0",
        "false",
        "1",
        "1.0",
        "true",
        "NaN",
        "Infinity",
        "-Infinity",
        "18446744073709551616",
        "18446744073709551616.0",
    ]);
    prop::collection::vec((look_alikes.clone(), look_alikes), 1..8).prop_map(|pairs| {
        let calls: Vec<String> = pairs
            .iter()
            .map(|(a, b)| format!(r#"{{"tool": "add", "arguments": {{"a": {a}, "b": {b}}}}}"#))
            .collect();
        parcall::json::parse(&format!("[{}]", calls.join(", "))).unwrap()
    })
}

proptest! {
    #![proptest_config(config(300))]

    /// The runner's tool table is looked up by canonical text (the adapters do): every
    /// distinct canonical request has exactly one entry, look-alike values included.
    #[test]
    fn the_dispatch_table_has_one_entry_per_distinct_canonical_request(
        batches in prop::collection::vec(prop_oneof![calls::exec_calls(8), look_alike_calls()], 1..3)
    ) {
        use parcall::spec::Dispatch;
        let table = parcall::protocol::dispatch_table_for(&Dispatch::Sandbox, batches.iter());
        let mut entries: Vec<String> = table
            .iter()
            .flat_map(|(tool, script)| {
                script.responses.iter().map(move |r| canonical_key(tool, r.args.as_ref()))
            })
            .collect();
        let mut distinct: Vec<String> = batches
            .iter()
            .flat_map(|calls| input::tool_calls(calls).unwrap())
            .map(|call| canonical_key(&call.tool, Some(&call.arguments.unwrap_or_default())))
            .collect();
        distinct.sort();
        distinct.dedup();
        entries.sort();
        prop_assert_eq!(entries, distinct);
    }
}

proptest! {
    // Each case checks every spec case of execute_tool_calls and 40 generated ones.
    #![proptest_config(config(24))]

    /// RULES A6: the reference dispatching its accepted calls in a random order conforms on
    /// every spec case and every generated case; the judge accepts any assignment of
    /// scripted answers that some dispatch order produces.
    #[test]
    fn the_reference_with_a_shuffled_dispatch_order_conforms(seed in any::<u64>()) {
        use parcall::check::Checker;
        use parcall::fuzz::CaseRunner;
        use parcall::json::NumberModel;
        use parcall::judge::{Judge, Outcome};
        use parcall::spec::{Function, Spec};
        let spec = Spec::embedded().unwrap();
        let generated = parcall::fuzz::generated_cases(Function::ExecuteToolCalls, &spec.cases, 40, seed);
        let exec_cases = spec.cases.iter().filter(|c| c.function() == Function::ExecuteToolCalls);
        let judge = Judge::new(NumberModel::Python);
        let mut subject = parcall::subject::in_process::reference(NumberModel::Python, Execution::Shuffled { seed });
        let mut checker = Checker::new(&mut subject, &judge);
        for case in exec_cases.chain(&generated) {
            let result = checker.run_one(case.clone());
            prop_assert_eq!(result.outcome, Outcome::Pass, "case {}", case.id());
        }
    }
}
