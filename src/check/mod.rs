//! One check of one implementation, start to verdict: the plan (what to run), the checker
//! (a subject and its judge), the regressions replayed first and recorded after, the
//! expectations gate, and the one place a run's verdict is settled. `cli`, `grade`,
//! `mutate` and `compare` run checks only through here.

mod checker;
pub mod gate;
mod plan;
pub mod regressions;
mod settle;

pub use checker::{Checker, Observer};
pub use plan::{Plan, Undefined};
pub use settle::{report, settle, Context};

use crate::fuzz::{self, CaseRunner};
use crate::json::NumberModel;
use crate::judge::CaseResult;
use crate::process::Launch;
use crate::protocol::{CaseAnswer, ImplementationInfo, RuntimeDeclaration};
use crate::runner::{Runner, StartError};
use crate::spec::{Function, SpecCase};
use crate::subject::Subject;
use std::time::{Duration, Instant};

/// Everything a check found.
#[derive(Debug)]
pub struct Checked {
    /// As the implementation announced itself; absent when it could not start, or for a
    /// subject in this process.
    pub implementation: Option<ImplementationInfo>,
    /// The functions the implementation defines.
    pub functions: Vec<Function>,
    /// The number model the implementation declared, which its cases were judged by
    /// (`python` when it could not start).
    pub number_model: NumberModel,
    /// A runtime adapter's framework and declared policies.
    pub runtime: Option<RuntimeDeclaration>,
    /// Every result: the replayed regressions and spec cases, then one entry per function
    /// for its generated cases.
    pub results: Vec<CaseResult>,
    /// What the generated cases of each function found.
    pub generated: Vec<fuzz::Summary>,
    /// The seed of the generated cases.
    pub seed: u64,
    /// Set when the implementation could not be started at all.
    pub start_error: Option<StartError>,
    /// Why the run did not complete (its budget was spent), if it did not.
    pub incomplete: Option<String>,
    /// What happened to the counterexamples: recorded, or why they could not be.
    pub notes: Vec<String>,
    pub duration: Duration,
}

/// Starts the implementation `launch` runs, checks it as `plan` says, shuts it down.
pub fn run_process(
    launch: &Launch,
    plan: &Plan<'_>,
    observer: Option<&mut dyn Observer>,
) -> Checked {
    let started = Instant::now();
    // Read before the implementation starts: it could rewrite the file.
    let (replayed, mut notes) = replayed(plan);
    let mut runner = match Runner::start(launch, &plan.spec.version, plan.settings) {
        Ok(runner) => runner,
        Err(error) => return not_started(plan, &replayed, error, notes, started),
    };
    let implementation = runner.implementation().clone();
    let mut checked = check(&mut runner, plan, &replayed, observer, started);
    runner.shutdown();
    checked.implementation = Some(implementation);
    checked.notes.splice(0..0, notes.drain(..));
    checked
}

/// Checks `subject` (already started) as `plan` says.
pub fn run(
    subject: &mut dyn Subject,
    plan: &Plan<'_>,
    observer: Option<&mut dyn Observer>,
) -> Checked {
    let started = Instant::now();
    let (replayed, notes) = replayed(plan);
    let mut checked = check(subject, plan, &replayed, observer, started);
    checked.notes.splice(0..0, notes);
    checked
}

/// The regressions to replay first, of the functions the plan runs, and a note when they
/// cannot be read (a warning, never fatal: the spec's cases still run).
fn replayed(plan: &Plan<'_>) -> (Vec<SpecCase>, Vec<String>) {
    match plan.regressions.replay() {
        Ok(cases) => {
            let cases: Vec<SpecCase> = cases
                .into_iter()
                .filter(|c| plan.functions.contains(&c.function()))
                .collect();
            // A run that replays what an earlier one found is not the run a fresh folder
            // gives: it says so.
            let notes = match (cases.len(), plan.regressions.origin()) {
                (0, _) | (_, None) => Vec::new(),
                (n, Some(origin)) => vec![format!(
                    "replayed {n} counterexample{} an earlier run recorded in {origin} first \
                     (--no-regressions leaves {} out)",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "it" } else { "them" }
                )],
            };
            (cases, notes)
        }
        Err(error) => (
            Vec::new(),
            vec![format!("warning: {error}; no regressions replayed")],
        ),
    }
}

fn check(
    subject: &mut dyn Subject,
    plan: &Plan<'_>,
    replayed: &[SpecCase],
    observer: Option<&mut dyn Observer>,
    started: Instant,
) -> Checked {
    let functions = subject.functions().to_vec();
    let runtime = subject.runtime().cloned();
    let mut checker = Checker::new(subject, plan.judge).observed(observer);
    let number_model = checker.judge().model();
    // Only the plan's functions: the spec's cases of another profile are not this run's.
    let of_plan = |c: &&SpecCase| plan.functions.contains(&c.function());
    let cases = replayed.iter().chain(plan.cases).filter(of_plan);
    let mut results = checker.run_cases(cases, plan.undefined);
    let generated = if plan.fuzz > 0 {
        let settings = fuzz::Settings {
            shrink_each_requirement: plan.shrink_each_requirement,
            max_shrink_runs: plan.max_shrink_runs,
            ..fuzz::Settings::new(plan.fuzz, plan.seed)
        };
        fuzz::run(
            &mut checker,
            &plan.spec.cases,
            plan.functions,
            settings,
            plan.drawn,
        )
    } else {
        Vec::new()
    };
    results.extend(generated.iter().map(|g| g.result.clone()));
    let incomplete = checker.incomplete();
    let notes = record(plan, &generated);
    Checked {
        implementation: None,
        functions,
        number_model,
        runtime,
        results,
        generated,
        seed: plan.seed,
        start_error: None,
        incomplete,
        notes,
        duration: started.elapsed(),
    }
}

/// Records each counterexample; failing to is a note, never fatal: the verdict stands.
fn record(plan: &Plan<'_>, generated: &[fuzz::Summary]) -> Vec<String> {
    let mut notes = Vec::new();
    for counterexample in generated.iter().filter_map(|g| g.counterexample.as_ref()) {
        match plan.regressions.record(counterexample) {
            Ok(Some(place)) => notes.push(format!(
                "counterexample {} recorded in {place}; the next run replays it first",
                counterexample.id()
            )),
            Ok(None) => {}
            Err(error) => notes.push(format!("warning: {error}")),
        }
    }
    notes
}

/// An implementation that could not start: every case is not run, with the reason, so
/// summaries per requirement still show them.
fn not_started(
    plan: &Plan<'_>,
    replayed: &[SpecCase],
    error: StartError,
    notes: Vec<String>,
    started: Instant,
) -> Checked {
    let judge = plan.judge.under(NumberModel::default());
    let reason = format!("not run: {}", error.headline());
    let results = replayed
        .iter()
        .chain(plan.cases)
        .map(|case| judge.judge(case.clone(), CaseAnswer::not_run(reason.clone())))
        .collect();
    Checked {
        implementation: None,
        functions: Vec::new(),
        number_model: NumberModel::default(),
        runtime: None,
        results,
        generated: Vec::new(),
        seed: plan.seed,
        start_error: Some(error),
        incomplete: None,
        notes,
        duration: started.elapsed(),
    }
}
