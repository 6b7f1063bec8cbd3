//! Making a submission ready to run: the launch `check` would build for its kind (the
//! adapter beside its module, or its manifest's program chosen among the declared runtimes),
//! over its copy staged in the sandbox ([`crate::sandbox::Sandbox`]), and the canary that
//! every run starts first.

use super::discover::{Kind, Submission};
use crate::json::Value;
use crate::process::build::Build;
use crate::process::{Launch, Limits};
use crate::sandbox::intake::Refusal;
use crate::sandbox::{Choice, ChoiceError, Sandbox, StageError, Staged, SANDBOX_PATH};
use crate::spec::{Case, Function, SpecCase};
use crate::subject::launch::{self, Language};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file name a language's adapter has in a submission's folder: hidden, so it is not
/// taken for the student's own.
pub fn adapter_file(language: Language) -> String {
    format!(".{}", language.adapter().0)
}

/// Why a submission could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The submission broke a rule: the student's to fix.
    #[error(transparent)]
    Refused(Refusal),
    /// The sandbox could not be set up for it: the run's fault.
    #[error(transparent)]
    Stage(StageError),
    /// Its manifest names a program the run did not declare: the student's to fix (or the
    /// teacher's to declare).
    #[error("parcall.json: {0}")]
    Program(#[from] ChoiceError),
    /// A module of a language whose runtime the run lacks.
    #[error("cannot prepare the sandbox: no `{name}` runtime is found on {SANDBOX_PATH}: pass {flag} with its path")]
    NoRuntime {
        name: &'static str,
        flag: &'static str,
    },
    /// Discovery refused it and it reached the sandbox all the same: parcall's mistake.
    #[error("cannot prepare the sandbox: {name} was refused at discovery")]
    NotRunnable { name: String },
}

impl From<StageError> for PrepareError {
    fn from(error: StageError) -> PrepareError {
        match error {
            StageError::Refused(refusal) => PrepareError::Refused(refusal),
            other => PrepareError::Stage(other),
        }
    }
}

impl From<std::io::Error> for PrepareError {
    fn from(error: std::io::Error) -> PrepareError {
        PrepareError::Stage(StageError::Io(error))
    }
}

/// A submission made ready to run; dropping it removes its copy and its control group.
pub struct Prepared {
    pub launch: Launch,
    _staged: Staged,
}

/// The runtime a language's modules run under: its name among the declared runtimes.
fn runtime_of(language: Language) -> &'static str {
    match language {
        Language::Python => "python",
        Language::JavaScript => "node",
    }
}

/// Copies the submission into the sandbox's workspace (slot `slot`) and builds the command
/// that runs it: the subject's own launch for its kind, with the adapter in the private
/// copy, enclosed in the sandbox.
pub fn prepare(
    sandbox: &Sandbox,
    slot: usize,
    submission: &Submission,
) -> Result<Prepared, PrepareError> {
    let Some(kind) = &submission.kind else {
        return Err(PrepareError::NotRunnable {
            name: submission.name.clone(),
        });
    };
    let mut staged = sandbox.stage(slot, &submission.source)?;
    let limits = sandbox.launch_limits();
    let home = staged.home.clone();
    let inner = match kind {
        Kind::Module(language) => {
            let (_, source) = language.adapter();
            let adapter = staged.copy.join(adapter_file(*language));
            // A student's entry of that name (a file, a folder) would be overwritten or
            // stop the write: it is theirs to rename.
            if std::fs::symlink_metadata(&adapter).is_ok() {
                return Err(PrepareError::Refused(Refusal::Reserved(adapter_file(
                    *language,
                ))));
            }
            std::fs::write(adapter, source)?;
            let module = short_module_name(&staged.copy, module_in_copy(submission))?;
            // Only a manifest builds.
            let limits = Limits {
                build_seconds: 0,
                ..limits
            };
            let name = runtime_of(*language);
            let runtime = sandbox
                .runtimes()
                .named(name)
                .ok_or(PrepareError::NoRuntime {
                    name,
                    flag: language.flag(),
                })?;
            language.module(
                runtime.program.as_os_str(),
                &home.join(adapter_file(*language)),
                &home.join(module),
                limits,
            )
        }
        Kind::Command(manifest) => {
            let (program, args) = manifest.cmd.split_first().expect("a checked manifest");
            // Chosen among the declared runtimes, or a file of its own copy, by name only:
            // nothing of the submission is run or read outside the sandbox.
            let chosen = |word: &str| -> Result<PathBuf, PrepareError> {
                match sandbox.runtimes().choose(word, &home)? {
                    Choice::Runtime(path) | Choice::Own(path) => Ok(path),
                }
            };
            let program = chosen(program)?;
            let build = match &manifest.build {
                Some(words) => {
                    let (first, rest) = words.split_first().expect("a checked build step");
                    let mut argv = vec![chosen(first)?.into_os_string()];
                    argv.extend(rest.iter().map(OsString::from));
                    Some(Build {
                        argv,
                        seconds: limits.build_seconds,
                    })
                }
                None => None,
            };
            let limits = Limits {
                build_seconds: build.as_ref().map_or(0, |b| b.seconds),
                ..limits
            };
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            let mut launch =
                launch::program(program.as_os_str(), &args, Some(home.clone()), limits);
            launch.build = build;
            launch
        }
    };
    let every_runtime = matches!(kind, Kind::Command(_));
    let launch = sandbox.enclose(&mut staged, inner, every_runtime)?;
    Ok(Prepared {
        launch,
        _staged: staged,
    })
}

