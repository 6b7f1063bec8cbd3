//! Drawing generated cases: one random state per function and seed, a case at a time, and
//! the cases of a seed drawn once for every implementation checked with it.

use super::findings::Public;
use super::materialize;
use super::Settings;
use crate::generate::cases::{dedup_input, exec_input, variant_input, GeneratedInput};
use crate::spec::{Case, Function, Origin, SpecCase};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
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
pub(super) struct Generator {
    function: Function,
    seed: u64,
    rng: TestRng,
    strategy: BoxedStrategy<GeneratedInput>,
}

impl Generator {
    pub(super) fn new(function: Function, spec_cases: &[SpecCase], seed: u64) -> Generator {
        Generator {
            function,
            seed,
            rng: rng(seed, function),
            strategy: strategy(function, spec_cases),
        }
    }

    /// The case of index `index` (asked for in order) and the random state that draws it
    /// again, or `None` when the draw gives no valid case; its id carries the index either
    /// way, so runs are reproducible.
    pub(super) fn case(&mut self, index: usize) -> Option<Draw> {
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

/// The generated cases `parcall check` would run for `function` with this seed: the same
/// ones, in the same order (`parcall spec export --generated` writes them out), each naming
/// the requirements whose checks apply to it, as a case file's cases do.
pub fn generated_cases(
    function: Function,
    spec_cases: &[SpecCase],
    count: usize,
    seed: u64,
) -> Vec<SpecCase> {
    let mut generator = Generator::new(function, spec_cases, seed);
    (0..count)
        .filter_map(|index| generator.case(index).map(|(_, case)| case))
        .map(|mut case| {
            let applicable = crate::judge::blame::applicable(&case.case);
            match std::sync::Arc::make_mut(&mut case.case) {
                Case::Exec(c) => c.requirements = applicable.into_iter().collect(),
                Case::Dedup(c) => c.requirements = applicable.into_iter().collect(),
            }
            case
        })
        .collect()
}
