//! Generated cases: differential testing of an implementation against the reference on
//! cases drawn from the shared proptest strategies, with every failure shrunk to a minimal
//! counterexample by driving the implementation itself through proptest's value trees.

mod draw;
mod entries;
mod findings;
mod materialize;
mod reduce;
mod shrink;

pub use draw::{generated_cases, slots_needed, unshown, Drawn};
pub use entries::entry_id;
pub use materialize::materialize;

use crate::json::NumberModel;
use crate::judge::{CaseResult, GeneratedTally, Judge};
use crate::spec::{Function, SpecCase};
use draw::Redraw;
use draw::{short, DrawnCase, Generator};
use entries::{
    about_its_charges, counterexamples_per_requirement, failing_entry, not_run_entry,
    passing_entry, rename,
};
use findings::{Findings, Public};
use shrink::shrink;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

/// What generated cases are run on: an implementation with the judge of its answers
/// (`check::Checker`). Every result comes judged; this module only draws, tallies and
/// shrinks.
pub trait CaseRunner {
    /// The functions the implementation defines.
    fn functions(&self) -> &[Function];
    /// The judge of its answers.
    fn judge(&self) -> &Judge;
    /// Runs the cases `source` yields, all of one function it defines, handing each result
    /// to `sink` and keeping none.
    fn run_stream(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(CaseResult),
    );
    /// Runs one case (a shrinking step).
    fn run_one(&mut self, case: SpecCase) -> CaseResult;
}

/// How many cases, from which seed, and how hard to shrink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub cases_per_function: usize,
    pub seed: u64,
    /// Most runs of the implementation spent on shrinking one failure.
    pub max_shrink_runs: usize,
    /// Wall-time budget for shrinking one failure.
    pub shrink_budget: Duration,
    /// Shrink one counterexample per charged requirement (see [`CheckPlan`]).
    pub shrink_each_requirement: bool,
}

/// Most runs of the implementation spent shrinking one failure, unless a caller says less.
pub const MAX_SHRINK_RUNS: usize = 3000;

impl Settings {
    pub fn new(cases_per_function: usize, seed: u64) -> Settings {
        Settings {
            cases_per_function,
            seed,
            max_shrink_runs: MAX_SHRINK_RUNS,
            shrink_budget: Duration::from_secs(60),
            shrink_each_requirement: false,
        }
    }
}

/// What the generated cases of one function found.
#[derive(Debug, Clone)]
pub struct Summary {
    pub function: Function,
    pub seed: u64,
    pub generated: usize,
    pub passed: usize,
    /// Cases that ran and did not pass.
    pub failed: usize,
    /// Cases that were drawn but not run: the function was given up on, or the budget spent.
    pub not_run: usize,
    /// Runs of the implementation spent shrinking.
    pub shrink_runs: usize,
    /// The entry the reports show: a pass over all generated cases, or the minimal
    /// counterexample's failure.
    pub result: CaseResult,
    /// The minimal counterexample, with its own id, ready to save.
    pub counterexample: Option<SpecCase>,
    /// Per requirement: how many generated cases exercise it, show it kept, are charged to
    /// it. Every generated case counts, not only the first failure.
    pub requirements: BTreeMap<String, GeneratedTally>,
    /// For each requirement a generated case is charged to, the smallest such case, shrunk
    /// while it stays charged to that requirement.
    pub counterexamples: Vec<CaseResult>,
}

/// Runs the generated cases of every function the implementation defines, taking them from
/// `drawn` when it holds them.
pub fn run(
    subject: &mut dyn CaseRunner,
    spec_cases: &[SpecCase],
    functions: &[Function],
    settings: Settings,
    drawn: Option<&Drawn>,
) -> Vec<Summary> {
    let defined: Vec<Function> = functions
        .iter()
        .copied()
        .filter(|f| subject.functions().contains(f))
        .collect();
    defined
        .into_iter()
        .map(|function| run_function(subject, spec_cases, function, settings, drawn))
        .collect()
}

