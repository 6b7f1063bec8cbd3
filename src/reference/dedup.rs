//! `run_parallel_calls(tools, calls)` (RULES B): every distinct call runs once, duplicates
//! share its cached result.

use super::canonical::canonical_key_in;
use super::execution::Execution;
use super::input::DedupCall;
use crate::json::{NumberModel, Object, Value};
use indexmap::IndexMap;

/// The `tools` mapping: names to callables that take the args object.
pub trait Tools: Sync {
    /// Whether `name` is a key of the mapping.
    fn has_tool(&self, name: &str) -> bool;
    /// Calls the tool, which returns a value or raises.
    fn invoke(&self, name: &str, args: &Object) -> Result<Value, Raised>;
}

/// What a tool raised, as `str(exception)` reads: the text a result entry puts after
/// `error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Raised(pub String);

/// The result mapping: canonical key to result, in order of first appearance (RULES B3).
pub type Results = IndexMap<String, Value>;

/// One distinct key of a batch and the call that first produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct DistinctCall<'a> {
    pub key: String,
    pub name: &'a str,
    pub args: &'a Object,
}

/// The distinct keys of a batch in first-appearance order, each with the first call's args
/// (`{}` when absent) — exactly what a correct implementation invokes (RULES B4). Keys are
/// written by `model` (RULES E).
pub fn distinct_calls<'a>(
    model: NumberModel,
    calls: &'a [DedupCall],
    empty: &'a Object,
) -> Vec<DistinctCall<'a>> {
    let mut seen = IndexMap::with_capacity(calls.len());
    for call in calls {
        let key = canonical_key_in(model, &call.name, call.args.as_ref());
        seen.entry(key)
            .or_insert_with(|| (call.name.as_str(), call.args.as_ref().unwrap_or(empty)));
    }
    seen.into_iter()
        .map(|(key, (name, args))| DistinctCall { key, name, args })
        .collect()
}

/// The reference `run_parallel_calls`. Keys are settled before anything runs, so each
/// distinct key is invoked at most once even when keys run concurrently; the cache is local
/// to the call (RULES B8).
pub fn run_parallel_calls<T: Tools + ?Sized>(
    tools: &T,
    calls: &[DedupCall],
    execution: Execution,
) -> Results {
    run_parallel_calls_in(NumberModel::Python, tools, calls, execution)
}

/// [`run_parallel_calls`] as a runtime with number model `model` must run it: under
/// `float64`, `{"a": 1}` and `{"a": 1.0}` are one key, written `f({"a": 1})`, and the tool
/// is invoked with the first call's args (RULES E).
pub fn run_parallel_calls_in<T: Tools + ?Sized>(
    model: NumberModel,
    tools: &T,
    calls: &[DedupCall],
    execution: Execution,
) -> Results {
    let empty = Object::new();
    let distinct = distinct_calls(model, calls, &empty);
    let results = execution.map(&distinct, |call| {
        if !tools.has_tool(call.name) {
            return Value::Str(format!("error: unknown tool '{}'", call.name).into());
        }
        tools
            .invoke(call.name, call.args)
            .unwrap_or_else(|message| Value::Str(format!("error: {message}").into()))
    });
    distinct
        .into_iter()
        .map(|call| call.key)
        .zip(results)
        .collect()
}
