//! What a check runs: built from flags by `cli`, from a class by `grade`, from a mutant by
//! `mutate`.

use super::regressions::{NoRegressions, Regressions};
use crate::fuzz::{Drawn, MAX_SHRINK_RUNS};
use crate::judge::Judge;
use crate::runner::Settings;
use crate::spec::{Function, Spec, SpecCase};

/// What to run.
pub struct Plan<'a> {
    pub spec: &'a Spec,
    /// The spec cases, run in order, after the replayed regressions.
    pub cases: &'a [SpecCase],
    /// Functions whose generated cases run.
    pub functions: &'a [Function],
    /// Generated cases per function (0: none).
    pub fuzz: usize,
    /// What becomes of the cases of a function the implementation does not define.
    pub undefined: Undefined,
    /// Shrink a counterexample for each requirement the generated cases are charged to
    /// (grading: the feedback per requirement), not only the first failure's.
    pub shrink_each_requirement: bool,
    /// Most runs of the implementation spent shrinking one failure; 0 reports each failure
    /// as it was drawn (a loop that compares verdicts, not counterexamples).
    pub max_shrink_runs: usize,
    pub seed: u64,
    /// How a process is run: deadlines, window, budget.
    pub settings: Settings,
    /// The generated cases, when they were drawn beforehand for every run of this seed.
    pub drawn: Option<&'a Drawn>,
    /// Where counterexamples are replayed from and recorded to.
    pub regressions: &'a dyn Regressions,
    /// The judge whose work is shared: the implementation is judged by
    /// `judge.under(its number model)`.
    pub judge: &'a Judge,
}

impl<'a> Plan<'a> {
    /// The spec's `cases` with no generated cases, no regressions, every function asked
    /// for: the plan callers then adjust field by field.
    pub fn new(spec: &'a Spec, cases: &'a [SpecCase], judge: &'a Judge) -> Plan<'a> {
        Plan {
            spec,
            cases,
            functions: &Function::EXERCISES,
            fuzz: 0,
            undefined: Undefined::Fail,
            shrink_each_requirement: false,
            max_shrink_runs: MAX_SHRINK_RUNS,
            seed: 0,
            settings: Settings::default(),
            drawn: None,
            regressions: &NoRegressions,
            judge,
        }
    }
}

/// The cases of a function the implementation does not define (RULES C).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undefined {
    /// Left out: the implementation is judged only on the functions it defines (`check`
    /// without `--function`).
    LeaveOut,
    /// Failed as `not implemented`: the function was asked for (`--function`, grading an
    /// exercise).
    Fail,
}
