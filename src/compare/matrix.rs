//! The matrix, format version 1: what `parcall compare --format json` writes and every
//! other rendering reads. `conformance/compare.schema.json` is generated from these types.
//! A column is one implementation's check report, read row by row: each cell says whether
//! that implementation keeps that requirement.

use crate::json::{NumberModel, Value};
use crate::judge::blame::ids::CHECKED;
use crate::judge::{Failure, Outcome, OutcomeKind};
use crate::protocol::{ImplementationInfo, RuntimeDeclaration};
use crate::report::{self, CaseReport, Report, RequirementSummary, Verdict};
use crate::spec::{Function, Requirement};
use schemars::JsonSchema;
use serde::Serialize;

/// The matrix format's version: fields are only added within a version.
pub const MATRIX_VERSION: u32 = 1;

/// Requirements × implementations, from one run with one seed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Matrix {
    /// Always `parcall-compare`.
    pub format: String,
    /// [`MATRIX_VERSION`].
    pub version: u32,
    /// The parcall release that ran.
    pub parcall: String,
    /// The suite version (spec/VERSION).
    pub suite: String,
    /// The seed of the generated cases, the same for every implementation.
    pub seed: u64,
    /// Generated cases per function, the same for every implementation.
    pub fuzz: usize,
    /// The functions compared: every requirement of these is a row.
    pub functions: Vec<Function>,
    /// The columns, in the order they were named.
    pub implementations: Vec<Column>,
    /// The rows, in the spec's order; each has one cell per implementation.
    pub requirements: Vec<Row>,
    /// How many times each implementation was checked with the same cases (`--runs`).
    #[serde(default, skip_serializing_if = "is_one")]
    pub runs: usize,
    /// Wall time of the whole comparison, in milliseconds.
    pub duration_ms: f64,
    /// Always `true`, and always the last field: a file cut short lacks it.
    pub complete: bool,
}

/// One implementation.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Column {
    /// What was named: the module's path, the manifest's folder, or the `--cmd` line.
    pub target: String,
    /// As the implementation announced itself in the handshake; absent when it could not
    /// start.
    pub implementation: Option<ImplementationInfo>,
    /// The functions it defines, as its handshake says.
    pub functions: Vec<Function>,
    /// The number model it declared, which its answers were judged by (RULES E).
    pub number_model: NumberModel,
    /// For a runtime adapter: the framework, its version and the policies it declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeDeclaration>,
    /// For a runtime adapter: the concurrency it declared beside the most invocations parcall
    /// saw outstanding at once (RULES F3), so a declaration read off the host's CPU count
    /// stands beside what the framework did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<crate::report::ConcurrencyReport>,
    /// It defines only some of the functions compared: the rows of the others say
    /// `not_defined`.
    pub partial: bool,
    /// `check`'s verdict on it, with the same cases.
    pub verdict: Verdict,
    /// Why it could not be checked (it could not start, or the run was cut short), in one
    /// line; its cells then say `failed`.
    pub error: Option<String>,
    /// Cases that passed, of all its cases (fixed and generated).
    pub passed: usize,
    pub cases: usize,
}

/// One requirement, across the implementations.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Row {
    pub id: String,
    pub function: Function,
    /// `MUST`, `SHOULD` or `MAY`.
    pub level: String,
    pub statement: String,
    /// Whether a case can be charged to it by its own check (RULES D). The SANDBOX and MAY
    /// requirements are not scored: their cells come from whether their tagged cases pass.
    pub scored: bool,
    /// One per implementation, in the order of `implementations`.
    pub cells: Vec<Cell>,
}

/// How one implementation fares on one requirement.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Cell {
    pub verdict: CellVerdict,
    /// Cases that apply: the fixed cases that exercise it and the generated cases where its
    /// check applies.
    pub cases: usize,
    /// Of those, the ones that broke it (charged to it, or for a requirement not scored,
    /// a tagged case that failed).
    pub failed: usize,
    /// Of those, the ones not run (the implementation could not start, was given up on,
    /// or the budget was spent).
    pub not_run: usize,
    /// The smallest case that broke it (the least input to read), when one did.
    pub smallest_failure: Option<FailingCase>,
    /// The verdict differed between runs of the same cases (`compare --runs 2` or more):
    /// the implementation, not the seed, decides differently from one run to the next.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
}

/// A cell's verdict. It depends on the implementation, not on the seed, wherever the
/// cases of every seed find what the implementation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellVerdict {
    /// No case broke it and some case showed it kept.
    Met,
    /// Some case broke it, some case of it was not run, or the implementation could not
    /// be checked at all.
    Failed,
    /// No case broke it, and none showed it either.
    NotShown,
    /// The implementation does not define the requirement's function.
    NotDefined,
}

impl CellVerdict {
    /// The word the Markdown and HTML renderings show.
    pub fn label(self) -> &'static str {
        match self {
            CellVerdict::Met => "met",
            CellVerdict::Failed => "failed",
            CellVerdict::NotShown => "not shown",
            CellVerdict::NotDefined => "not defined",
        }
    }
}

