//! The reference implementation: both exercise functions as pure functions over plain
//! values, generic over `dispatch` and `tools`, and the sandbox world (RULES A and B).

mod canonical;
mod dedup;
mod execute;
mod execution;
pub mod input;
pub(crate) mod python;
mod python_unicode;
pub mod runtime;
mod sandbox;

pub use canonical::{canonical_args, canonical_args_in, canonical_key, canonical_key_in, key_of};
pub use dedup::{
    distinct_calls, run_parallel_calls, run_parallel_calls_in, DistinctCall, Raised, Results, Tools,
};
pub use execute::{
    dispatched, execute_tool_calls, plan, resolve_id, Decision, DispatchRequest, Dispatcher,
    ToolMessage, Verdict, DEFAULT_MAX_PARALLEL,
};
pub use execution::Execution;
pub use input::{DedupCall, DomainError, ToolCall};
pub use python::{is_printable, is_space, repr_str};
pub use sandbox::Sandbox;
