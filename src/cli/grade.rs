//! `parcall grade` and `parcall doctor`.

use super::{exit, GradeArgs, GradeCommand};
use crate::grade::{
    self, formats,
    gradebook::{self, Run, Shard},
    out::OutDir,
    rubric::Rubric,
    DiscoverError, Grading,
};
use crate::process::Limits;
use crate::runner::Settings;
use crate::sandbox::{self, Capabilities, Sandbox, SandboxError};
use crate::spec::Function;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// Why a class could not be graded at all: the teacher's input or the machine, never a
/// student's submission (those are graded 0 with the reason in their results).
#[derive(Debug, thiserror::Error)]
enum GradeError {
    #[error("{0}")]
    Spec(#[from] crate::spec::SpecError),
    #[error("{0}")]
    Rubric(String),
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    #[error("--shard {0}: expected I/N with 1 <= I <= N, like 2/8")]
    Shard(String),
    /// A gradebook of nobody would read as a class that scored nothing.
    #[error("--shard {index}/{count}: this shard holds no submission (the class has {class}; use at most {class} shards)")]
    EmptyShard {
        index: usize,
        count: usize,
        class: usize,
    },
    #[error("{}: cannot create: {source}", .path.display())]
    Out {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `--out` names the class, or an earlier run without --overwrite.
    #[error(transparent)]
    OutFolder(#[from] grade::out::OutError),
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Seed(#[from] crate::process::random::SeedError),
    /// The canary's own message: what it tried and what to check.
    #[error(transparent)]
    Canary(crate::grade::CanaryError),
}

fn limits(args: &GradeArgs) -> Limits {
    Limits {
        memory_bytes: Some(args.memory_mib << 20),
        cpu_seconds: Some(args.cpu_seconds),
        processes: Some(crate::sandbox::TASKS),
        file_bytes: Some(16 << 20),
        build_seconds: args.build_timeout,
        ..Limits::default()
    }
}

pub(super) fn run(args: GradeArgs) -> anyhow::Result<i32> {
    if let Some(GradeCommand::Merge(merge)) = args.command {
        return Ok(super::grade_merge::run(&merge));
    }
    match prepare_and_grade(&args) {
        Ok(code) => Ok(code),
        Err(message) => {
            say!("error: {message}");
            Ok(exit::USAGE)
        }
    }
}

fn parse_shard(text: &str) -> Result<(usize, usize), GradeError> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((i, n)) if n >= 1 && (1..=n).contains(&i) => Ok((i, n)),
        _ => Err(GradeError::Shard(text.to_owned())),
    }
}

fn prepare_and_grade(args: &GradeArgs) -> Result<i32, GradeError> {
    let spec = args.spec.load()?;
    let functions: Vec<Function> = if args.function.is_empty() {
        Function::EXERCISES.to_vec()
    } else {
        args.function.clone()
    };
    let rubric = match &args.rubric {
        Some(path) => {
            Rubric::load(path, &spec, &functions).map_err(|e| GradeError::Rubric(e.to_string()))?
        }
        None => Rubric::default_for(&spec, &functions),
    };
    let options = gradebook::Options {
        functions: functions.clone(),
        fuzz: args.fuzz,
        points: rubric.points.clone(),
        partial_credit: rubric.partial_credit,
        timeout_seconds: args.timeout.as_secs_f64(),
        memory_mib: args.memory_mib,
        cpu_seconds: args.cpu_seconds,
        submission_seconds: args.submission_seconds,
    };
    let discovered = grade::discover(&args.paths, &args.out)?;
    for note in &discovered.notes {
        say!("parcall: note: {note}");
    }
    let mut submissions = discovered.submissions;
    let shard = match &args.shard {
        Some(text) => {
            let (index, count) = parse_shard(text)?;
            let class = submissions.len();
            submissions = grade::shard(submissions, index, count);
            if submissions.is_empty() {
                return Err(GradeError::EmptyShard {
                    index,
                    count,
                    class,
                });
            }
            Some(Shard {
                index,
                count,
                class,
            })
        }
        None => None,
    };
    let named: Vec<PathBuf> = args
        .paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let existing = grade::out::check_out(&args.out, &named, args.overwrite, shard)?;
    let seed = match args.seed {
        Some(seed) => seed,
        None => crate::process::random::fresh()?,
    };
    let runtimes = sandbox::declare_runtimes(&args.declared(), &args.python, &args.node)?;
    let sandbox = Sandbox::new(runtimes, limits(args))?.with_readable(args.readable.clone());
    let mut grading = Grading {
        spec: &spec,
        functions,
        rubric,
        seed,
        fuzz: args.fuzz,
        settings: Settings {
            timeout: args.timeout,
            ..Settings::default()
        },
        sandbox: &sandbox,
        budget: Duration::from_secs(args.submission_seconds),
        drawn: None,
        judge: crate::judge::Judge::new(Default::default()),
    };
    // Every submission gets the same hidden cases: drawn once for the class, while the
    // canary (which needs none) waits on its interpreter's start.
    let (drawn, canary) = std::thread::scope(|scope| {
        let drawing = scope
            .spawn(|| crate::fuzz::Drawn::new(&spec.cases, &grading.functions, args.fuzz, seed));
        let canary = grading.canary();
        let drawn = drawing
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (drawn, canary)
    });
    canary.map_err(GradeError::Canary)?;
    // Only now, with the sandbox shown to work, is an earlier run removed (--overwrite).
    if existing == grade::out::Existing::EarlierRun {
        grade::out::remove_earlier_run(&args.out)?;
    }
    let out = OutDir::create(&args.out).map_err(|source| GradeError::Out {
        path: args.out.clone(),
        source,
    })?;
    let functions = &grading.functions;
    for warning in super::check::too_few_hidden_cases(&spec, functions, args.fuzz, seed) {
        say!("parcall: warning: {warning}");
    }
    grading.drawn = drawn;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    say!(
        "parcall: grading {} submissions, {jobs} at a time, hidden cases seed {seed}",
        submissions.len()
    );
    let results = Results {
        students: opened(&out, &[grade::out::STUDENTS])?,
        teacher: opened(&out, &[grade::out::TEACHER])?,
        reports: opened(&out, &[grade::out::TEACHER, grade::out::REPORTS])?,
        run: Run {
            suite: spec.version.clone(),
            seed,
            options,
            shard,
            protections: Run::protections(
                &sandbox
                    .capabilities
                    .protections(&limits(args), grading.budget),
            ),
            site: Run::site(&sandbox.site()),
        },
        graded: Mutex::new(Vec::new()),
        failures: Mutex::new(Vec::new()),
    };
    let graded = grading.grade_all(&submissions, jobs, &|g| {
        say!(
            "parcall: graded {} ({:.1}s)",
            crate::text::terminal::line(&g.submission.name),
            g.duration.as_secs_f64()
        );
        results.finished(g);
    });
    results.gradebooks(&graded, true);
    let printed = summarize(&graded, seed, &grading.functions);
    let failures = results
        .failures
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    for failure in &failures {
        say!("error: cannot write results: {failure}");
    }
    let incomplete =
        !failures.is_empty() || printed.is_err() || graded.iter().any(|g| g.setup_error);
    Ok(if incomplete {
        exit::INCOMPLETE
    } else {
        exit::SUCCESS
    })
}

/// Says what a teacher should know about the class on stderr, and prints its summary:
/// the same for a class graded in one run and one merged from shards (`graded`: every
/// submission, in gradebook order; `functions`: the functions it was graded on).
pub(super) fn summarize(
    graded: &[grade::Entry],
    seed: u64,
    functions: &[Function],
) -> std::io::Result<()> {
    let note = if Function::EXERCISES.iter().all(|f| functions.contains(f)) {
        formats::one_exercise_note(graded)
    } else {
        None
    };
    if let Some(note) = &note {
        say!("parcall: warning: {note}");
    }
    let defined = formats::defined_in(graded);
    let fewer = graded
        .iter()
        .filter(|g| formats::fewer_functions_note(g, &defined).is_some())
        .count();
    if fewer > 0 {
        say!(
            "parcall: warning: {fewer} submissions define fewer functions than others and lose those functions' points (see the notes under the summary)"
        );
    }
    let mut summary = formats::human(graded, seed);
    if let Some(note) = &note {
        summary.push_str(&format!("note: {note}\n"));
    }
    let mut out = std::io::stdout().lock();
    let printed = super::written(out.write_all(summary.as_bytes()).and_then(|()| out.flush()));
    if let Err(error) = &printed {
        say!("error: cannot print the summary: {error}");
    }
    printed
}

/// `--out`'s folder at `path` (its folders created, planted links replaced).
fn opened(out: &OutDir, path: &[&str]) -> Result<OutDir, GradeError> {
    let mut dir = out.subdir(path[0]);
    for name in &path[1..] {
        dir = dir.and_then(|d| d.subdir(name));
    }
    dir.map_err(|source| GradeError::Out {
        path: path.iter().fold(out.path().to_owned(), |p, n| p.join(n)),
        source,
    })
}

/// Writes results as each submission finishes, so a run killed half way keeps what it
/// graded: the submission's own files, then the gradebook so far (`"complete": false`).
/// What a student may see goes under `students/NAME/`, the rest under `teacher/`
/// (see [`grade::out::STUDENTS`]).
struct Results {
    students: OutDir,
    teacher: OutDir,
    reports: OutDir,
    run: Run,
    graded: Mutex<Vec<grade::Entry>>,
    /// Every write that failed (a full disk): the run then ends incomplete.
    failures: Mutex<Vec<String>>,
}

impl Results {
    fn fail(&self, error: std::io::Error) {
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(error.to_string());
    }

    fn finished(&self, g: &grade::Graded) {
        if let Err(error) = self.submission(g) {
            self.fail(error);
        }
        let mut graded = self.graded.lock().unwrap_or_else(|p| p.into_inner());
        graded.push(g.entry());
        graded.sort_by(|a, b| a.name.cmp(&b.name));
        self.gradebooks(&graded, false);
    }

    fn submission(&self, g: &grade::Graded) -> std::io::Result<()> {
        let dir = self.students.subdir(&g.submission.name)?;
        // For the student: no seed, at most one generated case per requirement.
        dir.write(
            "gradescope.json",
            &gradebook::pretty(&formats::gradescope(g)),
        )?;
        dir.write("exercism.json", &gradebook::pretty(&formats::exercism(g)))?;
        dir.write("feedback.txt", formats::feedback_file(g).as_bytes())?;
        // For the teacher: the whole report, with the seed and the rerun commands.
        let dir = self.reports.subdir(&g.submission.name)?;
        let mut report = Vec::new();
        crate::report::write(
            &g.report,
            crate::report::Format::Human,
            crate::report::Palette::plain(),
            &mut report,
        )?;
        dir.write("report.txt", &report)?;
        let mut page = Vec::new();
        crate::report::write(
            &g.report,
            crate::report::Format::Html,
            crate::report::Palette::plain(),
            &mut page,
        )?;
        dir.write("report.html", &page)
    }

    fn gradebooks(&self, graded: &[grade::Entry], complete: bool) {
        if let Err(error) = gradebook::write(&self.teacher, &self.run, graded, complete) {
            self.fail(error);
        }
    }
}

/// `parcall doctor`.
pub(super) fn doctor(args: &super::DoctorArgs) -> anyhow::Result<i32> {
    let capabilities = Capabilities::detect();
    let defaults = Limits {
        memory_bytes: Some(1024 << 20),
        cpu_seconds: Some(120),
        processes: Some(crate::sandbox::TASKS),
        file_bytes: Some(16 << 20),
        ..Limits::default()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "parcall grade protections on this machine:")?;
    for p in capabilities.protections(&defaults, Duration::from_secs(600)) {
        let mark = if p.active { "active  " } else { "INACTIVE" };
        writeln!(out, "  {mark}  {}: {}", p.name, p.detail)?;
    }
    // SAFETY: geteuid(2) takes no argument and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let containment = crate::sandbox::contain::detect();
    writeln!(
        out,
        "parcall check on this machine: {}",
        containment.describe()
    )?;
    if let Some(reason) = crate::sandbox::contain::sandbox_error(root) {
        writeln!(
            out,
            "  the sandbox cannot start here, so implementations see this machine's files, /proc and network: {reason}"
        )?;
    }
    writeln!(
        out,
        "  an implementation shares a CPU with parcall's answers: {}",
        crate::process::cpu::describe()
    )?;
    // Submissions run with a scrubbed PATH, so `--python python3` (or `--node node`) may
    // name another interpreter than the one on this shell's PATH (and one the submission
    // uid can read).
    let path = crate::sandbox::SANDBOX_PATH;
    for (program, flag) in [("python3", "--python"), ("node", "--node")] {
        match sandbox_version(program) {
            Some(version) => {
                writeln!(out, "submissions run `{program}` from PATH={path}: {version}")?
            }
            None => writeln!(out, "no `{program}` on PATH={path}: pass {flag} with an absolute path the submissions' uid can read")?,
        }
    }
    let runtimes =
        match crate::sandbox::declare_runtimes(&args.declared(), &args.python, &args.node) {
            Ok(runtimes) => runtimes,
            Err(error) => {
                say!("error: {error}");
                return Ok(exit::USAGE);
            }
        };
    writeln!(
        out,
        "declared runtimes (a manifest starts them by name; --runtime NAME=PATH declares more):"
    )?;
    let mut failed = false;
    for runtime in runtimes.iter() {
        match crate::sandbox::runtime_binds(&runtime.program) {
            Ok(binds) => {
                let folders: Vec<String> = binds
                    .iter()
                    .filter(|p| p.is_dir())
                    .map(|p| p.display().to_string())
                    .collect();
                let files = binds.len() - folders.len();
                writeln!(
                    out,
                    "  {:<8} {}: the sandbox binds {files} files{}",
                    runtime.name,
                    runtime.program.display(),
                    if folders.is_empty() {
                        String::new()
                    } else {
                        format!(" and the folders {}", folders.join(", "))
                    }
                )?;
            }
            Err(error) => {
                failed = true;
                writeln!(
                    out,
                    "  {:<8} {}: {error}",
                    runtime.name,
                    runtime.program.display()
                )?;
            }
        }
    }
    Ok(if failed { exit::USAGE } else { exit::SUCCESS })
}

/// What `PROGRAM --version` says on the submissions' PATH, if it runs there.
fn sandbox_version(program: &str) -> Option<String> {
    std::process::Command::new(program)
        .arg("--version")
        .env_clear()
        .env("PATH", crate::sandbox::SANDBOX_PATH)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}
