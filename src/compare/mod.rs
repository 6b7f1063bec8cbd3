//! `parcall compare`: a policy over [`crate::check`]. Several implementations are checked
//! with one plan (the same spec cases, the same seed, the same generated cases, drawn once),
//! each by `check` exactly as `parcall check` would, and their reports are read into one
//! requirement × implementation [`Matrix`]. An implementation that cannot start, or
//! crashes, is a column of failures, never the end of the comparison.

pub mod matrix;
pub mod render;

pub use matrix::{Cell, CellVerdict, Column, FailingCase, Matrix, Row, MATRIX_VERSION};

use crate::check::{self, Context, Undefined};
use crate::fuzz::Drawn;
use crate::judge::Judge;
use crate::report::Report;
use crate::runner::Settings;
use crate::spec::{Function, Spec, SpecCase};
use crate::subject::adapters::Prepared;
use std::time::Instant;

/// One implementation to compare: how it runs, and the command that checks it alone (each
/// failing case's rerun command starts with it).
pub struct Entry {
    pub prepared: Prepared,
    pub rerun_base: String,
}

/// How every implementation is checked: one plan for all.
pub struct Plan<'a> {
    pub spec: &'a Spec,
    /// The spec cases of the compared functions.
    pub cases: &'a [SpecCase],
    /// The functions compared; every requirement of these is a row.
    pub functions: &'a [Function],
    /// Generated cases per function.
    pub fuzz: usize,
    pub seed: u64,
    /// Deadlines, window and budget of each implementation's run.
    pub settings: Settings,
    /// Implementations checked at once.
    pub jobs: usize,
    /// Checks of each implementation with the same cases; cells that differ are flaky.
    pub runs: usize,
}

/// Checks every entry as `plan` says, `plan.jobs` at a time, and returns the matrix and
/// each implementation's full report, in the entries' order. `on_done` hears of each
/// report as its check ends (a progress line).
pub fn compare(
    plan: &Plan<'_>,
    entries: &[Entry],
    on_done: &(dyn Fn(&Report) + Sync),
) -> (Matrix, Vec<Report>) {
    use rayon::prelude::*;
    let started = Instant::now();
    // Drawn once: every implementation meets the very same generated cases.
    let drawn = Drawn::new(&plan.spec.cases, plan.functions, plan.fuzz, plan.seed);
    let judge = Judge::new(Default::default());
    let check_one = |entry: &Entry| {
        let report = check_entry(plan, entry, drawn.as_ref(), &judge);
        on_done(&report);
        report
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.jobs.max(1))
        .build();
    let check_all = || -> Vec<Report> {
        match &pool {
            Ok(pool) => pool.install(|| entries.par_iter().map(check_one).collect()),
            // No threads to be had: one at a time.
            Err(_) => entries.iter().map(check_one).collect(),
        }
    };
    let reports = check_all();
    let mut matrix = build(plan, &reports);
    for _ in 1..plan.runs {
        matrix.flag_flaky(&build(plan, &check_all()));
    }
    matrix.runs = plan.runs.max(1);
    matrix.duration_ms = started.elapsed().as_secs_f64() * 1e3;
    (matrix, reports)
}

/// One implementation's check, as `parcall check` runs it, without regressions: a
/// comparison reads only the cases every implementation meets.
fn check_entry(plan: &Plan<'_>, entry: &Entry, drawn: Option<&Drawn>, judge: &Judge) -> Report {
    let check_plan = check::Plan {
        functions: plan.functions,
        fuzz: plan.fuzz,
        seed: plan.seed,
        settings: plan.settings,
        // A function it does not define is a row of `not defined`, not of failures.
        undefined: Undefined::LeaveOut,
        drawn,
        ..check::Plan::new(plan.spec, plan.cases, judge)
    };
    let checked = check::run_process(&entry.prepared.launch, &check_plan, None);
    let context = Context {
        spec: plan.spec,
        target: &entry.prepared.target,
        rerun_base: &entry.rerun_base,
    };
    let mut report = check::report(&checked, &context);
    report.containment = Some(entry.prepared.containment.describe());
    report
}

/// The matrix of `reports`, one per implementation, checked as `plan` says.
pub fn build(plan: &Plan<'_>, reports: &[Report]) -> Matrix {
    let requirements = plan
        .spec
        .requirements
        .iter()
        .filter(|r| plan.functions.contains(&r.function))
        .map(|requirement| Row {
            id: requirement.id.clone(),
            function: requirement.function,
            level: requirement.level.as_str().into(),
            statement: requirement.statement.clone(),
            scored: crate::judge::blame::ids::CHECKED.contains(&requirement.id.as_str()),
            cells: reports
                .iter()
                .map(|report| matrix::cell(report, requirement))
                .collect(),
        })
        .collect();
    Matrix {
        format: "parcall-compare".into(),
        version: MATRIX_VERSION,
        parcall: env!("CARGO_PKG_VERSION").into(),
        suite: plan.spec.version.clone(),
        seed: plan.seed,
        fuzz: plan.fuzz,
        functions: plan.functions.to_vec(),
        implementations: reports
            .iter()
            .map(|report| matrix::column(report, plan.functions))
            .collect(),
        requirements,
        runs: 1,
        duration_ms: 0.0,
        complete: true,
    }
}
