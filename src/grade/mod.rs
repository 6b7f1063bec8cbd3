//! `parcall grade`: scores many untrusted submissions, each isolated, fairly (one seed for
//! the whole class, recorded so a regrade reproduces every grade), with feedback a student
//! can act on and the formats course platforms read.

mod discover;
pub mod formats;
pub mod gradebook;
pub mod html;
pub mod merge;
pub mod out;
pub mod prepare;
pub mod rubric;

pub use discover::{
    discover, shard, DiscoverError, Discovered, Kind, Manifest, Submission, MANIFEST,
};

use crate::check::{self, Checked, Context, Undefined};
use crate::fuzz;
use crate::judge::Judge;
use crate::report::{Report, Verdict};
use crate::runner::Settings;
use crate::sandbox::Sandbox;
use crate::spec::{Function, Spec, SpecCase};
use prepare::PrepareError;
use rubric::{RequirementScore, Rubric};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Why the canary, and so every submission, cannot run: a set-up error.
#[derive(Debug, thiserror::Error)]
pub enum CanaryError {
    #[error("cannot write the canary to a temporary folder: {0}")]
    Write(#[from] std::io::Error),
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    #[error(
        "the sandbox cannot start even a correct submission, so every submission would score \
         0; check --python, --memory-mib and `parcall doctor`:\n{0}"
    )]
    Start(crate::runner::StartError),
    #[error(
        "the limits fail a correct submission that runs each call on a thread of its own \
         (case {case}: {outcome}), so correct submissions would lose points; raise \
         --memory-mib, --cpu-seconds or --timeout, or see `parcall doctor`:\n{output}"
    )]
    Fails {
        case: String,
        outcome: String,
        output: String,
    },
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
    /// Wall-clock time one submission may take, start-up and restarts included.
    pub budget: Duration,
    /// The hidden cases, drawn once for the class (see [`fuzz::Drawn`]).
    pub drawn: Option<fuzz::Drawn>,
    /// Judges every submission: what it works out about the class's cases serves them all.
    pub judge: Judge,
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
    /// Set when the submission was refused (a link, a FIFO, too large): the student's to
    /// fix, scored 0, the run still complete.
    pub refusal: Option<String>,
    /// Folders of the grader's machine that what the submission printed or a message may
    /// name (the class folder it sits in, the run's workspace), kept out of what the student
    /// receives ([`formats`]); the teacher's report keeps them.
    pub host_paths: Vec<PathBuf>,
}

impl Graded {
    /// Why the submission could not be graded at all, if it could not.
    pub fn error(&self) -> Option<&String> {
        self.setup_error
            .as_ref()
            .or(self.refusal.as_ref())
            .or(self.report.error.as_ref())
    }

    /// [`Graded::error`] as one line: a start error's cause, without what the submission
    /// printed.
    pub fn error_headline(&self) -> Option<String> {
        self.setup_error
            .as_ref()
            .or(self.refusal.as_ref())
            .or(self.report.error_headline.as_ref())
            .or(self.report.error.as_ref())
            .map(|error| crate::text::headline(error))
    }

    /// How many requirements earned all their points.
    pub fn met(&self) -> usize {
        self.requirements
            .iter()
            .filter(|r| r.earned >= r.points)
            .count()
    }
}

/// What the gradebook and the class page keep of a graded submission once its own files
/// are written: its scores and headline, not its report (every case, input and output),
/// so a class's reports never all sit in memory at once.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub module: PathBuf,
    pub verdict: Verdict,
    /// [`Graded::error`].
    pub error: Option<String>,
    /// [`Graded::error_headline`].
    pub error_headline: Option<String>,
    /// Whether the submission started (announced itself).
    pub started: bool,
    /// The functions it defines.
    pub functions: Vec<Function>,
    pub requirements: Vec<RequirementScore>,
    pub score: f64,
    pub max_score: f64,
    pub duration: Duration,
    pub setup_error: bool,
}

impl Entry {
    /// How many requirements earned all their points.
    pub fn met(&self) -> usize {
        self.requirements
            .iter()
            .filter(|r| r.earned >= r.points)
            .count()
    }
}

impl Graded {
    /// What the gradebook keeps of this grade.
    pub fn entry(&self) -> Entry {
        Entry {
            name: self.submission.name.clone(),
            module: self.submission.module.clone(),
            verdict: self.report.verdict,
            error: self.error().cloned(),
            error_headline: self.error_headline(),
            started: self.report.implementation.is_some(),
            functions: self.report.functions.clone(),
            requirements: self.requirements.clone(),
            score: self.score,
            max_score: self.max_score,
            duration: self.duration,
            setup_error: self.setup_error.is_some(),
        }
    }
}

