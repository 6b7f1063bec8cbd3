//! The equivalent-mutants file: survivors no input can tell apart from the module, each
//! with the reason, left out of the score. It cannot rot: an entry whose mutant is no longer
//! made, or no longer survives, fails the run.
//!
//! ```json
//! {
//!   "format": "parcall-equivalent-mutants",
//!   "version": 1,
//!   "equivalent": [
//!     {"scope": "run_parallel_calls", "operator": "constant",
//!      "original": "...", "mutated": "...", "reason": "..."}
//!   ]
//! }
//! ```

use super::{Fate, Mutant, MutantId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "parcall-equivalent-mutants";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EquivalentsFile {
    pub format: String,
    pub version: u32,
    pub equivalent: Vec<Entry>,
}

/// One equivalent mutant, named as reports name it (`occurrence` may be left out for 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub scope: String,
    pub operator: String,
    pub original: String,
    pub mutated: String,
    #[serde(default = "first", skip_serializing_if = "is_first")]
    pub occurrence: usize,
    /// Why no input can tell it apart from the module.
    pub reason: String,
}

fn first() -> usize {
    1
}

fn is_first(n: &usize) -> bool {
    *n == 1
}

impl Entry {
    pub fn id(&self) -> MutantId {
        MutantId {
            scope: self.scope.clone(),
            operator: self.operator.clone(),
            original: self.original.clone(),
            mutated: self.mutated.clone(),
            occurrence: self.occurrence,
        }
    }
}

/// The file next to a module that is read when `--equivalents` is not given:
/// `solution.py` → `solution.equivalent-mutants.json`.
pub fn default_path(module: &Path) -> PathBuf {
    let stem = module
        .file_stem()
        .map_or_else(|| "module".into(), |s| s.to_string_lossy().into_owned());
    module.with_file_name(format!("{stem}.equivalent-mutants.json"))
}

/// An equivalent-mutants file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EquivalentsError {
    /// Unreadable or not an equivalents file's JSON; the text names the file.
    #[error("{0}")]
    Read(String),
    #[error("{path}: not a {} file of version 1", FORMAT)]
    WrongFormat { path: PathBuf },
    #[error("{path}: equivalent[{index}] ({id}): give the reason no input can tell it apart")]
    NoReason {
        path: PathBuf,
        index: usize,
        id: String,
    },
    #[error("{path}: equivalent[{index}]: occurrence counts from 1")]
    ZeroOccurrence { path: PathBuf, index: usize },
    #[error("{path}: equivalent[{index}] ({id}) is listed twice")]
    Twice {
        path: PathBuf,
        index: usize,
        id: String,
    },
}

impl EquivalentsFile {
    /// Reads and checks the file: its format, a reason for every entry, no entry twice.
    pub fn load(path: &Path) -> Result<EquivalentsFile, EquivalentsError> {
        let file: EquivalentsFile =
            crate::json::from_file(path).map_err(|e| EquivalentsError::Read(e.to_string()))?;
        let path = path.to_path_buf();
        if file.format != FORMAT || file.version != 1 {
            return Err(EquivalentsError::WrongFormat { path });
        }
        let mut seen = BTreeSet::new();
        for (index, entry) in file.equivalent.iter().enumerate() {
            if entry.reason.trim().is_empty() {
                let id = entry.id().to_string();
                return Err(EquivalentsError::NoReason { path, index, id });
            }
            if entry.occurrence == 0 {
                return Err(EquivalentsError::ZeroOccurrence { path, index });
            }
            if !seen.insert(entry.id()) {
                let id = entry.id().to_string();
                return Err(EquivalentsError::Twice { path, index, id });
            }
        }
        Ok(file)
    }
}

/// An entry that no longer holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stale {
    #[serde(flatten)]
    pub id: MutantId,
    pub problem: String,
}

/// For each mutant, the reason it is listed as equivalent (when it is), and the entries
/// that no longer hold: their mutant is not made any more, or it was killed.
pub fn apply(
    file: Option<&EquivalentsFile>,
    mutants: &[Mutant],
    fates: &[Fate],
) -> (Vec<Option<String>>, Vec<Stale>) {
    let mut listed = vec![None; mutants.len()];
    let mut stale = Vec::new();
    for entry in file.map_or(&[][..], |f| &f.equivalent) {
        let id = entry.id();
        let Some(index) = mutants.iter().position(|m| m.id == id) else {
            stale.push(Stale {
                id,
                problem: "no such mutant is made any more: remove the entry (or correct it)".into(),
            });
            continue;
        };
        match &fates[index] {
            Fate::Survived => listed[index] = Some(entry.reason.clone()),
            Fate::KilledByFixed { case, outcome } => stale.push(Stale {
                id,
                problem: format!(
                    "it is killed by case {case} ({outcome}), so it is not equivalent: remove the entry"
                ),
            }),
            Fate::KilledByGenerated { function, .. } => stale.push(Stale {
                id,
                problem: format!(
                    "it is killed by generated cases of {function}, so it is not equivalent: \
                     remove the entry and add a case that kills it"
                ),
            }),
            Fate::NotRun { .. } => {}
        }
    }
    (listed, stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutant(original: &str) -> Mutant {
        Mutant {
            id: MutantId {
                scope: "f".into(),
                operator: "keyword".into(),
                original: original.into(),
                mutated: "x".into(),
                occurrence: 1,
            },
            line: 1,
            end_line: 1,
            text: String::new(),
        }
    }

    fn entry(original: &str) -> Entry {
        Entry {
            scope: "f".into(),
            operator: "keyword".into(),
            original: original.into(),
            mutated: "x".into(),
            occurrence: 1,
            reason: "why".into(),
        }
    }

    #[test]
    fn listed_survivors_are_equivalent_and_entries_that_no_longer_hold_are_stale() {
        let mutants = [mutant("a"), mutant("b"), mutant("c")];
        let fates = [
            Fate::Survived,
            Fate::KilledByFixed {
                case: "dedup-key-001".into(),
                outcome: "wrong output".into(),
            },
            Fate::Survived,
        ];
        let file = EquivalentsFile {
            format: FORMAT.into(),
            version: 1,
            equivalent: vec![entry("a"), entry("b"), entry("gone")],
        };
        let (listed, stale) = apply(Some(&file), &mutants, &fates);
        assert_eq!(listed, [Some("why".to_owned()), None, None]);
        let problems: Vec<(&str, &str)> = stale
            .iter()
            .map(|s| (s.id.original.as_str(), s.problem.split(':').next().unwrap()))
            .collect();
        assert_eq!(
            problems,
            [
                (
                    "b",
                    "it is killed by case dedup-key-001 (wrong output), so it is not equivalent"
                ),
                ("gone", "no such mutant is made any more")
            ]
        );
    }

    #[test]
    fn the_default_file_sits_beside_the_module() {
        assert_eq!(
            default_path(Path::new("class/model.py")),
            Path::new("class/model.equivalent-mutants.json")
        );
    }
}
