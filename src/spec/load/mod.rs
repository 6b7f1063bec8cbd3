//! Loading and checking the specification: requirements, every case file, and the links
//! between them. Every problem found is reported at once, each with its file and case.

use super::model::{DedupCase, ExecCase, RuntimeCase};
use super::requirements::{Function, Requirement};
use super::source::Source;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod case_files;
mod checks;
mod files;

use case_files::{case_files, read_case_files};
use checks::check_links;
use files::{read_requirements, read_version};

/// A loaded, checked specification.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The suite version (`spec/VERSION`, semver).
    pub version: String,
    pub requirements: Vec<Requirement>,
    /// Every case, in file order, files in path order (execute_tool_calls first).
    pub cases: Vec<SpecCase>,
    /// Where each case is written, by case id: CI annotations point there.
    pub locations: HashMap<String, Location>,
}

/// A line of a case file, as CI annotations name it: `spec/<file>` for the built-in spec
/// (its place in parcall's repository), the file under the folder for `--spec DIR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: String,
    pub line: usize,
}

/// One case and the file it came from. The case is shared: the spec, the selection, the
/// strategies that vary it and every result point at one copy (a result kept for the report
/// costs a pointer, not the case), and code that changes a case gets its own with
/// [`Arc::make_mut`].
#[derive(Debug, Clone, PartialEq)]
pub struct SpecCase {
    pub origin: super::Origin,
    pub case: Arc<Case>,
}

/// A case of any function.
#[derive(Debug, Clone, PartialEq)]
pub enum Case {
    Exec(ExecCase),
    Dedup(DedupCase),
    Runtime(RuntimeCase),
}

impl Case {
    pub fn id(&self) -> &str {
        match self {
            Case::Exec(c) => &c.id,
            Case::Dedup(c) => &c.id,
            Case::Runtime(c) => &c.id,
        }
    }

    /// How many batches the case calls the function with.
    pub fn batch_count(&self) -> usize {
        match self {
            Case::Exec(c) => c.batches.len(),
            Case::Dedup(c) => c.batches.len(),
            Case::Runtime(c) => c.batches.len(),
        }
    }

    /// Each batch's calls, as written.
    pub fn batch_calls(&self) -> Vec<&crate::json::Value> {
        match self {
            Case::Exec(c) => c.batches.iter().map(|b| &b.calls).collect(),
            Case::Dedup(c) => c.batches.iter().map(|b| &b.calls).collect(),
            Case::Runtime(c) => c.batches.iter().map(|b| &b.calls).collect(),
        }
    }

    pub fn set_id(&mut self, id: String) {
        match self {
            Case::Exec(c) => c.id = id,
            Case::Dedup(c) => c.id = id,
            Case::Runtime(c) => c.id = id,
        }
    }

    pub fn set_description(&mut self, description: String) {
        match self {
            Case::Exec(c) => c.description = description,
            Case::Dedup(c) => c.description = description,
            Case::Runtime(c) => c.description = description,
        }
    }

    pub fn set_requirements(&mut self, requirements: Vec<String>) {
        match self {
            Case::Exec(c) => c.requirements = requirements,
            Case::Dedup(c) => c.requirements = requirements,
            Case::Runtime(c) => c.requirements = requirements,
        }
    }

    pub fn function(&self) -> Function {
        match self {
            Case::Exec(_) => Function::ExecuteToolCalls,
            Case::Dedup(_) => Function::RunParallelCalls,
            Case::Runtime(_) => Function::RunToolCalls,
        }
    }
}

impl SpecCase {
    pub fn id(&self) -> &str {
        self.case.id()
    }

    pub fn function(&self) -> Function {
        self.case.function()
    }

    pub fn requirements(&self) -> &[String] {
        match &*self.case {
            Case::Exec(c) => &c.requirements,
            Case::Dedup(c) => &c.requirements,
            Case::Runtime(c) => &c.requirements,
        }
    }

    pub fn description(&self) -> &str {
        match &*self.case {
            Case::Exec(c) => &c.description,
            Case::Dedup(c) => &c.description,
            Case::Runtime(c) => &c.description,
        }
    }
}

/// Everything wrong with a specification folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SpecError {
    pub root: PathBuf,
    pub problems: Vec<String>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        let plural = if count == 1 { "" } else { "s" };
        write!(
            f,
            "invalid spec in {} ({count} problem{plural})",
            self.root.display()
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl Spec {
    /// The specification folder of parcall's own repository (tests that check the source
    /// tree itself read it from there).
    pub fn bundled_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("spec")
    }

    /// The specification built into this binary: what every verdict uses unless `--spec`
    /// names another, whether or not the checkout it was built from still exists.
    pub fn embedded() -> Result<Spec, SpecError> {
        Spec::load_from(&Source::Embedded)
    }

    /// Loads `root` (a folder laid out like `spec/`) and checks it whole.
    pub fn load(root: &Path) -> Result<Spec, SpecError> {
        Spec::load_from(&Source::Dir(root.to_owned()))
    }

    /// Loads a specification from `source` and checks it whole.
    pub fn load_from(source: &Source) -> Result<Spec, SpecError> {
        let mut problems = Vec::new();
        let version = read_version(source, &mut problems);
        let requirements = read_requirements(source, &mut problems);
        let mut files = Vec::new();
        for function in Function::EVERY {
            for path in case_files(source, function, &mut problems) {
                files.push((function, path));
            }
        }
        let mut cases = Vec::new();
        let mut locations = HashMap::new();
        // In file order whichever thread read them, so cases and problems come out the same
        // every time.
        for file in read_case_files(source, &files) {
            problems.extend(file.problems);
            for (case, line) in file.cases.iter().zip(file.lines) {
                if let Some(line) = line {
                    let path = source.annotation_path(&case.origin.file());
                    locations.insert(case.id().to_owned(), Location { path, line });
                }
            }
            cases.extend(file.cases);
        }
        check_links(&requirements, &cases, &mut problems);
        if problems.is_empty() {
            Ok(Spec {
                version,
                requirements,
                cases,
                locations,
            })
        } else {
            Err(SpecError {
                root: source.root(),
                problems,
            })
        }
    }

    /// Requirements that no case checks (traceability: this must be empty).
    pub fn unchecked_requirements(&self) -> Vec<&Requirement> {
        self.requirements
            .iter()
            .filter(|r| !self.cases.iter().any(|c| c.requirements().contains(&r.id)))
            .collect()
    }

    pub fn requirement(&self, id: &str) -> Option<&Requirement> {
        self.requirements.iter().find(|r| r.id == id)
    }
}