/// The canary: a correct implementation that starts a thread for each accepted call. Every
/// run starts it before grading, on the largest batches of the suite ([`canary_cases`]), so
/// a mistake that would fail every submission, or limits that would fail a correct one, is
/// a set-up error, not a class of zeros.
const CANARY: &str = include_str!("canary.py");

/// The canary's cases: for each function graded, the case with the largest batch (the most
/// calls dispatched at once).
pub fn canary_cases(cases: &[SpecCase], functions: &[Function]) -> Vec<SpecCase> {
    let size = |case: &SpecCase| -> usize {
        let length = |calls: &Value| match calls {
            Value::List(calls) => calls.len(),
            _ => 0,
        };
        let largest = match &*case.case {
            Case::Exec(c) => c
                .batches
                .iter()
                .map(|b| {
                    let limit = usize::try_from(b.max_parallel.unwrap_or(4)).unwrap_or(usize::MAX);
                    length(&b.calls).min(limit)
                })
                .max(),
            Case::Dedup(c) => c.batches.iter().map(|b| length(&b.calls)).max(),
            Case::Runtime(c) => c.batches.iter().map(|b| length(&b.calls)).max(),
        };
        largest.unwrap_or(0)
    };
    functions
        .iter()
        .filter_map(|function| {
            cases
                .iter()
                .filter(|c| c.function() == *function)
                .max_by_key(|c| (size(c), std::cmp::Reverse(c.id().to_owned())))
                .cloned()
        })
        .collect()
}

/// The canary's folder (see `CANARY`) and the submission it is, started as a submission
/// would be.
pub fn canary() -> std::io::Result<(tempfile::TempDir, Submission)> {
    let dir = tempfile::tempdir()?;
    let module = dir.path().join("canary.py");
    std::fs::write(&module, CANARY)?;
    let submission = Submission {
        name: "canary".into(),
        source: module.clone(),
        module,
        kind: Some(Kind::Module(Language::Python)),
        refused: None,
    };
    Ok((dir, submission))
}

/// The module's path within the submission's copy.
fn module_in_copy(submission: &Submission) -> PathBuf {
    if submission.source.is_dir() {
        let module = &submission.module;
        module
            .strip_prefix(&submission.source)
            .unwrap_or(module)
            .to_owned()
    } else {
        PathBuf::from(submission.module.file_name().unwrap_or_default())
    }
}

/// The longest module file name the adapter can announce: the protocol bounds every name in
/// the handshake to this many bytes.
const MODULE_NAME_BYTES: usize = 200;

