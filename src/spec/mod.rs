//! The machine-readable specification: requirements, the case format and its loader, and
//! the runtime that plays a case's scripted tools.

mod dispatch_table;
mod glob;
mod load;
pub mod markdown;
mod model;
mod origin;
mod requirements;
mod schema;
mod script;
mod source;

pub use dispatch_table::dispatch_table_for;
pub use glob::glob_match;
pub use load::{Case, Location, Spec, SpecCase, SpecError};
pub use model::{
    Answer, CaseFile, DedupBatch, DedupCase, DedupInvocation, Dispatch, ExceptionClass, ExecBatch,
    ExecCase, ExecInvocation, Response, RuntimeBatch, RuntimeCase, ToolScript, RUNTIME_MAX_DIGITS,
};
pub use origin::Origin;
pub use requirements::{Function, Level, Profile, Requirement, RequirementsFile};
pub use schema::{case_file_schema, requirements_schema};
pub use script::{
    dispatch_answer, held_scripts, tool_answer, CaseDispatch, CaseTools, Script, Scripts,
};
pub use source::{Source, SourceError};
