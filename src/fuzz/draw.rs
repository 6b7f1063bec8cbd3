//! Drawing generated cases: one random state per function and seed, a case at a time, and
//! the cases of a seed drawn once for every implementation checked with it.

use super::findings::Public;
use super::materialize;
use super::Settings;
use crate::generate::cases::{dedup_input, exec_input, variant_input, GeneratedInput};
use crate::judge::blame::applicable;
use crate::judge::blame::ids::CHECKED;
use crate::spec::{Case, Function, Origin, SpecCase};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A short, id-friendly name per function.
pub(super) fn short(function: Function) -> &'static str {
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
/// large share of parcall's time per graded submission (BENCHMARKS.md section 4), and it
/// gives the same cases every time. Kept only up to [`Drawn::MAX_CASES_PER_FUNCTION`] per
/// function, so memory stays bounded; past that, every run draws its own as it streams.
pub struct Drawn {
    seed: u64,
    by_function: Vec<(Function, Vec<Option<DrawnCase>>)>,
}

/// A generated case and the random state that draws it again (for shrinking).
type Draw = (TestRng, SpecCase);

/// A case drawn for a class, with whether it is hidden (no batch of it is one of the public
/// spec's), worked out once rather than for every submission it is run on.
#[derive(Clone)]
pub(super) struct DrawnCase {
    pub(super) draw: TestRng,
    pub(super) case: SpecCase,
    pub(super) hidden: bool,
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
                        let mut generator = Generator::new(function, spec_cases, seed, count);
                        let cases = (0..count)
                            .map(|i| {
                                let (draw, case) = generator.case(i)?;
                                let hidden = generator.hides(&case.case);
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
    pub(super) fn of(
        &self,
        function: Function,
        settings: &Settings,
    ) -> Option<&[Option<DrawnCase>]> {
        let (_, draws) = self.by_function.iter().find(|(f, _)| *f == function)?;
        (self.seed == settings.seed && draws.len() >= settings.cases_per_function)
            .then_some(draws.as_slice())
    }
}

/// The generated cases of one function for a seed, drawn one at a time. A drawn input is
/// not kept (a long batch's value tree is megabytes): each draw starts a fresh runner from
/// the shared random state, so the state before a draw is enough to draw the same input
/// again for the few failures that get shrunk.
///
/// The hidden cases of a run show every scored requirement of the function (RULES D4), at
/// any size that has a slot for each: while a requirement is still unshown, the generator
/// tracks what each hidden case drawn shows, and once the slots left are no more than the
/// requirements unshown, each slot goes to the best of a few draws for them. A correct
/// implementation so earns every requirement at any size, and the draw of a run large
/// enough to have shown them all by chance is the plain random one.
pub(super) struct Generator<'p> {
    function: Function,
    seed: u64,
    rng: TestRng,
    strategy: BoxedStrategy<GeneratedInput>,
    /// Cases the run draws in all.
    count: usize,
    public: Public<'p>,
    /// Scored requirements of the function no hidden case drawn so far shows.
    unshown: BTreeSet<&'static str>,
}

/// Draws tried, at most, for a slot kept for the requirements still unshown: the rarest
/// (DEDUP-NUMBER-DISTINCT) shows in a few draws in a hundred, and the search stops at the
/// first draw that shows every one left.
const DRAWS_PER_KEPT_SLOT: usize = 400;

impl<'p> Generator<'p> {
    pub(super) fn new(
        function: Function,
        spec_cases: &'p [SpecCase],
        seed: u64,
        count: usize,
    ) -> Generator<'p> {
        let prefix = format!("{}-", short(function).to_uppercase());
        Generator {
            function,
            seed,
            rng: rng(seed, function),
            strategy: strategy(function, spec_cases),
            count,
            public: Public::new(spec_cases, function),
            unshown: CHECKED
                .iter()
                .copied()
                .filter(|id| id.starts_with(&prefix))
                .collect(),
        }
    }

    /// Whether no batch of `case` is one of the public spec's.
    pub(super) fn hides(&self, case: &Case) -> bool {
        self.public.hides(case)
    }

