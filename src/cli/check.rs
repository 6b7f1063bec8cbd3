//! `parcall check`: run the spec's cases, the recorded regressions and generated cases
//! against an implementation, and report.

use super::exit;
use super::{CheckArgs, SpecArg};
use crate::check::gate::ExpectationsFile;
use crate::check::regressions::{self, FileRegressions, NoRegressions, Regressions};
use crate::check::{self, Checked, Context, Undefined};
use crate::judge::Judge;
use crate::report::{self, Palette, Report};
use crate::runner::Settings;
use crate::spec::{Function, Spec, SpecCase};
use crate::subject::adapters::{self, Prepared};
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// What stops a check before, or after, the implementation runs: bad input (exit 2) or a
/// report that cannot be written (exit 3).
#[derive(Debug, thiserror::Error)]
pub(super) enum CheckError {
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    #[error("--requirement {0}: no such requirement (see spec/SPEC.md or `parcall spec list`)")]
    UnknownRequirement(String),
    #[error("the filters select no case (list the cases with `parcall spec list`)")]
    NothingSelected,
    #[error("--function {function}: not a function of the {profile} profile (it belongs to --profile {belongs})")]
    OutsideProfile {
        function: Function,
        profile: crate::spec::Profile,
        belongs: crate::spec::Profile,
    },
    #[error(transparent)]
    Expectations(#[from] crate::check::gate::ExpectationsError),
    #[error("{0}: was not read before the run")]
    ExpectationsNotRead(String),
    #[error("{path}: cannot write: {source}")]
    WriteExpectations {
        path: String,
        source: std::io::Error,
    },
    #[error("--save-failures {0}: not a folder")]
    NotAFolder(String),
    #[error("--regressions {path}: {problem}; name a regular file (it is created when missing), or pass --no-regressions")]
    Regressions { path: String, problem: &'static str },
    #[error(transparent)]
    Prepare(#[from] adapters::PrepareError),
    #[error("{path}: cannot write the report: {source}")]
    WriteReport {
        path: String,
        source: std::io::Error,
    },
}

/// Generated cases per function unless told otherwise.
pub(super) const DEFAULT_FUZZ: usize = 500;

pub(super) fn run(args: CheckArgs) -> anyhow::Result<i32> {
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
    for warning in too_few_hidden_cases(&plan.spec, &plan.functions, plan.fuzz, plan.seed) {
        say!("parcall: warning: {warning}");
    }
    let outcome = execute(&args, &plan);
    // A start-up that the sandbox failed is the caller's to fix, with a flag.
    let lacked = outcome
        .checked
        .start_error
        .as_ref()
        .and_then(|error| crate::sandbox::lacked_library(&error.to_string()));
    if let Some(message) = lacked {
        say!("error: {message}");
        return Ok(exit::USAGE);
    }
    if let Some(error) = outcome
        .checked
        .start_error
        .as_ref()
        .filter(|e| e.is_setup_error())
    {
        say!("error: {}", error.headline());
        return Ok(exit::USAGE);
    }
    let set_up = memory_too_small(&args, &plan, &outcome.checked)
        .or_else(|| interpreter_cannot_start(&args, &plan, &outcome.checked));
    if let Some(message) = set_up {
        say!("error: {message}");
        return Ok(exit::USAGE);
    }
    let rerun = rerun_base(&args);
    let context = Context {
        spec: &plan.spec,
        target: &plan.prepared.target,
        rerun_base: &rerun,
    };
    let mut report = check::report(&outcome.checked, &context);
    report.containment = Some(plan.prepared.containment.describe());
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
        if let Err(error) = super::report_file::write(&report, target, &options) {
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
        report::Verdict::Conforms => exit::SUCCESS,
        report::Verdict::DoesNotConform => exit::DOES_NOT_CONFORM,
        report::Verdict::Error => exit::INCOMPLETE,
    };
    // The process exits next: freeing the spec value by value is work for nothing, and a
    // large `--spec` export makes it long work (BENCHMARKS.md section 3).
    std::mem::forget(plan.spec);
    Ok(code)
}

/// Applies (or first rewrites, with `--update-expectations`) the expectations file, as it
/// was read before the run (`loaded`).
fn apply_expectations(
    report: &mut Report,
    path: &std::path::Path,
    update: bool,
    loaded: Option<&ExpectationsFile>,
) -> Result<(), CheckError> {
    let name = path.display().to_string();
    let file = if update {
        let file = ExpectationsFile::from_report(report, loaded);
        file.save(path)
            .map_err(|source| CheckError::WriteExpectations {
                path: name.clone(),
                source,
            })?;
        say!(
            "parcall: wrote {} known failures to {name}",
            file.known_failures.len()
        );
        file
    } else {
        loaded
            .cloned()
            .ok_or_else(|| CheckError::ExpectationsNotRead(name.clone()))?
    };
    file.apply(report, &name);
    Ok(())
}

/// Reads `--expectations` before anything runs. With `--update-expectations` a missing
/// file is fine (it is created); a file that exists must be valid either way.
fn load_expectations(args: &CheckArgs) -> Result<Option<ExpectationsFile>, CheckError> {
    let Some(path) = &args.expectations else {
        return Ok(None);
    };
    let missing =
        std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
    if args.update_expectations && missing {
        return Ok(None);
    }
    Ok(Some(ExpectationsFile::load(path)?))
}

/// Everything settled before the implementation starts: bad input is refused here, and
/// every input that gates the verdict is read here, so the implementation cannot change it.
struct Plan {
    spec: Spec,
    expectations: Option<ExpectationsFile>,
    /// The selected spec cases (the recorded regressions run before them); `None` when
    /// every case is selected, so the spec's own are run without a copy of them all.
    selected: Option<Vec<SpecCase>>,
    functions: Vec<Function>,
    prepared: Prepared,
    fuzz: usize,
    seed: u64,
}

impl Plan {
    /// The spec cases this run puts to the implementation.
    fn cases(&self) -> &[SpecCase] {
        self.selected.as_deref().unwrap_or(&self.spec.cases)
    }

    fn new(args: &CheckArgs) -> Result<Plan, CheckError> {
        let spec = args.spec.load()?;
        let selected = select(&spec, args)?;
        let filtered = !args.case.is_empty() || !args.requirement.is_empty();
        let fuzz = args.fuzz.unwrap_or(if filtered { 0 } else { DEFAULT_FUZZ });
        let functions = profile_functions(args.profile, &args.function)?;
        let expectations = load_expectations(args)?;
        if let Some(dir) = args
            .save_failures
            .as_ref()
            .filter(|d| d.exists() && !d.is_dir())
        {
            return Err(CheckError::NotAFolder(dir.display().to_string()));
        }
        if keeps_regressions(args) {
            usable_regressions(&args.regressions)?;
        }
        let prepared = prepare(args)?;
        Ok(Plan {
            spec,
            expectations,
            selected,
            functions,
            prepared,
            fuzz,
            seed: args.seed.unwrap_or_else(fresh_seed),
        })
    }
}

/// The regressions file must be a regular file or nothing yet, in a folder that is one or can
/// be made: a FIFO, a folder or a device would be read (or written) as if it held them.
/// A link is followed, as the read will follow it.
fn usable_regressions(path: &std::path::Path) -> Result<(), CheckError> {
    let problem = |problem| CheckError::Regressions {
        path: path.display().to_string(),
        problem,
    };
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(()),
        Ok(_) => Err(problem("not a regular file")),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            // Absent: made on the first failure, in a folder that exists or can be made.
            let blocked = path
                .ancestors()
                .skip(1)
                .find(|a| !a.as_os_str().is_empty() && a.exists())
                .is_some_and(|a| !a.is_dir());
            if blocked {
                Err(problem("a folder on its way is a file"))
            } else {
                Ok(())
            }
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotADirectory => {
            Err(problem("a folder on its way is a file"))
        }
        Err(_) => Err(problem("cannot be read")),
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

/// For each function whose `fuzz` generated cases of `seed` leave a scored requirement
/// unshown (fewer cases than the requirements need slots), a warning that names them and
/// the size that shows them all: otherwise a correct implementation silently scores less.
pub(super) fn too_few_hidden_cases(
    spec: &Spec,
    functions: &[Function],
    fuzz: usize,
    seed: u64,
) -> Vec<String> {
    if fuzz == 0 {
        return Vec::new();
    }
    functions
        .iter()
        .filter_map(|&function| {
            let unshown = crate::fuzz::unshown(function, &spec.cases, fuzz, seed);
            (!unshown.is_empty()).then(|| {
                format!(
                    "--fuzz {fuzz}: the generated cases of {function} (seed {seed}) never show \
                     {}, so no implementation, however correct, meets them; --fuzz {} or more \
                     shows every requirement",
                    unshown.join(", "),
                    crate::fuzz::slots_needed(function)
                )
            })
        })
        .collect()
}

/// A seed nobody chose.
pub(super) fn fresh_seed() -> u64 {
    // From the operating system's random source: a seed read from the clock is narrowed by
    // what an implementation can observe (when the run started, its pid) to few enough
    // candidates to regenerate the generated cases offline. Where no random source answers,
    // the clock is all there is, and the seed is printed either way.
    crate::process::random::fresh().unwrap_or_else(|_| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ (u64::from(std::process::id()) << 32)
    })
}

/// When a module ended before the handshake and an empty module does too under the
/// interpreter it was given, with memory to spare (`--python /bin/true`, a Python 2): the
/// interpreter cannot run parcall's adapter, so the implementation was never checked, and
/// that is the caller's set-up error, not a verdict. Probed only after such a failure.
fn interpreter_cannot_start(args: &CheckArgs, plan: &Plan, checked: &Checked) -> Option<String> {
    use crate::subject::launch::Language;
    use crate::subject::probe::{self, Probe};
    let error = checked.start_error.as_ref()?;
    if args.cmd.is_some() || !probe::ended_before_the_handshake(error) {
        return None;
    }
    let language = Language::of(args.implementation.as_deref()?)?;
    let (interpreter, flag, wanted) = match language {
        Language::Python => (&args.python, "--python", "Python 3.9 or later"),
        Language::JavaScript => (&args.node, "--node", "Node 20 or later"),
    };
    let probe = Probe {
        language,
        interpreter,
        env: &args.process.env(),
        suite: &plan.spec.version,
        startup: args.process.startup_timeout,
    };
    let roomy = crate::process::Limits::default()
        .memory_bytes
        .map_or(2048, |bytes| bytes >> 20)
        .max(args.process.memory_mib);
    if probe.starts(roomy).ok()? {
        return None;
    }
    Some(format!(
        "{flag} {}: it cannot run parcall's adapter (an empty module ends before the \
         handshake under it too), so the implementation was never checked; pass {flag} with \
         {wanted}",
        interpreter.to_string_lossy()
    ))
}

/// When the implementation ended before its handshake under a memory limit too small for
/// its language's interpreter to start at all (an empty module does not start under it
/// either), the set-up error that says so and which limit starts it. Probed only after such
/// a failure, so a run that starts pays nothing.
fn memory_too_small(args: &CheckArgs, plan: &Plan, checked: &Checked) -> Option<String> {
    use crate::subject::launch::Language;
    use crate::subject::probe::{self, Probe};
    let error = checked.start_error.as_ref()?;
    let limit = Some(args.process.memory_mib).filter(|&mib| mib > 0)?;
    if args.cmd.is_some() || !probe::ended_before_the_handshake(error) {
        return None;
    }
    let language = Language::of(args.implementation.as_deref()?)?;
    let interpreter = match language {
        Language::Python => &args.python,
        Language::JavaScript => &args.node,
    };
    let probe = Probe {
        language,
        interpreter,
        env: &args.process.env(),
        suite: &plan.spec.version,
        startup: args.process.startup_timeout,
    };
    if probe.starts(limit).ok()? {
        return None;
    }
    let default = crate::process::Limits::default()
        .memory_bytes
        .map_or(2048, |bytes| bytes >> 20);
    let works = probe.least_limit_that_starts(limit, default).ok()??;
    let name = interpreter.to_string_lossy();
    Some(format!(
        "--memory-mib {limit} is too small for `{name}` to start: an empty module ends before \
         the handshake under it too, so the implementation was never run; `{name}` starts \
         under --memory-mib {works}, and the implementation's own work may need more (the \
         default is {default})"
    ))
}

struct Outcome {
    checked: Checked,
    notes: Vec<String>,
}

fn execute(args: &CheckArgs, plan: &Plan) -> Outcome {
    let settings = Settings {
        timeout: args.process.timeout,
        startup: args.process.startup_timeout,
        deadline: Some(Instant::now() + args.budget),
        ..Settings::default()
    };
    let kept: Box<dyn Regressions> = if keeps_regressions(args) {
        Box::new(FileRegressions {
            path: args.regressions.clone(),
            implementation: implementation_key(args),
            replay: replays_regressions(args),
        })
    } else {
        Box::new(NoRegressions)
    };
    let judge = Judge::new(Default::default());
    let check_plan = check::Plan {
        functions: &plan.functions,
        fuzz: plan.fuzz,
        seed: plan.seed,
        settings,
        // Judged only on the functions it defines, unless a function was asked for.
        undefined: if args.function.is_empty() {
            Undefined::LeaveOut
        } else {
            Undefined::Fail
        },
        // `check` shows the first failure shrunk; shrinking one per requirement is the
        // feedback `grade` gives. One implementation: its cases are drawn as they stream.
        regressions: kept.as_ref(),
        ..check::Plan::new(&plan.spec, plan.cases(), &judge)
    };
    let expected_total = plan.cases().len() + plan.fuzz * plan.functions.len();
    let mut progress = super::progress::Progress::on_terminal(expected_total);
    let observer = progress.as_mut().map(|p| p as &mut dyn check::Observer);
    let mut checked = check::run_process(&plan.prepared.launch, &check_plan, observer);
    super::progress::clear();
    let mut notes = std::mem::take(&mut checked.notes);
    notes.extend(save_failures(args, &checked.generated));
    Outcome { checked, notes }
}

/// With `--save-failures`, writes each counterexample as a case file. Failing to write is
/// reported, never fatal: the verdict stands.
fn save_failures(args: &CheckArgs, generated: &[crate::fuzz::Summary]) -> Vec<String> {
    let Some(dir) = &args.save_failures else {
        return Vec::new();
    };
    generated
        .iter()
        .filter_map(|g| g.counterexample.as_ref())
        .map(
            |counterexample| match regressions::save_case_file(dir, counterexample) {
                Ok(path) => format!("counterexample saved as {}", path.display()),
                Err(error) => format!("warning: {error}"),
            },
        )
        .collect()
}

fn prepare(args: &CheckArgs) -> Result<Prepared, adapters::PrepareError> {
    let limits = args.process.limits();
    let env = args.process.env();
    let runtimes = args.process.runtimes(&args.python, &args.node)?;
    let prepared = match (&args.implementation, &args.cmd) {
        (_, Some(cmd)) => adapters::command(cmd, &runtimes, limits),
        (Some(path), None) => {
            adapters::module_or_manifest(path, &args.python, &args.node, &runtimes, limits)
        }
        (None, None) => Err(adapters::PrepareError::Command(
            "name an implementation (a .py file) or pass --cmd \"PROGRAM ARGS\"".into(),
        )),
    }?;
    Ok(prepared.contained(&env))
}

/// The command that reruns this check, without case filters.
fn rerun_base(args: &CheckArgs) -> String {
    // A runtimes file's declarations are spelled out: the command then stands alone.
    let declared = args.process.declared();
    let setting = RunSetting {
        profile: args.profile,
        python: &args.python,
        node: &args.node,
        readable: &args.process.readable,
        runtimes: &declared,
    };
    rerun_command(
        args.cmd.as_deref(),
        args.implementation.as_deref(),
        &args.spec,
        &setting,
    )
}

/// What a rerun must repeat besides the implementation and the spec: the profile, the
/// interpreters named, the folders the sandbox lets it read.
pub(super) struct RunSetting<'a> {
    pub(super) profile: crate::spec::Profile,
    pub(super) python: &'a std::ffi::OsStr,
    pub(super) node: &'a std::ffi::OsStr,
    pub(super) readable: &'a [std::path::PathBuf],
    pub(super) runtimes: &'a [(String, std::ffi::OsString)],
}

/// `parcall check` of the program `cmd` or else of the module `implementation`, against
/// `spec`, as `setting` says: the start of every rerun command.
pub(super) fn rerun_command(
    cmd: Option<&str>,
    implementation: Option<&std::path::Path>,
    spec: &SpecArg,
    setting: &RunSetting<'_>,
) -> String {
    let mut words = vec!["parcall".to_owned(), "check".to_owned()];
    if let Some(cmd) = cmd {
        words.push("--cmd".into());
        words.push(cmd.to_owned());
    } else if let Some(path) = implementation {
        words.push(path.display().to_string());
    }
    if let SpecArg { spec: Some(dir) } = spec {
        words.push("--spec".into());
        words.push(dir.display().to_string());
    }
    if setting.profile != crate::spec::Profile::default() {
        words.push("--profile".into());
        words.push(setting.profile.to_string());
    }
    for (flag, program, default) in [
        ("--python", setting.python, "python3"),
        ("--node", setting.node, "node"),
    ] {
        if program != default {
            words.push(flag.into());
            words.push(program.to_string_lossy().into_owned());
        }
    }
    for folder in setting.readable {
        words.push("--readable".into());
        words.push(relative_to_cwd(folder));
    }
    for (name, program) in setting.runtimes {
        words.push("--runtime".into());
        words.push(format!("{name}={}", program.to_string_lossy()));
    }
    shell_words::join(words)
}

/// `folder` as the caller named it, relative to the current folder when it is inside it
/// (`--readable` keeps absolute paths, which a rerun from the same place need not spell).
fn relative_to_cwd(folder: &std::path::Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    folder
        .strip_prefix(&cwd)
        .unwrap_or(folder)
        .display()
        .to_string()
}

/// The functions of `profile` a run checks: the ones `--function` names, or all of them.
pub(super) fn profile_functions(
    profile: crate::spec::Profile,
    named: &[Function],
) -> Result<Vec<Function>, CheckError> {
    if let Some(&function) = named.iter().find(|f| f.profile() != profile) {
        return Err(CheckError::OutsideProfile {
            function,
            profile,
            belongs: function.profile(),
        });
    }
    Ok(profile
        .functions()
        .iter()
        .copied()
        .filter(|f| named.is_empty() || named.contains(f))
        .collect())
}

/// The spec cases the filters select. A filter that selects nothing is a usage error: it is
/// almost always a typo.
/// The cases `args` select, or `None` when they select every case of the spec.
fn select(spec: &Spec, args: &CheckArgs) -> Result<Option<Vec<SpecCase>>, CheckError> {
    for id in &args.requirement {
        if spec.requirement(id).is_none() {
            return Err(CheckError::UnknownRequirement(id.clone()));
        }
    }
    let in_profile = |c: &SpecCase| c.function().profile() == args.profile;
    let everything = spec.cases.iter().all(in_profile);
    if everything && args.function.is_empty() && args.case.is_empty() && args.requirement.is_empty()
    {
        return Ok(None);
    }
    let selected: Vec<SpecCase> = spec
        .cases
        .iter()
        .filter(|c| in_profile(c))
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
        return Err(CheckError::NothingSelected);
    }
    Ok(Some(selected))
}
