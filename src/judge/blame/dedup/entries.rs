//! The entries no call explains: a cache kept from an earlier call, or keys written
//! in a way no rule names; and the calls left without an entry.

use super::super::ids::*;
use super::super::{quote_str, Tally};
use super::Batch;
use super::{is_canonical_key, unknown_tool, Answer, Given, MOST_ENTRIES_READ};
use crate::json::{Key, Object};
use std::collections::HashSet;

impl Batch<'_> {
    /// Charges the entries of an earlier call's cache; returns the other entries no call
    /// explains.
    pub(super) fn check_leftover_entries<'o>(
        &self,
        output: &'o Object,
        mine: &HashSet<&str>,
        tally: &mut Tally,
    ) -> Vec<&'o Key> {
        let number = self.number;
        let unexplained: Vec<&Key> = output
            .keys()
            .filter(|k| !mine.contains(k.as_str()))
            .collect();
        // Entries that belong to no call of this batch.
        let mut strangers = Vec::new();
        // A cache kept across calls can hold thousands of entries: reading a sample says
        // as much as reading them all, and keeps blame linear in the batch.
        for key in unexplained.iter().take(MOST_ENTRIES_READ) {
            if self.history.keys.contains(key.as_str()) || is_canonical_key(self.model, key) {
                tally.breaks(
                    DEDUP_NO_STATE,
                    number,
                    format!(
                        "the entry {} belongs to no call of this batch: a cache kept from an earlier call",
                        quote_str(key)
                    ),
                );
            } else {
                strangers.push(*key);
            }
        }
        strangers
    }

    /// Calls without an entry.
    pub(super) fn check_missing_entries(
        &self,
        canonical: &[String],
        given: &[Given],
        strangers: &[&Key],
        tally: &mut Tally,
    ) {
        let number = self.number;
        let mut reported_strangers = false;
        for (i, call) in self.calls.iter().enumerate() {
            if given[i].is_some() {
                continue;
            }
            let position = i + 1;
            let known = self.case.tools.contains_key(&call.name);
            let first_answer = self.answers.get(&canonical[i]).and_then(|a| a.first());
            if !known {
                tally.breaks(
                    DEDUP_UNKNOWN_TOOL,
                    number,
                    format!(
                        "call {position} names {}, which is not in tools: it must have the entry {} = {}; there is none",
                        quote_str(&call.name),
                        quote_str(&canonical[i]),
                        quote_str(&unknown_tool(&call.name))
                    ),
                );
            } else if let Some(Answer::Raised(message)) = first_answer {
                tally.breaks(
                    DEDUP_RAISE,
                    number,
                    format!(
                        "call {position}'s tool raised: it must have the entry {} = {}; there is none",
                        quote_str(&canonical[i]),
                        quote_str(&format!("error: {message}"))
                    ),
                );
            } else if !strangers.is_empty() {
                if !reported_strangers {
                    reported_strangers = true;
                    tally.breaks(
                        DEDUP_KEY_FORMAT,
                        number,
                        format!(
                            "call {position} must be keyed {}; no entry has that key, and no rule explains the key {}",
                            quote_str(&canonical[i]),
                            quote_str(strangers[0])
                        ),
                    );
                } else {
                    tally.breaks(DEDUP_KEY_FORMAT, number, String::new());
                }
            } else {
                tally.breaks(
                    DEDUP_RESULT_ENTRIES,
                    number,
                    format!(
                        "call {position} (key {}) has no entry",
                        quote_str(&canonical[i])
                    ),
                );
            }
        }
        if !strangers.is_empty() && !reported_strangers {
            tally.breaks(
                DEDUP_RESULT_ENTRIES,
                number,
                format!("the entry {} belongs to no call", quote_str(strangers[0])),
            );
        }
    }
}
