//! The machine-readable specification: requirements, the case format and its loader, and
//! the runtime that plays a case's scripted tools.

mod load;
mod model;
mod requirements;
mod script;

pub use load::{Case, Spec, SpecCase, SpecError};
pub use model::{
    Answer, CaseFile, DedupBatch, DedupCase, DedupInvocation, Dispatch, ExecBatch, ExecCase,
    ExecInvocation, Response, ToolScript,
};
pub use requirements::{Function, Level, Requirement, RequirementsFile};
pub use script::{CaseDispatch, CaseTools};
