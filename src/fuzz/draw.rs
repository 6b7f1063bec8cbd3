//! Drawing generated cases: one random state per function and seed, a case at a time, and
//! the cases of a seed drawn once for every implementation checked with it.

use super::findings::Public;
use super::materialize;
use super::Settings;
use crate::generate::cases::{
    dedup_input, dedup_long_input, dedup_plain_input, exec_input, exec_long_input,
    exec_plain_input, runtime_input, variant_input, GeneratedInput,
};
use crate::json::Value;
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
        Function::RunToolCalls => "runtime",
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
        Function::RunToolCalls => runtime_input().boxed(),
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
type Draw = (Redraw, SpecCase);

/// What draws a case again: the random state before it, and the strategy it came from.
#[derive(Clone, Debug)]
pub(super) struct Redraw {
    rng: TestRng,
    source: Source,
}

/// The kinds of slot a run keeps for a requirement at its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A long batch that shows it ([`SCALE_RULES`]).
    AtScale,
    /// The witness with the fewest error results: shown to an implementation that stops,
    /// raises or drops messages at its first error.
    FewestErrors,
    /// The witness that exercises the fewest requirements: shown to an implementation that
    /// breaks a rule the other witness leans on (generated ids, say).
    FewestRules,
}

/// The strategies a run draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The run's random cases.
    Random,
    /// Cases where tools succeed: a requirement's own slot's first choice.
    Plain,
    /// One batch of hundreds of calls: the scale slots'.
    Long,
}

/// The rules whose bugs show only at scale (a memory of the last 64 ids, a cache that
/// forgets its oldest keys): each gets a slot of its own for a long batch that shows it,
/// so such a bug is charged to the same rules on every seed.
const SCALE_RULES: [&str; 4] = [
    "EXEC-DUP-ANY-EARLIER",
    "EXEC-DUP-BEFORE-LIMIT",
    "DEDUP-CACHE-HIT",
    "DEDUP-INVOKE-ONCE",
];

/// Draws tried, at most, for a scale slot: a long batch shows each of [`SCALE_RULES`] in
/// one draw of two or three.
const DRAWS_PER_SCALE_SLOT: usize = 40;

