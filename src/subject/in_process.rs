//! Code in this process as a [`Subject`]: a function from a case to what each of its
//! batches returned and invoked. Its results are judged exactly as a process's replies are;
//! only the pipe is missing, so loops that prove something about generation, judging or
//! shrinking (many seeds, many shrink steps) run in milliseconds.

use super::Subject;
use crate::json::NumberModel;
use crate::judge::{verdict, BatchRun, Blame, Failure, Outcome};
use crate::reference::Execution;
use crate::runner::CaseResult;
use crate::spec::{Case, Function, SpecCase};
use std::time::Instant;

/// What running a case in process gives: the batches that returned, and the message of
/// the exception that ended it early, if one did.
pub type CaseRun = (Vec<BatchRun>, Option<String>);

/// A subject whose implementation is a Rust closure.
pub struct InProcess<F> {
    functions: Vec<Function>,
    implementation: F,
}

impl<F: FnMut(&Case) -> CaseRun> InProcess<F> {
    /// `implementation` runs every batch of a case; it is asked only for cases of
    /// `functions`.
    pub fn new(functions: &[Function], implementation: F) -> InProcess<F> {
        InProcess {
            functions: functions.to_vec(),
            implementation,
        }
    }
}

/// The reference, run in process with `execution`.
pub fn reference(execution: Execution) -> InProcess<impl FnMut(&Case) -> CaseRun> {
    InProcess::new(
        &Function::ALL,
        move |case: &Case| match crate::judge::runs::run_case(case, execution) {
            Ok(runs) => (runs, None),
            Err(error) => (Vec::new(), Some(error.to_string())),
        },
    )
}

impl<F: FnMut(&Case) -> CaseRun> Subject for InProcess<F> {
    fn functions(&self) -> &[Function] {
        &self.functions
    }

    fn run_cases(&mut self, cases: &[SpecCase]) -> Vec<CaseResult> {
        cases
            .iter()
            .map(|case| {
                let started = Instant::now();
                let (outcome, blame) = if self.functions.contains(&case.function()) {
                    let (runs, raised) = (self.implementation)(&case.case);
                    match raised {
                        Some(message) => raised_after(&case.case, runs, message),
                        None => verdict(NumberModel::Python, &case.case, &runs),
                    }
                } else {
                    let outcome = Outcome::Fail(Failure::NotImplemented);
                    let blame = crate::judge::blame::blame_without_runs(&case.case, &outcome);
                    (outcome, blame)
                };
                CaseResult {
                    case: case.clone(),
                    outcome,
                    printed: String::new(),
                    process_output: String::new(),
                    duration: started.elapsed(),
                    rerun_args: None,
                    blame,
                }
            })
            .collect()
    }
}

/// A case whose batch `runs.len() + 1` raised: judged as a process's reply is.
fn raised_after(case: &Case, runs: Vec<BatchRun>, message: String) -> (Outcome, Blame) {
    crate::judge::verdict_raised(NumberModel::Python, case, &runs, message, String::new())
}
