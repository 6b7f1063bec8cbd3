//! The edits shrinking tries: the simple ones a person would make (drop a batch, cut a long
//! batch in chunks, drop a call, drop a key, zero a value, drop an answer, raise the default
//! exception, unset `max_parallel`, remove latency). Shrinking keeps every edit under which
//! the case still fails; these edits alone give cases as small as proptest's own shrinking
//! followed by them did, in a tenth of the runs.

use crate::generate::cases::GeneratedInput;
use crate::spec::{Dispatch, ToolScript};
use indexmap::IndexMap;

mod dedup;
mod edits;
mod exec;

/// One simple edit of an input, built only when it is tried. Building every candidate up
/// front cloned the whole input once per edit, and a greedy pass accepts an early edit and
/// starts over: most of those clones were built only to be dropped (three quarters of an
/// in-process shrink was the allocator).
pub(super) type Candidate<'a> = Box<dyn Fn() -> GeneratedInput + 'a>;

/// The scripts of a dedup or runtime case, by tool name.
type Tools = IndexMap<String, ToolScript>;

/// A change made to a copy of something, when the edit is built.
type Change<'a, T> = Box<dyn Fn(&mut T) + 'a>;

/// Whether some answer of `input` waits: a race probe, whose failure may show on one run of
/// the same input and not on the next.
pub(super) fn has_race_probe(input: &GeneratedInput) -> bool {
    match input {
        GeneratedInput::Exec {
            dispatch: Dispatch::Scripted { tools },
            ..
        }
        | GeneratedInput::Dedup { tools, .. }
        | GeneratedInput::Runtime { tools, .. } => tools.values().any(ToolScript::has_latency),
        GeneratedInput::Exec { .. } => false,
    }
}

/// Every input one simple edit away from `input`, roughly biggest edits first.
pub(super) fn candidates(input: &GeneratedInput) -> Vec<Candidate<'_>> {
    match input {
        GeneratedInput::Exec { dispatch, batches } => exec::candidates(dispatch, batches),
        GeneratedInput::Dedup { tools, batches } => dedup::candidates(dedup::DEDUP, tools, batches),
        GeneratedInput::Runtime { tools, batches } => {
            dedup::candidates(dedup::RUNTIME, tools, batches)
        }
    }
}
