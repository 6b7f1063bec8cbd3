//! Blame that follows the bug, not the seed (RULES D): every single-bug example, Python and
//! JavaScript, loses the requirement it breaks and at most one other, the same set on every
//! seed; and the hidden cases show every scored requirement at the size this loop runs.
//!
//! The loop is the suite's longest test. Its file is named to sort first, so libtest starts
//! it first: the other tests then run beside it, instead of it running alone at the end.

use crate::common;
use crate::shown::{met, FUNCTIONS};

use common::{in_lanes, root, subjects};
use parcall::check::{self, Context, Plan, Undefined};
use parcall::fuzz::Drawn;
use parcall::judge::blame::ids::checked_in;
use parcall::spec::Profile;

/// The exercises' scored requirements: what these runs can show.
fn exercise_checked() -> Vec<&'static str> {
    checked_in(Profile::Exercise).collect()
}
use parcall::process::Limits;
use parcall::report::Report;
use parcall::runner::Runner;
use parcall::subject::adapters;
use parcall::subject::environment::EnvPolicy;
use std::collections::BTreeSet;

/// Seeds the blame of every broken example is compared over.
const BLAME_SEEDS: u64 = 10;

/// Examples checked at once: each lane's time is mostly waits on a round trip, so one more
/// lane than the two cores CI has keeps both busy.
const LANES: usize = 3;

/// Generated cases per function in the loops over real processes: the size at which the
/// hidden cases show every scored requirement at least [`LEAST_SHOWN`] times (tested below),
/// so a set of lost requirements that holds here is not an accident of a small draw (at
/// 100, a bug that shows only on batches of more than 64 calls loses its second rule on
/// some seeds only). The default `--fuzz` of `check` is larger still.
const FUZZ: usize = 150;

/// How often the hidden cases of one seed at [`FUZZ`] show each scored requirement, at least.
const LEAST_SHOWN: usize = 5;

/// Every broken example with the requirements its header says it breaks. The two that
/// replay the public spec are not single-bug examples (one loses nearly everything, the
/// other adds its memory to two bugs; the memoriser tests hold both), nor is one parcall
/// refuses at load (nothing of it is judged; `ci_gating` holds the refusal).
fn single_bug_examples() -> Vec<(String, Vec<String>)> {
    let mut examples = Vec::new();
    for language in ["python", "javascript"] {
        let folder = root()
            .join("conformance/examples")
            .join(language)
            .join("broken");
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let source = std::fs::read_to_string(&path).unwrap();
            if source.contains("parcall: replays the public spec")
                || source.contains("parcall: refused at load")
            {
                continue;
            }
            let declared: Vec<String> = source
                .lines()
                .find_map(|l| {
                    l.strip_prefix("# parcall: breaks ")
                        .or_else(|| l.strip_prefix("// parcall: breaks "))
                })
                .unwrap_or_else(|| panic!("{} declares no requirement", path.display()))
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            let relative = path.strip_prefix(root()).unwrap().display().to_string();
            examples.push((relative, declared));
        }
    }
    examples.sort();
    examples
}

