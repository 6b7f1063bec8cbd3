//! Generated cases: differential testing of an implementation against the reference on
//! cases drawn from the shared proptest strategies, with every failure shrunk to a minimal
//! counterexample by driving the implementation itself through proptest's value trees.

mod materialize;
mod reduce;
pub mod regressions;
mod session;
mod tags;

pub use materialize::materialize;
pub use session::{check, run_plan, Checked, Plan as CheckPlan, Undefined};
pub use tags::{blame, requirements_exercised};

use crate::generate::cases::{dedup_input, exec_input, variant_input, GeneratedInput};
use crate::json::NumberModel;
use crate::judge::GeneratedTally;
use crate::judge::Outcome;
use crate::runner::CaseResult;
use crate::spec::{Case, DedupCase, Dispatch, ExecCase, Function, SpecCase};
use crate::subject::Subject;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

impl Settings {
    pub fn new(cases_per_function: usize, seed: u64) -> Settings {
        Settings {
            cases_per_function,
            seed,
            max_shrink_runs: 3000,
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

/// A short, id-friendly name per function.
fn short(function: Function) -> &'static str {
    match function {
        Function::ExecuteToolCalls => "exec",
        Function::RunParallelCalls => "dedup",
    }
}

/// The seed of one function's generator, derived from the run's seed.
fn rng(seed: u64, function: Function) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = function as u8 + 1;
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

fn strategy(function: Function, spec_cases: &[SpecCase]) -> BoxedStrategy<GeneratedInput> {
    let of_function: Vec<SpecCase> = spec_cases
        .iter()
        .filter(|c| c.function() == function)
        .cloned()
        .collect();
    let random = match function {
        Function::ExecuteToolCalls => exec_input().boxed(),
        Function::RunParallelCalls => dedup_input().boxed(),
    };
    if of_function.is_empty() {
        return random;
    }
    prop_oneof![4 => random, 1 => variant_input(Arc::new(of_function))].boxed()
}

/// The generated cases of one seed, drawn once and shared by every implementation checked
/// with that seed: the submissions of a class, the mutants of a run. Drawing them was a
/// fifth of parcall's time per graded submission, and it gives the same cases every time.
/// Kept only up to [`Drawn::MAX_CASES_PER_FUNCTION`] per function, so memory stays bounded
/// (about 15 KB a case); past that, every run draws its own as it streams.
pub struct Drawn {
    seed: u64,
    by_function: Vec<(Function, Vec<Option<DrawnCase>>)>,
}

/// A generated case and the random state that draws it again (for shrinking).
type Draw = (TestRng, SpecCase);

/// A case drawn for a class, with whether it is hidden (no batch of it is one of the public
/// spec's), worked out once rather than for every submission it is run on.
#[derive(Clone)]
struct DrawnCase {
    draw: TestRng,
    case: SpecCase,
    hidden: bool,
}

impl Drawn {
    pub const MAX_CASES_PER_FUNCTION: usize = 1000;

    /// The first `count` generated cases of each function for `seed`, or `None` when that is
    /// more than are kept.
    pub fn new(
        spec_cases: &[SpecCase],
        functions: &[Function],
        count: usize,
        seed: u64,
    ) -> Option<Drawn> {
        if count == 0 || count > Self::MAX_CASES_PER_FUNCTION {
            return None;
        }
        // Each function's cases come from a random state of their own: drawn side by side.
        let by_function = std::thread::scope(|scope| {
            let drawing: Vec<_> = functions
                .iter()
                .map(|&function| {
                    scope.spawn(move || {
                        let mut generator = Generator::new(function, spec_cases, seed);
                        let public = Public::new(spec_cases, function);
                        let cases = (0..count)
                            .map(|i| {
                                let (draw, case) = generator.case(i)?;
                                let hidden = public.hides(&case.case);
                                Some(DrawnCase { draw, case, hidden })
                            })
                            .collect();
                        (function, cases)
                    })
                })
                .collect();
            drawing
                .into_iter()
                .map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p))
                })
                .collect()
        });
        Some(Drawn { seed, by_function })
    }

    /// The draws of `function` for `settings`, when these are the ones kept.
    fn of(&self, function: Function, settings: &Settings) -> Option<&[Option<DrawnCase>]> {
        let (_, draws) = self.by_function.iter().find(|(f, _)| *f == function)?;
        (self.seed == settings.seed && draws.len() >= settings.cases_per_function)
            .then_some(draws.as_slice())
    }
}

