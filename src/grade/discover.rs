//! Finding the submissions in the paths a teacher gives. The paths are the teacher's and are
//! canonicalised (so `alice.py` from inside the class still hides the class folder); what is
//! inside a class folder is the students' and is never followed: a link, a FIFO or a folder
//! of the wrong shape becomes a refused submission with the reason, not an error that stops
//! the whole class.

use std::fs::FileType;
use std::path::{Path, PathBuf};

/// One student's work: a module, alone or in a folder of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Unique in the class: the file stem or the folder name.
    pub name: String,
    /// What is copied into the sandbox: the file, or the folder (canonical).
    pub source: PathBuf,
    /// The module to load.
    pub module: PathBuf,
    /// Why it is not graded, when it is refused at discovery.
    pub refused: Option<String>,
}

/// Finds the submissions in `paths`: a `.py` file is one; a folder holding exactly one
/// `.py` file and no sub-folder is one; any other folder is a class, whose `.py` entries
/// and sub-folders are submissions, except the results folder `out`: a class graded twice
/// into `class/grades` would otherwise grade its own last results as a student's.
pub fn discover(paths: &[PathBuf], out: &Path) -> Result<Vec<Submission>, String> {
    let results = Results::of(out);
    let mut found = Vec::new();
    for path in paths {
        let path = std::fs::canonicalize(path)
            .map_err(|e| format!("{}: no such file or folder ({e})", path.display()))?;
        // `class/*` names the results folder too when it sits in the class: walked as a
        // class, it holds nothing but its own `submissions`, which is left out.
        if results.is_submissions(&path) {
            continue;
        }
        if path.is_file() {
            found.push(file_submission(&path)?);
        } else if path.is_dir() {
            match folder_submission(&path)? {
                Some(submission) => found.push(submission),
                None => found.extend(class(&path, &results)?),
            }
        } else {
            return Err(format!("{}: not a file or a folder", path.display()));
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    for pair in found.windows(2) {
        if pair[0].name == pair[1].name {
            return Err(format!(
                "two submissions are named `{}`: {} and {}",
                crate::text::terminal::line(&pair[0].name),
                pair[0].source.display(),
                pair[1].source.display()
            ));
        }
    }
    if found.is_empty() {
        return Err(
            "no submission found (a submission is a .py file or a folder holding one)".into(),
        );
    }
    Ok(found)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn is_module(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py")
}

fn file_submission(path: &Path) -> Result<Submission, String> {
    if !is_module(path) {
        return Err(format!(
            "{}: a submission is a Python module (.py)",
            path.display()
        ));
    }
    Ok(Submission {
        name: stem(path),
        source: path.to_owned(),
        module: path.to_owned(),
        refused: None,
    })
}

/// The entries of `dir` with their own type (a link is a link, not what it points to),
/// hidden files and caches left out.
fn entries(dir: &Path) -> Result<Vec<(PathBuf, FileType)>, String> {
    let mut entries: Vec<(PathBuf, FileType)> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot list: {e}", dir.display()))?
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            !(name.to_string_lossy().starts_with('.') || name == "__pycache__")
        })
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

fn folder_submission(dir: &Path) -> Result<Option<Submission>, String> {
    let entries = entries(dir)?;
    // By name: whether a module is a regular file is the copy's to check (and refuse).
    let modules: Vec<&PathBuf> = entries
        .iter()
        .filter(|(p, t)| !t.is_dir() && is_module(p))
        .map(|(p, _)| p)
        .collect();
    if modules.len() == 1 && !entries.iter().any(|(_, t)| t.is_dir()) {
        let name = dir
            .file_name()
            .map_or_else(|| stem(modules[0]), |n| n.to_string_lossy().into_owned());
        return Ok(Some(Submission {
            name,
            source: dir.to_owned(),
            module: modules[0].clone(),
            refused: None,
        }));
    }
    Ok(None)
}

fn refused(path: &Path, name: String, reason: String) -> Submission {
    Submission {
        name,
        source: path.to_owned(),
        module: path.to_owned(),
        refused: Some(reason),
    }
}

/// Where a grading run writes (`--out`), canonical, so discovery can leave it out.
struct Results(Option<PathBuf>);

impl Results {
    fn of(out: &Path) -> Results {
        Results(std::fs::canonicalize(out).ok())
    }

    /// Whether `path` (canonical) is the results folder or its `submissions` folder (the
    /// results written into the class folder itself, `--out class`).
    fn holds(&self, path: &Path) -> bool {
        self.0.as_ref().is_some_and(|out| path == out) || self.is_submissions(path)
    }

    /// Whether `path` (canonical) is the results' `submissions` folder.
    fn is_submissions(&self, path: &Path) -> bool {
        self.0
            .as_ref()
            .is_some_and(|out| path == out.join("submissions"))
    }
}

fn class(dir: &Path, results: &Results) -> Result<Vec<Submission>, String> {
    let mut found = Vec::new();
    for (entry, kind) in entries(dir)? {
        // `dir` is canonical, so a folder inside it is named as canonicalize names it.
        if kind.is_dir() && results.holds(&entry) {
            continue;
        }
        let name = entry
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if kind.is_dir() {
            found.push(folder_submission(&entry)?.unwrap_or_else(|| {
                refused(
                    &entry,
                    name,
                    "a submission folder must hold exactly one .py module and no sub-folder".into(),
                )
            }));
        } else if is_module(&entry) {
            // Whatever its type: the copy refuses a link, a FIFO or a device with a reason.
            found.push(file_submission(&entry)?);
        } else if kind.is_symlink() {
            found.push(refused(
                &entry,
                name.clone(),
                format!("{name} is a symbolic link: submit the folder itself"),
            ));
        }
    }
    Ok(found)
}

/// `--shard I/N`: the submissions of shard I (1-based) of N, by name, so shards never
/// overlap and together cover the class.
pub fn shard(submissions: Vec<Submission>, index: usize, count: usize) -> Vec<Submission> {
    submissions
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % count == index - 1)
        .map(|(_, s)| s)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(submissions: &[Submission]) -> Vec<&str> {
        submissions.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn the_results_folder_inside_a_class_is_not_a_submission() {
        let class = tempfile::tempdir().unwrap();
        std::fs::write(class.path().join("alice.py"), "").unwrap();
        let grades = class.path().join("grades");
        std::fs::create_dir_all(grades.join("submissions/alice")).unwrap();
        std::fs::write(grades.join("gradebook.json"), "{}").unwrap();
        let classes = [class.path().to_owned()];

        let graded_into_it = discover(&classes, &grades).unwrap();
        assert_eq!(names(&graded_into_it), ["alice"]);

        // Named another way (relative, with `..`), it is still the same folder.
        let roundabout = grades.join("submissions/..");
        assert_eq!(names(&discover(&classes, &roundabout).unwrap()), ["alice"]);

        // Results graded elsewhere: a folder of the class that is not one module is refused.
        let elsewhere = tempfile::tempdir().unwrap();
        let found = discover(&classes, elsewhere.path()).unwrap();
        assert_eq!(names(&found), ["alice", "grades"]);
        assert!(found[1].refused.is_some());

        // Named among the paths (`class/*`), it is left out too.
        let each: Vec<PathBuf> = [class.path().join("alice.py"), grades.clone()].into();
        assert_eq!(names(&discover(&each, &grades).unwrap()), ["alice"]);

        // Results written into the class folder itself: its `submissions` is not a student.
        std::fs::create_dir_all(class.path().join("submissions/alice")).unwrap();
        let found = discover(&classes, class.path()).unwrap();
        assert_eq!(names(&found), ["alice", "grades"]);

        // The results folder alone holds no submission.
        assert!(discover(std::slice::from_ref(&grades), &grades).is_err());
    }
}
