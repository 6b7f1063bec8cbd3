//! Code in this process as a [`Subject`]: a function from a case to what each of its
//! batches returned and invoked. Its answers are judged exactly as a process's replies are;
//! only the pipe is missing, so loops that prove something about generation, judging or
//! shrinking (many seeds, many shrink steps) run in milliseconds.

use super::Subject;
use crate::json::NumberModel;
use crate::judge::BatchRun;
use crate::protocol::{Answer, BatchReply, CaseAnswer};
use crate::reference::Execution;
use crate::spec::{Case, Function, SpecCase};
use std::time::Instant;

/// What running a case in process gives: the batches that returned, and the message of
/// the exception that ended it early, if one did.
pub type CaseRun = (Vec<BatchRun>, Option<String>);

/// A subject whose implementation is a Rust closure.
pub struct InProcess<F> {
    functions: Vec<Function>,
    model: NumberModel,
    implementation: F,
}

impl<F: FnMut(&Case) -> CaseRun> InProcess<F> {
    /// `implementation` runs every batch of a case; it is asked only for cases of
    /// `functions`, and its answers are read by the `python` number model.
    pub fn new(functions: &[Function], implementation: F) -> InProcess<F> {
        InProcess {
            functions: functions.to_vec(),
            model: NumberModel::Python,
            implementation,
        }
    }

    /// The same subject, declaring number model `model`: its answers are read, and its
    /// cases' expectations computed, as that model holds numbers (RULES E).
    pub fn declaring(self, model: NumberModel) -> InProcess<F> {
        InProcess { model, ..self }
    }
}

/// The reference, run in process with `execution` as a runtime of number model `model` runs
/// it: on each case's inputs as that model holds them once read.
pub fn reference(
    model: NumberModel,
    execution: Execution,
) -> InProcess<impl FnMut(&Case) -> CaseRun> {
    InProcess::new(
        &Function::EVERY,
        move |case: &Case| match crate::judge::runs::run_case(model, case, execution) {
            Ok(runs) => (runs, None),
            Err(error) => (Vec::new(), Some(format!("ValueError: {error}"))),
        },
    )
    .declaring(model)
}

impl<F: FnMut(&Case) -> CaseRun> Subject for InProcess<F> {
    fn functions(&self) -> &[Function] {
        &self.functions
    }

    fn number_model(&self) -> NumberModel {
        self.model
    }

    fn answer(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) {
        for case in source {
            let started = Instant::now();
            let answer = if self.functions.contains(&case.function()) {
                let (runs, raised) = (self.implementation)(&case.case);
                Answer::Batches(replies(runs, raised))
            } else {
                Answer::NotImplemented
            };
            let answer = CaseAnswer {
                duration: started.elapsed(),
                ..CaseAnswer::bare(answer)
            };
            sink(case, answer);
        }
    }
}

/// Runs as a process would reply them: each batch that returned, then the one that raised.
fn replies(runs: Vec<BatchRun>, raised: Option<String>) -> Vec<BatchReply> {
    let mut replies: Vec<BatchReply> = runs
        .into_iter()
        .map(|run| BatchReply::Returned {
            output: run.output,
            invocations: run.invocations,
        })
        .collect();
    if let Some(message) = raised {
        replies.push(BatchReply::Raised {
            message,
            traceback: String::new(),
            invocations: Vec::new(),
        });
    }
    replies
}
