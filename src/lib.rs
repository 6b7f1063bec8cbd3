//! parcall: the specification, reference implementation and conformance suite for parallel
//! tool calling (`execute_tool_calls` and `run_parallel_calls`).

pub mod json;
pub mod reference;
pub mod spec;
pub mod judge;
pub mod subject;
pub mod generate;