/// Runs the generated cases of every function the implementation defines, taking them from
/// `drawn` when it holds them.
pub fn run(
    subject: &mut dyn Subject,
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

/// The generated cases of one function for a seed, drawn one at a time. A drawn input is
/// not kept (a long batch's value tree is megabytes): each draw starts a fresh runner from
/// the shared random state, so the state before a draw is enough to draw the same input
/// again for the few failures that get shrunk.
struct Generator {
    function: Function,
    rng: TestRng,
    strategy: BoxedStrategy<GeneratedInput>,
}

impl Generator {
    fn new(function: Function, spec_cases: &[SpecCase], seed: u64) -> Generator {
        Generator {
            function,
            rng: rng(seed, function),
            strategy: strategy(function, spec_cases),
        }
    }

    /// The case of index `index` (asked for in order) and the random state that draws it
    /// again, or `None` when the draw gives no valid case; its id carries the index either
    /// way, so runs are reproducible.
    fn case(&mut self, index: usize) -> Option<Draw> {
        let before = self.rng.clone();
        let mut runner = TestRunner::new_with_rng(Config::default(), before.clone());
        let tree = self.strategy.new_tree(&mut runner);
        self.rng = runner.rng().clone();
        let id = format!("gen-{}-{index}", short(self.function));
        let case = materialize(tree.ok()?.current(), &id, "generated", "a generated case").ok()?;
        Some((before, case))
    }

    /// The input drawn from `before`, as it was drawn.
    fn input(&self, before: &TestRng) -> GeneratedInput {
        let mut runner = TestRunner::new_with_rng(Config::default(), before.clone());
        self.strategy
            .new_tree(&mut runner)
            .expect("a draw from the same state gives the same tree")
            .current()
    }
}

/// The generated cases `parcall check` would run for `function` with this seed: the same
/// ones, in the same order (`parcall spec export --generated` writes them out).
pub fn generated_cases(
    function: Function,
    spec_cases: &[SpecCase],
    count: usize,
    seed: u64,
) -> Vec<SpecCase> {
    let mut generator = Generator::new(function, spec_cases, seed);
    (0..count)
        .filter_map(|index| generator.case(index).map(|(_, case)| case))
        .collect()
}

/// A failing generated case kept while the run streams on: its result, its index (ties
/// go to the earliest) and its size.
struct Kept {
    index: usize,
    size: usize,
    result: CaseResult,
}

/// What a function's generated cases have found so far. Results stream through it and
/// only the aggregates stay: counts, tallies, the first failure and, per requirement, the
/// smallest case charged to it, with the random states that draw those few again.
struct Findings<'p> {
    model: NumberModel,
    public: Public<'p>,
    generated: usize,
    failed: usize,
    not_run: usize,
    exercised: BTreeSet<String>,
    requirements: BTreeMap<String, GeneratedTally>,
    first: Option<Kept>,
    /// The first case that was not run (its function given up on, or the budget spent):
    /// shown when no case failed, never shrunk or saved, since it showed nothing.
    first_not_run: Option<CaseResult>,
    smallest: BTreeMap<String, Kept>,
    draws: BTreeMap<usize, TestRng>,
}

