//! Subjects: the implementations a case runs against, behind one trait. A process speaking
//! the protocol (an adapter around a module, or any `--cmd`) is one; code in this process
//! (the reference, or a test's deliberately broken variant of it) is another. Generated
//! cases, shrinking and mutation testing drive either alike, and both are judged by
//! [`crate::judge::verdict`], so what runs in process in milliseconds is what a process
//! would be told.

pub mod adapters;
pub mod environment;
pub mod in_process;
pub mod launch;
pub mod server;

pub use in_process::InProcess;

use crate::json::NumberModel;
use crate::runner::{CaseResult, Runner};
use crate::spec::{Function, SpecCase};

/// How many cases [`Subject::run_stream`]'s default draws at a time.
const STREAM_CHUNK: usize = 64;

/// An implementation cases run against.
pub trait Subject {
    /// The functions it defines.
    fn functions(&self) -> &[Function];
    /// Runs `cases` and returns their results, in the same order. Cases of a function it
    /// does not define are `not implemented`.
    fn run_cases(&mut self, cases: &[SpecCase]) -> Vec<CaseResult>;
    /// Runs the cases `source` yields, all of one function it defines, handing each result
    /// to `sink` and keeping none, so memory does not grow with the number of cases. This
    /// default draws them a few at a time through [`Subject::run_cases`].
    fn run_stream(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(CaseResult),
    ) {
        loop {
            let chunk: Vec<SpecCase> = (&mut *source).take(STREAM_CHUNK).collect();
            if chunk.is_empty() {
                return;
            }
            self.run_cases(&chunk).into_iter().for_each(&mut *sink);
        }
    }
    /// Why the run is incomplete (a time budget was spent), if it is.
    fn incomplete(&self) -> Option<String> {
        None
    }
    /// The number model its answers are read by (RULINGS E); its results were judged
    /// against that model's expectations.
    fn number_model(&self) -> NumberModel {
        NumberModel::Python
    }
}

impl Subject for Runner<'_> {
    fn functions(&self) -> &[Function] {
        Runner::functions(self)
    }

    fn run_cases(&mut self, cases: &[SpecCase]) -> Vec<CaseResult> {
        Runner::run_cases(self, cases)
    }

    fn run_stream(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(CaseResult),
    ) {
        Runner::run_stream(self, source, sink);
    }

    fn incomplete(&self) -> Option<String> {
        Runner::incomplete(self)
    }

    fn number_model(&self) -> NumberModel {
        Runner::number_model(self)
    }
}