/// The pointer a cell gives to the case that broke its requirement.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FailingCase {
    /// The case id (`generated-…` for a generated counterexample).
    pub id: String,
    pub outcome: OutcomeKind,
    /// The arguments of every batch up to the one that failed.
    pub inputs: Vec<Value>,
    /// Why the case breaks the requirement, as its check says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<String>,
    /// What the implementation gave in the failing batch: its output, or what it raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned: Option<Value>,
    /// A command that reruns it against this implementation alone.
    pub rerun: String,
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl Matrix {
    /// Reads `other`, a run of the same implementations on the same cases: a cell whose
    /// verdict differs is flaky, and takes the failing run's verdict and evidence.
    pub fn flag_flaky(&mut self, other: &Matrix) {
        for (row, other_row) in self.requirements.iter_mut().zip(&other.requirements) {
            for (cell, other_cell) in row.cells.iter_mut().zip(&other_row.cells) {
                if cell.verdict == other_cell.verdict {
                    continue;
                }
                if other_cell.verdict == CellVerdict::Failed {
                    *cell = other_cell.clone();
                }
                cell.flaky = true;
            }
        }
    }
}

/// The column of `report`, compared on `functions`.
pub fn column(report: &Report, functions: &[Function]) -> Column {
    // Each function's generated cases have one entry among the cases too (a pass, or the
    // minimal counterexample): counted here by what they stand for instead.
    let entries = report.generated.len();
    let entries_passed = report.generated.iter().filter(|g| g.failed == 0).count();
    let generated: usize = report.generated.iter().map(|g| g.cases).sum();
    let generated_passed: usize = report.generated.iter().map(|g| g.passed).sum();
    Column {
        target: report.target.clone(),
        implementation: report.implementation.clone(),
        functions: report.functions.clone(),
        number_model: report.number_model,
        runtime: report.runtime.clone(),
        concurrency: report.concurrency.clone(),
        partial: report.error.is_none() && functions.iter().any(|f| !report.functions.contains(f)),
        verdict: report.verdict,
        error: report.error_headline.clone(),
        passed: report.summary.passed.saturating_sub(entries_passed) + generated_passed,
        cases: report.summary.total.saturating_sub(entries) + generated,
    }
}

/// The cell of `requirement` in the column of `report`.
pub fn cell(report: &Report, requirement: &Requirement) -> Cell {
    let scored = CHECKED.contains(&requirement.id.as_str());
    // A report with an error is of an implementation that could not be checked: what it
    // defines is unknown, and every cell of it fails.
    let checked = report.error.is_none();
    if checked && !report.functions.contains(&requirement.function) {
        return Cell {
            verdict: CellVerdict::NotDefined,
            cases: 0,
            failed: 0,
            not_run: 0,
            smallest_failure: None,
            flaky: false,
        };
    }
    let summary = report.requirements.iter().find(|r| r.id == requirement.id);
    let (cases, failed, not_run, shown) = summary.map_or((0, 0, 0, 0), tallies);
    let smallest_failure = smallest_failure(report, &requirement.id, scored);
    let verdict = if !checked || failed + not_run > 0 {
        CellVerdict::Failed
    } else if shown > 0 {
        CellVerdict::Met
    } else {
        CellVerdict::NotShown
    };
    Cell {
        verdict,
        cases,
        failed,
        not_run,
        smallest_failure,
        flaky: false,
    }
}

/// Cases that apply, broke it, were not run, showed it kept: fixed and generated together.
fn tallies(summary: &RequirementSummary) -> (usize, usize, usize, usize) {
    let generated = &summary.generated;
    (
        summary.cases + generated.exercised,
        summary.failed + generated.charged,
        summary.not_run + generated.not_run,
        summary.shown + generated.shown,
    )
}

/// The smallest case of `report` that broke requirement `id`: charged to it, or, for a
/// requirement not scored, tagged with it and failed.
fn smallest_failure(report: &Report, id: &str, scored: bool) -> Option<FailingCase> {
    let broke = |case: &&CaseReport| {
        case.outcome.is_failure()
            && (case.charges.iter().any(|c| c.requirement == id)
                || (!scored && case.requirements.iter().any(|r| r == id)))
    };
    let counterexamples = report.generated.iter().flat_map(|g| &g.counterexamples);
    report
        .cases
        .iter()
        .chain(counterexamples)
        .filter(broke)
        .min_by_key(|case| (report::input_size(case), case.id.clone()))
        .map(|case| FailingCase {
            id: case.id.clone(),
            outcome: case.outcome,
            inputs: case.inputs.clone(),
            diagnosis: case
                .charges
                .iter()
                .find(|c| c.requirement == id)
                .map(|c| c.diagnosis.clone()),
            returned: returned(&case.detail),
            rerun: case.rerun.clone(),
        })
}

/// What the implementation gave in the batch that failed: its output, or the text of what
/// it raised.
fn returned(outcome: &Outcome) -> Option<Value> {
    match outcome {
        Outcome::Fail(Failure::WrongOutput { actual, .. }) => Some(actual.clone()),
        Outcome::Fail(Failure::Exception { message, .. }) => Some(Value::from(message.as_str())),
        _ => None,
    }
}

/// The JSON Schema of `parcall compare --format json`.
pub fn schema() -> String {
    let mut schema = schemars::schema_for!(Matrix);
    schema.insert("title".into(), "parcall compare matrix".into());
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is plain JSON");
    text.push('\n');
    text
}
