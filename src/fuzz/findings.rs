//! What a function's generated cases found, kept as they stream by: counts, tallies per
//! requirement, the first failure and the smallest case charged to each requirement.

use super::draw::Redraw;
use crate::judge::{CaseResult, GeneratedTally, Judge, Outcome, OutcomeKind};
use crate::spec::{Case, Function, SpecCase};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A failing generated case kept while the run streams on: its result, its index (ties
/// go to the earliest) and its size.
pub(super) struct Kept {
    pub(super) index: usize,
    pub(super) size: usize,
    pub(super) result: CaseResult,
}

/// What a function's generated cases have found so far. Results stream through it and
/// only the aggregates stay: counts, tallies, the first failure and, per requirement, the
/// smallest case charged to it, with the random states that draw those few again.
pub(super) struct Findings<'p> {
    pub(super) judge: Judge,
    pub(super) public: Public<'p>,
    pub(super) generated: usize,
    pub(super) failed: usize,
    pub(super) not_run: usize,
    pub(super) exercised: BTreeSet<String>,
    pub(super) requirements: BTreeMap<String, GeneratedTally>,
    pub(super) first: Option<Kept>,
    /// The first case that was not run (its function given up on, or the budget spent):
    /// shown when no case failed, never shrunk or saved, since it showed nothing.
    pub(super) first_not_run: Option<CaseResult>,
    pub(super) smallest: BTreeMap<String, Kept>,
    pub(super) draws: BTreeMap<usize, Redraw>,
}

impl Findings<'_> {
    /// Adds a case's result; `hidden` is whether the case is hidden, when that is known.
    pub(super) fn add(
        &mut self,
        index: usize,
        draw: Option<Redraw>,
        hidden: Option<bool>,
        result: CaseResult,
    ) {
        self.generated += 1;
        let hidden = hidden.unwrap_or_else(|| self.public.hides(&result.case.case));
        // What the entry of a passing run lists: what the checks found applied or broken.
        self.exercised.extend(result.blame.shown.iter().cloned());
        self.exercised
            .extend(result.blame.charged().into_iter().map(str::to_owned));
        tally(&self.judge, &result, hidden, &mut self.requirements);
        if result.outcome.is_pass() {
            return;
        }
        if matches!(result.outcome, Outcome::Skipped { .. }) {
            self.not_run += 1;
            self.first_not_run.get_or_insert(result);
            return;
        }
        self.failed += 1;
        let size = case_size(&result);
        if self.first.as_ref().is_none_or(|first| index < first.index) {
            self.first = Some(Kept {
                index,
                size,
                result: result.clone(),
            });
        }
        for requirement in result.blame.charged() {
            let smaller = self
                .smallest
                .get(requirement)
                .is_none_or(|kept| (size, index) < (kept.size, kept.index));
            if smaller {
                let kept = Kept {
                    index,
                    size,
                    result: result.clone(),
                };
                self.smallest.insert(requirement.to_owned(), kept);
            }
        }
        if let Some(draw) = draw {
            self.draws.insert(index, draw);
        }
        // Only the draws of cases still kept stay.
        let first = self.first.as_ref().map(|k| k.index);
        let smallest: BTreeSet<usize> = self.smallest.values().map(|k| k.index).collect();
        self.draws
            .retain(|i, _| Some(*i) == first || smallest.contains(i));
    }
}

/// How big a case is, to pick the smallest charged to a requirement: the text of its calls.
pub(super) fn case_size(result: &CaseResult) -> usize {
    let calls = result.case.case.batch_calls();
    calls.iter().map(|calls| calls.to_string().len()).sum()
}

/// Adds what one generated case said about each requirement. A generated case that is not
/// `hidden` (a batch of it is one of the public spec's: a variant can come out equal to its
/// source) can be answered from memory, so it shows nothing kept; its charges still count.
/// The case holds the expectations of `judge`'s number model. A case charged to a requirement,
/// or showing it kept, exercises it, as a fixed case does, so no requirement is charged or
/// shown in more cases than exercise it (a student read "244 of 230 cases break this rule"
/// when charges that no check of the expected output foresaw, such as an unexplained
/// failure's, were counted on one side only).
fn tally(
    judge: &Judge,
    result: &CaseResult,
    hidden: bool,
    tallies: &mut BTreeMap<String, GeneratedTally>,
) {
    let charged = result.blame.charged();
    let mut exercised: BTreeSet<String> = charged.iter().map(|id| (*id).to_owned()).collect();
    if hidden {
        // A case that passed shows every check that applies to it; only a failure's need
        // working out from its expected output.
        if !result.outcome.is_pass() {
            exercised.extend(judge.applicable_to(&result.case.case));
        }
        exercised.extend(result.blame.shown.iter().cloned());
        for id in &result.blame.shown {
            tallies.entry(id.clone()).or_default().shown += 1;
        }
    }
    let not_run = result.outcome.kind() == OutcomeKind::Skipped;
    for id in exercised {
        let tally = tallies.entry(id).or_default();
        tally.exercised += 1;
        if not_run {
            tally.not_run += 1;
        }
    }
    for id in charged {
        tallies.entry(id.to_owned()).or_default().charged += 1;
    }
}

/// The batches of the spec's own cases of a function, as [`batch_texts`] writes them,
/// written out the first time a case asks (a run whose cases all come drawn with their
/// answer never needs them).
pub(super) struct Public<'p> {
    spec_cases: &'p [SpecCase],
    function: Function,
    batches: std::cell::OnceCell<HashSet<String>>,
}

impl<'p> Public<'p> {
    pub(super) fn new(spec_cases: &'p [SpecCase], function: Function) -> Public<'p> {
        Public {
            spec_cases,
            function,
            batches: std::cell::OnceCell::new(),
        }
    }

    /// Whether no batch of `case` is one of the public spec's.
    pub(super) fn hides(&self, case: &Case) -> bool {
        let public = self.batches.get_or_init(|| {
            self.spec_cases
                .iter()
                .filter(|c| c.function() == self.function)
                .flat_map(|c| batch_texts(&c.case))
                .collect()
        });
        batch_texts(case).iter().all(|text| !public.contains(text))
    }
}

/// Each batch's calls as one text: what a memoriser recognises. The tools' scripted
/// answers are left out (an implementation learns them only by calling), and so is
/// `max_parallel`: one that recognises a public batch's calls can replay the public
/// invocations and output whatever the rest says (a variant of a spec case with the same
/// calls showed a memoriser keeping DEDUP-CACHE-HIT, another with a new limit
/// EXEC-ID-GENERATED).
fn batch_texts(case: &Case) -> Vec<String> {
    use crate::json::{dumps, Style};
    match case {
        Case::Exec(c) => c
            .batches
            .iter()
            .map(|b| dumps(&b.calls, Style::CANONICAL))
            .collect(),
        Case::Dedup(c) => c
            .batches
            .iter()
            .map(|b| dumps(&b.calls, Style::CANONICAL))
            .collect(),
        Case::Runtime(c) => c
            .batches
            .iter()
            .map(|b| dumps(&b.calls, Style::CANONICAL))
            .collect(),
    }
}