impl Grading<'_> {
    /// Grades every submission on `jobs` threads. Each grade depends on its submission
    /// alone: the seed, cases and rubric are the same for all, the sandboxes are separate.
    /// `on_done` gets each whole grade (to write its files); only its [`Entry`] is kept.
    pub fn grade_all(
        &self,
        submissions: &[Submission],
        jobs: usize,
        on_done: &(dyn Fn(&Graded) + Sync),
    ) -> Vec<Entry> {
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
                    let entry = graded.entry();
                    drop(graded);
                    done.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((index, entry));
                });
            }
        });
        let mut done = done.into_inner().unwrap_or_else(|p| p.into_inner());
        done.sort_by_key(|(index, _)| *index);
        done.into_iter().map(|(_, entry)| entry).collect()
    }

    /// Runs the canary (a correct implementation that starts a thread per call) through the
    /// sandbox on the suite's largest batches: when it cannot start, no submission could, and
    /// when it fails, the limits fail correct submissions; either is a set-up error, not a
    /// class of zeros.
    pub fn canary(&self) -> Result<(), CanaryError> {
        let (_dir, canary) = prepare::canary()?;
        let prepared = prepare::prepare(self.sandbox, 0, &canary)?;
        let cases = prepare::canary_cases(&self.spec.cases, &self.functions);
        let plan = check::Plan {
            functions: &self.functions,
            seed: self.seed,
            settings: self.settings,
            ..check::Plan::new(self.spec, &cases, &self.judge)
        };
        let checked = check::run_process(&prepared.launch, &plan, None);
        if let Some(error) = checked.start_error {
            return Err(CanaryError::Start(error));
        }
        match checked.results.iter().find(|r| !r.outcome.is_pass()) {
            Some(failed) => Err(CanaryError::Fails {
                case: failed.case.id().to_owned(),
                outcome: failed.outcome.label().to_owned(),
                output: failed.process_output.trim().to_owned(),
            }),
            None => Ok(()),
        }
    }

    fn grade(&self, index: usize, submission: &Submission) -> Graded {
        let started = Instant::now();
        if let Some(reason) = &submission.refused {
            return self.not_graded(submission, None, Some(reason.clone()), started);
        }
        let cases: Vec<SpecCase> = self
            .spec
            .cases
            .iter()
            .filter(|c| self.functions.contains(&c.function()))
            .cloned()
            .collect();
        // Slot 0 is the canary's.
        let prepared = match prepare::prepare(self.sandbox, index + 1, submission) {
            Ok(prepared) => prepared,
            Err(PrepareError::Refused(refusal)) => {
                return self.not_graded(submission, None, Some(refusal.to_string()), started)
            }
            Err(PrepareError::Program(choice)) => {
                let reason = PrepareError::Program(choice).to_string();
                return self.not_graded(submission, None, Some(reason), started);
            }
            Err(error) => {
                return self.not_graded(submission, Some(error.to_string()), None, started)
            }
        };
        let plan = check::Plan {
            functions: &self.functions,
            fuzz: self.fuzz,
            seed: self.seed,
            settings: Settings {
                deadline: Some(started + self.budget),
                ..self.settings
            },
            // The exercise asks for these functions: one left undefined costs its points.
            undefined: Undefined::Fail,
            shrink_each_requirement: true,
            drawn: self.drawn.as_ref(),
            ..check::Plan::new(self.spec, &cases, &self.judge)
        };
        let checked = check::run_process(&prepared.launch, &plan, None);
        drop(prepared);
        let target = crate::text::terminal::line(&submission.name);
        let mut rerun = format!(
            "parcall check {}",
            shell_words::quote(&crate::text::terminal::line(
                &submission.module.display().to_string()
            ))
        );
        // A manifest's toolchains, declared as the run declared them: by the program's file
        // name, found on the student's PATH (no path of this machine is shown).
        if matches!(submission.kind, Some(Kind::Command(_))) {
            for runtime in self.sandbox.runtimes().iter() {
                if ["python", "node", "sh", "env"].contains(&runtime.name.as_str()) {
                    continue;
                }
                let file = runtime.program.file_name().unwrap_or_default();
                rerun.push_str(&format!(
                    " --runtime {}",
                    shell_words::quote(&format!("{}={}", runtime.name, file.to_string_lossy()))
                ));
            }
        }
        let context = Context {
            spec: self.spec,
            target: &target,
            rerun_base: &rerun,
        };
        let report = check::report(&checked, &context);
        let requirements = self.rubric.score(&report, self.spec);
        let score = requirements.iter().map(|r| r.earned).sum();
        // A start-up the sandbox failed is the teacher's set-up to fix, not the student's.
        let setup_error = checked
            .start_error
            .as_ref()
            .and_then(|error| crate::sandbox::lacked_library(&error.to_string()));
        Graded {
            submission: submission.clone(),
            report,
            requirements,
            score,
            max_score: self.rubric.max_score(),
            duration: started.elapsed(),
            setup_error,
            refusal: None,
            host_paths: self.host_paths(submission),
        }
    }

    /// [`Graded::host_paths`] for `submission`.
    fn host_paths(&self, submission: &Submission) -> Vec<PathBuf> {
        let class = submission.source.parent().map(PathBuf::from);
        class
            .into_iter()
            .chain([self.sandbox.site().workspace])
            .filter(|p| p.as_os_str().len() > 1)
            .collect()
    }

    /// A submission that never ran: refused, or its sandbox could not be set up.
    fn not_graded(
        &self,
        submission: &Submission,
        setup_error: Option<String>,
        refusal: Option<String>,
        started: Instant,
    ) -> Graded {
        let run = Checked {
            implementation: None,
            functions: Vec::new(),
            number_model: Default::default(),
            runtime: None,
            results: Vec::new(),
            generated: Vec::new(),
            seed: self.seed,
            start_error: None,
            incomplete: None,
            notes: Vec::new(),
            duration: started.elapsed(),
        };
        let mut report = check::report(
            &run,
            &Context {
                spec: self.spec,
                target: &crate::text::terminal::line(&submission.name),
                rerun_base: "parcall check",
            },
        );
        // A run of no cases would otherwise conform: the gradebook said "conforms" beside a
        // score of 0 for a refused folder or symbolic link. A refusal is the submission's
        // doing; a sandbox that could not be set up is the grader's.
        report.verdict = if setup_error.is_some() {
            Verdict::Error
        } else {
            Verdict::DoesNotConform
        };
        report.error = setup_error.clone().or_else(|| refusal.clone());
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
            setup_error,
            refusal,
            host_paths: self.host_paths(submission),
        }
    }
}
