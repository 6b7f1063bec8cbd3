//! Turning what the user names into a process that speaks the protocol: a Python module
//! runs under the embedded Python adapter, a JavaScript module under the Node adapter;
//! `--cmd` runs any program as it is. The launches themselves are built by
//! [`super::launch`], which `grade`'s sandbox uses too.

use super::environment::EnvPolicy;
use super::launch::{self, Contained, Language, Wrap};
use super::manifest::MANIFEST;
use crate::process::build::Build;
use crate::process::{interrupt, Launch, Limits};
use crate::sandbox::{contain, Containment};
use crate::sandbox::{Choice, Runtimes};
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The JavaScript adapter (Node 20+), embedded likewise.
pub const JAVASCRIPT_ADAPTER: &str =
    include_str!("../../conformance/adapters/javascript/parcall_adapter.mjs");

/// The Python adapter, embedded so the binary works from anywhere.
pub const PYTHON_ADAPTER: &str =
    include_str!("../../conformance/adapters/python/parcall_adapter.py");

/// Why an implementation cannot be prepared: the user's input, not the implementation.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error("{path}: no such file")]
    Missing { path: PathBuf },
    #[error("{path}: parcall checks Python modules (`.py`) and JavaScript modules (`.mjs`, `.cjs`, `.js`); for other languages pass `--cmd \"PROGRAM ARGS\"` with a program that speaks the protocol (conformance/PROTOCOL.md)")]
    UnknownKind { path: PathBuf },
    #[error("--cmd: {0}")]
    Command(String),
    #[error("{flag} {program}: {problem}")]
    Program {
        flag: &'static str,
        program: String,
        problem: &'static str,
    },
    #[error("{path}: not a regular file; name the module's file")]
    NotAFile { path: PathBuf },
    #[error("{}: Node reads a module's path as UTF-8, and this one is not: rename the file or its folder", .path.display())]
    NotUtf8 { path: PathBuf },
    #[error("{}: {reason}", .path.display())]
    Manifest { path: PathBuf, reason: String },
    #[error("cannot write the adapter to a temporary folder: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Runtime(#[from] crate::sandbox::RuntimeError),
}

/// A launch and what it needs to stay alive (the adapter's temporary folder).
pub struct Prepared {
    pub launch: Launch,
    /// What the reports call the implementation: its path or its command.
    pub target: String,
    /// How its descendants are kept from outliving the run.
    pub containment: Containment,
    /// The programs its containment may lay out by asking them: those the caller named.
    pub runtimes: Runtimes,
    /// A manifest's folder: the only files of the machine its sandbox copies (its arguments
    /// are its own words, never files to copy).
    pub own_folder: Option<PathBuf>,
    _adapter_dir: Option<interrupt::TempDir>,
}

impl Prepared {
    /// The same launch with only the environment `env` lets through, inside the strongest
    /// containment this machine allows.
    pub fn contained(mut self, env: &EnvPolicy) -> Prepared {
        self.launch.readable = env.readable.clone();
        self.launch.clear_env = !env.inherit;
        if !env.inherit {
            self.launch.env = env.select(std::env::vars_os());
        }
        self.containment = contain::detect();
        let contained = Contained {
            containment: &self.containment,
            runtimes: &self.runtimes,
            own_folder: self.own_folder.as_deref(),
        };
        self.launch = contained.wrap(self.launch);
        self
    }
}

/// The program `name` resolves to, as exec would find it (a path, or a name searched on
/// PATH), checked before anything runs: a missing interpreter is the user's set-up error,
/// not a verdict on the implementation. `flag` names where it came from.
pub fn resolve_program(name: &OsStr, flag: &'static str) -> Result<PathBuf, PrepareError> {
    let search = std::env::var_os("PATH").unwrap_or_default();
    crate::sandbox::runtimes::find(name, &search).map_err(|problem| PrepareError::Program {
        flag,
        program: name.to_string_lossy().into_owned(),
        problem,
    })
}

/// A manifest's program of its own folder, checked without following a link: each folder on
/// the way and the file itself looked at with `lstat`, so a link planted in the folder
/// (`bin -> /root`) tells nothing of the machine's files beyond it. One message for every
/// reason, for the same cause.
fn own_program(folder: &Path, file: &Path) -> Result<PathBuf, String> {
    let refused = || {
        format!(
            "`{}` is not an executable regular file of the folder reached without a link",
            file.strip_prefix(folder).unwrap_or(file).display()
        )
    };
    let inner = file.strip_prefix(folder).map_err(|_| refused())?;
    let mut walked = folder.to_owned();
    let mut components = inner.components().peekable();
    while let Some(component) = components.next() {
        walked.push(component);
        let metadata = std::fs::symlink_metadata(&walked).map_err(|_| refused())?;
        let last = components.peek().is_none();
        let fits = if last {
            metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
        } else {
            metadata.is_dir()
        };
        if !fits {
            return Err(refused());
        }
    }
    Ok(walked)
}