/// The requirements `parcall check PATH --seed SEED --fuzz FUZZ` loses, for each seed of
/// `drawn` in turn. A process per seed runs that seed's generated cases (drawn once, shared
/// by every example), the first the spec's cases too; a seed loses what its generated cases
/// lose and what the spec's cases were charged. Failures are not shrunk: shrinking picks which
/// failing case a report shows, not which requirements are charged, and it was most of this
/// loop's time, as were the spec's cases run again for every seed.
fn lost_on_each_seed(path: &str, drawn: &[(u64, Drawn)]) -> Vec<BTreeSet<String>> {
    let prepared = adapters::module(
        &root().join(path),
        &"python3".into(),
        &"node".into(),
        Limits::default(),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
    .contained(&EnvPolicy::default());
    let spec = subjects::spec();
    let context = Context {
        spec,
        target: path,
        rerun_base: "parcall check",
    };
    let lost = |report: &Report| -> BTreeSet<String> {
        let met = met(report);
        exercise_checked()
            .iter()
            .filter(|id| !met.contains(*id))
            .map(|id| (*id).to_owned())
            .collect()
    };
    let mut charged_by_spec_cases = BTreeSet::new();
    let mut lost_per_seed = Vec::new();
    for (index, (seed, drawn)) in drawn.iter().enumerate() {
        let plan = Plan {
            fuzz: FUZZ,
            undefined: Undefined::LeaveOut,
            max_shrink_runs: 0,
            seed: *seed,
            drawn: Some(drawn),
            ..Plan::new(
                spec,
                if index == 0 { &spec.cases } else { &[] },
                subjects::judge(),
            )
        };
        // A process per seed, as `check` runs one: state a module keeps (a cache shared
        // across calls) grows over one run's cases, not over ten.
        let report = match Runner::start(&prepared.launch, &spec.version, Default::default()) {
            Ok(mut runner) => {
                let run = check::run(&mut runner, &plan, None);
                runner.shutdown();
                check::report(&run, &context)
            }
            // Not started: the seed loses everything, as `check` reports it.
            Err(_) => check::report(&check::run_process(&prepared.launch, &plan, None), &context),
        };
        if index == 0 {
            charged_by_spec_cases = report
                .requirements
                .iter()
                .filter(|r| r.failed > 0 && exercise_checked().contains(&r.id.as_str()))
                .map(|r| r.id.clone())
                .collect();
        }
        let mut lost = lost(&report);
        lost.extend(charged_by_spec_cases.iter().cloned());
        lost_per_seed.push(lost);
    }
    lost_per_seed
}

#[test]
fn every_single_bug_example_loses_what_it_breaks_and_at_most_one_other_on_every_seed() {
    let examples = single_bug_examples();
    let drawn: Vec<(u64, Drawn)> = (1..=BLAME_SEEDS)
        .map(|seed| {
            let drawn = Drawn::new(&subjects::spec().cases, &FUNCTIONS, FUZZ, seed);
            (
                seed,
                drawn.expect("a few hundred cases per function are kept"),
            )
        })
        .collect();
    let lost_per_example = in_lanes(&examples, LANES, |(path, _)| {
        lost_on_each_seed(path, &drawn)
    });
    let mut problems = Vec::new();
    for ((path, declared), chunk) in examples.iter().zip(&lost_per_example) {
        let first = &chunk[0];
        println!("{path}: loses {first:?}");
        if chunk.iter().any(|lost| lost != first) {
            problems.push(format!(
                "{path}: the set lost varies with the seed: {chunk:?}"
            ));
        }
        for lost in chunk {
            let missing: Vec<&String> = declared.iter().filter(|d| !lost.contains(*d)).collect();
            let others = lost.iter().filter(|l| !declared.contains(l)).count();
            if !missing.is_empty() || others > 1 {
                problems.push(format!(
                    "{path}: breaks {declared:?}, lost {lost:?} (not lost: {missing:?}; {others} others)"
                ));
                break;
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_hidden_cases_show_every_scored_requirement_at_the_ci_size() {
    for seed in 1..=3 {
        let report = subjects::check(
            &mut parcall::subject::in_process::reference(
                parcall::json::NumberModel::Python,
                parcall::reference::Execution::Sequential,
            ),
            seed,
            FUZZ,
        );
        for id in exercise_checked() {
            let summary = report.requirements.iter().find(|r| r.id == *id).unwrap();
            println!(
                "seed {seed}: {id}: shown by {} hidden cases",
                summary.generated.shown
            );
            assert!(
                summary.generated.shown >= LEAST_SHOWN,
                "seed {seed}: {id} shown by {} hidden cases at --fuzz {FUZZ}",
                summary.generated.shown
            );
            assert!(summary.met, "seed {seed}: {id} not met by the reference");
        }
    }
}
