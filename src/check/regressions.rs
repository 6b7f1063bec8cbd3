//! Counterexamples kept on disk: the regressions file the next run replays first (like
//! proptest-regressions), and `--save-failures`, which writes each one as a ready-to-commit
//! case file in the spec's format.

use crate::json::{self, Value};
use crate::spec::{Case, CaseFile, Origin, SpecCase};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::path::Path;

const FORMAT: &str = "parcall-regressions";
/// Version 2 keys counterexamples by the implementation that produced them; version 1 kept
/// one list for every implementation checked from a folder.
const VERSION: u32 = 2;

/// The regressions file: per implementation (its canonical module path or its `--cmd`
/// line), counterexamples as one-case case files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegressionsFile {
    format: String,
    version: u32,
    implementations: IndexMap<String, Vec<CaseFile>>,
}

/// Why a regressions file could not be used. Reported as a warning, never overwritten: a
/// file that cannot be read is not silently replaced.
#[derive(Debug, thiserror::Error)]
pub enum RegressionsError {
    #[error("{path}: cannot read: {message}")]
    Read { path: String, message: String },
    #[error("{path}: cannot write: {message}")]
    Write { path: String, message: String },
}

/// The case file holding just `case`.
pub fn case_file(case: &SpecCase) -> CaseFile {
    match &*case.case {
        Case::Exec(c) => CaseFile::ExecuteToolCalls {
            schema: None,
            topic: "regressions".into(),
            cases: vec![c.clone()],
        },
        Case::Dedup(c) => CaseFile::RunParallelCalls {
            schema: None,
            topic: "regressions".into(),
            cases: vec![c.clone()],
        },
        Case::Runtime(c) => CaseFile::RunToolCalls {
            schema: None,
            topic: "regressions".into(),
            cases: vec![c.clone()],
        },
    }
}

fn cases_of(file: CaseFile, origin: &str) -> Vec<SpecCase> {
    let cases: Vec<Case> = match file {
        CaseFile::ExecuteToolCalls { cases, .. } => cases.into_iter().map(Case::Exec).collect(),
        CaseFile::RunParallelCalls { cases, .. } => cases.into_iter().map(Case::Dedup).collect(),
        CaseFile::RunToolCalls { cases, .. } => cases.into_iter().map(Case::Runtime).collect(),
    };
    cases
        .into_iter()
        .map(|case| SpecCase {
            origin: Origin::Regression {
                file: origin.to_owned(),
            },
            case: case.into(),
        })
        .collect()
}

/// The whole file at `path`; empty when it does not exist. Opened without blocking, and
/// only when it is a regular file, so a FIFO planted at the path cannot hang the run.
fn read_file(path: &Path) -> Result<RegressionsFile, RegressionsError> {
    let read_error = |message: String| RegressionsError::Read {
        path: path.display().to_string(),
        message,
    };
    let text = match crate::json::read_regular_file(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(RegressionsFile {
                format: FORMAT.into(),
                version: VERSION,
                implementations: IndexMap::new(),
            })
        }
        Err(error) => return Err(read_error(error.to_string())),
    };
    let value = json::parse(&text).map_err(|e| read_error(e.to_string()))?;
    let version = value.as_object().and_then(|o| o.get("version")).cloned();
    if version != Some(Value::from(VERSION as i64)) {
        return Err(read_error(format!(
            "not a {FORMAT} file of version {VERSION} (delete it to start afresh)"
        )));
    }
    let file: RegressionsFile = json::from_value(&value).map_err(|e| read_error(e.to_string()))?;
    if file.format != FORMAT {
        return Err(read_error(format!("not a {FORMAT} file")));
    }
    Ok(file)
}

/// Where counterexamples are kept between runs, so the next run replays them first (as
/// proptest's failure persistence): a file, keyed by implementation, or nowhere.
pub trait Regressions {
    /// The counterexamples to replay before anything else.
    fn replay(&self) -> Result<Vec<SpecCase>, RegressionsError>;
    /// Keeps `counterexample`; says where when it was not kept already.
    fn record(&self, counterexample: &SpecCase) -> Result<Option<String>, RegressionsError>;
    /// Where the replayed counterexamples come from, for the run to say so.
    fn origin(&self) -> Option<String> {
        None
    }
}

/// Counterexamples kept in a regressions file, under one implementation's key.
pub struct FileRegressions {
    pub path: std::path::PathBuf,
    /// Who the counterexamples are kept for: another implementation's are never replayed.
    pub implementation: String,
    /// Whether the recorded ones run first: not with a case or requirement filter (the run
    /// is about those cases); new ones are recorded either way.
    pub replay: bool,
}

impl Regressions for FileRegressions {
    fn replay(&self) -> Result<Vec<SpecCase>, RegressionsError> {
        if !self.replay {
            return Ok(Vec::new());
        }
        load(&self.path, &self.implementation)
    }

    fn record(&self, counterexample: &SpecCase) -> Result<Option<String>, RegressionsError> {
        let recorded = record(&self.path, &self.implementation, counterexample)?;
        Ok(recorded.then(|| self.path.display().to_string()))
    }

