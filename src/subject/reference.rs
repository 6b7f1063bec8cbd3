//! The reference implementation as a subject: runs a case in-process with the case's
//! recording tools.

use crate::json::{Object, Value};
use crate::judge::{dedup_invocation, exec_invocation, BatchRun};
use crate::reference::{
    execute_tool_calls, input, run_parallel_calls, DomainError, Execution, DEFAULT_MAX_PARALLEL,
};
use crate::spec::{Case, CaseDispatch, CaseTools, DedupCase, ExecCase};

/// Runs every batch of `case` on the reference. Fails only for input outside the domain,
/// which the spec loader already refuses.
pub fn run_case(case: &Case, execution: Execution) -> Result<Vec<BatchRun>, DomainError> {
    match case {
        Case::Exec(c) => run_exec(c, execution),
        Case::Dedup(c) => run_dedup(c, execution),
    }
}

fn run_exec(case: &ExecCase, execution: Execution) -> Result<Vec<BatchRun>, DomainError> {
    let dispatch = CaseDispatch::new(&case.dispatch);
    case.batches
        .iter()
        .map(|batch| {
            let calls = input::tool_calls(&batch.calls)?;
            let max_parallel = batch.max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL);
            let messages = execute_tool_calls(&calls, max_parallel, &dispatch, execution);
            Ok(BatchRun {
                output: Value::List(messages.iter().map(|m| m.to_value()).collect()),
                invocations: dispatch
                    .take_invocations()
                    .iter()
                    .map(exec_invocation)
                    .collect(),
            })
        })
        .collect()
}

fn run_dedup(case: &DedupCase, execution: Execution) -> Result<Vec<BatchRun>, DomainError> {
    let tools = CaseTools::new(&case.tools);
    case.batches
        .iter()
        .map(|batch| {
            let calls = input::dedup_calls(&batch.calls)?;
            let results = run_parallel_calls(&tools, &calls, execution);
            Ok(BatchRun {
                output: Value::Object(results.into_iter().collect::<Object>()),
                invocations: tools
                    .take_invocations()
                    .iter()
                    .map(dedup_invocation)
                    .collect(),
            })
        })
        .collect()
}
