//! What each entry holds: the value its invocation gave, or the error it raised.

use super::super::ids::*;
use super::super::{quote, quote_str, unscripted, Tally};
use super::Batch;
use super::{unknown_tool, Answer, Given};
use crate::generate::cases::INHERITED_NAMES;
use crate::json::Object;
use std::collections::HashSet;

impl Batch<'_> {
    /// Each entry holds what its tool gave: the return value unchanged, `error: <str(e)>`,
    /// or the unknown-tool error.
    pub(super) fn check_values(
        &self,
        output: &Object,
        canonical: &[String],
        given: &[Given],
        tally: &mut Tally,
    ) {
        let mut judged = HashSet::new();
        let output = output.lookup();
        for (i, call) in self.calls.iter().enumerate() {
            let Some((key, _)) = &given[i] else {
                continue;
            };
            if !judged.insert(key.clone()) {
                continue;
            }
            let position = i + 1;
            let Some(actual) = output.get(key.as_str()) else {
                continue;
            };
            if !self.case.tools.contains_key(&call.name) {
                let expected = unknown_tool(&call.name);
                if actual.as_str() == Some(expected.as_str()) {
                    tally.applies(DEDUP_UNKNOWN_TOOL);
                    tally.applies(DEDUP_RESULT_ENTRIES);
                } else if !actual.as_str().is_some_and(|a| a.starts_with("error"))
                    && !INHERITED_NAMES.contains(&call.name.as_str())
                {
                    // A result, where no tool of that name exists in this call: what a
                    // cache kept from an earlier call (where the name was a tool) serves.
                    // A name every JavaScript object inherits (`toString`) is the lookup
                    // finding the prototype's member instead: the unknown-tool rule.
                    tally.breaks(
                        DEDUP_NO_STATE,
                        self.number,
                        format!(
                            "call {position} names {}, which is not in tools, but its entry holds {}: no tool of this call gave it, so it was served from a cache kept from an earlier call, or made up",
                            quote_str(&call.name),
                            quote(actual)
                        ),
                    );
                } else {
                    tally.breaks(
                        DEDUP_UNKNOWN_TOOL,
                        self.number,
                        format!(
                            "call {position} names {}, which is not in tools: expected {}, got {}",
                            quote_str(&call.name),
                            quote_str(&expected),
                            quote(actual)
                        ),
                    );
                }
                continue;
            }
            let Some(answers) = self.answers.get(&canonical[i]) else {
                // Never invoked: the invocation check says so.
                continue;
            };
            if actual.as_str().and_then(unscripted).is_some() {
                // What parcall answered an invocation with args no call has (`null` for
                // absent args): that invocation's rule is charged; the entry only holds it.
                continue;
            }
            let raised = matches!(answers[0], Answer::Raised(_));
            let requirement = if raised {
                DEDUP_RAISE
            } else {
                DEDUP_RESULT_UNCHANGED
            };
            if answers.iter().any(|a| a.entry_value() == *actual) {
                // The entry holds what its invocation gave: shown (RULES D).
                tally.applies(requirement);
                tally.applies(DEDUP_RESULT_ENTRIES);
            } else {
                let expected = answers[0].entry_value();
                let what = if raised {
                    "its tool raised, so the entry must be"
                } else {
                    "the entry must be the tool's return value unchanged,"
                };
                tally.breaks(
                    requirement,
                    self.number,
                    format!(
                        "call {position} (key {}): {what} {}; got {}",
                        quote_str(key),
                        quote(&expected),
                        quote(actual)
                    ),
                );
            }
        }
    }
}
