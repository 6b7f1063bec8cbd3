//! Matches every call with the key the implementation gave it: the plausible ways of
//! writing its key, then an entry that holds its args read back.

use super::super::ids::DEDUP_KEY_ORDER;
use super::super::keys::{keys_given, plausible_keys, read_back, Departure, Features};
use super::{Batch, Given, MOST_ENTRIES_READ};
use crate::json::{dumps_object, Key, Object, Style};
use std::collections::{HashMap, HashSet};

impl Batch<'_> {
    /// The key each call was given, if any entry explains it.
    pub(super) fn keys_given(
        &self,
        output: &Object,
        canonical: &[String],
        features: &[Features],
    ) -> Vec<Given> {
        let mut given = self.keys_written(output, canonical, features);
        // A key no way of writing explains may still hold the call's args, read back.
        let taken: HashSet<String> = given.iter().flatten().map(|(k, _)| k.clone()).collect();
        let unread: Vec<&Key> = output
            .keys()
            .filter(|k| !taken.contains(k.as_str()))
            .take(MOST_ENTRIES_READ)
            .collect();
        self.keys_read_back(&unread, canonical, &mut given);
        self.keys_shared(&unread, canonical, &mut given);
        given
    }

    /// The key each call was given among the ways of writing its key.
    fn keys_written(
        &self,
        output: &Object,
        canonical: &[String],
        features: &[Features],
    ) -> Vec<Given> {
        let entries: HashSet<&str> = output.keys().map(Key::as_str).collect();
        // The canonical keys explain every call and every entry (a correct batch, nearly
        // every batch judged): no other way of writing keys can explain more, so the ones
        // with departures, which cost most of the diagnosis, are not written out.
        let canonical_explains_all = canonical.iter().all(|k| entries.contains(k.as_str()))
            && entries.len() == canonical.iter().collect::<HashSet<_>>().len();
        if canonical_explains_all {
            canonical
                .iter()
                .map(|k| Some((k.clone(), Vec::new())))
                .collect()
        } else {
            // Calls written alike (same name, args written the same, member order included)
            // have the same plausible keys, about a hundred each: written once per such
            // call, as dedup batches repeat calls by design.
            let mut sets: Vec<Vec<(Vec<Departure>, String)>> = Vec::new();
            let mut set_of: HashMap<(&str, Option<String>), usize> = HashMap::new();
            let which: Vec<usize> = self
                .written
                .iter()
                .zip(features)
                .map(|(call, features)| {
                    let written = call
                        .args
                        .as_ref()
                        .map(|args| dumps_object(args, Style::PYTHON));
                    *set_of
                        .entry((call.name.as_str(), written))
                        .or_insert_with(|| {
                            sets.push(plausible_keys(self.model, call, features));
                            sets.len() - 1
                        })
                })
                .collect();
            let plausible: Vec<&[(Vec<Departure>, String)]> =
                which.iter().map(|&set| sets[set].as_slice()).collect();
            keys_given(&plausible, &entries)
        }
    }

    /// Each call no way of writing explains takes the unread entry that holds its args,
    /// read back, and is nearest its canonical key in length: numbers that differ only
    /// late (two long integers a digit apart) both come near the call's, and the one of
    /// its own size is its own.
    fn keys_read_back(&self, unread: &[&Key], canonical: &[String], given: &mut [Given]) {
        for (i, call) in self.written.iter().enumerate() {
            if given[i].is_some() {
                continue;
            }
            // The entry another call of the same canonical key was given may hold this
            // call's args too, in an order no way of writing names for this call's order (a
            // JavaScript object lists integer-like keys first, however they were written).
            let same_call: Vec<String> = (0..self.written.len())
                .filter(|&j| j != i && canonical[j] == canonical[i])
                .filter_map(|j| given[j].as_ref().map(|(k, _)| k.clone()))
                .collect();
            given[i] = unread
                .iter()
                .map(|k| k.as_str())
                .chain(same_call.iter().map(String::as_str))
                .filter_map(|k| read_back(self.model, call, k).map(|d| (k.to_owned(), vec![d])))
                .min_by_key(|(k, _)| k.len().abs_diff(canonical[i].len()));
        }
    }

    fn keys_shared(&self, unread: &[&Key], canonical: &[String], given: &mut [Given]) {
        // A later call that shares an earlier call's key while an entry nobody explains
        // holds its args, read back, was given that entry (the keying departs somewhere no
        // way of writing above names, such as sorting only so deep).
        for entry in unread {
            if given.iter().flatten().any(|(k, _)| k == *entry) {
                continue;
            }
            // Only where the earlier call is the same call (same canonical key): calls
            // the implementation merged against a rule stay merged, as it keyed them.
            let shared = (0..self.calls.len()).find(|&i| {
                given[i].as_ref().is_some_and(|(k, _)| {
                    (0..i).any(|j| {
                        canonical[j] == canonical[i]
                            && given[j].as_ref().is_some_and(|(e, _)| e == k)
                    })
                }) && read_back(self.model, &self.written[i], entry)
                    // Only a key order the ways of writing do not name: an entry whose
                    // numbers merely come near the call's is another call's (a cache kept
                    // from an earlier call holds many), not this one's respelled.
                    == Some(Departure::ReadBack(DEDUP_KEY_ORDER))
            });
            if let Some(i) = shared {
                let departure = read_back(self.model, &self.written[i], entry).expect("just read");
                given[i] = Some((entry.to_string(), vec![departure]));
            }
        }
    }
}