fn run_function(
    subject: &mut dyn CaseRunner,
    spec_cases: &[SpecCase],
    function: Function,
    settings: Settings,
    drawn: Option<&Drawn>,
) -> Summary {
    let mut findings = Findings {
        judge: subject.judge().clone(),
        public: Public::new(spec_cases, function),
        generated: 0,
        failed: 0,
        not_run: 0,
        exercised: BTreeSet::new(),
        requirements: BTreeMap::new(),
        first: None,
        first_not_run: None,
        smallest: BTreeMap::new(),
        draws: BTreeMap::new(),
    };
    // Cases are drawn as the subject asks for them; their draws wait here, by id, until
    // their result arrives.
    type Waiting = HashMap<String, (usize, Redraw, Option<bool>)>;
    let waiting: std::cell::RefCell<Waiting> = Default::default();
    let mut generator = Generator::new(
        function,
        spec_cases,
        settings.seed,
        settings.cases_per_function,
    );
    let drawn = drawn.and_then(|d| d.of(function, &settings));
    let mut source = (0..settings.cases_per_function).filter_map(|index| {
        let (draw, case, hidden) = match drawn {
            Some(drawn) => {
                let DrawnCase { draw, case, hidden } = drawn[index].clone()?;
                (draw, case, Some(hidden))
            }
            None => {
                let (draw, case) = generator.case(index)?;
                (draw, case, None)
            }
        };
        waiting
            .borrow_mut()
            .insert(case.id().to_owned(), (index, draw, hidden));
        Some(case)
    });
    subject.run_stream(&mut source, &mut |result| {
        let (index, draw, hidden) = match waiting.borrow_mut().remove(result.case.id()) {
            Some((index, draw, hidden)) => (index, Some(draw), hidden),
            None => (usize::MAX, None, None),
        };
        findings.add(index, draw, hidden, result);
    });
    drop(source);
    let Findings {
        generated,
        failed,
        not_run,
        exercised,
        requirements,
        first,
        first_not_run,
        mut smallest,
        mut draws,
        ..
    } = findings;
    let mut summary = Summary {
        function,
        seed: settings.seed,
        generated,
        passed: generated - failed - not_run,
        failed,
        not_run,
        shrink_runs: 0,
        result: passing_entry(
            subject.judge(),
            function,
            settings.seed,
            generated,
            exercised.into_iter().collect(),
        ),
        counterexample: None,
        requirements,
        counterexamples: Vec::new(),
    };
    let Some(first) = first else {
        if let Some(not_run) = first_not_run {
            summary.result = not_run_entry(&summary, not_run);
        }
        return summary;
    };
    // A smaller case must fail for rules the drawn one was charged with, and only those: an
    // edit that moves the charge (the tools dropped until a call's tool is unknown) would
    // show a counterexample of a rule the implementation did not break there.
    let charged: BTreeSet<String> = first
        .result
        .blame
        .charged()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let fails_alike = |result: &CaseResult| {
        let now = result.blame.charged();
        !result.outcome.is_pass() && !now.is_empty() && now.iter().all(|r| charged.contains(*r))
    };
    // A result whose case the generator did not draw (no subject returns one) is shown
    // as it failed, unshrunk.
    let (minimal, runs) = match draws.remove(&first.index) {
        Some(draw) => shrink(
            subject,
            generator.input(&draw),
            first.result,
            settings,
            &fails_alike,
        ),
        None => (first.result, 0),
    };
    summary.shrink_runs = runs;
    summary.result = failing_entry(&summary, minimal.clone());
    let mut minimal = minimal;
    about_its_charges(&mut minimal);
    // Saved counterexamples are case files, whose expectations are always Python's: the
    // runner computes another model's from them when it replays one.
    let mut counterexample = match subject.judge().model() {
        NumberModel::Python => minimal.case.clone(),
        _ => crate::judge::expected::recomputed_under(NumberModel::Python, &minimal.case)
            .unwrap_or_else(|_| minimal.case.clone()),
    };
    rename(
        &mut counterexample,
        &format!(
            "regression-{}-{}-{}",
            short(function),
            settings.seed,
            first.index
        ),
    );
    summary.counterexample = Some(counterexample);
    summary.counterexamples = counterexamples_per_requirement(
        subject,
        &mut smallest,
        &mut draws,
        &generator,
        minimal,
        &summary,
        settings,
    );
    summary
}
