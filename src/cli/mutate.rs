//! `parcall mutate`: make the mutants of a model solution, check each against the suite,
//! report the score and every survivor.

use super::exit;
use super::{MutateArgs, MutateFormat};
use crate::mutate::equivalents::{self, EquivalentsFile};
use crate::mutate::mutator::{self, Made};
use crate::mutate::{render, run_all, BaselineError, Trial, Workspace};
use crate::process::Limits;
use crate::runner::Settings;
use crate::spec::Function;
use crate::subject::environment::EnvPolicy;
use crate::text::terminal;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The largest module mutated: far above any exercise solution.
const MAX_MODULE_BYTES: u64 = 1 << 20;

/// Why no mutant can be checked: the input is refused before any runs (a usage error).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SetupError {
    #[error("{path}: no such file")]
    NoModule { path: PathBuf },
    #[error("{path}: cannot read: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a regular file; name the module's file")]
    NotRegular { path: PathBuf },
    #[error("{path}: parcall mutate reads Python modules (`.py`) only")]
    NotPython { path: PathBuf },
    #[error("{path}: larger than {} KiB; mutate the module that holds the functions", MAX_MODULE_BYTES >> 10)]
    TooLarge { path: PathBuf },
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    #[error(transparent)]
    Equivalents(#[from] equivalents::EquivalentsError),
    #[error("cannot make a temporary folder for the mutants: {0}")]
    Workspace(std::io::Error),
    #[error(transparent)]
    Mutator(#[from] mutator::MutatorError),
    #[error("{path}: no mutant could be made of the code parcall runs")]
    NoMutant { path: PathBuf },
}

pub(super) fn run(args: MutateArgs) -> anyhow::Result<i32> {
    let setup = match Setup::new(&args) {
        Ok(setup) => setup,
        Err(error) => {
            say!("error: {}", terminal::multiline(&error.to_string()));
            return Ok(exit::USAGE);
        }
    };
    let Setup {
        source,
        spec,
        equivalents,
        workspace,
        made,
        seed,
    } = setup;
    if args.fuzz > 0 {
        say!(
            "parcall: {} generated cases per function for each mutant the fixed cases miss, \
             seed {seed} (rerun with --seed {seed})",
            args.fuzz
        );
    }
    let trial = Trial {
        spec: &spec,
        fuzz: args.fuzz,
        seed,
        settings: Settings {
            timeout: args.timeout,
            startup: args.startup_timeout,
            // One timeout, crash or protocol error is enough to kill a mutant: the cases
            // left of that function are not run.
            give_up_after: 1,
            ..Settings::default()
        },
        python: args.python.clone(),
        limits: limits(&args),
        env: EnvPolicy::default(),
        drawn: crate::fuzz::Drawn::new(&spec.cases, &Function::EXERCISES, args.fuzz, seed),
        judge: crate::judge::Judge::new(Default::default()),
    };
    let functions = match baseline(&trial, &workspace, &source) {
        Ok(functions) => functions,
        Err(message) => {
            let message = format!("{}: {message}", args.module.display());
            say!("error: {}", terminal::multiline(&message));
            return Ok(exit::USAGE);
        }
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let total = made.mutants.len();
    let terminal = std::io::stderr().is_terminal();
    let progress = move |done: usize| {
        if terminal {
            say_partly!("\rparcall: {done}/{total} mutants checked");
        }
    };
    let fates = run_all(
        &trial,
        &workspace,
        &made.mutants,
        &functions,
        jobs,
        &progress,
    );
    if terminal {
        say_partly!("\r{}\r", " ".repeat(50));
    }
    drop(workspace);
    let (listed, stale) =
        equivalents::apply(equivalents.as_ref().map(|(_, f)| f), &made.mutants, &fates);
    let report = render::build(render::Inputs {
        module: &args.module.display().to_string(),
        suite: &spec.version,
        seed,
        fuzz: args.fuzz,
        functions: &functions,
        equivalents_file: equivalents.as_ref().map(|(p, _)| p.display().to_string()),
        source: &source,
        not_compiling: made.not_compiling,
        not_written: made.unwritable,
        mutants: &made.mutants,
        fates: &fates,
        listed: &listed,
        stale,
    });
    let mut out = std::io::stdout().lock();
    let written = match args.format {
        MutateFormat::Human => render::human(&report, &mut out),
        MutateFormat::Json => render::json(&report, &mut out),
    }
    .and_then(|()| out.flush());
    super::written(written)?;
    Ok(match report.verdict {
        render::Verdict::Pass => exit::SUCCESS,
        render::Verdict::Fail => exit::DOES_NOT_CONFORM,
        render::Verdict::Incomplete => exit::INCOMPLETE,
    })
}

fn limits(args: &MutateArgs) -> Limits {
    Limits {
        // values::mib bounds the flag, so the shift cannot overflow.
        memory_bytes: (args.memory_mib > 0).then_some(args.memory_mib << 20),
        ..Limits::default()
    }
}

/// The unmutated module must pass every case, from a folder like its mutants'.
fn baseline(
    trial: &Trial<'_>,
    workspace: &Workspace,
    source: &str,
) -> Result<Vec<Function>, BaselineError> {
    let path = workspace
        .write("original", source)
        .map_err(|e| BaselineError::Copy {
            folder: workspace.path().display().to_string(),
            message: e.to_string(),
        })?;
    let functions = trial.baseline(&path);
    workspace.remove("original");
    functions
}

/// Everything read and made before a mutant runs: bad input is refused here.
struct Setup {
    source: String,
    spec: crate::spec::Spec,
    equivalents: Option<(PathBuf, EquivalentsFile)>,
    workspace: Workspace,
    made: Made,
    seed: u64,
}

impl Setup {
    fn new(args: &MutateArgs) -> Result<Setup, SetupError> {
        let path = &args.module;
        let source = read_module(path)?;
        let spec = args.spec.load()?;
        let equivalents = load_equivalents(args)?;
        let workspace = Workspace::new(path).map_err(SetupError::Workspace)?;
        let made = mutator::make(path, &source, &args.python, limits(args), workspace.path())?;
        if made.mutants.is_empty() {
            return Err(SetupError::NoMutant { path: path.clone() });
        }
        Ok(Setup {
            source,
            spec,
            equivalents,
            workspace,
            made,
            seed: args.seed.unwrap_or_else(super::check::fresh_seed),
        })
    }
}

/// The module's text: a regular `.py` file of UTF-8 text, at most [`MAX_MODULE_BYTES`].
fn read_module(path: &Path) -> Result<String, SetupError> {
    let unreadable = |source| SetupError::Unreadable {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SetupError::NoModule {
            path: path.to_owned(),
        },
        _ => unreadable(e),
    })?;
    let path_buf = || path.to_owned();
    if !metadata.is_file() {
        return Err(SetupError::NotRegular { path: path_buf() });
    }
    if path.extension().is_none_or(|e| e != "py") {
        return Err(SetupError::NotPython { path: path_buf() });
    }
    if metadata.len() > MAX_MODULE_BYTES {
        return Err(SetupError::TooLarge { path: path_buf() });
    }
    crate::json::read_regular_file(path).map_err(unreadable)
}

/// `--equivalents FILE`, or the default file next to the module when it exists.
fn load_equivalents(
    args: &MutateArgs,
) -> Result<Option<(PathBuf, EquivalentsFile)>, equivalents::EquivalentsError> {
    if args.no_equivalents {
        return Ok(None);
    }
    let path = match &args.equivalents {
        Some(path) => path.clone(),
        None => {
            let path = equivalents::default_path(&args.module);
            if std::fs::symlink_metadata(&path).is_err() {
                return Ok(None);
            }
            path
        }
    };
    EquivalentsFile::load(&path).map(|file| Some((path, file)))
}
