//! Turning what the user names into a process that speaks the protocol: a Python module
//! runs under the embedded Python adapter; `--cmd` runs any program as it is.

use crate::process::{Launch, Limits};
use std::ffi::OsString;
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
    #[error("cannot write the adapter to a temporary folder: {0}")]
    Io(#[from] std::io::Error),
}

/// A launch and what it needs to stay alive (the adapter's temporary folder).
pub struct Prepared {
    pub launch: Launch,
    /// What the reports call the implementation: its path or its command.
    pub target: String,
    _adapter_dir: Option<tempfile::TempDir>,
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
    if !path.is_file() {
        return Err(PrepareError::Missing {
            path: path.to_owned(),
        });
    }
    let dir = tempfile::Builder::new()
        .prefix("parcall-adapter-")
        .tempdir()?;
    let adapter = dir.path().join(adapter_name);
    std::fs::write(&adapter, adapter_source)?;
    let module = std::path::absolute(path)?;
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.extend([adapter.into_os_string(), module.into_os_string()]);
    Ok(Prepared {
        launch: Launch {
            program: interpreter.clone(),
            args,
            env: Vec::new(),
            clear_env: false,
            current_dir: None,
            limits,
        },
        target: path.display().to_string(),
        _adapter_dir: Some(dir),
    })
}

/// A program that speaks the protocol itself, given as one shell-style command line.
pub fn command(line: &str, limits: Limits) -> Result<Prepared, PrepareError> {
    let words = shell_words::split(line).map_err(|e| PrepareError::Command(e.to_string()))?;
    let Some((program, args)) = words.split_first() else {
        return Err(PrepareError::Command("the command is empty".into()));
    };
    Ok(Prepared {
        launch: Launch {
            program: program.into(),
            args: args.iter().map(OsString::from).collect(),
            env: Vec::new(),
            clear_env: false,
            current_dir: None,
            limits,
        },
        target: line.to_owned(),
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
