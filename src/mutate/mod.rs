//! `parcall mutate`: how strong the suite is against one model solution. Mutants of the
//! module (one small change each, made with Python's `ast`) are checked like any
//! implementation: the fixed cases first, then, only for a mutant they miss, the generated
//! cases of one seed. A mutant that fails a case is killed; one that passes everything
//! survives, and is either a bug the suite cannot see or equivalent to the module (listed,
//! with the reason, in an equivalent-mutants file).

pub mod equivalents;
pub mod mutator;
pub mod render;

use crate::check::{Checker, Undefined};
use crate::fuzz;
use crate::judge::Judge;
use crate::process::{interrupt, Limits};
use crate::runner::{Runner, Settings};
use crate::spec::{Function, Spec, SpecCase};
use crate::subject::adapters;
use crate::subject::environment::EnvPolicy;
use crate::subject::Subject;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// What names a mutant across runs and edits elsewhere in the module: where (the function
/// or constant), what kind of change, the text it changes (a simple statement whole, a
/// compound one by its first line) before and after, and which of identical changes there
/// it is. Never an index, which shifts when the module changes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MutantId {
    pub scope: String,
    pub operator: String,
    pub original: String,
    pub mutated: String,
    /// 1 for the first such change in its scope, 2 for the second...
    pub occurrence: usize,
}

impl std::fmt::Display for MutantId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: `{}` -> `{}`",
            self.scope, self.operator, self.original, self.mutated
        )?;
        if self.occurrence > 1 {
            write!(f, " (occurrence {})", self.occurrence)?;
        }
        Ok(())
    }
}

/// One mutant: its identity, where it is, and its whole text.
#[derive(Debug, Clone)]
pub struct Mutant {
    pub id: MutantId,
    /// 1-based lines of the module the change spans.
    pub line: usize,
    pub end_line: usize,
    pub text: String,
}

/// What became of a mutant.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// A fixed case failed (or the mutant could not even start).
    KilledByFixed { case: String, outcome: String },
    /// Every fixed case passed; a generated case failed.
    KilledByGenerated {
        function: Function,
        failed: usize,
        generated: usize,
        /// The smallest failing case found (a case to add to the fixed ones).
        counterexample: Option<Box<SpecCase>>,
    },
    /// Every case passed.
    Survived,
    /// parcall could not check it (a file it could not write, a program it could not
    /// start): the run is incomplete.
    NotRun { reason: String },
}

/// Why the unmutated module cannot be the measure of its mutants.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot copy the module to {folder}: {message}")]
    Copy { folder: String, message: String },
    #[error(transparent)]
    Prepare(#[from] adapters::PrepareError),
    #[error("the module cannot be started: {0}")]
    Start(#[from] crate::runner::StartError),
    #[error(
        "the module itself fails case {case} ({outcome}); mutation testing measures the cases \
         against a correct solution: run `parcall check` on it first"
    )]
    FailsCase { case: String, outcome: String },
    #[error(
        "the module itself fails {failed} generated cases of {function} with seed {seed}; run \
         `parcall check --seed {seed}` on it first"
    )]
    FailsGenerated {
        function: Function,
        failed: usize,
        seed: u64,
    },
    #[error("{0}")]
    NotRun(String),
}

/// Everything one mutant's check shares with the others.
pub struct Trial<'a> {
    pub spec: &'a Spec,
    /// Generated cases per function (0: none).
    pub fuzz: usize,
    pub seed: u64,
    pub settings: Settings,
    pub python: OsString,
    pub limits: Limits,
    pub env: EnvPolicy,
    /// The generated cases, drawn once for every mutant (see [`fuzz::Drawn`]).
    pub drawn: Option<fuzz::Drawn>,
    /// Judges every mutant: what it works out about the shared cases serves them all.
    pub judge: Judge,
}

/// Runs of a mutant spent on shrinking a generated counterexample: enough to make it
/// readable, little enough that a mutant costs seconds.
const SHRINK_RUNS: usize = 300;
const SHRINK_BUDGET: Duration = Duration::from_secs(10);
/// Wall-clock time one mutant's check may take in all.
const MUTANT_BUDGET: Duration = Duration::from_secs(300);
/// Fixed cases sent at once; the check stops after the first batch with a failure.
const FIXED_BATCH: usize = 16;

