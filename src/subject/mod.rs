//! Subjects: the implementations a case is put to, behind one trait. A process speaking the
//! protocol (an adapter around a module, or any `--cmd`) is one; code in this process (the
//! reference, or a test's deliberately broken variant of it) is another. A subject only
//! answers; the judge decides (`crate::judge::Judge`), so what runs in process in
//! milliseconds is judged exactly as a process would be.

pub mod adapters;
pub mod environment;
pub mod in_process;
pub mod launch;
pub mod manifest;
pub mod probe;
pub mod server;

pub use in_process::InProcess;

use crate::json::NumberModel;
use crate::protocol::{CaseAnswer, RuntimeDeclaration};
use crate::runner::Runner;
use crate::spec::{Function, SpecCase};

/// An implementation cases are put to.
pub trait Subject {
    /// The functions it defines.
    fn functions(&self) -> &[Function];
    /// The number model its answers are read by (RULES E), declared in its hello.
    fn number_model(&self) -> NumberModel;
    /// For a runtime adapter: the framework it drives and the policies it declares, which
    /// the runtime profile's checks hold it to.
    fn runtime(&self) -> Option<&RuntimeDeclaration> {
        None
    }
    /// Puts the cases `source` yields, all of one function it defines, to the
    /// implementation, handing each case and its answer to `sink` and keeping none, so
    /// memory does not grow with the number of cases.
    fn answer(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    );
    /// Why the run is incomplete (a time budget was spent), if it is.
    fn incomplete(&self) -> Option<String> {
        None
    }
}

impl Subject for Runner<'_> {
    fn functions(&self) -> &[Function] {
        Runner::functions(self)
    }

    fn number_model(&self) -> NumberModel {
        Runner::number_model(self)
    }

    fn runtime(&self) -> Option<&RuntimeDeclaration> {
        Runner::runtime(self)
    }

    fn answer(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) {
        Runner::answer(self, source, sink);
    }

    fn incomplete(&self) -> Option<String> {
        Runner::incomplete(self)
    }
}
