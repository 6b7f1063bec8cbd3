//! What a subject gives back for one case, before anyone judges it: the batches it ran, or
//! why it gave none. A process and code in this process answer alike, and only the judge
//! turns an answer into a verdict.

use super::BatchReply;
use std::time::Duration;

/// How a case was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// One reply per batch, in order; fewer when a batch raised (the case stops there).
    Batches(Vec<BatchReply>),
    /// No answer before the case's deadline: the process was killed.
    Timeout { seconds: f64 },
    /// The process died during the case, or a batch ran out of memory.
    Crash { message: String },
    /// The answer broke the protocol: a wrong id, a garbled line, a reply past a bound.
    Protocol { message: String },
    /// The subject does not define the case's function.
    NotImplemented,
    /// The case was never put to the subject; `reason` says why (it could not start, its
    /// function was given up on, the run's budget was spent).
    NotRun { reason: String },
}

/// An answer with what came with it.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseAnswer {
    pub answer: Answer,
    /// What the implementation printed during the case (captured by the adapter).
    pub printed: String,
    /// The process's last stderr/stdout bytes, for crashes and timeouts.
    pub process_output: String,
    /// From when the implementation could start on the case to its answer.
    pub duration: Duration,
    /// The most tool invocations outstanding at once during each batch, as parcall counted
    /// them (RULES F3); empty where nothing was counted (a subject in this process).
    pub outstanding: Vec<usize>,
}

impl CaseAnswer {
    /// An answer with nothing printed, that took no time (not run, not implemented).
    pub fn bare(answer: Answer) -> CaseAnswer {
        CaseAnswer {
            answer,
            printed: String::new(),
            process_output: String::new(),
            duration: Duration::ZERO,
            outstanding: Vec::new(),
        }
    }

    /// A case that was never put to the subject, for `reason`.
    pub fn not_run(reason: impl Into<String>) -> CaseAnswer {
        CaseAnswer::bare(Answer::NotRun {
            reason: reason.into(),
        })
    }
}
