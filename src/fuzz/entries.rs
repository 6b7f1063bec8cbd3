//! The entries reports show for generated cases: one per function (a pass, the cases not
//! run, or the minimal counterexample) and one per requirement they are charged to. A
//! generated case is about the requirements the checks charge it to: no other list of
//! what it tests is kept.

use super::draw::Redraw;
use super::draw::{short, Generator};
use super::findings::Kept;
use super::shrink::shrink;
use super::{CaseRunner, Settings, Summary};
use crate::judge::{CaseResult, Judge};
use crate::protocol::{Answer, CaseAnswer};
use crate::spec::{Case, DedupCase, Dispatch, ExecCase, Function, Origin, RuntimeCase, SpecCase};
use std::collections::{BTreeMap, BTreeSet};

/// Most requirements a grading run shrinks its own counterexample for; the others (and
/// every one in `check`, which shows the first failure's) get the smallest generated case
/// charged to them, unshrunk.
const SHRUNK_REQUIREMENTS: usize = 8;

/// One counterexample per charged requirement: the first failure's minimal case serves the
/// requirements it is charged to; every other one gets the smallest generated case charged
/// to it, shrunk (on a tenth of the budget) while it stays charged to that requirement.
pub(super) fn counterexamples_per_requirement(
    subject: &mut dyn CaseRunner,
    smallest: &mut BTreeMap<String, Kept>,
    draws: &mut BTreeMap<usize, Redraw>,
    generator: &Generator,
    minimal: CaseResult,
    summary: &Summary,
    settings: Settings,
) -> Vec<CaseResult> {
    let mut found: Vec<CaseResult> = Vec::new();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let add = |mut result: CaseResult, found: &mut Vec<CaseResult>, requirement: &str| {
        about_its_charges(&mut result);
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

pub(super) fn rename(case: &mut SpecCase, id: &str) {
    std::sync::Arc::make_mut(&mut case.case).set_id(id.to_owned());
}

fn set_description(case: &mut SpecCase, description: String) {
    std::sync::Arc::make_mut(&mut case.case).set_description(description);
}

/// The id of the generated entry in reports.
pub fn entry_id(function: Function) -> String {
    format!("generated-{}", short(function))
}

/// The entry of a function whose generated cases all passed: a case of no batches, which
/// the judge passes with nothing shown or charged (the tallies carry what the cases showed).
pub(super) fn passing_entry(
    judge: &Judge,
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
        Function::RunToolCalls => Case::Runtime(RuntimeCase {
            id,
            description,
            requirements,
            tools: Default::default(),
            batches: Vec::new(),
        }),
    };
    let case = SpecCase {
        origin: Origin::Generated {
            function,
            seed,
            count: generated,
        },
        case: case.into(),
    };
    judge.judge(case, CaseAnswer::bare(Answer::Batches(Vec::new())))
}

/// The entry the reports show when no generated case failed but some were not run: the
/// first of those, with the reason it was not run, not a pass.
pub(super) fn not_run_entry(summary: &Summary, mut not_run: CaseResult) -> CaseResult {
    rename(&mut not_run.case, &entry_id(summary.function));
    set_description(
        &mut not_run.case,
        format!(
            "{} of {} generated cases not run (seed {})",
            summary.not_run, summary.generated, summary.seed
        ),
    );
    not_run
}

pub(super) fn failing_entry(summary: &Summary, mut minimal: CaseResult) -> CaseResult {
    rename(&mut minimal.case, &entry_id(summary.function));
    about_its_charges(&mut minimal);
    set_description(
        &mut minimal.case,
        format!(
            "minimal counterexample, shrunk in {} runs, of {} failing generated cases out of {} (seed {})",
            summary.shrink_runs, summary.failed, summary.generated, summary.seed
        ),
    );
    minimal
}

/// Tags a failing generated case with the requirements it is charged to.
pub(super) fn about_its_charges(result: &mut CaseResult) {
    let charged: Vec<String> = result
        .blame
        .charged()
        .into_iter()
        .map(str::to_owned)
        .collect();
    std::sync::Arc::make_mut(&mut result.case.case).set_requirements(charged);
}