impl Trial<'_> {
    /// The fixed cases of `functions`.
    fn fixed(&self, functions: &[Function]) -> Vec<SpecCase> {
        self.spec
            .cases
            .iter()
            .filter(|c| functions.contains(&c.function()))
            .cloned()
            .collect()
    }

    /// The module at `path`, run under the Python adapter inside `check`'s containment.
    fn launch(&self, path: &Path) -> Result<adapters::Prepared, adapters::PrepareError> {
        adapters::python_module(path, &self.python, self.limits).map(|p| p.contained(&self.env))
    }

    /// Checks the unmutated module (from the same kind of folder as its mutants): it must
    /// pass every case, or killing a mutant would mean nothing. Returns the functions it
    /// defines, the ones every mutant is then held to.
    pub fn baseline(&self, path: &Path) -> Result<Vec<Function>, BaselineError> {
        let prepared = self.launch(path)?;
        let mut runner = Runner::start(&prepared.launch, &self.spec.version, self.settings)?;
        let functions = runner.functions().to_vec();
        let fate = self.run(&mut runner, &functions);
        runner.shutdown();
        match fate {
            Fate::Survived => Ok(functions),
            Fate::KilledByFixed { case, outcome } => {
                Err(BaselineError::FailsCase { case, outcome })
            }
            Fate::KilledByGenerated {
                function, failed, ..
            } => Err(BaselineError::FailsGenerated {
                function,
                failed,
                seed: self.seed,
            }),
            Fate::NotRun { reason } => Err(BaselineError::NotRun(reason)),
        }
    }

    /// Checks one mutant held to `functions`.
    pub fn mutant(&self, path: &Path, functions: &[Function]) -> Fate {
        let prepared = match self.launch(path) {
            Ok(prepared) => prepared,
            Err(error) => {
                return Fate::NotRun {
                    reason: error.to_string(),
                }
            }
        };
        // A mutant slow on every case without ever timing out (a loop that polls) would
        // take the fixed cases times the deadline: its whole check has a budget, and a
        // mutant that spends it counts as killed, like one that hangs.
        let settings = Settings {
            deadline: Some(std::time::Instant::now() + MUTANT_BUDGET),
            ..self.settings
        };
        let mut runner = match Runner::start(&prepared.launch, &self.spec.version, settings) {
            Ok(runner) => runner,
            Err(error) if error.is_runner_failure() => {
                return Fate::NotRun {
                    reason: error.to_string(),
                }
            }
            // It cannot be loaded, hangs at import, lost a function: the mutant's doing.
            Err(error) => {
                return Fate::KilledByFixed {
                    case: "start-up".into(),
                    outcome: error.headline(),
                }
            }
        };
        let fate = self.run(&mut runner, functions);
        runner.shutdown();
        fate
    }

    /// The fixed cases, then (when they all pass) the generated ones: a policy over
    /// [`Checker`] that stops at the first failure.
    fn run(&self, subject: &mut dyn Subject, functions: &[Function]) -> Fate {
        let mut checker = Checker::new(subject, &self.judge);
        // A few cases at a time (still pipelined within each batch), so most mutants die
        // after their first batch instead of running every case.
        for cases in self.fixed(functions).chunks(FIXED_BATCH) {
            let results = checker.run_cases(cases, Undefined::Fail);
            if let Some(failed) = results.iter().find(|r| !r.outcome.is_pass()) {
                return Fate::KilledByFixed {
                    case: failed.case.id().to_owned(),
                    outcome: failed.outcome.label().to_owned(),
                };
            }
        }
        if self.fuzz == 0 {
            return Fate::Survived;
        }
        let settings = fuzz::Settings {
            max_shrink_runs: SHRINK_RUNS,
            shrink_budget: SHRINK_BUDGET,
            ..fuzz::Settings::new(self.fuzz, self.seed)
        };
        let summaries = fuzz::run(
            &mut checker,
            &self.spec.cases,
            functions,
            settings,
            self.drawn.as_ref(),
        );
        // A case left unrun counts against the mutant too: it spent its budget (see
        // `mutant`), or its function was given up on after three failures.
        match summaries.into_iter().find(|s| s.failed + s.not_run > 0) {
            Some(summary) => Fate::KilledByGenerated {
                function: summary.function,
                failed: summary.failed + summary.not_run,
                generated: summary.generated,
                counterexample: summary.counterexample.map(Box::new),
            },
            None => Fate::Survived,
        }
    }
}

/// The private folder mutants are written to: created with mode 0700, never next to the
/// user's file, removed when dropped.
pub struct Workspace {
    /// Removed on drop, or by the clean-up when a signal ends the run.
    dir: interrupt::TempDir,
    /// The module's file name, kept by every copy (the adapter names the module after it).
    name: OsString,
}

/// Workspaces are named `parcall-mutants-<pid>-<random>`.
const WORKSPACE_PREFIX: &str = "parcall-mutants-";

impl Workspace {
    pub fn new(module: &Path) -> std::io::Result<Workspace> {
        adapters::remove_stale_dirs(WORKSPACE_PREFIX);
        let dir = interrupt::TempDir::create(
            tempfile::Builder::new().prefix(&format!("{WORKSPACE_PREFIX}{}-", std::process::id())),
            None,
            |_| Ok(()),
        )?;
        let name = module
            .file_name()
            .map_or_else(|| OsString::from("module.py"), |n| n.to_owned());
        Ok(Workspace { dir, name })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` as the module in a folder of its own, `label`; returns its path.
    pub fn write(&self, label: &str, text: &str) -> std::io::Result<PathBuf> {
        // Under the gate: a signal's clean-up removing the workspace while a mutant is
        // written into it could fail on the new entry and leave the folder behind.
        let _held = interrupt::hold();
        let folder = self.dir.path().join(label);
        std::fs::create_dir(&folder)?;
        let path = folder.join(&self.name);
        std::fs::write(&path, text)?;
        Ok(path)
    }

    /// Removes what `write` made for `label`.
    pub fn remove(&self, label: &str) {
        let _held = interrupt::hold();
        let _ = std::fs::remove_dir_all(self.dir.path().join(label));
    }
}

/// Checks every mutant on `jobs` threads; the fates come back in the mutants' order.
/// `on_done` is called with how many are done as each finishes (progress displays).
pub fn run_all(
    trial: &Trial<'_>,
    workspace: &Workspace,
    mutants: &[Mutant],
    functions: &[Function],
    jobs: usize,
    on_done: &(dyn Fn(usize) + Sync),
) -> Vec<Fate> {
    use rayon::prelude::*;
    let done = AtomicUsize::new(0);
    let check = |(index, mutant): (usize, &Mutant)| {
        let label = format!("mutant-{index:05}");
        let fate = match workspace.write(&label, &mutant.text) {
            Ok(path) => trial.mutant(&path, functions),
            Err(error) => Fate::NotRun {
                reason: format!("cannot write the mutant: {error}"),
            },
        };
        workspace.remove(&label);
        on_done(done.fetch_add(1, Ordering::Relaxed) + 1);
        fate
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(|| mutants.par_iter().enumerate().map(check).collect()),
        // No threads to be had: one at a time.
        Err(_) => mutants.iter().enumerate().map(check).collect(),
    }
}
