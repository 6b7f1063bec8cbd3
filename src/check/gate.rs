//! Expectations: known failures of an implementation that knowingly deviates, each pinned
//! to the outcome it must still show. A CI gate passes while reality matches the file and
//! fails on a regression, on an unexpected pass (fixed without updating the file), on a
//! changed outcome, and on an entry that matches nothing.

use crate::json;
use crate::judge::OutcomeKind;
use crate::report::Report;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// An expectations file that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExpectationsError {
    /// Unreadable or not an expectations file's JSON; the text names the file.
    #[error("{0}")]
    Read(String),
    #[error("{path}: not a parcall-expectations file of version 1")]
    WrongFormat { path: PathBuf },
    #[error("{path}: known_failures[{index}] ({case}): outcome `{outcome}` is not one of {}", OutcomeKind::FAILURES.map(OutcomeKind::label).join(", "))]
    NotAFailure {
        path: PathBuf,
        index: usize,
        case: String,
        outcome: OutcomeKind,
    },
}

/// Globs matching more cases than this are refused unless the file raises the limit: a
/// broad glob silently accepts new failures.
pub const DEFAULT_MAX_GLOB_MATCHES: usize = 10;

/// `{"format": "parcall-expectations", "version": 1, "known_failures": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationsFile {
    pub format: String,
    pub version: u32,
    #[serde(default = "default_max", skip_serializing_if = "is_default_max")]
    pub max_glob_matches: usize,
    pub known_failures: Vec<KnownFailure>,
}

fn default_max() -> usize {
    DEFAULT_MAX_GLOB_MATCHES
}

fn is_default_max(n: &usize) -> bool {
    *n == DEFAULT_MAX_GLOB_MATCHES
}

/// One known failure: a case id or glob (`*`, `?`), the outcome it must show, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownFailure {
    pub case: String,
    /// A failure's label: `wrong output`, `wrong invocations`, `exception`, `timeout`,
    /// `crash`, `protocol error`, `not implemented`.
    pub outcome: OutcomeKind,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

impl ExpectationsFile {
    pub fn load(path: &Path) -> Result<ExpectationsFile, ExpectationsError> {
        let file: ExpectationsFile =
            json::from_file(path).map_err(|e| ExpectationsError::Read(e.to_string()))?;
        if file.format != "parcall-expectations" || file.version != 1 {
            return Err(ExpectationsError::WrongFormat { path: path.into() });
        }
        for (index, entry) in file.known_failures.iter().enumerate() {
            if !entry.outcome.is_failure() {
                return Err(ExpectationsError::NotAFailure {
                    path: path.into(),
                    index,
                    case: entry.case.clone(),
                    outcome: entry.outcome,
                });
            }
        }
        Ok(file)
    }

    /// The file that expects exactly the current failures, keeping the reasons of entries
    /// that named those cases before.
    pub fn from_report(report: &Report, previous: Option<&ExpectationsFile>) -> ExpectationsFile {
        let known_failures = report
            .cases
            .iter()
            .filter(|c| c.outcome.is_failure())
            .map(|c| KnownFailure {
                case: c.id.clone(),
                outcome: c.outcome,
                reason: previous
                    .and_then(|p| {
                        p.known_failures
                            .iter()
                            .find(|k| crate::spec::glob_match(&k.case, &c.id))
                    })
                    .map(|k| k.reason.clone())
                    .unwrap_or_default(),
            })
            .collect();
        ExpectationsFile {
            format: "parcall-expectations".into(),
            version: 1,
            max_glob_matches: previous.map_or(DEFAULT_MAX_GLOB_MATCHES, |p| p.max_glob_matches),
            known_failures,
        }
    }

    /// Writes the file through a temporary file and a rename: whatever the path holds now
    /// (the implementation ran in between: a FIFO, a link) is replaced, never written into.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
        use std::os::unix::fs::PermissionsExt;
        let readable = std::fs::Permissions::from_mode(0o644);
        temporary.as_file().set_permissions(readable)?;
        std::io::Write::write_all(&mut temporary, text.as_bytes())?;
        temporary.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Applies the expectations to a report: matching failures become expected, and every
    /// mismatch between the file and reality is a problem that fails the run.
    pub fn apply(&self, report: &mut Report, file_name: &str) {
        let mut problems = Vec::new();
        for entry in &self.known_failures {
            let matched: Vec<usize> = (0..report.cases.len())
                .filter(|&i| crate::spec::glob_match(&entry.case, &report.cases[i].id))
                .collect();
            if matched.is_empty() {
                problems.push(format!(
                    "{file_name}: `{}` matches no case that ran (remove it, or fix the id)",
                    entry.case
                ));
                continue;
            }
            if matched.len() > self.max_glob_matches {
                problems.push(format!(
                    "{file_name}: `{}` matches {} cases, more than max_glob_matches ({}); list them, or raise the limit",
                    entry.case,
                    matched.len(),
                    self.max_glob_matches
                ));
                continue;
            }
            for index in matched {
                let case = &mut report.cases[index];
                match case.outcome {
                    outcome if outcome == entry.outcome => {
                        case.expected_failure = true;
                        case.expected_reason = Some(entry.reason.clone());
                    }
                    OutcomeKind::Pass => problems.push(format!("{}: expected `{}`, but it passes now: remove it from {file_name} (or run --update-expectations)", case.id, entry.outcome)),
                    // Not run: it says nothing about the failure.
                    OutcomeKind::Skipped => {}
                    OutcomeKind::WrongOutput
                    | OutcomeKind::WrongInvocations
                    | OutcomeKind::Exception
                    | OutcomeKind::Timeout
                    | OutcomeKind::Crash
                    | OutcomeKind::Protocol
                    | OutcomeKind::NotImplemented => problems.push(format!(
                        "{}: expected `{}`, got `{}`: the failure changed",
                        case.id, entry.outcome, case.outcome
                    )),
                }
            }
        }
        report.expectation_problems = problems;
        super::settle::settle(report);
    }
}
