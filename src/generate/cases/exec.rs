//! Generated `execute_tool_calls` inputs: batches of calls with and without limits.

use super::super::calls::{
    exec_calls, long_exec_batch, max_parallel, plain_exec_calls, plain_max_parallel,
};
use super::{batch_count, hold_in_flight, latency, racing_exec_calls, GeneratedInput};
use crate::json::Value;
use crate::spec::dispatch_table_for;
use crate::spec::Dispatch;
use proptest::prelude::*;

/// A short batch with any limit, or (one in sixteen) a batch of hundreds of calls.
pub(super) fn exec_batch() -> impl Strategy<Value = (Value, Option<u64>)> {
    let short = exec_calls(8).prop_flat_map(|calls| {
        let len = calls.as_list().map_or(0, <[Value]>::len);
        (Just(calls), max_parallel(len))
    });
    prop_oneof![15 => short, 1 => long_exec_batch()]
}

/// Random `execute_tool_calls` cases against the sandbox; with latency, the sandbox's
/// answers are served as scripts that wait.
pub fn exec_input() -> impl Strategy<Value = GeneratedInput> {
    (
        batch_count().prop_flat_map(|n| prop::collection::vec(exec_batch(), n)),
        latency(20),
    )
        .prop_map(|(batches, latency_ms)| {
            let racing = racing_exec_calls(&batches);
            let dispatch = if latency_ms == 0 || racing.is_empty() {
                Dispatch::Sandbox
            } else {
                let mut tools =
                    dispatch_table_for(&Dispatch::Sandbox, batches.iter().map(|(calls, _)| calls));
                hold_in_flight(&mut tools, &racing, latency_ms);
                Dispatch::Scripted { tools }
            };
            GeneratedInput::Exec { dispatch, batches }
        })
}

/// Plain `execute_tool_calls` cases: short batches of sandbox calls that mostly succeed
/// ([`plain_exec_calls`]). Each requirement's own slot at the end of a run draws from these
/// first (`fuzz::draw`): a witness of one rule with no other failure before it shows that
/// rule to implementations that mishandle failures.
pub fn exec_plain_input() -> impl Strategy<Value = GeneratedInput> {
    let batch = || {
        plain_exec_calls(6).prop_flat_map(|calls| {
            let len = calls.as_list().map_or(0, <[Value]>::len);
            (Just(calls), plain_max_parallel(len))
        })
    };
    batch_count()
        .prop_flat_map(move |n| prop::collection::vec(batch(), n))
        .prop_map(|batches| GeneratedInput::Exec {
            dispatch: Dispatch::Sandbox,
            batches,
        })
}

/// Long `execute_tool_calls` cases only: one batch of hundreds of calls with late repeats
/// of early ids. The scale slots of a run draw from these (`fuzz::draw`), so a memory of
/// ids that forgets shows on every seed.
pub fn exec_long_input() -> impl Strategy<Value = GeneratedInput> {
    long_exec_batch().prop_map(|batch| GeneratedInput::Exec {
        dispatch: Dispatch::Sandbox,
        batches: vec![batch],
    })
}
