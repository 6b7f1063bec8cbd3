//! The reference at scale: `run_parallel_calls` on 10^4, 10^5 and 10^6 calls (10% distinct)
//! and `execute_tool_calls` on the same number of calls in batches of 8, sequential and
//! concurrent, with in-process tools that return at once. Time per call shows whether growth
//! is linear. Run: `cargo bench --bench reference_scale`.

use parcall::json::{Object, Value};
use parcall::reference::{
    execute_tool_calls, run_parallel_calls, DedupCall, Execution, ToolCall, Tools,
};
use std::time::Instant;

struct Echo;

impl Tools for Echo {
    fn has_tool(&self, name: &str) -> bool {
        name == "search"
    }
    fn invoke(&self, _name: &str, args: &Object) -> Result<Value, parcall::reference::Raised> {
        Ok(Value::from(args.len() as i64))
    }
}

fn dedup_calls(n: usize) -> Vec<DedupCall> {
    let distinct = (n / 10).max(1);
    (0..n)
        .map(|i| {
            let mut args = Object::new();
            args.insert("q".into(), Value::from(format!("query {}", i % distinct)));
            args.insert("page".into(), Value::from(1));
            DedupCall {
                name: "search".into(),
                args: Some(args),
            }
        })
        .collect()
}

fn exec_batches(n: usize) -> Vec<Vec<ToolCall>> {
    let calls: Vec<ToolCall> = (0..n)
        .map(|i| {
            let mut arguments = Object::new();
            arguments.insert("a".into(), Value::from(i as i64));
            arguments.insert("b".into(), Value::from(2));
            ToolCall {
                tool: "add".into(),
                id: Some(format!("toolu_{i}")),
                arguments: Some(arguments),
            }
        })
        .collect();
    calls.chunks(8).map(<[ToolCall]>::to_vec).collect()
}

fn per_call(seconds: f64, n: usize) -> String {
    format!("{:.0} ns", seconds / n as f64 * 1e9)
}

fn main() {
    let dispatch = parcall::reference::Sandbox;
    println!("| calls | run_parallel_calls sequential | concurrent | execute_tool_calls sequential | concurrent |");
    println!("| --- | --- | --- | --- | --- |");
    for n in [10_000, 100_000, 1_000_000] {
        let calls = dedup_calls(n);
        let mut cells = vec![n.to_string()];
        for execution in [Execution::Sequential, Execution::CONCURRENT] {
            let start = Instant::now();
            let results = run_parallel_calls(&Echo, &calls, execution);
            cells.push(per_call(start.elapsed().as_secs_f64(), n));
            assert_eq!(results.len(), n / 10);
        }
        let batches = exec_batches(n);
        for execution in [Execution::Sequential, Execution::CONCURRENT] {
            let start = Instant::now();
            let messages: usize = batches
                .iter()
                .map(|b| execute_tool_calls(b, 8, &dispatch, execution).len())
                .sum();
            cells.push(per_call(start.elapsed().as_secs_f64(), n));
            assert_eq!(messages, n);
        }
        println!("| {} |", cells.join(" | "));
    }
}
