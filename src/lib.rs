//! parcall: the specification, reference implementation and conformance suite for parallel
//! tool calling (`execute_tool_calls` and `run_parallel_calls`).

pub mod cli;
pub mod fuzz;
pub mod generate;
pub mod grade;
pub mod json;
pub mod judge;
pub mod mutate;
pub mod process;
pub mod protocol;
pub mod reference;
pub mod report;
pub mod runner;
pub mod spec;
pub mod subject;
