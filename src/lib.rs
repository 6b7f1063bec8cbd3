//! parcall: the specification, reference implementation and conformance suite for parallel
//! tool calling (`execute_tool_calls` and `run_parallel_calls`).

pub mod cli;
pub mod generate;
pub mod json;
pub mod judge;
pub mod reference;
pub mod spec;
pub mod subject;
