//! Counterexamples kept on disk: the regressions file the next run replays first (like
//! proptest-regressions), and `--save-failures`, which writes each one as a ready-to-commit
//! case file in the spec's format.

use crate::json;
use crate::spec::{Case, CaseFile, SpecCase};
use serde::{Deserialize, Serialize};
use std::path::Path;

const FORMAT: &str = "parcall-regressions";

/// The regressions file: counterexamples as one-case case files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegressionsFile {
    format: String,
    version: u32,
    cases: Vec<CaseFile>,
}

/// Why a regressions file could not be used. Reported, never overwritten: a file that
/// cannot be read is not silently replaced.
#[derive(Debug, thiserror::Error)]
pub enum RegressionsError {
    #[error("{path}: cannot read: {message}")]
    Read { path: String, message: String },
    #[error("{path}: cannot write: {message}")]
    Write { path: String, message: String },
}

/// The case file holding just `case`.
pub fn case_file(case: &SpecCase) -> CaseFile {
    match &case.case {
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
    }
}

fn cases_of(file: CaseFile, origin: &str) -> Vec<SpecCase> {
    let cases: Vec<Case> = match file {
        CaseFile::ExecuteToolCalls { cases, .. } => cases.into_iter().map(Case::Exec).collect(),
        CaseFile::RunParallelCalls { cases, .. } => cases.into_iter().map(Case::Dedup).collect(),
    };
    cases
        .into_iter()
        .map(|case| SpecCase {
            file: origin.to_owned(),
            case,
        })
        .collect()
}

/// The counterexamples recorded at `path`; none when the file does not exist.
pub fn load(path: &Path) -> Result<Vec<SpecCase>, RegressionsError> {
    let read_error = |message: String| RegressionsError::Read {
        path: path.display().to_string(),
        message,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(read_error(error.to_string())),
    };
    let value = json::parse(&text).map_err(|e| read_error(e.to_string()))?;
    let file: RegressionsFile = json::from_value(&value).map_err(|e| read_error(e.to_string()))?;
    if file.format != FORMAT || file.version != 1 {
        return Err(read_error(format!("not a {FORMAT} file of version 1")));
    }
    let origin = path.display().to_string();
    Ok(file
        .cases
        .into_iter()
        .flat_map(|f| cases_of(f, &origin))
        .collect())
}

/// Adds `case` to the file at `path` unless a case with the same inputs is there already.
pub fn record(path: &Path, case: &SpecCase) -> Result<bool, RegressionsError> {
    let mut known = load(path)?;
    let same_inputs = |a: &SpecCase| inputs(a) == inputs(case);
    if known.iter().any(same_inputs) {
        return Ok(false);
    }
    known.push(case.clone());
    let file = RegressionsFile {
        format: FORMAT.into(),
        version: 1,
        cases: known.iter().map(case_file).collect(),
    };
    write_json(path, &file)?;
    Ok(true)
}

/// A case's inputs, for telling counterexamples apart regardless of their ids.
fn inputs(case: &SpecCase) -> String {
    let text = match &case.case {
        Case::Exec(c) => serde_json::to_string(&(
            &c.dispatch,
            c.batches
                .iter()
                .map(|b| (&b.calls, b.max_parallel))
                .collect::<Vec<_>>(),
        )),
        Case::Dedup(c) => serde_json::to_string(&(
            &c.tools,
            c.batches.iter().map(|b| &b.calls).collect::<Vec<_>>(),
        )),
    };
    text.unwrap_or_default()
}

/// Writes `case` as `DIR/<id>.json`, a case file ready to commit under spec/cases/.
pub fn save_case_file(dir: &Path, case: &SpecCase) -> Result<std::path::PathBuf, RegressionsError> {
    let path = dir.join(format!("{}.json", case.id()));
    write_json(&path, &case_file(case))?;
    Ok(path)
}

/// Writes pretty JSON through a temporary file and a rename, so a crash never leaves a
/// half-written file behind.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), RegressionsError> {
    let write_error = |message: String| RegressionsError::Write {
        path: path.display().to_string(),
        message,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| write_error(e.to_string()))?;
    }
    let mut text = serde_json::to_string_pretty(value).map_err(|e| write_error(e.to_string()))?;
    text.push('\n');
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, text).map_err(|e| write_error(e.to_string()))?;
    std::fs::rename(&temporary, path).map_err(|e| write_error(e.to_string()))
}