    /// The case of index `index` (asked for in order) and the random state that draws it
    /// again, or `None` when the draw gives no valid case; its id carries the index either
    /// way, so runs are reproducible.
    pub(super) fn case(&mut self, index: usize) -> Option<Draw> {
        if self.unshown.is_empty() {
            return self.draw(index);
        }
        let slots_left = self.count.saturating_sub(index);
        let tries = if slots_left <= self.unshown.len() {
            DRAWS_PER_KEPT_SLOT
        } else {
            1
        };
        let mut best: Option<(usize, Draw, BTreeSet<String>)> = None;
        for _ in 0..tries {
            let Some(draw) = self.draw(index) else {
                continue;
            };
            let shows = if self.hides(&draw.1.case) {
                applicable(&draw.1.case)
            } else {
                BTreeSet::new()
            };
            let new = self
                .unshown
                .iter()
                .filter(|id| shows.contains(**id))
                .count();
            if best.as_ref().is_none_or(|(most, _, _)| new > *most) {
                let all = new == self.unshown.len();
                best = Some((new, draw, shows));
                if all {
                    break;
                }
            }
        }
        let (_, draw, shows) = best?;
        self.unshown.retain(|id| !shows.contains(*id));
        Some(draw)
    }

    /// The next draw of the random state.
    fn draw(&mut self, index: usize) -> Option<Draw> {
        let before = self.rng.clone();
        let mut runner = TestRunner::new_with_rng(Config::default(), before.clone());
        let tree = self.strategy.new_tree(&mut runner);
        self.rng = runner.rng().clone();
        let id = format!("gen-{}-{index}", short(self.function));
        let origin = Origin::Generated {
            function: self.function,
            seed: self.seed,
        };
        let case = materialize(tree.ok()?.current(), &id, origin, "a generated case").ok()?;
        Some((before, case))
    }

    /// The input drawn from `before`, as it was drawn.
    pub(super) fn input(&self, before: &TestRng) -> GeneratedInput {
        let mut runner = TestRunner::new_with_rng(Config::default(), before.clone());
        self.strategy
            .new_tree(&mut runner)
            .expect("a draw from the same state gives the same tree")
            .current()
    }
}

/// How many hidden cases per function always show every scored requirement of `function`:
/// one slot for each (see [`Generator`]). Fewer may, when draws show several at once.
pub fn slots_needed(function: Function) -> usize {
    let prefix = format!("{}-", short(function).to_uppercase());
    CHECKED.iter().filter(|id| id.starts_with(&prefix)).count()
}

/// The scored requirements of `function` that none of the `count` hidden cases of `seed`
/// shows, so that no implementation, however correct, earns them (RULES D4). Drawn only
/// below [`slots_needed`]: from there on the generator keeps a slot for each.
pub fn unshown(
    function: Function,
    spec_cases: &[SpecCase],
    count: usize,
    seed: u64,
) -> Vec<&'static str> {
    if count >= slots_needed(function) {
        return Vec::new();
    }
    let mut generator = Generator::new(function, spec_cases, seed, count);
    for index in 0..count {
        generator.case(index);
    }
    generator.unshown.into_iter().collect()
}

/// The generated cases `parcall check` would run for `function` with this seed: the same
/// ones, in the same order (`parcall spec export --generated` writes them out), each naming
/// the requirements whose checks apply to it, as a case file's cases do.
pub fn generated_cases(
    function: Function,
    spec_cases: &[SpecCase],
    count: usize,
    seed: u64,
) -> Vec<SpecCase> {
    let mut generator = Generator::new(function, spec_cases, seed, count);
    (0..count)
        .filter_map(|index| generator.case(index).map(|(_, case)| case))
        .map(|mut case| {
            let applicable = applicable(&case.case);
            match std::sync::Arc::make_mut(&mut case.case) {
                Case::Exec(c) => c.requirements = applicable.into_iter().collect(),
                Case::Dedup(c) => c.requirements = applicable.into_iter().collect(),
            }
            case
        })
        .collect()
}