impl Findings<'_> {
    /// Adds a case's result; `hidden` is whether the case is hidden, when that is known.
    fn add(
        &mut self,
        index: usize,
        draw: Option<TestRng>,
        hidden: Option<bool>,
        result: CaseResult,
    ) {
        self.generated += 1;
        self.exercised
            .extend(result.case.requirements().iter().cloned());
        let hidden = hidden.unwrap_or_else(|| self.public.hides(&result.case.case));
        tally(self.model, &result, hidden, &mut self.requirements);
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

fn run_function(
    subject: &mut dyn Subject,
    spec_cases: &[SpecCase],
    function: Function,
    settings: Settings,
    drawn: Option<&Drawn>,
) -> Summary {
    let mut findings = Findings {
        model: subject.number_model(),
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
    type Waiting = HashMap<String, (usize, TestRng, Option<bool>)>;
    let waiting: std::cell::RefCell<Waiting> = Default::default();
    let mut generator = Generator::new(function, spec_cases, settings.seed);
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
    // A result whose case the generator did not draw (no subject returns one) is shown
    // as it failed, unshrunk.
    let (minimal, runs) = match draws.remove(&first.index) {
        Some(draw) => shrink(
            subject,
            generator.input(&draw),
            first.result,
            settings,
            &|r| !r.outcome.is_pass(),
        ),
        None => (first.result, 0),
    };
    summary.shrink_runs = runs;
    summary.result = failing_entry(&summary, minimal.clone());
    // Saved counterexamples are case files, whose expectations are always Python's: the
    // runner computes another model's from them when it replays one.
    let mut counterexample = match subject.number_model() {
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

/// How big a case is, to pick the smallest charged to a requirement: the text of its calls.
fn case_size(result: &CaseResult) -> usize {
    match &*result.case.case {
        Case::Exec(c) => c.batches.iter().map(|b| b.calls.to_string().len()).sum(),
        Case::Dedup(c) => c.batches.iter().map(|b| b.calls.to_string().len()).sum(),
    }
}

/// Adds what one generated case said about each requirement. A generated case that is not
/// `hidden` (a batch of it is one of the public spec's: a variant can come out equal to its
/// source) can be answered from memory, so it shows nothing kept; its charges still count.
/// The case holds the expectations of number model `model`. A case charged to a requirement,
/// or showing it kept, exercises it, as a fixed case does, so no requirement is charged or
/// shown in more cases than exercise it (a student read "244 of 230 cases break this rule"
/// when charges that no check of the expected output foresaw, such as an unexplained
/// failure's, were counted on one side only).
fn tally(
    model: NumberModel,
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
            exercised.extend(crate::judge::blame::applicable_to(model, &result.case.case));
        }
        exercised.extend(result.blame.shown.iter().cloned());
        for id in &result.blame.shown {
            tallies.entry(id.clone()).or_default().shown += 1;
        }
    }
    let not_run = result.outcome.kind() == crate::judge::OutcomeKind::Skipped;
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
struct Public<'p> {
    spec_cases: &'p [SpecCase],
    function: Function,
    batches: std::cell::OnceCell<HashSet<String>>,
}

impl<'p> Public<'p> {
    fn new(spec_cases: &'p [SpecCase], function: Function) -> Public<'p> {
        Public {
            spec_cases,
            function,
            batches: std::cell::OnceCell::new(),
        }
    }

    /// Whether no batch of `case` is one of the public spec's.
    fn hides(&self, case: &Case) -> bool {
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
    }
}

/// Most requirements a grading run shrinks its own counterexample for; the others (and
/// every one in `check`, which shows the first failure's) get the smallest generated case
/// charged to them, unshrunk.
const SHRUNK_REQUIREMENTS: usize = 8;

/// One counterexample per charged requirement: the first failure's minimal case serves the
/// requirements it is charged to; every other one gets the smallest generated case charged
/// to it, shrunk (on a tenth of the budget) while it stays charged to that requirement.
fn counterexamples_per_requirement(
    subject: &mut dyn Subject,
    smallest: &mut BTreeMap<String, Kept>,
    draws: &mut BTreeMap<usize, TestRng>,
    generator: &Generator,
    minimal: CaseResult,
    summary: &Summary,
    settings: Settings,
) -> Vec<CaseResult> {
    let mut found: Vec<CaseResult> = Vec::new();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let add = |mut result: CaseResult, found: &mut Vec<CaseResult>, requirement: &str| {
        result.rerun_args = Some(rerun_args(summary.function, summary.seed));
        result.case.file = format!("generated (seed {})", summary.seed);
        rename(
            &mut result.case,
            &format!("generated-{}", requirement.to_ascii_lowercase()),
        );
        set_description(
            &mut result.case,
            format!("the smallest generated case charged to {requirement}"),
        );
        found.push(result);
    };
    for requirement in minimal.blame.charged() {
        covered.insert(requirement.to_owned());
        add(minimal.clone(), &mut found, requirement);
    }
    let light = Settings {
        max_shrink_runs: settings.max_shrink_runs / 10,
        shrink_budget: settings.shrink_budget / 10,
        ..settings
    };
    let mut shrunk = 0;
    for (requirement, tally) in &summary.requirements {
        if tally.charged == 0 || covered.contains(requirement) {
            continue;
        }
        let Some(kept) = smallest.remove(requirement) else {
            continue;
        };
        let result = match draws.remove(&kept.index) {
            Some(draw) if settings.shrink_each_requirement && shrunk < SHRUNK_REQUIREMENTS => {
                shrunk += 1;
                let id = requirement.clone();
                let input = generator.input(&draw);
                shrink(subject, input, kept.result, light, &|r| {
                    r.blame.charges(&id)
                })
                .0
            }
            _ => kept.result,
        };
        add(result, &mut found, requirement);
    }
    found
}

/// Greedy reduction of a failing input, with the implementation as the test: try the simple
/// edits of [`reduce::candidates`], accept the first that still fails, go on from there,
/// stop after a whole pass in which no edit fails or when the budget is spent. A timeout or
/// crash is a failure like any other; after three in a row the search stops, so a hanging
/// implementation cannot make shrinking take minutes.
///
/// proptest's own shrinking (each number and string walked along its axis) ran first until
/// 2026-12: it took 300 of the ~320 runs of a typical shrink and, once the edits below
/// learned to simplify raised exceptions and drop a `max_parallel`, its cases were no
/// smaller (the 30 broken examples, BENCHMARKS.md section 4).
fn shrink(
    subject: &mut dyn Subject,
    mut input: GeneratedInput,
    mut minimal: CaseResult,
    settings: Settings,
    fails: &dyn Fn(&CaseResult) -> bool,
) -> (CaseResult, usize) {
    let started = Instant::now();
    let id = minimal.case.id().to_owned();
    let mut runs = 0;
    let mut slow_in_a_row = 0;
    // Each pass starts at the edit after the last one accepted, and wraps around: the edits
    // before it had just been tried and passed, and starting over at the first made every
    // accepted edit cost a run of each failed one again (quadratic). The search ends after a
    // whole pass in which no edit fails.
    let mut from = 0;
    'search: while runs < settings.max_shrink_runs && started.elapsed() < settings.shrink_budget {
        let mut accepted = None;
        {
            let candidates = reduce::candidates(&input);
            let count = candidates.len();
            let mut rotated: Vec<(usize, reduce::Candidate<'_>)> =
                candidates.into_iter().enumerate().collect();
            rotated.rotate_left(from.min(count));
            for (index, make) in rotated {
                if runs >= settings.max_shrink_runs
                    || started.elapsed() >= settings.shrink_budget
                    || slow_in_a_row >= 3
                {
                    break 'search;
                }
                let candidate = make();
                let Ok(case) = materialize(candidate.clone(), &id, "generated", "a generated case")
                else {
                    continue;
                };
                // An edit that leaves an invocation without a scripted answer tests the
                // adapter's wording of that error, not the implementation: skip it.
                if unscripted(&case) {
                    continue;
                }
                runs += 1;
                let is_slow = |result: &CaseResult| {
                    matches!(
                        result.outcome,
                        Outcome::Fail(
                            crate::judge::Failure::Timeout { .. }
                                | crate::judge::Failure::Crash { .. }
                        )
                    )
                };
                let mut result = subject.run_cases(std::slice::from_ref(&case)).remove(0);
                // A case not run (the function given up on, the budget spent) shows
                // nothing, and no later one will run either: the search ends with what it has.
                if matches!(result.outcome, Outcome::Skipped { .. }) {
                    break 'search;
                }
                // A race shows only when the implementation's threads meet inside a probe's
                // wait, and on a loaded machine a thread can start after the wait is over: an
                // edit of a racy input that passes once gets a second run before it is
                // dropped, or a whole pass of such misses ends the search with the input
                // barely shrunk (seen under CI's load: 230 calls left of a race that two
                // calls show). A timeout or crash is not run again.
                if !fails(&result)
                    && !is_slow(&result)
                    && reduce::has_race_probe(&candidate)
                    && runs < settings.max_shrink_runs
                {
                    runs += 1;
                    result = subject.run_cases(std::slice::from_ref(&case)).remove(0);
                }
                slow_in_a_row = if is_slow(&result) {
                    slow_in_a_row + 1
                } else {
                    0
                };
                if fails(&result) {
                    accepted = Some((index, candidate, result));
                    break;
                }
            }
        }
        let Some((index, candidate, result)) = accepted else {
            break;
        };
        input = candidate;
        minimal = result;
        from = index;
    }
    (minimal, runs)
}

/// Whether a case expects an invocation that its scripts cannot answer.
fn unscripted(case: &SpecCase) -> bool {
    let expected = crate::judge::expectations(&case.case);
    expected
        .iter()
        .any(|(output, _)| output.to_string().contains("parcall: no scripted answer"))
}

fn rename(case: &mut SpecCase, id: &str) {
    match std::sync::Arc::make_mut(&mut case.case) {
        Case::Exec(c) => c.id = id.to_owned(),
        Case::Dedup(c) => c.id = id.to_owned(),
    }
}

fn set_description(case: &mut SpecCase, description: String) {
    match std::sync::Arc::make_mut(&mut case.case) {
        Case::Exec(c) => c.description = description,
        Case::Dedup(c) => c.description = description,
    }
}

/// The id of the generated entry in reports.
pub fn entry_id(function: Function) -> String {
    format!("generated-{}", short(function))
}

/// The command-line arguments that rerun a function's generated cases.
fn rerun_args(function: Function, seed: u64) -> String {
    format!("--function {function} --seed {seed}")
}

fn passing_entry(
    function: Function,
    seed: u64,
    generated: usize,
    requirements: Vec<String>,
) -> CaseResult {
    let id = entry_id(function);
    let description = format!("{generated} generated cases (seed {seed}), all passed");
    let case = match function {
        Function::ExecuteToolCalls => Case::Exec(ExecCase {
            id,
            description,
            requirements,
            dispatch: Dispatch::Sandbox,
            batches: Vec::new(),
        }),
        Function::RunParallelCalls => Case::Dedup(DedupCase {
            id,
            description,
            requirements,
            tools: Default::default(),
            batches: Vec::new(),
        }),
    };
    CaseResult {
        case: SpecCase {
            file: format!("generated (seed {seed})"),
            case: case.into(),
        },
        outcome: Outcome::Pass,
        printed: String::new(),
        process_output: String::new(),
        duration: Duration::ZERO,
        rerun_args: Some(rerun_args(function, seed)),
        blame: crate::judge::Blame::default(),
    }
}

/// The entry the reports show when no generated case failed but some were not run: the
/// first of those, with the reason it was not run, not a pass.
fn not_run_entry(summary: &Summary, mut not_run: CaseResult) -> CaseResult {
    rename(&mut not_run.case, &entry_id(summary.function));
    set_description(
        &mut not_run.case,
        format!(
            "{} of {} generated cases not run (seed {})",
            summary.not_run, summary.generated, summary.seed
        ),
    );
    not_run.case.file = format!("generated (seed {})", summary.seed);
    not_run.rerun_args = Some(rerun_args(summary.function, summary.seed));
    not_run
}

fn failing_entry(summary: &Summary, mut minimal: CaseResult) -> CaseResult {
    rename(&mut minimal.case, &entry_id(summary.function));
    let blamed = tags::blame(&minimal.case.case, &minimal.outcome);
    match std::sync::Arc::make_mut(&mut minimal.case.case) {
        Case::Exec(c) => c.requirements = blamed,
        Case::Dedup(c) => c.requirements = blamed,
    }
    set_description(
        &mut minimal.case,
        format!(
            "minimal counterexample, shrunk in {} runs, of {} failing generated cases out of {} (seed {})",
            summary.shrink_runs, summary.failed, summary.generated, summary.seed
        ),
    );
    minimal.case.file = format!("generated (seed {})", summary.seed);
    minimal.rerun_args = Some(rerun_args(summary.function, summary.seed));
    minimal
}
