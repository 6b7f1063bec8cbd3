//! The refusal rules: duplicates of an earlier id are refused with the duplicate error
//! (verbatim, before the limit), calls past the limit with the limit error, and nothing
//! else is refused. They take the implementation's own ids as their premise: an id bug is
//! the id check's.

use super::super::ids::*;
use super::super::{quote_str, Tally};
use super::{describe, said, Batch, Reading, Said};
use super::{ANY_ANSWER, DUPLICATE_PREFIX, LIMIT_PREFIX, NOT_A_STRING};
use crate::reference::{ToolCall, DEFAULT_MAX_PARALLEL};
use unicode_normalization::UnicodeNormalization;

/// What the refusal rules read off a batch: what the implementation said to each call,
/// and which calls its own ids make duplicates.
pub(super) struct Refusals<'r> {
    calls: &'r [ToolCall],
    /// The ids the implementation gave.
    premise: &'r [String],
    limit: u64,
    pub(super) said: Vec<Said<'r>>,
    is_duplicate: Vec<bool>,
    expected_limit_text: String,
    /// Which limit rule this batch's limit errors answer to.
    limit_requirement: &'static str,
    /// A duplicate of a generated, refused or duplicate id within the limit was missed.
    misses_special: bool,
    /// A plain duplicate past the limit got the limit error.
    limit_first: bool,
    /// A plain duplicate past the limit got the duplicate error: this implementation
    /// checks duplicates before the limit.
    duplicate_first: bool,
    /// The refusals start where a call count carried over from earlier batches would.
    carried_over: bool,
}

impl Refusals<'_> {
    fn over(&self, i: usize) -> bool {
        (i + 1) as u64 > self.limit
    }

    /// The earlier calls with call `i`'s id.
    fn duplicate_of(&self, i: usize) -> Vec<usize> {
        (0..i)
            .filter(|&j| self.premise[j] == self.premise[i])
            .collect()
    }

    /// Whether every call whose id call `i` repeats had a generated id, was refused, or
    /// was itself a duplicate: the duplicate must be refused whatever happened to them.
    fn special(&self, i: usize) -> bool {
        self.duplicate_of(i).iter().all(|&j| {
            let given = self.calls[j].id.as_deref().is_some_and(|id| !id.is_empty());
            !given || self.is_duplicate[j] || self.over(j)
        })
    }

    /// Whether catching call `i` as a duplicate takes more than a look at the call before
    /// it: an id it repeats was generated, refused or itself a duplicate, or the nearest
    /// earlier call with its id is not the one before it. A check that compares with
    /// fewer than every earlier call misses exactly these: `EXEC-DUP-ANY-EARLIER`'s bug,
    /// where a missed duplicate of the call just before is `EXEC-DUP-REJECTED`'s.
    fn far(&self, i: usize) -> bool {
        self.special(i) || self.duplicate_of(i).last().copied() != i.checked_sub(1)
    }

    fn refused_as(&self, j: usize, duplicate: bool) -> bool {
        if duplicate {
            matches!(self.said[j], Said::Duplicate(_))
        } else {
            matches!(self.said[j], Said::OverLimit(_))
        }
    }
}

