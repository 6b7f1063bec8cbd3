//! A complete check of one implementation: the given cases, then the generated ones, in one
//! process session. `parcall check` and `parcall grade` both run this.

use super::Summary;
use crate::process::Launch;
use crate::runner::{self, CaseResult, ResultCallback, Run, Runner, Settings};
use crate::spec::{Function, Spec, SpecCase};
use crate::subject::Subject;
use std::time::Instant;

/// What to run.
pub struct Plan<'a> {
    pub spec: &'a Spec,
    /// Regressions and spec cases, run first, in order.
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
    pub seed: u64,
    pub settings: Settings,
    /// The generated cases, when they were drawn beforehand for every run of this seed.
    pub drawn: Option<&'a super::Drawn>,
}

/// The cases of a function the implementation does not define (RULINGS C).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undefined {
    /// Left out: the implementation is judged only on the functions it defines (`check`
    /// without `--function`).
    LeaveOut,
    /// Failed as `not implemented`: the function was asked for (`--function`, grading an
    /// exercise).
    Fail,
}

/// The run and what the generated cases found.
pub struct Checked {
    pub run: Run,
    pub generated: Vec<super::Summary>,
    /// Why the run did not complete (its budget was spent), if it did not.
    pub incomplete: Option<String>,
}

/// Starts the implementation, runs everything, shuts it down.
pub fn check(launch: &Launch, plan: &Plan<'_>, on_result: Option<ResultCallback<'_>>) -> Checked {
    let started = Instant::now();
    let mut runner = match Runner::start(launch, &plan.spec.version, plan.settings) {
        Ok(runner) => runner,
        Err(error) => {
            let run = Run {
                implementation: None,
                functions: Vec::new(),
                results: runner::not_started(plan.cases, &error),
                start_error: Some(error),
                duration: started.elapsed(),
                number_model: Default::default(),
            };
            return Checked {
                run,
                generated: Vec::new(),
                incomplete: None,
            };
        }
    };
    runner.on_result = on_result;
    let (results, generated) = run_plan(&mut runner, plan);
    runner.on_result = None;
    let incomplete = runner.incomplete();
    let run = runner.finish(results, started);
    Checked {
        run,
        generated,
        incomplete,
    }
}

/// Runs a plan on a started subject: the given cases (those of functions it does not
/// define left out or failed, as the plan says), then the generated ones. Returns every
/// result, the generated entries last, and what the generated cases found.
pub fn run_plan(subject: &mut dyn Subject, plan: &Plan<'_>) -> (Vec<CaseResult>, Vec<Summary>) {
    let defined: Vec<SpecCase>;
    let cases = match plan.undefined {
        Undefined::Fail => plan.cases,
        Undefined::LeaveOut => {
            defined = plan
                .cases
                .iter()
                .filter(|c| subject.functions().contains(&c.function()))
                .cloned()
                .collect();
            &defined
        }
    };
    let mut results = subject.run_cases(cases);
    let generated = if plan.fuzz > 0 {
        super::run(
            subject,
            &plan.spec.cases,
            plan.functions,
            super::Settings {
                shrink_each_requirement: plan.shrink_each_requirement,
                ..super::Settings::new(plan.fuzz, plan.seed)
            },
            plan.drawn,
        )
    } else {
        Vec::new()
    };
    results.extend(generated.iter().map(|g| g.result.clone()));
    (results, generated)
}
