//! The edits of an `execute_tool_calls` input: no latency, fewer calls, smaller limits.

use super::edits::{call_edits, list_edits};
use super::Candidate;
use crate::generate::cases::GeneratedInput;
use crate::json::Value;
use crate::spec::{Dispatch, ToolScript};

pub(super) fn candidates<'a>(
    dispatch: &'a Dispatch,
    batches: &'a [(Value, Option<u64>)],
) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate<'a>> = Vec::new();
    if let Dispatch::Scripted { tools } = dispatch {
        if tools.values().any(ToolScript::has_latency) {
            out.push(Box::new(move || {
                let mut tools = tools.clone();
                tools.values_mut().for_each(ToolScript::clear_latency);
                GeneratedInput::Exec {
                    dispatch: Dispatch::Scripted { tools },
                    batches: batches.to_vec(),
                }
            }));
        }
    }
    let calls: Vec<Value> = batches.iter().map(|(c, _)| c.clone()).collect();
    for edit in list_edits(calls, call_edits) {
        out.push(Box::new(move || GeneratedInput::Exec {
            dispatch: dispatch.clone(),
            batches: edit()
                .into_iter()
                .zip(batches)
                .map(|(c, (_, m))| (c, *m))
                .collect(),
        }));
    }
    for (i, (_, max)) in batches.iter().enumerate() {
        for m in smaller_limits(*max) {
            out.push(Box::new(move || {
                let mut edited = batches.to_vec();
                edited[i].1 = m;
                GeneratedInput::Exec {
                    dispatch: dispatch.clone(),
                    batches: edited,
                }
            }));
        }
    }
    out
}

/// Smaller limits than `max` (a missing one is the default, 4), the smallest first, 0 and 1,
/// then half, three quarters, seven eighths and so on down to one less; and no limit at all
/// when that is no bigger. A small limit is a small case: a failure past the limit needs one
/// call more than it. Only "half" and "one less" made a limit just above what a failure
/// needs (say 200, failing above 100) take a hundred accepted edits, each followed by a new
/// pass over every other edit: thousands of runs. Every edit lowers the limit in force or
/// unsets one equal to the default, so no two edits undo each other.
fn smaller_limits(max: Option<u64>) -> Vec<Option<u64>> {
    use crate::reference::DEFAULT_MAX_PARALLEL;
    let n = max.unwrap_or(DEFAULT_MAX_PARALLEL);
    let mut limits: Vec<Option<u64>> = [0, 1].into_iter().filter(|&m| m < n).map(Some).collect();
    let mut cut = n - n / 2;
    while cut > 0 && n > 0 {
        limits.push(Some(n - cut));
        cut /= 2;
    }
    if n > 0 {
        limits.push(Some(n - 1));
    }
    if max.is_some_and(|n| n >= DEFAULT_MAX_PARALLEL) {
        limits.push(None);
    }
    let mut seen = std::collections::HashSet::new();
    limits.retain(|m| seen.insert(*m));
    limits
}

#[cfg(test)]
mod tests {
    use super::smaller_limits;

    #[test]
    fn limits_shrink_to_the_smallest_first_then_by_halving_cuts_down_to_one_less() {
        assert_eq!(
            smaller_limits(Some(200)),
            [
                Some(0),
                Some(1),
                Some(100),
                Some(150),
                Some(175),
                Some(188),
                Some(194),
                Some(197),
                Some(199),
                None
            ]
        );
        // No limit is the default, 4: smaller ones are simpler, and unsetting one is only
        // offered where it lowers the limit or keeps it.
        assert_eq!(smaller_limits(None), [0, 1, 2, 3].map(Some));
        assert_eq!(
            smaller_limits(Some(4)),
            [Some(0), Some(1), Some(2), Some(3), None]
        );
        assert_eq!(smaller_limits(Some(3)), [0, 1, 2].map(Some));
        assert_eq!(smaller_limits(Some(1)), [Some(0)]);
        assert_eq!(smaller_limits(Some(0)), []);
        assert!(smaller_limits(Some(u64::MAX))
            .iter()
            .all(|l| l.unwrap_or(4) < u64::MAX));
    }
}