/// How to run a Python module: the interpreter, isolated (`-I`: no user site, no
/// PYTHON* variables) and writing no `.pyc` files into the submission's folder (`-B`).
pub fn python_module(
    path: &Path,
    python: &OsString,
    limits: Limits,
) -> Result<Prepared, PrepareError> {
    if path.extension().is_none_or(|ext| ext != "py") && path.is_file() {
        return Err(PrepareError::UnknownKind {
            path: path.to_owned(),
        });
    }
    under_adapter(path, Language::Python, python, limits)
}

/// How to run a JavaScript module (ESM or CommonJS) under Node 20+.
pub fn javascript_module(
    path: &Path,
    node: &OsString,
    limits: Limits,
) -> Result<Prepared, PrepareError> {
    // Node decodes its arguments as UTF-8, replacing what is not, and then cannot find the
    // module: a set-up error to name, not a verdict. (Python keeps the bytes; its adapter
    // sends such a name as U+FFFD.)
    if std::path::absolute(path)?.to_str().is_none() {
        return Err(PrepareError::NotUtf8 {
            path: path.to_owned(),
        });
    }
    under_adapter(path, Language::JavaScript, node, limits)
}

/// The module under its language's adapter (see [`Language::module`]), with the embedded
/// adapter written to a temporary folder that lives as long as the returned value.
fn under_adapter(
    path: &Path,
    language: Language,
    interpreter: &OsString,
    limits: Limits,
) -> Result<Prepared, PrepareError> {
    if !path.exists() {
        return Err(PrepareError::Missing {
            path: path.to_owned(),
        });
    }
    // A FIFO or device named as the module would hang the interpreter that opens it.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Err(PrepareError::NotAFile {
            path: path.to_owned(),
        });
    }
    let interpreter = resolve_program(interpreter, language.flag())?;
    let (adapter_name, adapter_source) = language.adapter();
    remove_stale_dirs(ADAPTER_DIR_PREFIX);
    // Registered for removal on SIGINT, SIGTERM and SIGHUP, the adapter written before a
    // clean-up can begin.
    let dir = interrupt::TempDir::create(
        tempfile::Builder::new().prefix(&format!("{ADAPTER_DIR_PREFIX}{}-", std::process::id())),
        None,
        |dir| std::fs::write(dir.join(adapter_name), adapter_source),
    )?;
    let adapter = dir.path().join(adapter_name);
    let module = std::path::absolute(path)?;
    // Only a manifest builds.
    let limits = Limits {
        build_seconds: 0,
        ..limits
    };
    Ok(Prepared {
        launch: language.module(interpreter.as_os_str(), &adapter, &module, limits),
        target: path.display().to_string(),
        containment: Containment::ProcessGroup,
        runtimes: Runtimes::default().with(language.flag().trim_start_matches('-'), &interpreter),
        own_folder: None,
        _adapter_dir: Some(dir),
    })
}

/// Adapter folders are named `parcall-adapter-<pid>-<random>` after the parcall that made them.
const ADAPTER_DIR_PREFIX: &str = "parcall-adapter-";

/// Removes the temporary folders named `<prefix><pid>-<random>` (adapter folders, mutant
/// workspaces) of parcall runs that were killed before they could (a killed CI step; a run
/// ended by SIGINT, SIGTERM or SIGHUP removes its own, see [`interrupt`]): ours,
/// by uid, whose parcall is gone. A folder whose pid is alive is left alone, even if that
/// pid was reused: one stale folder is cheaper than a wrong guess.
pub fn remove_stale_dirs(prefix: &str) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    // SAFETY: geteuid has no side effects.
    let uid = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        // symlink_metadata: a link planted under that name is not followed.
        let ours = std::fs::symlink_metadata(entry.path())
            .is_ok_and(|m| m.is_dir() && std::os::unix::fs::MetadataExt::uid(&m) == uid);
        // SAFETY: kill with signal 0 only checks that the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if ours && gone && pid > 0 {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A program that speaks the protocol itself, given as one shell-style command line by the
