//! One invocation per distinct key, with the args (`{}` when absent).

use super::super::ids::*;
use super::super::{quote, quote_str, Tally};
use super::Batch;
use super::{Answer, Given};
use crate::json::{Object, Value};
use std::collections::HashMap;

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
        let (expected, wanted_for) = self.expected_invocations(canonical, given, tally);
        let mut diff = crate::judge::multiset_difference(&expected, &self.run.invocations);
        let wanted = || wanted_for.iter().zip(&expected);
        self.check_default_args(&wanted_for, &expected, &mut diff, tally);
        for unexpected in &diff.unexpected {
            let repeat = wanted().find(|(_, w)| *w == unexpected);
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
        for missing in &diff.missing {
            let Some((i, _)) = wanted().find(|(_, w)| *w == missing) else {
                continue;
            };
            let position = i + 1;
            let served = given[*i].is_some();
            if served || (self.number > 1 && self.history.keys.contains(&canonical[*i])) {
                tally.breaks(
                    DEDUP_NO_STATE,
                    number,
                    format!(
                        "call {position}'s key {} has an entry but its tool was not invoked: a cache from an earlier call answered; every call starts with an empty cache",
                        quote_str(&canonical[*i])
                    ),
                );
            } else {
                tally.breaks(
                    DEDUP_INVOKE_ONCE,
                    number,
                    format!(
                        "call {position}'s tool was never invoked for its key {}",
                        quote_str(&canonical[*i])
                    ),
                );
            }
        }
    }

    /// The invocations a correct implementation makes, and the call each is for.
    fn expected_invocations(
        &self,
        canonical: &[String],
        given: &[Given],
        tally: &mut Tally,
    ) -> (Vec<Value>, Vec<usize>) {
        let empty = Object::new();
        let mut expected: Vec<Value> = Vec::new();
        let mut wanted_for: Vec<usize> = Vec::new();
        let mut keys_seen: HashMap<&str, usize> = HashMap::new();
        for (i, call) in self.calls.iter().enumerate() {
            if !self.case.tools.contains_key(&call.name) {
                continue;
            }
            tally.applies(DEDUP_INVOKE_ONCE);
            let key = given[i]
                .as_ref()
                .map_or(canonical[i].as_str(), |(k, _)| k.as_str());
            if let Some(first) = keys_seen.get(key) {
                if canonical[*first] == canonical[i] {
                    tally.applies(DEDUP_CACHE_HIT);
                }
                continue;
            }
            keys_seen.insert(key, i);
            if self.number > 1 && self.history.keys.contains(&canonical[i]) {
                tally.applies(DEDUP_NO_STATE);
            }
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
            let Some(missing) = diff.missing.iter().position(|m| m == request) else {
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
}
