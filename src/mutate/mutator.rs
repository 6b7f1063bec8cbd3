//! Making the mutants: the embedded Python script (`conformance/adapters/python/
//! parcall_mutator.py`, standard library `ast` only) parses the module and sends back one
//! edit per mutant. It runs as any implementation does (contained, limited, on private
//! pipes, with a deadline): it never executes the module, but the module is still hostile
//! input to a parser.

use super::{Mutant, MutantId};
use crate::process::{Child, Event, Launch, Limits, Received};
use crate::sandbox::contain;
use crate::sandbox::Runtimes;
use crate::subject::adapters::resolve_program;
use crate::subject::environment::EnvPolicy;
use serde::Deserialize;
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

/// The mutator, embedded so the binary works from anywhere.
pub const PYTHON_MUTATOR: &str =
    include_str!("../../conformance/adapters/python/parcall_mutator.py");

/// How long the mutator may take for one module.
const DEADLINE: Duration = Duration::from_secs(120);
/// Most mutants made of one module: far above any exercise solution.
pub const MAX_MUTANTS: usize = 5000;

/// The functions parcall calls, where mutation starts.
const ENTRY: [&str; 2] = ["execute_tool_calls", "run_parallel_calls"];
/// What parcall replaces with its own before calling the functions: never mutated.
const REPLACED: [&str; 1] = ["dispatch"];

/// The mutants of one module.
#[derive(Debug, Clone, Default)]
pub struct Made {
    pub mutants: Vec<Mutant>,
    /// Mutants that did not compile (not counted anywhere else).
    pub not_compiling: usize,
    /// Mutants the mutator could not write as an edit of the text (not counted either).
    pub unwritable: usize,
}

/// Why no mutants could be made.
#[derive(Debug, thiserror::Error)]
pub enum MutatorError {
    #[error("{path}:{line}:{column}: syntax error: {message}")]
    Syntax {
        path: String,
        line: u64,
        column: u64,
        message: String,
    },
    #[error("{0}")]
    Module(String),
    #[error("the mutator failed: {0}")]
    Failed(String),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Reply {
    Mutant(Box<Edit>),
    Done {
        not_compiling: usize,
        unwritable: usize,
    },
    Error {
        kind: String,
        message: String,
        #[serde(default)]
        line: Option<u64>,
        #[serde(default)]
        column: Option<u64>,
    },
}

#[derive(Deserialize)]
struct Edit {
    scope: String,
    operator: String,
    original: String,
    mutated: String,
    occurrence: usize,
    line: usize,
    end_line: usize,
    start: usize,
    end: usize,
    replacement: String,
}

/// Runs the mutator on `source` (the text of the module at `path`).
pub fn make(
    path: &Path,
    source: &str,
    python: &OsString,
    limits: Limits,
    folder: &Path,
) -> Result<Made, MutatorError> {
    let python =
        resolve_program(python, "--python").map_err(|e| MutatorError::Module(e.to_string()))?;
    let script = folder.join("parcall_mutator.py");
    std::fs::write(&script, PYTHON_MUTATOR)
        .map_err(|e| MutatorError::Failed(format!("cannot write the mutator: {e}")))?;
    let launch = Launch {
        program: python.into_os_string(),
        args: vec!["-I".into(), "-B".into(), script.into_os_string()],
        env: EnvPolicy::default().select(std::env::vars_os()),
        clear_env: true,
        current_dir: None,
        limits,
        readable: Vec::new(),
        stdin: None,
        build: None,
    };
    let runtimes = Runtimes::default().with("python", Path::new(&launch.program));
    let launch = contain::wrap(&launch, &contain::detect(), &runtimes, None);
    let mut child =
        Child::spawn(&launch).map_err(|e| MutatorError::Failed(format!("cannot start: {e}")))?;
    let filename = path
        .file_name()
        .map_or_else(|| "module.py".into(), |n| n.to_string_lossy().into_owned());
    let request = serde_json::json!({
        "source": source,
        "filename": filename,
        "entry": ENTRY,
        "replaced": REPLACED,
    });
    child.send(format!("{request}\n"));
    let deadline = Instant::now() + DEADLINE;
    let mut made = Made::default();
    loop {
        let line = match child.receive(deadline) {
            Received::Event(Event::Line(line)) => line,
            Received::Timeout => {
                return Err(MutatorError::Failed(format!(
                    "no answer within {}s",
                    DEADLINE.as_secs()
                )))
            }
            Received::Event(Event::LineTooLong | Event::Closed) => {
                let tail = child.output_tail();
                return Err(MutatorError::Failed(format!(
                    "it stopped before it finished{}",
                    if tail.trim().is_empty() {
                        String::new()
                    } else {
                        format!(":\n{}", crate::text::terminal::multiline(tail.trim_end()))
                    }
                )));
            }
        };
        let reply: Reply = serde_json::from_str(&line)
            .map_err(|e| MutatorError::Failed(format!("unreadable reply: {e}")))?;
        match reply {
            Reply::Mutant(edit) => {
                let mutant = checked(*edit, source)?;
                made.mutants.push(mutant);
                if made.mutants.len() > MAX_MUTANTS {
                    return Err(MutatorError::Module(format!(
                        "{}: more than {MAX_MUTANTS} mutants; mutate a smaller module",
                        path.display()
                    )));
                }
            }
            Reply::Done {
                not_compiling,
                unwritable,
            } => {
                made.not_compiling = not_compiling;
                made.unwritable = unwritable;
                break;
            }
            Reply::Error {
                kind,
                message,
                line,
                column,
            } => {
                return Err(if kind == "syntax" {
                    MutatorError::Syntax {
                        path: path.display().to_string(),
                        line: line.unwrap_or(0),
                        column: column.unwrap_or(0),
                        message,
                    }
                } else if kind == "python" {
                    MutatorError::Module(message)
                } else {
                    MutatorError::Module(format!("{}: {message}", path.display()))
                })
            }
        }
    }
    child.finish(Instant::now() + Duration::from_millis(500));
    Ok(made)
}

/// The mutant an edit makes, after checking the edit lies inside the text on character
/// boundaries (the script is ours, but its answer is still checked before it is trusted).
fn checked(edit: Edit, source: &str) -> Result<Mutant, MutatorError> {
    let inside = edit.start <= edit.end
        && edit.end <= source.len()
        && source.is_char_boundary(edit.start)
        && source.is_char_boundary(edit.end);
    if !inside {
        return Err(MutatorError::Failed(format!(
            "an edit outside the text ({}..{} of {} bytes)",
            edit.start,
            edit.end,
            source.len()
        )));
    }
    let mut text = String::with_capacity(source.len() + edit.replacement.len());
    text.push_str(&source[..edit.start]);
    text.push_str(&edit.replacement);
    text.push_str(&source[edit.end..]);
    Ok(Mutant {
        id: MutantId {
            scope: edit.scope,
            operator: edit.operator,
            original: edit.original,
            mutated: edit.mutated,
            occurrence: edit.occurrence,
        },
        line: edit.line,
        end_line: edit.end_line,
        text,
    })
}
