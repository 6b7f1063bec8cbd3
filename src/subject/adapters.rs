//! Turning what the user names into a process that speaks the protocol: a Python module
//! runs under the embedded Python adapter; `--cmd` runs any program as it is.

use super::environment::EnvPolicy;
use crate::process::{contain, Containment, Launch, Limits};
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
        problem: String,
    },
    #[error("{path}: not a regular file; name the module's file")]
    NotAFile { path: PathBuf },
    #[error("{}: Node reads a module's path as UTF-8, and this one is not: rename the file or its folder", .path.display())]
    NotUtf8 { path: PathBuf },
    #[error("cannot write the adapter to a temporary folder: {0}")]
    Io(#[from] std::io::Error),
}

/// A launch and what it needs to stay alive (the adapter's temporary folder).
pub struct Prepared {
    pub launch: Launch,
    /// What the reports call the implementation: its path or its command.
    pub target: String,
    /// How its descendants are kept from outliving the run.
    pub containment: Containment,
    _adapter_dir: Option<tempfile::TempDir>,
}

impl Prepared {
    /// The same launch with only the environment `env` lets through, inside the strongest
    /// containment this machine allows.
    pub fn contained(mut self, env: &EnvPolicy) -> Prepared {
        self.launch.clear_env = !env.inherit;
        if !env.inherit {
            self.launch.env = env.select(std::env::vars_os());
        }
        self.containment = contain::detect();
        self.launch = contain::wrap(&self.launch, &self.containment);
        self
    }
}

/// The program `name` resolves to, as exec would find it (a path, or a name searched on
/// PATH), checked before anything runs: a missing interpreter is the user's set-up error,
/// not a verdict on the implementation. `flag` names where it came from.
pub fn resolve_program(name: &OsStr, flag: &'static str) -> Result<PathBuf, PrepareError> {
    let problem = |problem: &str| PrepareError::Program {
        flag,
        program: name.to_string_lossy().into_owned(),
        problem: problem.to_owned(),
    };
    if name.is_empty() {
        return Err(problem("the program name is empty"));
    }
    let path = Path::new(name);
    if path.components().count() > 1 || name.as_encoded_bytes().contains(&b'/') {
        return match executable(path) {
            Ok(()) => Ok(path.to_owned()),
            Err(why) => Err(problem(why)),
        };
    }
    let search = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&search)
        .map(|dir| dir.join(path))
        .find(|candidate| executable(candidate).is_ok())
        .ok_or_else(|| problem("not found on PATH"))
}

fn executable(path: &Path) -> Result<(), &'static str> {
    let metadata = std::fs::metadata(path).map_err(|_| "no such file")?;
    if !metadata.is_file() {
        return Err("not a file");
    }
    if metadata.permissions().mode() & 0o111 == 0 {
        return Err("not executable");
    }
    Ok(())
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
    under_adapter(
        path,
        python,
        &["-I", "-B"],
        ("parcall_adapter.py", PYTHON_ADAPTER),
        limits,
    )
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
    under_adapter(
        path,
        node,
        &[],
        ("parcall_adapter.mjs", JAVASCRIPT_ADAPTER),
        limits,
    )
}

/// `INTERPRETER [FLAGS] ADAPTER MODULE`, with the embedded adapter written to a temporary
/// folder that lives as long as the returned value.
fn under_adapter(
    path: &Path,
    interpreter: &OsString,
    flags: &[&str],
    (adapter_name, adapter_source): (&str, &str),
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
    let flag = if adapter_name.ends_with(".py") {
        "--python"
    } else {
        "--node"
    };
    let interpreter = resolve_program(interpreter, flag)?;
    remove_stale_dirs(ADAPTER_DIR_PREFIX);
    let dir = tempfile::Builder::new()
        .prefix(&format!("{ADAPTER_DIR_PREFIX}{}-", std::process::id()))
        .tempdir()?;
    let adapter = dir.path().join(adapter_name);
    std::fs::write(&adapter, adapter_source)?;
    let module = std::path::absolute(path)?;
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.extend([adapter.into_os_string(), module.into_os_string()]);
    Ok(Prepared {
        launch: Launch {
            program: interpreter.into_os_string(),
            args,
            env: Vec::new(),
            clear_env: false,
            current_dir: None,
            limits,
        },
        target: path.display().to_string(),
        containment: Containment::ProcessGroup,
        _adapter_dir: Some(dir),
    })
}

/// Adapter folders are named `parcall-adapter-<pid>-<random>` after the parcall that made them.
const ADAPTER_DIR_PREFIX: &str = "parcall-adapter-";

/// Removes the temporary folders named `<prefix><pid>-<random>` (adapter folders, mutant
/// workspaces) of parcall runs that were killed before they could (a killed CI step): ours,
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

/// A program that speaks the protocol itself, given as one shell-style command line.
pub fn command(line: &str, limits: Limits) -> Result<Prepared, PrepareError> {
    let words = shell_words::split(line).map_err(|e| PrepareError::Command(e.to_string()))?;
    let Some((program, args)) = words.split_first() else {
        return Err(PrepareError::Command("the command is empty".into()));
    };
    let program = resolve_program(OsStr::new(program), "--cmd")?;
    Ok(Prepared {
        launch: Launch {
            program: program.into_os_string(),
            args: args.iter().map(OsString::from).collect(),
            env: Vec::new(),
            clear_env: false,
            current_dir: None,
            limits,
        },
        target: line.to_owned(),
        containment: Containment::ProcessGroup,
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
    match path.extension().and_then(|e| e.to_str()) {
        Some("mjs" | "cjs" | "js") => javascript_module(path, node, limits),
        _ => python_module(path, python, limits),
    }
}