/// caller: its program is declared for this run, beside `runtimes`.
pub fn command(line: &str, runtimes: &Runtimes, limits: Limits) -> Result<Prepared, PrepareError> {
    let words = shell_words::split(line).map_err(|e| PrepareError::Command(e.to_string()))?;
    let Some((program, args)) = words.split_first() else {
        return Err(PrepareError::Command("the command is empty".into()));
    };
    let program = resolve_program(OsStr::new(program), "--cmd")?;
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let limits = Limits {
        build_seconds: 0,
        ..limits
    };
    Ok(Prepared {
        launch: launch::program(program.as_os_str(), &args, None, limits),
        target: line.to_owned(),
        containment: Containment::ProcessGroup,
        runtimes: runtimes.clone().with("cmd", &program),
        own_folder: None,
        _adapter_dir: None,
    })
}

/// The adapter for a module, by its extension.
pub fn module(
    path: &Path,
    python: &OsString,
    node: &OsString,
    limits: Limits,
) -> Result<Prepared, PrepareError> {
    match Language::of(path) {
        Some(Language::JavaScript) => javascript_module(path, node, limits),
        _ => python_module(path, python, limits),
    }
}

/// What a path names: a program of its own when it is a manifest (`parcall.json`) or a folder
/// holding one, run in the manifest's folder; otherwise a module, as [`module`] takes it.
/// A manifest's program is one of `runtimes` (by name) or a file of its own folder: the
/// manifest is the implementation's, and names nothing else of the machine.
pub fn module_or_manifest(
    path: &Path,
    python: &OsString,
    node: &OsString,
    runtimes: &Runtimes,
    limits: Limits,
) -> Result<Prepared, PrepareError> {
    let manifest = if path.is_dir() {
        path.join(MANIFEST)
    } else {
        path.to_owned()
    };
    if manifest.file_name() != Some(OsStr::new(MANIFEST)) {
        return module(path, python, node, limits);
    }
    let problem = |reason: String| PrepareError::Manifest {
        path: manifest.clone(),
        reason,
    };
    if !manifest.exists() {
        return Err(problem(format!(
            "no such file; a folder names an implementation when it holds a `{MANIFEST}`"
        )));
    }
    let read = super::manifest::read(&manifest).map_err(problem)?;
    let folder = std::path::absolute(manifest.parent().unwrap_or(Path::new(".")))?;
    let (program, args) = read
        .cmd
        .split_first()
        .expect("a read manifest names a program");
    let chosen = |word: &str| match runtimes.choose(word, &folder) {
        Ok(Choice::Runtime(program)) => Ok(program),
        Ok(Choice::Own(file)) => own_program(&folder, &file).map_err(problem),
        Err(error) => Err(problem(error.to_string())),
    };
    // A program its build step makes is not there yet: it is taken by its words alone, and
    // runs only inside, where the folder's copy holds no link.
    let program = match (&read.build, runtimes.choose(program, &folder)) {
        (Some(_), Ok(Choice::Own(file))) => file,
        _ => chosen(program)?,
    };
    let build = match &read.build {
        Some(words) => {
            let (first, rest) = words.split_first().expect("a read build names a program");
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
    let mut launch = launch::program(program.as_os_str(), &args, Some(folder.clone()), limits);
    launch.build = build;
    Ok(Prepared {
        launch,
        target: path.display().to_string(),
        containment: Containment::ProcessGroup,
        runtimes: runtimes.clone(),
        own_folder: Some(folder),
        _adapter_dir: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check` and `grade` run a Python module by the same builder: what `check` prepares is
    /// [`Language::module`] with the adapter where `check` wrote it, and only the wrap
    /// (containment here, the sandbox in `grade`) differs.
    #[test]
    fn check_builds_the_launch_of_the_shared_builder() {
        let dir = tempfile::tempdir().unwrap();
        let module = dir.path().join("solution.py");
        std::fs::write(&module, "").unwrap();
        let limits = Limits::default();
        let prepared = python_module(&module, &OsString::from("sh"), limits).unwrap();
        let adapter = PathBuf::from(&prepared.launch.args[2]);
        assert_eq!(adapter.file_name().unwrap(), "parcall_adapter.py");
        assert_eq!(std::fs::read_to_string(&adapter).unwrap(), PYTHON_ADAPTER);
        let interpreter = resolve_program(OsStr::new("sh"), "--python").unwrap();
        let built = Language::Python.module(interpreter.as_os_str(), &adapter, &module, limits);
        assert_eq!(prepared.launch.command_line(), built.command_line());
        assert_eq!(prepared.launch.current_dir, built.current_dir);
        assert!(prepared.launch.env.is_empty() && !prepared.launch.clear_env);
        // Unwrapped, the command is the builder's; wrapped, the builder's command is what
        // the wrap runs last.
        let contained = Contained {
            containment: &prepared.containment,
            runtimes: &prepared.runtimes,
            own_folder: None,
        }
        .wrap(built.clone());
        let line = contained.command_line();
        assert!(line.ends_with(&built.command_line()));
    }
}