impl<'a> Batch<'a> {
    pub(super) fn read_refusals<'r>(
        &'r self,
        reading: &Reading<'r>,
        premise: &'r [String],
    ) -> Refusals<'r> {
        let n = self.calls.len();
        let limit = self.max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL);
        let mut refusals = Refusals {
            calls: self.calls,
            premise,
            limit,
            said: Vec::new(),
            is_duplicate: Vec::new(),
            expected_limit_text: format!("{LIMIT_PREFIX} (limit {limit})"),
            limit_requirement: EXEC_LIMIT_POSITION,
            misses_special: false,
            limit_first: false,
            duplicate_first: false,
            carried_over: false,
        };
        refusals.is_duplicate = (0..n)
            .map(|i| !refusals.duplicate_of(i).is_empty())
            .collect();
        refusals.said = self.read_said(reading, &refusals);
        refusals.limit_requirement = self.limit_requirement(&refusals);
        // A duplicate of a generated, refused or duplicate id that is also past the limit
        // and gets the limit error breaks one of two rules; the batch's other calls say
        // which: a missed duplicate of that kind within the limit, or a plain duplicate
        // past the limit reported as over the limit.
        let r = &refusals;
        let misses_special = (0..n)
            .any(|j| r.is_duplicate[j] && r.special(j) && !r.over(j) && !r.refused_as(j, true));
        let plain_past_limit = |j: usize| r.is_duplicate[j] && !r.special(j) && r.over(j);
        let limit_first = (0..n).any(|j| plain_past_limit(j) && r.refused_as(j, false));
        let duplicate_first = (0..n).any(|j| plain_past_limit(j) && r.refused_as(j, true));
        // Refusals that start right where a count carried over from the previous batches
        // would put the limit, and not where an off-by-one would.
        let first_refused = (0..n)
            .find(|&j| !r.is_duplicate[j] && r.refused_as(j, false))
            .map(|j| (j + 1) as u64);
        let carried_over = self.number > 1
            && first_refused.is_some_and(|p| {
                p != limit && p + self.history.calls as u64 == limit.saturating_add(1)
            });
        refusals.misses_special = misses_special;
        refusals.limit_first = limit_first;
        refusals.duplicate_first = duplicate_first;
        refusals.carried_over = carried_over;
        refusals
    }

    /// What the implementation said to each call. A content that dispatch itself returned
    /// is content, even when it reads like a refusal (a tool may answer anything).
    fn read_said<'r>(&self, reading: &Reading<'r>, refusals: &Refusals) -> Vec<Said<'r>> {
        reading
            .fields
            .iter()
            .enumerate()
            .map(|(i, (_, content))| match content {
                Some(text)
                    if self.answers_for(i).is_some_and(|answers| {
                        answers.iter().any(|a| a == text)
                                // Answered a malformed request of its own: a call that is
                                // neither a duplicate nor over the limit and was dispatched.
                                || (answers.iter().any(|a| a == ANY_ANSWER)
                                    && !refusals.is_duplicate[i]
                                    && !refusals.over(i))
                    }) =>
                {
                    Said::Content(text)
                }
                _ => said(*content),
            })
            .collect()
    }

    /// Which limit rule a batch's limit errors answer to.
    fn limit_requirement(&self, refusals: &Refusals) -> &'static str {
        match self.max_parallel {
            Some(0) => EXEC_LIMIT_ZERO,
            Some(_) => EXEC_LIMIT_POSITION,
            None => {
                let limit_errors: Vec<&str> = refusals
                    .said
                    .iter()
                    .filter_map(|s| match s {
                        Said::OverLimit(text) => Some(*text),
                        _ => None,
                    })
                    .collect();
                let over = (0..self.calls.len())
                    .any(|i| !refusals.is_duplicate[i] && (i + 1) as u64 > DEFAULT_MAX_PARALLEL);
                // No limit applied at all, or one that names another number: the default
                // is what is wrong. A limit of 4 applied at the wrong positions is not.
                if (over && limit_errors.is_empty())
                    || limit_errors
                        .iter()
                        .any(|t| *t != refusals.expected_limit_text)
                {
                    EXEC_LIMIT_DEFAULT
                } else {
                    EXEC_LIMIT_POSITION
                }
            }
        }
    }

    /// Checks what each call was told; returns the calls answered with content (or with
    /// no message), the ones dispatch must have seen.
    pub(super) fn check_refusals(
        &self,
        reading: &Reading,
        refusals: &Refusals,
        tally: &mut Tally,
    ) -> Vec<usize> {
        (0..self.calls.len())
            .filter(|&i| !reading.missing_explained(i))
            .filter(|&i| {
                if refusals.is_duplicate[i] {
                    self.check_duplicate(refusals, i, tally)
                } else {
                    self.check_unique(refusals, i, tally)
                }
            })
            .collect()
    }

    /// A call that repeats an earlier id; returns whether it was answered with content.
    fn check_duplicate(&self, refusals: &Refusals, i: usize, tally: &mut Tally) -> bool {
        let position = i + 1;
        let id = &refusals.premise[i];
        let special = refusals.special(i);
        let far = refusals.far(i);
        let requirement = if far {
            EXEC_DUP_ANY_EARLIER
        } else {
            EXEC_DUP_REJECTED
        };
        let over = refusals.over(i);
        let first = refusals.duplicate_of(i)[0] + 1;
        let expected_error = || quote_str(&format!("{DUPLICATE_PREFIX}'{id}'"));
        match refusals.said[i] {
            // Shown only where the duplicate error was written (RULES D): a call
            // answered any other way shows nothing of the duplicate rules.
            Said::Duplicate(_) if id.starts_with(NOT_A_STRING) => {
                shows_refused_duplicate(tally, special, far, over);
            }
            Said::Duplicate(rest) => {
                shows_refused_duplicate(tally, special, far, over);
                tally.applies(EXEC_DUP_VERBATIM);
                if rest != format!("'{id}'") {
                    tally.breaks(
                        EXEC_DUP_VERBATIM,
                        self.number,
                        format!(
                            "call {position} repeats the id {} of call {first}: the error must read {}, got {}",
                            quote_str(id),
                            expected_error(),
                            quote_str(&format!("{DUPLICATE_PREFIX}{rest}"))
                        ),
                    );
                }
            }
            // The batch's own evidence says which rule a duplicate of a refused or
            // generated id that got the limit error breaks: where the implementation
            // refuses a plain duplicate past the limit as a duplicate, or misses a
            // duplicate of this kind within the limit, it checks duplicates first and
            // did not count this id; otherwise it put the limit first. Any other
            // duplicate past the limit given the limit error is A5's, in its own words.
            Said::OverLimit(_)
                if over
                    && special
                    && (refusals.duplicate_first || refusals.misses_special)
                    && !refusals.limit_first =>
            {
                tally.breaks(
                    EXEC_DUP_ANY_EARLIER,
                    self.number,
                    format!(
                        "call {position} repeats the id {} of call {first} (whatever happened to that call), so it must get {}; got the limit error",
                        quote_str(id),
                        expected_error()
                    ),
                );
            }
            Said::OverLimit(_) if over => tally.breaks(
                EXEC_DUP_BEFORE_LIMIT,
                self.number,
                format!(
                    "call {position} repeats the id {} of call {first} and is past the limit: the duplicate error comes first, got the limit error",
                    quote_str(id)
                ),
            ),
            other => {
                tally.breaks(
                    requirement,
                    self.number,
                    format!(
                        "call {position} repeats the id {} of call {first}{}, so it must get {}; got {}",
                        quote_str(id),
                        if far { far_words(special) } else { "" },
                        expected_error(),
                        describe(other)
                    ),
                );
                return matches!(other, Said::Content(_));
            }
        }
        false
    }

    /// A call with an id of its own; returns whether it was answered (with content or
    /// with no message).
    fn check_unique(&self, refusals: &Refusals, i: usize, tally: &mut Tally) -> bool {
        match refusals.said[i] {
            Said::Duplicate(_) => self.charge_false_duplicate(refusals, i, tally),
            Said::OverLimit(text) if refusals.over(i) => {
                self.check_limit_error(refusals, i, text, tally);
            }
            Said::OverLimit(text) => self.charge_refused_within_limit(refusals, i, text, tally),
            other if refusals.over(i) => {
                self.charge_missed_limit(refusals, i, other, tally);
                return matches!(other, Said::Content(_));
            }
            Said::Content(content) => {
                self.check_content(i, content, tally);
                return true;
            }
            Said::Nothing => {
                tally.breaks(
                    EXEC_CONTENT_UNCHANGED,
                    self.number,
                    format!("call {} has no message with a string content", i + 1),
                );
                return true;
            }
        }
        false
    }

    fn charge_false_duplicate(&self, refusals: &Refusals, i: usize, tally: &mut Tally) {
        let id = &refusals.premise[i];
        let requirement = if self.refused_for_an_earlier_batch(refusals, i) {
            EXEC_NO_STATE
        } else {
            EXEC_DUP_REJECTED
        };
        tally.breaks(
            requirement,
            self.number,
            format!(
                "call {} was refused as a duplicate, but no earlier call of this batch has the id {}",
                i + 1,
                quote_str(id)
            ),
        );
    }

    /// Whether call `i`, refused as a duplicate of no call of this batch, provably was
    /// refused for an id an earlier batch used (EXEC-NO-STATE): its id was used before, no
    /// earlier call of this batch has an id a broken comparison could take for it, and no
    /// id of an earlier batch was answered in this one.
    fn refused_for_an_earlier_batch(&self, refusals: &Refusals, i: usize) -> bool {
        let id = &refusals.premise[i];
        let used_before = |id: &String| self.number > 1 && self.history.ids.contains(id);
        let mistaken_within = (0..i).any(|j| ids_alike(&refusals.premise[j], id));
        let answered_again = (0..refusals.premise.len()).any(|k| {
            used_before(&refusals.premise[k])
                && !refusals.is_duplicate[k]
                && matches!(refusals.said[k], Said::Content(_))
        });
        used_before(id) && !mistaken_within && !answered_again
    }

    /// A call past the limit got the limit error: it must read as the limit's.
    fn check_limit_error(&self, refusals: &Refusals, i: usize, text: &str, tally: &mut Tally) {
        tally.applies(refusals.limit_requirement);
        if self.max_parallel.is_none() {
            tally.applies(EXEC_LIMIT_DEFAULT);
        }
        if text != refusals.expected_limit_text {
            tally.breaks(
                refusals.limit_requirement,
                self.number,
                format!(
                    "call {} is past the limit: expected {}, got {}",
                    i + 1,
                    quote_str(&refusals.expected_limit_text),
                    quote_str(text)
                ),
            );
        }
    }

    fn charge_refused_within_limit(
        &self,
        refusals: &Refusals,
        i: usize,
        text: &str,
        tally: &mut Tally,
    ) {
        let requirement = if refusals.carried_over {
            EXEC_NO_STATE
        } else if refusals.limit_requirement == EXEC_LIMIT_ZERO {
            EXEC_LIMIT_POSITION
        } else {
            refusals.limit_requirement
        };
        tally.breaks(
            requirement,
            self.number,
            format!(
                "call {} is within the limit of {} but was refused: {}",
                i + 1,
                refusals.limit,
                quote_str(text)
            ),
        );
    }

    fn charge_missed_limit(&self, refusals: &Refusals, i: usize, said: Said, tally: &mut Tally) {
        tally.breaks(
            refusals.limit_requirement,
            self.number,
            format!(
                "call {} is past the limit of {}{}: expected {}, got {}",
                i + 1,
                refusals.limit,
                match self.max_parallel {
                    None => " (max_parallel not passed)",
                    Some(0) => " (max_parallel = 0)",
                    Some(_) => "",
                },
                quote_str(&refusals.expected_limit_text),
                describe(said)
            ),
        );
    }
}

/// Why a far duplicate is one all the same.
fn far_words(special: bool) -> &'static str {
    if special {
        " (whatever happened to that call)"
    } else {
        " (the duplicate check compares with every earlier call)"
    }
}

/// A duplicate refused as one shows its duplicate rule and, past the limit, that the
/// duplicate check came first.
/// A duplicate refused as one shows the plain rule unless it repeats a generated, refused
/// or duplicate id, and the every-earlier-call rule where it takes more than a look at the
/// call before it.
fn shows_refused_duplicate(tally: &mut Tally, special: bool, far: bool, over: bool) {
    if !special {
        tally.applies(EXEC_DUP_REJECTED);
    }
    if far {
        tally.applies(EXEC_DUP_ANY_EARLIER);
    }
    if over {
        tally.applies(EXEC_DUP_BEFORE_LIMIT);
    }
}

/// Whether two ids differ only in what a broken comparison ignores: Unicode normalisation
/// (canonical or compatibility), letter case, surrounding whitespace.
fn ids_alike(a: &str, b: &str) -> bool {
    let folded = |id: &str| -> String { id.trim().nfkc().flat_map(char::to_lowercase).collect() };
    a == b || folded(a) == folded(b)
}
