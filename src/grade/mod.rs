//! `parcall grade`: scores many untrusted submissions, each isolated, fairly (one seed for
//! the whole class, recorded so a regrade reproduces every grade), with feedback a student
//! can act on and the formats course platforms read.

pub mod formats;
pub mod html;
pub mod rubric;
pub mod sandbox;

use crate::fuzz;
use crate::report::{Context, Report};
use crate::runner::Settings;
use crate::spec::{Function, Spec, SpecCase};
use rubric::{RequirementScore, Rubric};
use sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One student's work: a module, alone or in a folder of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Unique in the class: the file stem or the folder name.
    pub name: String,
    /// What is copied into the sandbox: the file, or the folder.
    pub source: PathBuf,
    /// The module to load.
    pub module: PathBuf,
}

/// Finds the submissions in `paths`: a `.py` file is one; a folder holding exactly one
/// `.py` file and no sub-folder is one; any other folder is a class, whose `.py` files and
/// sub-folders are submissions.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Submission>, String> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_file() {
            found.push(file_submission(path)?);
        } else if path.is_dir() {
            match folder_submission(path)? {
                Some(submission) => found.push(submission),
                None => found.extend(class(path)?),
            }
        } else {
            return Err(format!("{}: no such file or folder", path.display()));
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    for pair in found.windows(2) {
        if pair[0].name == pair[1].name {
            return Err(format!(
                "two submissions are named `{}`: {} and {}",
                pair[0].name,
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

fn file_submission(path: &Path) -> Result<Submission, String> {
    if path.extension().is_none_or(|e| e != "py") {
        return Err(format!(
            "{}: a submission is a Python module (.py)",
            path.display()
        ));
    }
    Ok(Submission {
        name: stem(path),
        source: path.to_owned(),
        module: path.to_owned(),
    })
}

fn entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot list: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.') || n == "__pycache__")
        })
        .collect();
    entries.sort();
    Ok(entries)
}

fn folder_submission(dir: &Path) -> Result<Option<Submission>, String> {
    let entries = entries(dir)?;
    let modules: Vec<&PathBuf> = entries
        .iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "py"))
        .collect();
    if modules.len() == 1 && !entries.iter().any(|p| p.is_dir()) {
        let name = dir
            .file_name()
            .map_or_else(|| stem(modules[0]), |n| n.to_string_lossy().into_owned());
        return Ok(Some(Submission {
            name,
            source: dir.to_owned(),
            module: modules[0].clone(),
        }));
    }
    Ok(None)
}

fn class(dir: &Path) -> Result<Vec<Submission>, String> {
    let mut found = Vec::new();
    for entry in entries(dir)? {
        if entry.is_dir() {
            match folder_submission(&entry)? {
                Some(submission) => found.push(submission),
                None => {
                    return Err(format!(
                        "{}: a submission folder must hold exactly one .py module",
                        entry.display()
                    ))
                }
            }
        } else if entry.extension().is_some_and(|e| e == "py") {
            found.push(file_submission(&entry)?);
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

/// Everything a grading run shares.
pub struct Grading<'a> {
    pub spec: &'a Spec,
    pub functions: Vec<Function>,
    pub rubric: Rubric,
    pub seed: u64,
    pub fuzz: usize,
    pub settings: Settings,
    pub sandbox: &'a Sandbox,
}

/// The grade of one submission.
#[derive(Debug, Clone)]
pub struct Graded {
    pub submission: Submission,
    pub report: Report,
    pub requirements: Vec<RequirementScore>,
    pub score: f64,
    pub max_score: f64,
    pub duration: Duration,
    /// Set when the sandbox could not even be prepared (the runner's fault, not the
    /// student's: the run is incomplete).
    pub setup_error: Option<String>,
}

impl Graded {
    /// Why the submission could not be graded at all, if it could not.
    pub fn error(&self) -> Option<&String> {
        self.setup_error.as_ref().or(self.report.error.as_ref())
    }

    /// How many requirements earned all their points.
    pub fn met(&self) -> usize {
        self.requirements
            .iter()
            .filter(|r| r.earned >= r.points)
            .count()
    }
}

impl Grading<'_> {
    /// Grades every submission on `jobs` threads. Each grade depends on its submission
    /// alone: the seed, cases and rubric are the same for all, the sandboxes are separate.
    pub fn grade_all(
        &self,
        submissions: &[Submission],
        jobs: usize,
        on_done: &(dyn Fn(&Graded) + Sync),
    ) -> Vec<Graded> {
        let next = AtomicUsize::new(0);
        let done = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..jobs.clamp(1, submissions.len().max(1)) {
                scope.spawn(|| loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(submission) = submissions.get(index) else {
                        break;
                    };
                    let graded = self.grade(index, submission);
                    on_done(&graded);
                    done.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((index, graded));
                });
            }
        });
        let mut done = done.into_inner().unwrap_or_else(|p| p.into_inner());
        done.sort_by_key(|(index, _)| *index);
        done.into_iter().map(|(_, graded)| graded).collect()
    }

    fn grade(&self, index: usize, submission: &Submission) -> Graded {
        let started = Instant::now();
        let cases: Vec<SpecCase> = self
            .spec
            .cases
            .iter()
            .filter(|c| self.functions.contains(&c.function()))
            .cloned()
            .collect();
        let prepared = match self
            .sandbox
            .prepare(index, &submission.source, &submission.module)
        {
            Ok(prepared) => prepared,
            Err(error) => {
                return self.failed_setup(
                    submission,
                    format!("cannot prepare the sandbox: {error}"),
                    started,
                )
            }
        };
        let plan = fuzz::CheckPlan {
            spec: self.spec,
            cases: &cases,
            functions: &self.functions,
            fuzz: self.fuzz,
            seed: self.seed,
            settings: self.settings,
            // The exercise asks for these functions: one left undefined costs its points.
            undefined: fuzz::Undefined::Fail,
        };
        let checked = fuzz::check(&prepared.launch, &plan, None);
        let _ = std::fs::remove_dir_all(&prepared.workdir);
        let target = submission.name.clone();
        let rerun = format!(
            "parcall check {}",
            shell_words::quote(&submission.module.display().to_string())
        );
        let report = Report::new(
            &checked.run,
            &Context {
                spec: self.spec,
                target: &target,
                rerun_base: &rerun,
            },
        )
        .with_generated(self.seed, &checked.generated);
        let requirements = self.rubric.score(&report, self.spec);
        let score = requirements.iter().map(|r| r.earned).sum();
        Graded {
            submission: submission.clone(),
            report,
            requirements,
            score,
            max_score: self.rubric.max_score(),
            duration: started.elapsed(),
            setup_error: None,
        }
    }

    fn failed_setup(&self, submission: &Submission, error: String, started: Instant) -> Graded {
        let run = crate::runner::Run {
            implementation: None,
            functions: Vec::new(),
            results: Vec::new(),
            start_error: None,
            duration: started.elapsed(),
        };
        let report = Report::new(
            &run,
            &Context {
                spec: self.spec,
                target: &submission.name,
                rerun_base: "parcall check",
            },
        );
        Graded {
            submission: submission.clone(),
            requirements: self
                .rubric
                .score(&report, self.spec)
                .into_iter()
                .map(|mut r| {
                    r.earned = 0.0;
                    r
                })
                .collect(),
            report,
            score: 0.0,
            max_score: self.rubric.max_score(),
            duration: started.elapsed(),
            setup_error: Some(error),
        }
    }
}