/// A case drawn for a class, with whether it is hidden (no batch of it is one of the public
/// spec's), worked out once rather than for every submission it is run on.
#[derive(Clone)]
pub(super) struct DrawnCase {
    pub(super) draw: Redraw,
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
/// The hidden cases of a run show every scored requirement of the function (RULES D4), and
/// each one cleanly, so that blame follows the bug and not the seed. In a run with a slot
/// for each, the last slots are the requirements' own: first a long batch for each rule
/// whose bugs show only at scale ([`SCALE_RULES`]), then for every requirement the witness
/// with the fewest error results and the one that exercises the fewest requirements, of the
/// first few drawn, tried first from the plain strategy where no tool fails. A bug in one
/// rule so cannot hide
/// another rule on one seed and not on the next: an implementation that stops at the first
/// failure, or raises on an unknown tool, still shows every other rule it keeps. In a
/// smaller run, while a requirement is still unshown, each of the last slots goes to the
/// best of a few draws for the requirements left.
pub(super) struct Generator<'p> {
    function: Function,
    seed: u64,
    rng: TestRng,
    strategy: BoxedStrategy<GeneratedInput>,
    /// Cases where every tool answers normally: the first choice of a requirement's slot.
    plain: BoxedStrategy<GeneratedInput>,
    /// Long batches: the scale slots'.
    long: BoxedStrategy<GeneratedInput>,
    /// Cases the run draws in all.
    count: usize,
    public: Public<'p>,
    /// The requirements whose own slots end the run, in order (none in a run too small).
    own_slots: Vec<(&'static str, Slot)>,
    /// Requirements the plain strategy was found not to show: their next slot starts with
    /// the random one.
    plain_never_shows: BTreeSet<String>,
    /// Scored requirements of the function no hidden case drawn so far shows (tracked in a
    /// run too small for a slot each).
    unshown: BTreeSet<&'static str>,
}

/// Draws tried, at most, for a slot kept for requirements: the rarest
/// (DEDUP-NUMBER-DISTINCT) shows in a few draws in a hundred.
const DRAWS_PER_KEPT_SLOT: usize = 400;

/// Draws tried, at most, for a requirement's own slot from each strategy: the plain one
/// first, then the random one.
const DRAWS_PER_OWN_SLOT: usize = 800;

/// Plain draws that show nothing of a requirement before its slot turns to the random
/// strategy: the plain strategy shows each rule it can within a few draws (the rarest,
/// number twins, in one draw of five), and never shows a raise or an unknown tool.
const PLAIN_DRAWS_WITHOUT_A_WITNESS: usize = 40;

/// Witnesses compared, at most, for a requirement's own slot: the search stops earlier at one
/// with at most one error result (the witnessed refusal or failure itself, if any).
const WITNESSES_COMPARED: usize = 128;

/// Witnesses compared for the slot that exercises the fewest requirements.
const RULE_WITNESSES_COMPARED: usize = 4;

impl<'p> Generator<'p> {
    pub(super) fn new(
        function: Function,
        spec_cases: &'p [SpecCase],
        seed: u64,
        count: usize,
    ) -> Generator<'p> {
        let prefix = format!("{}-", short(function).to_uppercase());
        let scored: BTreeSet<&'static str> = CHECKED
            .iter()
            .copied()
            .filter(|id| id.starts_with(&prefix))
            .collect();
        let scale = SCALE_RULES.iter().filter(|id| id.starts_with(&prefix));
        let own_slots: Vec<(&'static str, Slot)> = scale
            .map(|id| (*id, Slot::AtScale))
            .chain(scored.iter().map(|id| (*id, Slot::FewestErrors)))
            .chain(scored.iter().map(|id| (*id, Slot::FewestRules)))
            .collect();
        // Only where the random cases keep half the run; a smaller run takes the greedy
        // cover below.
        let own_slots = if count >= 2 * own_slots.len() {
            own_slots
        } else {
            Vec::new()
        };
        Generator {
            function,
            seed,
            rng: rng(seed, function),
            strategy: strategy(function, spec_cases),
            plain: match function {
                Function::ExecuteToolCalls => exec_plain_input().boxed(),
                Function::RunParallelCalls => dedup_plain_input().boxed(),
                Function::RunToolCalls => runtime_input().boxed(),
            },
            long: match function {
                Function::ExecuteToolCalls => exec_long_input().boxed(),
                Function::RunParallelCalls => dedup_long_input().boxed(),
                Function::RunToolCalls => runtime_input().boxed(),
            },
            count,
            public: Public::new(spec_cases, function),
            unshown: if own_slots.is_empty() {
                scored
            } else {
                BTreeSet::new()
            },
            own_slots,
            plain_never_shows: BTreeSet::new(),
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
        let first_own = self.count - self.own_slots.len();
        if index >= first_own && index < self.count {
            return match self.own_slots[index - first_own] {
                (requirement, Slot::AtScale) => self.at_scale(index, requirement),
                (requirement, slot) => self.witness(index, requirement, slot),
            };
        }
        if self.unshown.is_empty() {
            return self.draw(index, Source::Random);
        }
        let slots_left = self.count.saturating_sub(index);
        let tries = if slots_left <= self.unshown.len() {
            DRAWS_PER_KEPT_SLOT
        } else {
            1
        };
        let mut best: Option<(usize, Draw, BTreeSet<String>)> = None;
        for _ in 0..tries {
            let Some(draw) = self.draw(index, Source::Random) else {
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

    /// A slot of `requirement`: of the first [`WITNESSES_COMPARED`] hidden draws that show
    /// it (plain ones first, then the run's random ones), the first by [`witness_rank`] for
    /// the slot, or for the fewest errors the first with at most one error result.
    fn witness(&mut self, index: usize, requirement: &str, slot: Slot) -> Option<Draw> {
        let mut best: Option<((usize, usize, usize), Draw)> = None;
        let mut compared = 0;
        for source in [Source::Plain, Source::Random] {
            for attempt in 0..DRAWS_PER_OWN_SLOT {
                // A rule the plain strategy never shows (a raise, an unknown tool) is left
                // to the random one soon.
                if source == Source::Plain
                    && (self.plain_never_shows.contains(requirement)
                        || compared == 0 && attempt == PLAIN_DRAWS_WITHOUT_A_WITNESS)
                {
                    self.plain_never_shows.insert(requirement.to_owned());
                    break;
                }
                let Some(draw) = self.draw(index, source) else {
                    continue;
                };
                if !self.hides(&draw.1.case) {
                    continue;
                }
                let shows = applicable(&draw.1.case);
                if !shows.contains(requirement) {
                    continue;
                }
                let score = witness_rank(&draw.1.case, &shows);
                let clean = slot == Slot::FewestErrors && score.0 <= 1;
                let score = match slot {
                    Slot::FewestRules => (score.1, score.0, score.2),
                    _ => score,
                };
                if best.as_ref().is_none_or(|(least, _)| score < *least) {
                    best = Some((score, draw));
                }
                compared += 1;
                let most = match slot {
                    Slot::FewestRules => RULE_WITNESSES_COMPARED,
                    _ => WITNESSES_COMPARED,
                };
                if clean || compared == most {
                    return best.map(|(_, draw)| draw);
                }
            }
        }
        match best {
            Some((_, draw)) => Some(draw),
            None => self.draw(index, Source::Random),
        }
    }

    /// A scale slot: the first hidden long batch that shows `requirement`.
    fn at_scale(&mut self, index: usize, requirement: &str) -> Option<Draw> {
        for _ in 0..DRAWS_PER_SCALE_SLOT {
            let Some(draw) = self.draw(index, Source::Long) else {
                continue;
            };
            if self.hides(&draw.1.case) && applicable(&draw.1.case).contains(requirement) {
                return Some(draw);
            }
        }
        self.draw(index, Source::Random)
    }

    /// The next draw of the random state, from `source`.
    fn draw(&mut self, index: usize, source: Source) -> Option<Draw> {
        let before = Redraw {
            rng: self.rng.clone(),
            source,
        };
        let mut runner = TestRunner::new_with_rng(Config::default(), before.rng.clone());
        let tree = self.strategy_of(&before).new_tree(&mut runner);
        self.rng = runner.rng().clone();
        let id = format!("gen-{}-{index}", short(self.function));
        let origin = Origin::Generated {
            function: self.function,
            seed: self.seed,
            count: self.count,
        };
        let case = materialize(tree.ok()?.current(), &id, origin, "a generated case").ok()?;
        Some((before, case))
    }

    fn strategy_of(&self, redraw: &Redraw) -> &BoxedStrategy<GeneratedInput> {
        match redraw.source {
            Source::Random => &self.strategy,
            Source::Plain => &self.plain,
            Source::Long => &self.long,
        }
    }

    /// The input drawn from `before`, as it was drawn.
    pub(super) fn input(&self, before: &Redraw) -> GeneratedInput {
        let mut runner = TestRunner::new_with_rng(Config::default(), before.rng.clone());
        self.strategy_of(before)
            .new_tree(&mut runner)
            .expect("a draw from the same state gives the same tree")
            .current()
    }
}

/// How a witness is ranked, least first: the error results its batches expect (each one a
/// failure or refusal that a bug in its own rule can turn into a stop, a raise or a lost
/// message before the witnessed behaviour), then the requirements it exercises, then its
/// calls.
fn witness_rank(case: &Case, shows: &BTreeSet<String>) -> (usize, usize, usize) {
    let is_error = |v: &Value| v.as_str().is_some_and(|s| s.starts_with("error:"));
    let list_len = |v: &Value| v.as_list().map_or(0, <[Value]>::len);
    let (errors, calls) = match case {
        Case::Exec(c) => c.batches.iter().fold((0, 0), |(e, n), b| {
            let contents = b.expected.as_list().unwrap_or_default().iter();
            let errors = contents
                .filter(|m| {
                    m.as_object()
                        .and_then(|m| m.get("content"))
                        .is_some_and(is_error)
                })
                .count();
            (e + errors, n + list_len(&b.calls))
        }),
        Case::Dedup(c) => c.batches.iter().fold((0, 0), |(e, n), b| {
            let errors = b.expected.values().filter(|v| is_error(v)).count();
            (e + errors, n + list_len(&b.calls))
        }),
        // A runtime case states no expected messages: its raising answers are its errors.
        Case::Runtime(c) => {
            let raises = c
                .tools
                .values()
                .flat_map(|s| &s.responses)
                .flat_map(|r| &r.answers)
                .filter(|a| matches!(a, crate::spec::Answer::Raise { .. }))
                .count();
            let calls = c.batches.iter().map(|b| list_len(&b.calls)).sum();
            (raises, calls)
        }
    };
    (errors, shows.len(), calls)
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
            std::sync::Arc::make_mut(&mut case.case)
                .set_requirements(applicable.into_iter().collect());
            case
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One bug, one charge: a requirement's own slot shows it with no other failure or
    /// refusal beside it, so an implementation that stops, raises or loses messages at its
    /// first error result still shows every rule it keeps, on every seed; and each rule
    /// whose bugs show only at scale has a long batch that shows it.
    #[test]
    fn each_requirements_own_slot_shows_it_cleanly_and_at_scale_where_it_needs_one() {
        let spec = crate::spec::Spec::embedded().unwrap();
        for function in Function::EXERCISES {
            for seed in 1..=10 {
                let mut generator = Generator::new(function, &spec.cases, seed, 150);
                let own = generator.own_slots.clone();
                let scale = own.iter().filter(|(_, s)| *s == Slot::AtScale).count();
                assert_eq!(own.len() - scale, 2 * slots_needed(function));
                assert!(scale >= 2, "{function:?}");
                let first = 150 - own.len();
                for index in 0..150 {
                    let draw = generator.case(index);
                    if index < first {
                        continue;
                    }
                    let (redraw, case) = draw.unwrap();
                    let shows = applicable(&case.case);
                    let (requirement, slot) = own[index - first];
                    assert!(shows.contains(requirement), "seed {seed}: {requirement}");
                    match slot {
                        Slot::AtScale => assert_eq!(redraw.source, Source::Long),
                        Slot::FewestErrors => {
                            let (errors, ..) = witness_rank(&case.case, &shows);
                            assert!(
                                errors <= 1,
                                "seed {seed}: {requirement}'s witness has {errors} error results"
                            );
                        }
                        Slot::FewestRules => {}
                    }
                }
            }
        }
    }
}
