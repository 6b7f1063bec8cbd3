//! The rules on what reaches dispatch and what comes back from it: each answered call is
//! dispatched once with its request (`{}` for absent arguments), and its content is what
//! dispatch returned.

use super::super::ids::*;
use super::super::{quote, quote_str, Tally};
use super::replay::request_of;
use super::{Batch, Said, ANY_ANSWER};
use crate::json::Value;

impl Batch<'_> {
    /// The answers dispatch gave call `i`'s request.
    pub(super) fn answers_for(&self, i: usize) -> Option<&Vec<String>> {
        self.answers.get(&self.requests[i])
    }

    pub(super) fn answer_is_error(&self, i: usize) -> bool {
        self.answers_for(i)
            .is_some_and(|answers| answers.iter().any(|a| a.starts_with("error:")))
    }

    /// The content of an answered call is what its dispatch returned (RULES A6): any
    /// answer given to an identical request of this batch, since their order is free.
    pub(super) fn check_content(&self, i: usize, content: &str, tally: &mut Tally) {
        let Some(answers) = self.answers_for(i) else {
            // Not dispatched with its request: the dispatch check says so.
            return;
        };
        if answers.iter().any(|a| a == ANY_ANSWER) {
            return;
        }
        tally.applies(EXEC_CONTENT_UNCHANGED);
        if !answers.iter().any(|a| a == content) {
            tally.breaks(
                EXEC_CONTENT_UNCHANGED,
                self.number,
                format!(
                    "call {}'s content must be what dispatch returned, {}; got {}",
                    i + 1,
                    quote_str(&answers[0]),
                    quote_str(content)
                ),
            );
        }
    }

    /// Every call the implementation answered with content is dispatched once with its
    /// request; nothing else is dispatched.
    pub(super) fn check_dispatch(&self, accepted: &[usize], said: &[Said], tally: &mut Tally) {
        let expected: Vec<Value> = accepted
            .iter()
            .map(|&i| request_of(&self.calls[i]))
            .collect();
        if !expected.is_empty() || !self.run.invocations.is_empty() {
            tally.applies(EXEC_DISPATCH_ONCE);
        }
        let mut diff = crate::judge::multiset_difference(&expected, &self.run.invocations);
        self.check_default_arguments(accepted, &mut diff, tally);
        for unexpected in &diff.unexpected {
            let diagnosis = self.unexpected_dispatch(unexpected, &expected, said);
            tally.breaks(EXEC_DISPATCH_ONCE, self.number, diagnosis);
        }
        for missing in &diff.missing {
            let call = accepted
                .iter()
                .find(|&&i| request_of(&self.calls[i]) == *missing)
                .map_or(0, |&i| i + 1);
            tally.breaks(
                EXEC_DISPATCH_ONCE,
                self.number,
                format!(
                    "call {call} was answered but its request {} was never dispatched",
                    quote(missing)
                ),
            );
        }
    }

    /// A call without arguments dispatched with something other than {}: the pair of a
    /// missing `{}` request and an unexpected one of the same tool is this rule's, and
    /// leaves `diff` so the dispatch-once rule does not charge it again.
    fn check_default_arguments(
        &self,
        accepted: &[usize],
        diff: &mut crate::judge::InvocationDiff,
        tally: &mut Tally,
    ) {
        for &i in accepted {
            let call = &self.calls[i];
            if call.arguments.is_some() {
                continue;
            }
            let request = request_of(call);
            let Some(missing) = diff
                .missing
                .iter()
                .position(|m| crate::judge::same_invocation(m, &request))
            else {
                // Dispatched with {}: shown only where the request was made (RULES D).
                tally.applies(EXEC_DISPATCH_ARGS_DEFAULT);
                continue;
            };
            let same_tool = diff.unexpected.iter().position(|u| {
                u.as_object()
                    .and_then(|o| o.get("tool"))
                    .and_then(Value::as_str)
                    == Some(call.tool.as_str())
            });
            if let Some(unexpected) = same_tool {
                let got = diff.unexpected.remove(unexpected);
                diff.missing.remove(missing);
                tally.breaks(
                    EXEC_DISPATCH_ARGS_DEFAULT,
                    self.number,
                    format!(
                        "call {} has no arguments: expected the request {}, got {}",
                        i + 1,
                        quote(&request),
                        quote(&got)
                    ),
                );
            }
        }
    }

    /// Why a request no answered call accounts for was dispatched.
    fn unexpected_dispatch(&self, unexpected: &Value, expected: &[Value], said: &[Said]) -> String {
        let refused = (0..self.calls.len()).find(|&i| {
            matches!(said[i], Said::Duplicate(_) | Said::OverLimit(_))
                && request_of(&self.calls[i]) == *unexpected
        });
        match refused {
            Some(i) => format!(
                "call {} was refused but dispatched anyway: {}",
                i + 1,
                quote(unexpected)
            ),
            None if expected.contains(unexpected) => {
                format!(
                    "{} was dispatched more often than calls ask for it",
                    quote(unexpected)
                )
            }
            None => format!(
                "{} was dispatched, but no call asks for it",
                quote(unexpected)
            ),
        }
    }
}
