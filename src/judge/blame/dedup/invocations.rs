//! One invocation per distinct key, with the args (`{}` when absent).

use super::super::ids::*;
use super::super::{quote, quote_str, Tally};
use super::Batch;
use super::{Answer, Given};
use crate::json::{Object, Value};
use crate::judge::same_invocation;
use std::collections::HashMap;

/// Where an entry whose key this batch never invoked came from.
enum Served<'c> {
    /// What this batch's invocation for another key (this one) of the same tool gave.
    ByAnotherKey(&'c str),
    /// A cache kept from an earlier call, with the evidence in words.
    FromEarlierCall(String),
}

impl Batch<'_> {
    /// One invocation per distinct key the implementation made, with the args (`{}` when
    /// absent); none for unknown tools.
    pub(super) fn check_invocations(
        &self,
        canonical: &[String],
        given: &[Given],
        tally: &mut Tally,
    ) {
        let number = self.number;
        let (expected, wanted_for) = self.expected_invocations(canonical, given);
        let mut diff = crate::judge::multiset_difference(&expected, &self.run.invocations);
        let wanted = || wanted_for.iter().zip(&expected);
        self.check_default_args(&wanted_for, &expected, &mut diff, tally);
        self.check_args_read_otherwise(&wanted_for, &expected, given, &mut diff, tally);
        self.shows_invocations(canonical, given, &wanted_for, &expected, &diff, tally);
        for unexpected in &diff.unexpected {
            let repeat = wanted().find(|(_, w)| same_invocation(w, unexpected));
            match repeat {
                Some((i, _)) => {
                    let key = &canonical[*i];
                    let raised = self
                        .answers
                        .get(key)
                        .and_then(|a| a.first())
                        .is_some_and(|a| matches!(a, Answer::Raised(_)));
                    let times = self.answers.get(key).map_or(0, Vec::len);
                    if raised {
                        tally.breaks(
                            DEDUP_RAISE,
                            number,
                            format!(
                                "the key {} was invoked {times} times: its tool raised, and the error is cached like any result",
                                quote_str(key)
                            ),
                        );
                    } else {
                        tally.breaks(
                            DEDUP_CACHE_HIT,
                            number,
                            format!(
                                "the key {} was invoked {times} times: every later call with it must be served from the cache",
                                quote_str(key)
                            ),
                        );
                    }
                }
                None => tally.breaks(
                    DEDUP_INVOKE_ONCE,
                    number,
                    format!("{} was invoked, but no call asks for it", quote(unexpected)),
                ),
            }
        }
        let only_this_batch = !diff.missing.is_empty() && self.output_holds_only_this_batch(given);
        for missing in &diff.missing {
            let Some((i, _)) = wanted().find(|(_, w)| same_invocation(w, missing)) else {
                continue;
            };
            let position = i + 1;
            let key = &canonical[*i];
            match self.served_without_invocation(*i, key, canonical, given, only_this_batch) {
                Some(Served::ByAnotherKey(other)) => tally.breaks(
                    DEDUP_INVOKE_ONCE,
                    number,
                    format!(
                        "call {position}'s tool was never invoked for its key {}: its entry holds what the invocation for {} gave, one invocation serving two keys",
                        quote_str(key),
                        quote_str(other)
                    ),
                ),
                Some(Served::FromEarlierCall(answered)) => tally.breaks(
                    DEDUP_NO_STATE,
                    number,
                    format!(
                        "call {position}'s key {} has an entry but its tool was not invoked: {answered}; every call starts with an empty cache",
                        quote_str(key)
                    ),
                ),
                None => tally.breaks(
                    DEDUP_INVOKE_ONCE,
                    number,
                    format!(
                        "call {position}'s tool was never invoked for its key {}",
                        quote_str(key)
                    ),
                ),
            }
        }
    }

    /// Why call `i`'s entry, whose tool this batch did not invoke, came from an earlier
    /// call of the function: it holds what an earlier batch of this case was given for
    /// that key, or what the tool gives (a cache hit without an invocation), or some other
    /// value no invocation of this batch gave. A call without an entry was not served at
    /// all: the invocation rule's. Output made up without invoking anything reads as the
    /// last kind; it is charged here too, and earns nothing (no rule is shown without the
    /// invocations and results that show it).
    ///
    /// Unless the entry holds what this batch's invocation for another key of the same tool
    /// gave, and the output has no entry beyond this batch's calls: one invocation serving
    /// several keys (a cache per tool name). A cache kept from an earlier call would show
    /// its other entries; without them it does not explain the entry better, even where an
    /// earlier batch was given the same answer.
    fn served_without_invocation<'c>(
        &self,
        i: usize,
        key: &str,
        canonical: &'c [String],
        given: &[Given],
        only_this_batch: bool,
    ) -> Option<Served<'c>> {
        let (entry, _) = given[i].as_ref()?;
        let output = self.run.output.as_object()?;
        let actual = output.lookup().get(entry.as_str()).cloned()?;
        let another_key = self.calls.iter().enumerate().find_map(|(j, other)| {
            let gave_it = other.name == self.calls[i].name
                && canonical[j] != key
                && self
                    .answers
                    .get(&canonical[j])
                    .is_some_and(|answers| answers.iter().any(|a| a.entry_value() == actual));
            gave_it.then_some(canonical[j].as_str())
        });
        if let (true, Some(other)) = (only_this_batch, another_key) {
            return Some(Served::ByAnotherKey(other));
        }
        let earlier = self.history.invoked.get(key);
        if earlier.is_some_and(|answers| answers.iter().any(|a| a.entry_value() == actual)) {
            return Some(Served::FromEarlierCall(
                "it holds what an earlier batch's invocation was given".into(),
            ));
        }
        if self.answer_now(i).as_ref() == Some(&actual) {
            return Some(Served::FromEarlierCall(
                "it holds the tool's answer, served from a cache kept from an earlier call".into(),
            ));
        }
        Some(Served::FromEarlierCall(format!(
            "it holds {}, which no invocation of this batch gave: served from a cache kept from an earlier call, or made up",
            quote(&actual)
        )))
    }

    /// Whether every entry of the output is one a call of this batch was matched with: a
    /// cache kept from an earlier call would show its other entries.
    fn output_holds_only_this_batch(&self, given: &[Given]) -> bool {
        let Some(output) = self.run.output.as_object() else {
            return false;
        };
        let keys: std::collections::HashSet<&str> =
            given.iter().flatten().map(|(k, _)| k.as_str()).collect();
        output.keys().all(|k| keys.contains(k.as_str()))
    }

    /// The invocations a correct implementation makes, and the call each is for.
    fn expected_invocations(
        &self,
        canonical: &[String],
        given: &[Given],
    ) -> (Vec<Value>, Vec<usize>) {
        let empty = Object::new();
        let mut expected: Vec<Value> = Vec::new();
        let mut wanted_for: Vec<usize> = Vec::new();
        let mut keys_seen: HashMap<&str, usize> = HashMap::new();
        for (i, call) in self.calls.iter().enumerate() {
            if !self.case.tools.contains_key(&call.name) {
                continue;
            }
            let key = given[i]
                .as_ref()
                .map_or(canonical[i].as_str(), |(k, _)| k.as_str());
            if keys_seen.contains_key(key) {
                continue;
            }
            keys_seen.insert(key, i);
            let mut invocation = Object::new();
            invocation.insert("name".into(), call.name.as_str().into());
            invocation.insert(
                "args".into(),
                Value::from(call.args.clone().unwrap_or_else(|| empty.clone())),
            );
            expected.push(Value::from(invocation));
            wanted_for.push(i);
        }
        (expected, wanted_for)
    }

    /// A call without args invoked with something other than {}: that pair of a missing
    /// and an unexpected invocation is this rule's, and leaves `diff`.
    fn check_default_args(
        &self,
        wanted_for: &[usize],
        expected: &[Value],
        diff: &mut crate::judge::InvocationDiff,
        tally: &mut Tally,
    ) {
        let number = self.number;
        for (i, request) in wanted_for.iter().zip(expected) {
            let call = &self.calls[*i];
            if call.args.is_some() {
                continue;
            }
            let Some(missing) = diff
                .missing
                .iter()
                .position(|m| same_invocation(m, request))
            else {
                continue;
            };
            let same_name = diff.unexpected.iter().position(|u| {
                u.as_object()
                    .and_then(|o| o.get("name"))
                    .and_then(Value::as_str)
                    == Some(call.name.as_str())
            });
            if let Some(unexpected) = same_name {
                let got = diff.unexpected.remove(unexpected);
                diff.missing.remove(missing);
                tally.breaks(
                    DEDUP_KEY_ARGS_DEFAULT,
                    number,
                    format!(
                        "call {} has no args: its tool must be invoked with {{}}, got the invocation {}",
                        i + 1,
                        quote(&got)
                    ),
                );
            }
        }
    }

    /// What call `i`'s tool would have given, had this batch invoked it.
    fn answer_now(&self, i: usize) -> Option<Value> {
        let call = &self.calls[i];
        let scripts = crate::spec::Scripts::new(&self.case.tools);
        let script = scripts.get(&call.name)?;
        let args = crate::reference::canonical_args(call.args.as_ref().unwrap_or(&Object::new()));
        let nth = self
            .history
            .answered
            .get(&(call.name.clone(), args.clone()))
            .copied()
            .unwrap_or(0);
        let answer = crate::spec::tool_answer(&call.name, script, &args, nth);
        Some(Answer::from(answer).entry_value())
    }

    /// What the invocations show (RULES D: only what happened): each key invoked, a key
    /// of an earlier batch invoked again, and a repeated key served by its one invocation.
    fn shows_invocations(
        &self,
        canonical: &[String],
        given: &[Given],
        wanted_for: &[usize],
        expected: &[Value],
        diff: &crate::judge::InvocationDiff,
        tally: &mut Tally,
    ) {
        let key_of = |i: usize| given[i].as_ref().map_or(canonical[i].as_str(), |(k, _)| k);
        // Indexed only when some key repeats.
        let entries = std::cell::OnceCell::new();
        // A repeated key is shown served by its one invocation only where its entry holds
        // what that invocation gave: an entry that holds anything else serves no result.
        let holds_its_answer = |i: usize| {
            let entries = entries.get_or_init(|| self.run.output.as_object().map(Object::lookup));
            let entry = entries.as_ref().and_then(|e| e.get(key_of(i)));
            self.answers.get(&canonical[i]).is_some_and(|answers| {
                entry.is_some_and(|entry| answers.iter().any(|a| a.entry_value() == *entry))
            })
        };
        for (&i, request) in wanted_for.iter().zip(expected) {
            if diff.missing.contains(request) {
                continue;
            }
            tally.applies(DEDUP_INVOKE_ONCE);
            if self.number > 1 && self.history.keys.contains(&canonical[i]) {
                tally.applies(DEDUP_NO_STATE);
            }
            let repeated = (i + 1..self.calls.len())
                .any(|j| canonical[j] == canonical[i] && key_of(j) == key_of(i));
            if repeated && !diff.unexpected.contains(request) && holds_its_answer(i) {
                tally.applies(DEDUP_CACHE_HIT);
            }
        }
    }

    /// A call's tool invoked with args that differ from the call's only as one number type
    /// reads them (`1` as `1.0`): the pair of a missing and an unexpected invocation is one
    /// bug, shown already in the key where the key reads the number that way, and the
    /// invocation rule's otherwise. Leaves `diff` so no other rule charges it again.
    fn check_args_read_otherwise(
        &self,
        wanted_for: &[usize],
        expected: &[Value],
        given: &[Given],
        diff: &mut crate::judge::InvocationDiff,
        tally: &mut Tally,
    ) {
        for (&i, request) in wanted_for.iter().zip(expected) {
            let call = &self.calls[i];
            let Some(missing) = diff
                .missing
                .iter()
                .position(|m| same_invocation(m, request))
            else {
                continue;
            };
            let Some(form) = super::loose::loose_form(call) else {
                continue;
            };
            let read_otherwise = diff.unexpected.iter().position(|u| {
                invoked_call(u).is_some_and(|invoked| {
                    invoked.name == call.name
                        && super::loose::loose_form(&invoked).as_ref() == Some(&form)
                })
            });
            let Some(unexpected) = read_otherwise else {
                continue;
            };
            let got = diff.unexpected.remove(unexpected);
            diff.missing.remove(missing);
            if given[i].as_ref().is_some_and(|(_, d)| !d.is_empty()) {
                continue;
            }
            tally.breaks(
                DEDUP_INVOKE_ONCE,
                self.number,
                format!(
                    "call {} must invoke its tool with its args as given, {}; got the invocation {}",
                    i + 1,
                    quote(request),
                    quote(&got)
                ),
            );
        }
    }
}

/// An invocation read as a call: its name and args.
fn invoked_call(invocation: &Value) -> Option<crate::reference::DedupCall> {
    let object = invocation.as_object()?;
    Some(crate::reference::DedupCall {
        name: object.get("name")?.as_str()?.to_owned(),
        args: Some(object.get("args")?.as_object()?.clone()),
    })
}
