//! `parcall compare`: every implementation named is prepared before any runs (a name that
//! does not exist, a manifest that does not parse: a usage error), then checked with one
//! plan, and the matrix is written to stdout and, with `--out`, to files.

use super::check::{fresh_seed, rerun_command};
use super::exit;
use super::CompareArgs;
use crate::compare::render::{self, Format};
use crate::compare::{self, Entry, Matrix};
use crate::report::{self, Palette, Report};
use crate::runner::Settings;
use crate::spec::{Function, SpecCase};
use crate::subject::adapters::{self, PrepareError};
use crate::text::terminal;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What stops a comparison before anything runs.
#[derive(Debug, thiserror::Error)]
enum SetupError {
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    #[error(transparent)]
    Profile(#[from] super::check::CheckError),
    #[error(transparent)]
    Prepare(#[from] PrepareError),
}

pub(super) fn run(args: CompareArgs) -> anyhow::Result<i32> {
    // The implementations first: a name that does not exist is found before the spec is
    // loaded.
    let entries = match prepare(&args) {
        Ok(entries) => entries,
        Err(error) => return Ok(usage(&SetupError::from(error))),
    };
    let spec = match args.spec.load() {
        Ok(spec) => spec,
        Err(error) => return Ok(usage(&SetupError::from(error))),
    };
    let functions: Vec<Function> =
        match super::check::profile_functions(args.profile, &args.function) {
            Ok(functions) => functions,
            Err(error) => return Ok(usage(&SetupError::from(error))),
        };
    let cases: Vec<SpecCase> = spec
        .cases
        .iter()
        .filter(|c| functions.contains(&c.function()))
        .cloned()
        .collect();
    let seed = args.seed.unwrap_or_else(fresh_seed);
    say!(
        "parcall: comparing {} implementations, {} generated cases per function, seed {seed} \
         (rerun with --seed {seed})",
        entries.len(),
        args.fuzz
    );
    let plan = compare::Plan {
        spec: &spec,
        cases: &cases,
        functions: &functions,
        fuzz: args.fuzz,
        seed,
        settings: Settings {
            timeout: args.process.timeout,
            startup: args.process.startup_timeout,
            deadline: Some(Instant::now() + args.budget),
            ..Settings::default()
        },
        runs: args.runs,
        jobs: args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
    };
    let (matrix, reports) = compare::compare(&plan, &entries, &|report: &Report| {
        say!(
            "parcall: checked {}: {}",
            terminal::line(&report.target),
            verdict(report)
        );
    });
    let mut code = exit::SUCCESS;
    if let Some(dir) = &args.out {
        if let Err(error) = write_out(dir, &matrix, &reports) {
            say!("error: {}", terminal::line(&error));
            code = exit::INCOMPLETE;
        }
    }
    let stdout = std::io::stdout();
    let palette = Palette::for_stream(args.color, stdout.is_terminal());
    let mut out = stdout.lock();
    let written = super::written(
        render::write(&matrix, args.format, palette, &mut out).and_then(|()| out.flush()),
    );
    if let Err(error) = written {
        say!("error: cannot write the matrix: {error}");
        code = exit::INCOMPLETE;
    }
    Ok(code)
}

fn usage(error: &SetupError) -> i32 {
    say!("error: {}", terminal::multiline(&error.to_string()));
    exit::USAGE
}

fn verdict(report: &Report) -> &'static str {
    match report.verdict {
        _ if report.error.is_some() => "could not be checked",
        report::Verdict::Conforms => "conforms",
        report::Verdict::DoesNotConform => "does not conform",
        report::Verdict::Error => "could not complete",
    }
}

/// Every implementation, prepared with the same launch builders `check` uses, in the
/// order named: the IMPLs, then each `--cmd`. The first that cannot be is the error.
fn prepare(args: &CompareArgs) -> Result<Vec<Entry>, PrepareError> {
    let limits = args.process.limits();
    let env = args.process.env();
    let declared = args.process.declared();
    let setting = super::check::RunSetting {
        profile: args.profile,
        python: &args.python,
        node: &args.node,
        readable: &args.process.readable,
        runtimes: &declared,
    };
    let runtimes = args.process.runtimes(&args.python, &args.node)?;
    let mut entries = Vec::new();
    for path in &args.implementations {
        let prepared =
            adapters::module_or_manifest(path, &args.python, &args.node, &runtimes, limits)?;
        entries.push(Entry {
            prepared: prepared.contained(&env),
            rerun_base: rerun_command(None, Some(path), &args.spec, &setting),
        });
    }
    for line in &args.cmd {
        entries.push(Entry {
            prepared: adapters::command(line, &runtimes, limits)?.contained(&env),
            rerun_base: rerun_command(Some(line), None, &args.spec, &setting),
        });
    }
    Ok(entries)
}

/// `--out DIR`: the matrix in every file format, and each implementation's full report.
fn write_out(dir: &Path, matrix: &Matrix, reports: &[Report]) -> Result<(), String> {
    let reports_dir = dir.join("reports");
    std::fs::create_dir_all(&reports_dir)
        .map_err(|e| format!("{}: cannot create: {e}", reports_dir.display()))?;
    for format in [Format::Markdown, Format::Json, Format::Html] {
        let name = format.file_name().expect("a file format");
        write_file(&dir.join(name), |out| {
            render::write(matrix, format, Palette::plain(), out)
        })?;
    }
    for (index, report) in reports.iter().enumerate() {
        let path = reports_dir.join(format!("{}.json", index + 1));
        write_file(&path, |out| {
            report::write(report, report::Format::Json, Palette::plain(), out)
        })?;
    }
    Ok(())
}

fn write_file(
    path: &PathBuf,
    render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let written = std::fs::File::create(path).and_then(|file| {
        let mut out = std::io::BufWriter::new(file);
        render(&mut out)?;
        out.flush()
    });
    written.map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
