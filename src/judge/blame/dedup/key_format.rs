//! How each call's key is written: the key-format rules, judged on the departures from
//! the canonical key that explain the key the implementation gave.

use super::super::ids::*;
use super::super::keys::{Departure, Features};
use super::super::{quote_str, Tally};
use super::loose::loose_form;
use super::Batch;
use super::Given;
use std::collections::HashMap;

impl Batch<'_> {
    /// How each call's key is written.
    pub(super) fn check_keys(
        &self,
        canonical: &[String],
        features: &[Features],
        given: &[Given],
        tally: &mut Tally,
    ) {
        for (i, call) in self.written.iter().enumerate() {
            let Some((key, departures)) = &given[i] else {
                continue;
            };
            let applies = features[i].requirements(call.args.is_none(), &call.name);
            let mut broken: Vec<&'static str> = Vec::new();
            for departure in departures {
                for requirement in departure.requirements(self.model, call.args.as_ref()) {
                    broken.push(requirement);
                    tally.breaks(
                        requirement,
                        self.number,
                        format!(
                            "call {}'s key is {}, expected {}: {}",
                            i + 1,
                            quote_str(key),
                            quote_str(&canonical[i]),
                            departure.describe(self.model)
                        ),
                    );
                }
            }
            for requirement in applies {
                if !broken.contains(&requirement) {
                    tally.applies(requirement);
                }
            }
        }
        // 1, 1.0 and true are different calls: two calls with different keys must not
        // share an entry. Calls meet only the earlier calls of their name and loose form:
        // comparing every pair was quadratic in the batch, and batches have hundreds of
        // calls.
        let mut alike: HashMap<(&str, Vec<u8>), Vec<usize>> = HashMap::new();
        for (i, call) in self.calls.iter().enumerate() {
            let Some(form) = loose_form(call) else {
                continue;
            };
            let earlier = alike.entry((call.name.as_str(), form)).or_default();
            for &j in earlier.iter() {
                if canonical[i] == canonical[j] {
                    continue;
                }
                let (Some((a, departures_i)), Some((b, departures_j))) = (&given[i], &given[j])
                else {
                    continue;
                };
                // Merged by a departure of another setting (lists sorted: [1.0, 1] keyed as
                // [1, 1.0]), already charged to its own rule above: not this rule's merge.
                let merged_otherwise = |departures: &[Departure]| {
                    !departures.is_empty() && !departures.iter().any(|d| d.writes_numbers())
                };
                if a == b && (merged_otherwise(departures_i) || merged_otherwise(departures_j)) {
                    continue;
                }
                if a != b {
                    // Shown only where the output holds the two calls apart (RULES D).
                    tally.applies(DEDUP_NUMBER_DISTINCT);
                } else {
                    tally.breaks(
                        DEDUP_NUMBER_DISTINCT,
                        self.number,
                        format!(
                            "calls {} and {} are different calls ({} and {}) but share the key {}",
                            j + 1,
                            i + 1,
                            quote_str(&canonical[j]),
                            quote_str(&canonical[i]),
                            quote_str(a)
                        ),
                    );
                }
            }
            earlier.push(i);
        }
    }
}