/// The module's path in the copy, renamed `submission.EXT` in the copy when its file name is
/// longer than the handshake allows: a correct submission is not a protocol error for its
/// name.
fn short_module_name(stage: &Path, module: PathBuf) -> std::io::Result<PathBuf> {
    let name = module.file_name().unwrap_or_default();
    if name.len() <= MODULE_NAME_BYTES {
        return Ok(module);
    }
    let extension = module.extension().unwrap_or_default().to_string_lossy();
    let short = module.with_file_name(format!("submission.{extension}"));
    if std::fs::symlink_metadata(stage.join(&short)).is_ok() {
        return Ok(module);
    }
    std::fs::rename(stage.join(&module), stage.join(&short))?;
    Ok(short)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{self, declare_runtimes};
    use std::ffi::OsStr;

    /// The adapters fit the room intake leaves in a submission's copy (64 KiB).
    #[test]
    fn the_adapters_fit_the_room_intake_leaves() {
        for language in [Language::Python, Language::JavaScript] {
            assert!(language.adapter().1.len() <= 64 << 10, "{language:?}");
        }
    }

    /// An entry named like the adapter parcall adds refuses that submission, with the
    /// reason: it no longer makes the run incomplete.
    #[test]
    fn an_entry_named_like_the_adapter_is_refused() {
        let class = tempfile::tempdir().unwrap();
        let folder = class.path().join("mallory");
        std::fs::create_dir_all(folder.join(adapter_file(Language::Python))).unwrap();
        std::fs::write(folder.join("main.py"), "").unwrap();
        let runtimes = declare_runtimes(&[], OsStr::new("python3"), OsStr::new("node")).unwrap();
        let sandbox = Sandbox::new(runtimes, Limits::default()).unwrap();
        let submission = Submission {
            name: "mallory".into(),
            source: folder.clone(),
            module: folder.join("main.py"),
            kind: Some(Kind::Module(Language::Python)),
            refused: None,
        };
        match prepare(&sandbox, 1, &submission) {
            Err(PrepareError::Refused(Refusal::Reserved(name))) => {
                assert_eq!(name, adapter_file(Language::Python))
            }
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("prepared"),
        }
    }

    /// The sandbox asks the subject's builder for the launch `check` would run, with the
    /// adapter in the submission's private copy, and only wraps it: the command it runs last
    /// is the builder's (its interpreter found on the sandbox's PATH).
    #[test]
    fn a_submission_runs_the_subjects_launch_inside_the_wrap() {
        let class = tempfile::tempdir().unwrap();
        let runtimes = declare_runtimes(&[], OsStr::new("python3"), OsStr::new("node")).unwrap();
        let sandbox = Sandbox::new(runtimes, Limits::default()).unwrap();
        for (file, language, interpreter) in [
            ("alice.py", Language::Python, "python3"),
            ("bob.mjs", Language::JavaScript, "node"),
        ] {
            let module = class.path().join(file);
            std::fs::write(&module, "").unwrap();
            let submission = Submission {
                name: file.into(),
                source: module.clone(),
                module,
                kind: Some(Kind::Module(language)),
                refused: None,
            };
            let slot = usize::from(language == Language::JavaScript) + 1;
            let prepared = match prepare(&sandbox, slot, &submission) {
                Ok(prepared) => prepared,
                Err(PrepareError::Stage(StageError::Layout(e))) => {
                    eprintln!("skipped {file}: {e}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            assert!(prepared.launch.clear_env);
            let home = PathBuf::from(&prepared.launch.env[1].1);
            let built = language.module(
                OsStr::new(interpreter),
                &home.join(adapter_file(language)),
                &home.join(file),
                Limits::default(),
            );
            let built = built.command_line();
            let line = if prepared
                .launch
                .args
                .first()
                .is_some_and(|a| a == sandbox::ENTRY)
            {
                let plan = sandbox::carried(&prepared.launch).unwrap();
                plan.argv.into_iter().map(OsString::from).collect()
            } else {
                prepared.launch.command_line()
            };
            assert!(
                line[1..].ends_with(&built[1..]),
                "{line:?} does not end with {built:?}"
            );
        }
    }
}