    fn origin(&self) -> Option<String> {
        Some(self.path.display().to_string())
    }
}

/// Counterexamples kept nowhere: a gated run (its verdict depends only on the spec, the
/// seed and the expectations file), grading, mutation testing.
pub struct NoRegressions;

impl Regressions for NoRegressions {
    fn replay(&self) -> Result<Vec<SpecCase>, RegressionsError> {
        Ok(Vec::new())
    }

    fn record(&self, _: &SpecCase) -> Result<Option<String>, RegressionsError> {
        Ok(None)
    }
}

/// The counterexamples recorded at `path` for `implementation`; none when the file does not
/// exist. Another implementation's counterexamples are never replayed against this one.
pub fn load(path: &Path, implementation: &str) -> Result<Vec<SpecCase>, RegressionsError> {
    let mut file = read_file(path)?;
    let origin = path.display().to_string();
    Ok(file
        .implementations
        .swap_remove(implementation)
        .unwrap_or_default()
        .into_iter()
        .flat_map(|f| cases_of(f, &origin))
        .collect())
}

/// Adds `case` to `implementation`'s counterexamples at `path` unless a case with the same
/// inputs is there already.
pub fn record(
    path: &Path,
    implementation: &str,
    case: &SpecCase,
) -> Result<bool, RegressionsError> {
    // Two checks run from one folder at once must not lose each other's counterexamples:
    // the read-modify-write happens under an exclusive lock on a file beside it.
    let _lock = lock_beside(path)?;
    let mut file = read_file(path)?;
    let origin = path.display().to_string();
    let known = file
        .implementations
        .entry(implementation.to_owned())
        .or_default();
    let same_inputs = |a: &SpecCase| inputs(a) == inputs(case);
    if known
        .iter()
        .flat_map(|f| cases_of(f.clone(), &origin))
        .any(|c| same_inputs(&c))
    {
        return Ok(false);
    }
    known.push(case_file(case));
    write_json(path, &json::to_value(&file))?;
    Ok(true)
}

/// A case's inputs, for telling counterexamples apart regardless of their ids: canonical
/// JSON, where `0.0` and `-0.0`, `1` and `1.0`, and NaN stay distinct.
fn inputs(case: &SpecCase) -> String {
    let value = match &*case.case {
        Case::Exec(c) => json::to_value(&(
            &c.dispatch,
            c.batches
                .iter()
                .map(|b| (&b.calls, b.max_parallel))
                .collect::<Vec<_>>(),
        )),
        Case::Dedup(c) => json::to_value(&(
            &c.tools,
            c.batches.iter().map(|b| &b.calls).collect::<Vec<_>>(),
        )),
        Case::Runtime(c) => json::to_value(&(
            &c.tools,
            c.batches.iter().map(|b| &b.calls).collect::<Vec<_>>(),
        )),
    };
    json::dumps(&value, json::Style::CANONICAL)
}

/// Writes `case` as `DIR/<id>.json`, a case file ready to commit under spec/cases/.
pub fn save_case_file(dir: &Path, case: &SpecCase) -> Result<std::path::PathBuf, RegressionsError> {
    let path = dir.join(format!("{}.json", case.id()));
    write_json(&path, &json::to_value(&case_file(case)))?;
    Ok(path)
}

/// An exclusive `flock` on `<path>.lock`, held until the returned file is dropped.
fn lock_beside(path: &Path) -> Result<std::fs::File, RegressionsError> {
    use std::os::fd::AsRawFd;
    let lock_error = |message: String| RegressionsError::Write {
        path: path.display().to_string(),
        message: format!("cannot lock: {message}"),
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| lock_error(e.to_string()))?;
    }
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(std::path::PathBuf::from(name))
        .map_err(|e| lock_error(e.to_string()))?;
    // SAFETY: flock(2) takes integers only; `file` holds the fd open for the call. It blocks
    // only while another parcall holds the lock.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(lock_error(std::io::Error::last_os_error().to_string()));
    }
    Ok(file)
}

/// Writes pretty JSON in Python's dialect (NaN and the infinities survive) through a
/// temporary file and a rename, so a crash never leaves a half-written file behind.
fn write_json(path: &Path, value: &Value) -> Result<(), RegressionsError> {
    let write_error = |message: String| RegressionsError::Write {
        path: path.display().to_string(),
        message,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| write_error(e.to_string()))?;
    }
    let mut text = json::dumps(value, json::Style::FILE);
    text.push('\n');
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // A temporary name of its own, so concurrent writers never share one.
    let mut temporary =
        tempfile::NamedTempFile::new_in(directory).map_err(|e| write_error(e.to_string()))?;
    std::io::Write::write_all(&mut temporary, text.as_bytes())
        .map_err(|e| write_error(e.to_string()))?;
    temporary
        .persist(path)
        .map(drop)
        .map_err(|e| write_error(e.error.to_string()))
}
