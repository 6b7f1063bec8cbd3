//! Generated variants of the spec's own cases: their calls again, with ids renamed.

use super::super::values::permute_keys;
use super::{probe_waits, GeneratedInput};
use crate::json::Value;
use crate::spec::{Case, Dispatch, SpecCase};
use proptest::prelude::*;
use std::sync::Arc;

/// Metamorphic variants of the spec's cases of one function: the same case with object keys
/// permuted at every depth, a few calls appended again (duplicates), and given ids renamed;
/// its tools wait where the case's wait, for `PROBE_MS`.
pub fn variant_input(cases: Arc<Vec<SpecCase>>) -> impl Strategy<Value = GeneratedInput> {
    let count = cases.len().max(1);
    (0..count, any::<u64>(), 0usize..3).prop_filter_map(
        "the spec has no case of this function",
        move |(index, seed, extra)| {
            let case = cases.get(index)?;
            Some(variant(&case.case, seed, extra))
        },
    )
}

pub(super) fn variant(case: &Case, seed: u64, extra: usize) -> GeneratedInput {
    match case {
        Case::Exec(c) => GeneratedInput::Exec {
            dispatch: match &c.dispatch {
                Dispatch::Scripted { tools } => Dispatch::Scripted {
                    tools: probe_waits(tools),
                },
                Dispatch::Sandbox => Dispatch::Sandbox,
            },
            batches: c
                .batches
                .iter()
                .map(|b| {
                    (
                        append_again(
                            &rename_ids(&permute_keys(&b.calls, seed), seed),
                            seed,
                            extra,
                        ),
                        b.max_parallel,
                    )
                })
                .collect(),
        },
        Case::Dedup(c) => GeneratedInput::Dedup {
            tools: probe_waits(&c.tools),
            batches: c
                .batches
                .iter()
                .map(|b| append_again(&permute_keys(&b.calls, seed), seed, extra))
                .collect(),
        },
        // A runtime's variant keeps the calls' ids: appended calls repeat an id, a case of
        // its own.
        Case::Runtime(c) => GeneratedInput::Runtime {
            tools: probe_waits(&c.tools),
            batches: c
                .batches
                .iter()
                .map(|b| permute_keys(&b.calls, seed))
                .collect(),
        },
    }
}

/// Appends `extra` calls of the list again (picked by the seed).
pub(super) fn append_again(calls: &Value, seed: u64, extra: usize) -> Value {
    let Value::List(items) = calls else {
        return calls.clone();
    };
    let mut items = items.clone();
    for k in 0..extra {
        if items.is_empty() {
            break;
        }
        let pick = (seed as usize).wrapping_add(k * 7) % items.len();
        items.push(items[pick].clone());
    }
    Value::List(items)
}

/// Renames every given, non-empty id consistently (`x` -> `x~7`), leaving `call_<n>`-like
/// ids alone so collisions with generated ids keep their meaning.
pub(super) fn rename_ids(calls: &Value, seed: u64) -> Value {
    let Value::List(items) = calls else {
        return calls.clone();
    };
    let suffix = format!("~{}", seed % 1000);
    Value::List(
        items
            .iter()
            .map(|call| {
                let mut call = call.clone();
                if let Value::Object(fields) = &mut call {
                    if let Some(Value::Str(id)) = fields.get_mut("id") {
                        if !id.is_empty() && !id.starts_with("call_") {
                            id.push_str(&suffix);
                        }
                    }
                }
                call
            })
            .collect(),
    )
}
