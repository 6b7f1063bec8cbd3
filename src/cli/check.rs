//! `parcall check`: run the spec's cases, the recorded regressions and generated cases
//! against an implementation, and report.

use super::exit;
use super::{CheckArgs, SpecArg};
use crate::fuzz::{self, regressions};
use crate::process::Limits;
use crate::report::expectations::ExpectationsFile;
use crate::report::{self, Context, Palette, Report, Verdict};
use crate::runner::{self, Run, Settings};
use crate::spec::{Function, Spec, SpecCase};
use crate::subject::adapters::{self, Prepared};
use crate::subject::environment::EnvPolicy;
use std::io::{IsTerminal, Write};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

/// Generated cases per function unless told otherwise.
pub const DEFAULT_FUZZ: usize = 500;

pub fn run(args: CheckArgs) -> anyhow::Result<i32> {
    let plan = match Plan::new(&args) {
        Ok(plan) => plan,
        Err(message) => {
            say!("error: {message}");
            return Ok(exit::USAGE);
        }
    };
    if plan.fuzz > 0 {
        say!(
            "parcall: {} generated cases per function, seed {} (rerun with --seed {})",
            plan.fuzz,
            plan.seed,
            plan.seed
        );
    }
    let outcome = execute(&args, &plan);
    let rerun = rerun_base(&args);
    let context = Context {
        spec: &plan.spec,
        target: &plan.prepared.target,
        rerun_base: &rerun,
    };
    let mut report =
        Report::new(&outcome.run, &context).with_generated(plan.seed, &outcome.generated, &context);
    report.containment = Some(plan.prepared.containment.describe());
    if let Some(reason) = &outcome.incomplete {
        report.verdict = Verdict::Error;
        report.error.get_or_insert_with(|| reason.clone());
    }
    if let Some(path) = &args.expectations {
        // What gates is what was read before the implementation started: it may have
        // rewritten the file since.
        let loaded = plan.expectations.as_ref();
        if let Err(message) =
            apply_expectations(&mut report, path, args.update_expectations, loaded)
        {
            say!("error: {message}");
            return Ok(exit::USAGE);
        }
    }
    for note in &outcome.notes {
        say!("parcall: {}", crate::text::terminal::line(note));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let annotations = report::AnnotationPaths::new(
        args.annotation_root.as_deref(),
        args.spec.spec.is_some(),
        &cwd,
    );
    let options = report::Options {
        annotations,
        ..report::Options::now(&report, Palette::plain())
    };
    let mut unwritten = false;
    for target in &args.report {
        if let Err(error) = write_report_file(&report, target, &options) {
            say!("error: {error}");
            unwritten = true;
        }
    }
    let stdout = std::io::stdout();
    let palette = Palette::for_stream(args.color, stdout.is_terminal());
    let mut out = stdout.lock();
    super::written(
        report::write_with(
            &report,
            args.format,
            &report::Options { palette, ..options },
            &mut out,
        )
        .and_then(|()| out.flush()),
    )?;
    let code = match report.verdict {
        _ if unwritten => exit::INCOMPLETE,
        Verdict::Conforms => exit::SUCCESS,
        Verdict::DoesNotConform => exit::DOES_NOT_CONFORM,
        Verdict::Error => exit::INCOMPLETE,
    };
    // The process exits next: freeing the spec value by value is work for nothing, and for
    // a `--spec` export of 10,000 generated cases (150 MB) it took a third of a second.
    std::mem::forget(plan.spec);
    Ok(code)
}

/// Writes one `--report FORMAT=PATH`, uncoloured, through a temporary file beside it and
/// a rename, so a reader never sees half a report. A special file (a FIFO, the step
/// summary's file on some runners) is written in place.
fn write_report_file(
    report: &Report,
    target: &super::ReportTarget,
    options: &report::Options,
) -> Result<(), String> {
    let path = &target.path;
    let fail = |e: std::io::Error| format!("{}: cannot write the report: {e}", path.display());
    let mut text = Vec::new();
    report::write_with(report, target.format, options, &mut text).map_err(fail)?;
    let regular = std::fs::symlink_metadata(path).map_or(true, |m| m.is_file());
    if !regular {
        // Without blocking: a FIFO planted at the path with no reader is an error (ENXIO),
        // never a hang.
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(fail)?;
        // Opened, it has a reader: from here writes wait for it, as a reader slower than
        // the report is long (`| (sleep 3; wc -c)`) once got EAGAIN and a correct run exit
        // 3. A reader that leaves early is not a failure, as on stdout.
        set_blocking(&file).map_err(fail)?;
        return super::written(file.write_all(&text)).map_err(fail);
    }
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(directory).map_err(fail)?;
    temporary.write_all(&text).map_err(fail)?;
    // A report is for everyone who reads the build, not only its owner (temporary files
    // are created 0600).
    let readable = std::fs::Permissions::from_mode(0o644);
    temporary
        .as_file()
        .set_permissions(readable)
        .map_err(fail)?;
    temporary.persist(path).map(drop).map_err(|e| fail(e.error))
}

/// Clears `O_NONBLOCK` on an open file.
fn set_blocking(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function borrows for the call.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Applies (or first rewrites, with `--update-expectations`) the expectations file, as it
/// was read before the run (`loaded`).
fn apply_expectations(
    report: &mut Report,
    path: &std::path::Path,
    update: bool,
    loaded: Option<&ExpectationsFile>,
) -> Result<(), String> {
    let name = path.display().to_string();
    let file = if update {
        let file = ExpectationsFile::from_report(report, loaded);
        file.save(path)
            .map_err(|e| format!("{name}: cannot write: {e}"))?;
        say!(
            "parcall: wrote {} known failures to {name}",
            file.known_failures.len()
        );
        file
    } else {
        loaded
            .cloned()
            .ok_or_else(|| format!("{name}: was not read before the run"))?
    };
    file.apply(report, &name);
    Ok(())
}

/// Reads `--expectations` before anything runs. With `--update-expectations` a missing
/// file is fine (it is created); a file that exists must be valid either way.
fn load_expectations(args: &CheckArgs) -> Result<Option<ExpectationsFile>, String> {
    let Some(path) = &args.expectations else {
        return Ok(None);
    };
    let missing =
        std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
    if args.update_expectations && missing {
        return Ok(None);
    }
    ExpectationsFile::load(path)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Everything settled before the implementation starts: bad input is refused here, and
/// every input that gates the verdict is read here, so the implementation cannot change it.
struct Plan {
    spec: Spec,
    expectations: Option<ExpectationsFile>,
    /// Recorded regressions, then the selected spec cases.
    cases: Vec<SpecCase>,
    functions: Vec<Function>,
    prepared: Prepared,
    fuzz: usize,
    seed: u64,
}

impl Plan {
    fn new(args: &CheckArgs) -> Result<Plan, String> {
        let spec = args.spec.load().map_err(|e| e.to_string())?;
        let selected = select(&spec, args)?;
        let filtered = !args.case.is_empty() || !args.requirement.is_empty();
        let fuzz = args.fuzz.unwrap_or(if filtered { 0 } else { DEFAULT_FUZZ });
        let functions: Vec<Function> = Function::ALL
            .into_iter()
            .filter(|f| args.function.is_empty() || args.function.contains(f))
            .collect();
        let mut cases = Vec::new();
        if replays_regressions(args) {
            match regressions::load(&args.regressions, &implementation_key(args)) {
                Ok(replayed) => cases.extend(
                    replayed
                        .into_iter()
                        .filter(|c| functions.contains(&c.function())),
                ),
                Err(error) => say!("parcall: warning: {error}; no regressions replayed"),
            }
        }
        cases.extend(selected);
        let expectations = load_expectations(args)?;
        if let Some(dir) = args
            .save_failures
            .as_ref()
            .filter(|d| d.exists() && !d.is_dir())
        {
            return Err(format!("--save-failures {}: not a folder", dir.display()));
        }
        let prepared = prepare(args).map_err(|e| e.to_string())?;
        Ok(Plan {
            spec,
            expectations,
            cases,
            functions,
            prepared,
            fuzz,
            seed: args.seed.unwrap_or_else(fresh_seed),
        })
    }
}

/// Whether recorded counterexamples run first. Not with a case or requirement filter (the
/// run is about those cases), nor where none are kept.
fn replays_regressions(args: &CheckArgs) -> bool {
    let filtered = !args.case.is_empty() || !args.requirement.is_empty();
    keeps_regressions(args) && !filtered
}

/// Whether this run reads and writes the regressions file. Not with an expectations file:
/// a gated verdict depends only on the spec, the seed and the file, never on what this
/// machine found before, and a gate writes nothing into the checkout it gates.
fn keeps_regressions(args: &CheckArgs) -> bool {
    !args.no_regressions && args.expectations.is_none()
}

/// Who the regressions file keeps counterexamples for: the module's canonical path (the
/// same module named from another folder is the same implementation), or the `--cmd` line.
fn implementation_key(args: &CheckArgs) -> String {
    match (&args.cmd, &args.implementation) {
        // A command line means different programs in different folders.
        (Some(cmd), _) => {
            let folder = std::env::current_dir().unwrap_or_default();
            format!("cmd: {cmd} (in {})", folder.display())
        }
        (None, Some(path)) => {
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            format!("module: {}", path.display())
        }
        (None, None) => String::new(),
    }
}

/// A seed nobody chose: the clock and the process id.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

struct Outcome {
    run: Run,
    generated: Vec<fuzz::Summary>,
    notes: Vec<String>,
    /// Why the run could not complete (its budget was spent).
    incomplete: Option<String>,
}

fn execute(args: &CheckArgs, plan: &Plan) -> Outcome {
    let settings = Settings {
        timeout: args.timeout,
        startup: args.startup_timeout,
        deadline: Some(Instant::now() + args.budget),
        ..Settings::default()
    };
    let check_plan = fuzz::CheckPlan {
        spec: &plan.spec,
        cases: &plan.cases,
        functions: &plan.functions,
        fuzz: plan.fuzz,
        seed: plan.seed,
        settings,
        // Judged only on the functions it defines, unless a function was asked for.
        undefined: if args.function.is_empty() {
            fuzz::Undefined::LeaveOut
        } else {
            fuzz::Undefined::Fail
        },
        // `check` shows the first failure shrunk; shrinking one per requirement is the
        // feedback `grade` gives.
        shrink_each_requirement: false,
        // One implementation: its cases are drawn as they stream.
        drawn: None,
    };
    let expected_total = plan.cases.len() + plan.fuzz * plan.functions.len();
    let checked = fuzz::check(&plan.prepared.launch, &check_plan, progress(expected_total));
    clear_progress();
    let notes = keep_counterexamples(args, &checked.generated);
    Outcome {
        run: checked.run,
        generated: checked.generated,
        notes,
        incomplete: checked.incomplete,
    }
}

/// Records each counterexample in the regressions file and, with `--save-failures`, as a
/// case file. Failing to write is reported, never fatal: the verdict stands.
fn keep_counterexamples(args: &CheckArgs, generated: &[fuzz::Summary]) -> Vec<String> {
    let mut notes = Vec::new();
    for counterexample in generated.iter().filter_map(|g| g.counterexample.as_ref()) {
        if keeps_regressions(args) {
            match regressions::record(&args.regressions, &implementation_key(args), counterexample)
            {
                Ok(true) => notes.push(format!(
                    "counterexample {} recorded in {}; the next run replays it first",
                    counterexample.id(),
                    args.regressions.display()
                )),
                Ok(false) => {}
                Err(error) => notes.push(format!("warning: {error}")),
            }
        }
        if let Some(dir) = &args.save_failures {
            match regressions::save_case_file(dir, counterexample) {
                Ok(path) => notes.push(format!("counterexample saved as {}", path.display())),
                Err(error) => notes.push(format!("warning: {error}")),
            }
        }
    }
    notes
}

/// A progress line on stderr when it is a terminal, redrawn at most every 100 ms.
fn progress<'a>(total: usize) -> Option<runner::ResultCallback<'a>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let mut done = 0usize;
    let mut last = Instant::now() - Duration::from_secs(1);
    Some(Box::new(move |_| {
        done += 1;
        if last.elapsed() >= Duration::from_millis(100) {
            last = Instant::now();
            let width = 30;
            let filled = (done * width / total.max(1)).min(width);
            say_partly!(
                "\r[{}{}] {done}/{total} cases",
                "=".repeat(filled),
                " ".repeat(width - filled)
            );
        }
    }))
}

fn clear_progress() {
    if std::io::stderr().is_terminal() {
        say_partly!("\r{}\r", " ".repeat(60));
    }
}

fn prepare(args: &CheckArgs) -> Result<Prepared, adapters::PrepareError> {
    let limits = Limits {
        // values::mib bounds the flag, so the shift cannot overflow.
        memory_bytes: (args.memory_mib > 0).then_some(args.memory_mib << 20),
        ..Limits::default()
    };
    let env = EnvPolicy {
        inherit: args.inherit_env,
        pass: args.pass_env.clone(),
    };
    let prepared = match (&args.implementation, &args.cmd) {
        (_, Some(cmd)) => adapters::command(cmd, limits),
        (Some(path), None) => adapters::module(path, &args.python, &args.node, limits),
        (None, None) => Err(adapters::PrepareError::Command(
            "name an implementation (a .py file) or pass --cmd \"PROGRAM ARGS\"".into(),
        )),
    }?;
    Ok(prepared.contained(&env))
}

/// The command that reruns this check, without case filters.
fn rerun_base(args: &CheckArgs) -> String {
    let mut words = vec!["parcall".to_owned(), "check".to_owned()];
    if let Some(cmd) = &args.cmd {
        words.push("--cmd".into());
        words.push(cmd.clone());
    } else if let Some(path) = &args.implementation {
        words.push(path.display().to_string());
    }
    if let SpecArg { spec: Some(dir) } = &args.spec {
        words.push("--spec".into());
        words.push(dir.display().to_string());
    }
    shell_words::join(words)
}

/// The spec cases the filters select. A filter that selects nothing is a usage error: it is
/// almost always a typo.
fn select(spec: &Spec, args: &CheckArgs) -> Result<Vec<SpecCase>, String> {
    for id in &args.requirement {
        if spec.requirement(id).is_none() {
            return Err(format!(
                "--requirement {id}: no such requirement (see spec/SPEC.md or `parcall spec list`)"
            ));
        }
    }
    let selected: Vec<SpecCase> = spec
        .cases
        .iter()
        .filter(|c| args.function.is_empty() || args.function.contains(&c.function()))
        .filter(|c| {
            args.case.is_empty() || args.case.iter().any(|g| crate::spec::glob_match(g, c.id()))
        })
        .filter(|c| {
            args.requirement.is_empty()
                || c.requirements()
                    .iter()
                    .any(|r| args.requirement.contains(r))
        })
        .cloned()
        .collect();
    if selected.is_empty() {
        return Err("the filters select no case (list the cases with `parcall spec list`)".into());
    }
    Ok(selected)
}
