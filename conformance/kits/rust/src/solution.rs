//! The two exercises, to be written. `main.rs` speaks parcall's protocol around them and
//! calls them once per batch; `dispatch` and the tools are stubs whose every call parcall
//! answers and records.
//!
//! Values are [`Json`]: integers exact and apart from floats (`1` is not `1.0`, the `python`
//! number model). [`key`] is a call's canonical key; a `Json` displays as JSON.
//! An `Err` is reported as what the function raised.

#[allow(unused_imports)] // `key` is for the functions below, once they are written
pub use crate::json::{key, Json};
pub use crate::ToolError;

use std::collections::HashMap;

/// Runs one request, `{"tool": NAME, "arguments": {...}}`, and returns its content (a string).
pub type Dispatch<'a> = dyn Fn(&Json) -> Json + Sync + 'a;

/// Runs a tool on a call's args: any JSON value, or what the tool raised.
pub type Tool<'a> = Box<dyn Fn(&Json) -> Result<Json, ToolError> + Send + Sync + 'a>;

/// Exercise 000: runs a batch of tool calls (each `{"tool", optional "id", optional
/// "arguments"}`) and returns a list of one message per call, in call order:
/// `{"role": "tool", "tool_call_id": ID, "content": CONTENT}`. `max_parallel` is 4 when the
/// batch gives none.
pub fn execute_tool_calls(calls: &[Json], max_parallel: u64, dispatch: &Dispatch) -> Result<Json, String> {
    let _ = (calls, max_parallel, dispatch);
    Err("execute_tool_calls is not written yet".into())
}

/// Exercise 003: runs each distinct call (each `{"name", optional "args"}`) once and returns
/// an object from each call's key, `key(name, args)`, to its result.
pub fn run_parallel_calls(tools: &HashMap<String, Tool>, calls: &[Json]) -> Result<Json, String> {
    let _ = (tools, calls);
    Err("run_parallel_calls is not written yet".into())
}
