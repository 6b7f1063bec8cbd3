//! The command line: clap definitions (their doc comments are the help) and one function per
//! subcommand. Results go to stdout, diagnostics to stderr.

mod check;
mod compare;
pub mod exit;
mod grade;
mod grade_merge;
mod init;
mod mutate;
mod progress;
mod reference_cmd;
mod report_file;
mod spec_cmd;
pub mod values;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// parcall: the conformance suite for parallel tool calling.
///
/// Checks implementations of `execute_tool_calls(calls, max_parallel=4)` and
/// `run_parallel_calls(tools, calls)` against a property-tested specification.
#[derive(Debug, Parser)]
#[command(name = "parcall", version, after_help = exit::HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check an implementation against the specification.
    ///
    /// `parcall check solution.py` loads a Python module that defines
    /// `execute_tool_calls`, `run_parallel_calls` or both, runs every case of the functions
    /// it defines, and reports each failure with the input, a diff, the invocations and a
    /// command that reruns it.
    #[command(after_help = exit::HELP)]
    Check(Box<CheckArgs>),
    /// Compare implementations: check each with the same cases and seed, and show which
    /// keeps which requirement as one requirement × implementation matrix (docs/compare.md).
    ///
    /// For example `parcall compare conformance/examples/python/solution.py
    /// conformance/examples/javascript/solution.mjs --cmd "parcall reference --number-model
    /// float64" --function execute_tool_calls --fuzz 20 --out compare/`. Implementations run
    /// at most --jobs at once; one that cannot start or crashes is a column of failures.
    /// The exit code says whether the matrix was produced, not whether anything conforms.
    #[command(after_help = COMPARE_EXIT_HELP)]
    Compare(Box<CompareArgs>),
    /// Grade exercise submissions: a score per submission from a rubric, feedback per
    /// requirement, Gradescope and Exercism results, a gradebook; each submission isolated.
    #[command(after_help = exit::HELP)]
    Grade(Box<GradeArgs>),
    /// Measure the suite against a model solution: make mutants of a Python module (one
    /// small change each), check each with the fixed cases, then the generated ones, and
    /// report which survive.
    #[command(after_help = MUTATE_EXIT_HELP)]
    Mutate(Box<MutateArgs>),
    /// Write a starter kit: a protocol adapter for LANG and the two functions left empty, so
    /// an implementation in any language is only the two functions (`parcall init` lists the
    /// kits).
    Init(InitArgs),
    /// Say which of `parcall grade`'s protections are active on this machine, and why not,
    /// and what each declared runtime finds in the sandbox (`--runtime NAME=PATH`).
    Doctor(DoctorArgs),
    /// Serve the Rust reference over the protocol (the runner's own end-to-end test):
    /// `parcall check --cmd "parcall reference"` must pass. `parcall reference key '{"b": 1, "a": 1.0}'`
    /// prints the cache key the reference computes for an args object instead.
    Reference(ReferenceArgs),
    /// Read the specification without running anything.
    #[command(subcommand)]
    Spec(SpecCommand),
}

/// `parcall doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Python, as `grade --python` takes it.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: std::ffi::OsString,
    /// Node, as `grade --node` takes it.
    #[arg(long, value_name = "PATH", default_value = "node")]
    pub node: std::ffi::OsString,
    /// A runtime to declare as `check`, `compare` and `grade` take it (repeatable): doctor
    /// shows what laying it out finds (its standard library, installation folder, libraries).
    #[arg(long, value_name = "NAME=PATH", value_parser = values::runtime)]
    pub runtime: Vec<(String, std::ffi::OsString)>,
    /// A file declaring runtimes, one `NAME=PATH` a line as `--runtime` takes it (`#`
    /// comments): a class's toolchains written once. Its runtimes come before `--runtime`'s.
    #[arg(long, value_name = "FILE", value_parser = values::runtimes_file)]
    pub runtimes: Option<values::RuntimesFile>,
}

/// The runtimes a command declares: those of `--runtimes FILE`, then those of `--runtime`.
fn declared(
    file: &Option<values::RuntimesFile>,
    flags: &[(String, std::ffi::OsString)],
) -> Vec<(String, std::ffi::OsString)> {
    file.iter()
        .flat_map(|f| &f.0)
        .chain(flags)
        .cloned()
        .collect()
}

impl DoctorArgs {
    /// `--runtimes FILE`, then `--runtime`.
    pub fn declared(&self) -> Vec<(String, std::ffi::OsString)> {
        declared(&self.runtimes, &self.runtime)
    }
}

impl GradeArgs {
    /// `--runtimes FILE`, then `--runtime`.
    pub fn declared(&self) -> Vec<(String, std::ffi::OsString)> {
        declared(&self.runtimes, &self.runtime)
    }
}

/// `parcall init`: a starter kit.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The kit's language: go, java, javascript, python, ruby, rust, typescript. Without it,
    /// the kits are listed.
    #[arg(value_name = "LANG")]
    pub language: Option<String>,
    /// The folder to write it to (created if missing; no file in it is overwritten).
    /// Default: `parcall-LANG`.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `parcall reference`: with no subcommand, the reference served over the protocol.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ReferenceArgs {
    #[command(subcommand)]
    pub command: Option<ReferenceCommand>,
    /// The number model to declare in the handshake and run by: `float64` serves the
    /// reference as a runtime whose numbers are all doubles does (RULES E).
    #[arg(long, value_enum, value_name = "MODEL", default_value_t)]
    pub number_model: crate::json::NumberModel,
}

#[derive(Debug, Subcommand)]
pub enum ReferenceCommand {
    /// Print the cache key the reference computes for an args object (RULES B1, B2):
    /// `json.dumps(args, sort_keys=True)`, or with `--tool NAME` the whole key
    /// `NAME(...)`, to test an implementation's keying function alone.
    ///
    /// `parcall reference key '{"b": 1, "a": 1.0}'` prints `{"a": 1.0, "b": 1}`.
    #[command(after_help = KEY_EXIT_HELP)]
    Key(KeyArgs),
}

/// `parcall reference key`'s exit codes.
const KEY_EXIT_HELP: &str = "\
Exit codes:
  0  the key was printed
  2  the args are not a JSON object in Python's dialect (the message says what and where),
     or a bad flag";

/// `parcall reference key`.
#[derive(Debug, clap::Args)]
pub struct KeyArgs {
    /// The args object as JSON text in Python's dialect (`NaN`, `Infinity` allowed); `-`
    /// reads it from stdin.
    #[arg(value_name = "ARGS", allow_hyphen_values = true)]
    pub args: String,
    /// Print the whole key of a call to this tool, `NAME(args)`, the name verbatim (RULES
    /// B9).
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// The number model to key by: `float64` writes numbers as ECMAScript does, `1.0` as
    /// `1` (RULES E).
    #[arg(long, value_enum, value_name = "MODEL", default_value_t)]
    pub number_model: crate::json::NumberModel,
}

/// `parcall grade`: grades submissions, or with `merge` joins shards' results.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct GradeArgs {
    #[command(subcommand)]
    pub command: Option<GradeCommand>,
    /// Submissions: modules (`.py`, `.mjs`, `.cjs`, `.js`), folders holding one module or a
    /// `parcall.json` manifest (`{"cmd": ["PROGRAM", "ARG", ...]}`), or class folders of them
    /// (a class folder named `merge` is `./merge`).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// Where results go: students/NAME/ holds only what that student may see
    /// (feedback.txt, gradescope.json, exercism.json: no seed, no rerun command);
    /// teacher/ holds the rest (gradebook.csv, gradebook.json, class.html and
    /// reports/NAME/report.txt and report.html, with the seed and every failing hidden case).
    /// It must be new or empty (or hold only other shards of the same run), and outside
    /// every class folder graded.
    #[arg(long, value_name = "DIR", default_value = "parcall-grades")]
    pub out: PathBuf,
    /// Remove the earlier run in --out (its students/ and teacher/ folders) before grading:
    /// refused when --out holds anything else.
    #[arg(long)]
    pub overwrite: bool,
    /// A rubric file (points per requirement); default: one point per requirement.
    #[arg(long, value_name = "FILE")]
    pub rubric: Option<PathBuf>,
    /// Grade only this exercise's function (repeatable); default: both.
    #[arg(long, value_enum)]
    pub function: Vec<crate::spec::Function>,
    /// Seed of the hidden generated cases; default: a fresh one, recorded in the results.
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = values::seed)]
    pub seed: Option<u64>,
    /// Hidden generated cases per function.
    #[arg(long, value_name = "N", default_value = "200", allow_negative_numbers = true, value_parser = values::generated)]
    pub fuzz: usize,
    /// Submissions graded at once (default: the number of cores).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = values::jobs)]
    pub jobs: Option<usize>,
    /// Grade only shard I of N (1-based), e.g. for CI matrix jobs or Slurm arrays; needs
    /// --seed so every shard uses the same hidden cases. `grade merge` joins the shards.
    #[arg(
        long,
        value_name = "I/N",
        requires = "seed",
        allow_hyphen_values = true
    )]
    pub shard: Option<String>,
    /// The Python interpreter for `.py` submissions.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: std::ffi::OsString,
    /// Node (20+) for `.mjs`, `.cjs` and `.js` submissions.
    #[arg(long, value_name = "PATH", default_value = "node")]
    pub node: std::ffi::OsString,
    /// Declare a runtime a submission's `parcall.json` may start by NAME (repeatable), e.g.
    /// `--runtime ruby=/usr/bin/ruby`. A manifest runs only declared runtimes (`python`,
    /// `node`, `sh` and `env` are declared already) and files of its own folder; each is
    /// found on the submissions' PATH and laid out before any submission is read.
    #[arg(long, value_name = "NAME=PATH", value_parser = values::runtime)]
    pub runtime: Vec<(String, std::ffi::OsString)>,
    /// A file declaring runtimes, one `NAME=PATH` a line as `--runtime` takes it (`#`
    /// comments): a class's toolchains written once. Its runtimes come before `--runtime`'s.
    #[arg(long, value_name = "FILE", value_parser = values::runtimes_file)]
    pub runtimes: Option<values::RuntimesFile>,
    #[command(flatten)]
    pub spec: SpecArg,
    /// Seconds one case may take.
    #[arg(long, value_name = "SECONDS", default_value = "5", allow_negative_numbers = true, value_parser = values::seconds)]
    pub timeout: Duration,
    /// Memory each submission may use in MiB (at least 16): its control group's limit, or
    /// where there is none, each process's private writable memory (RLIMIT_DATA).
    #[arg(long, value_name = "MIB", default_value = "1024", allow_negative_numbers = true, value_parser = values::mib_at_least_16)]
    pub memory_mib: u64,
    /// CPU seconds per submission process.
    #[arg(long, value_name = "SECONDS", default_value = "120", allow_negative_numbers = true, value_parser = values::whole_seconds)]
    pub cpu_seconds: u64,
    /// Wall-clock seconds one submission may take in all (start-ups and restarts included);
    /// cases left when it runs out are not run.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, allow_negative_numbers = true,
          value_parser = values::submission_seconds)]
    pub submission_seconds: u64,
    /// Seconds a manifest's build step (`"build"` in `parcall.json`: `go build`, `javac`) may
    /// take, inside the sandbox, before the program starts; the start-up deadline grows by
    /// it. A build past it fails as the implementation's.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::process::build::DEFAULT_SECONDS, allow_negative_numbers = true, value_parser = values::whole_seconds)]
    pub build_timeout: u64,
    /// A folder every submission's sandbox may read, bound read-only at its place
    /// (repeatable): a library a runtime loads from outside what laying it out finds. Nothing
    /// else of the machine is visible.
    #[arg(long, value_name = "DIR", value_parser = values::existing_folder)]
    pub readable: Vec<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum GradeCommand {
    /// Join the results of a class graded in shards (grade --shard I/N) into the results
    /// one run would have written: one gradebook, one class page, every student's folder.
    ///
    /// `parcall grade merge shard-1/ shard-2/ --out merged/` reads each folder's
    /// teacher/gradebook.shard-I-of-N.json (a folder may hold several), checks that the
    /// shards are every shard of one class graded one way (the same seed, spec, functions,
    /// rubric, --fuzz and limits; each shard once; each student in one shard), writes
    /// merged/ as one grade run with --out merged/ would have, and prints the same summary
    /// (docs/grading.md, "Shards and merging").
    #[command(after_help = MERGE_EXIT_HELP)]
    Merge(MergeArgs),
}

/// `parcall grade merge`'s exit codes.
const MERGE_EXIT_HELP: &str = "\
Exit codes:
  0  merged
  2  the shards cannot be merged (the message names the folders and what differs, or
     which shards are missing or given twice), or --out already holds something
  3  the merge could not be written, or a shard could not grade a submission";

/// `parcall grade merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' `--out` folders.
    #[arg(value_name = "OUT", required = true)]
    pub shards: Vec<PathBuf>,
    /// Where the merged results go: a new folder (or an empty one), laid out as grade's
    /// --out is.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// `parcall check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The implementation: a Python module (`.py`), a JavaScript one (`.mjs`, `.cjs`, `.js`),
    /// or a folder holding a `parcall.json` manifest (`{"cmd": ["PROGRAM", "ARG", ...]}`).
    #[arg(value_name = "MODULE", required_unless_present = "cmd")]
    pub implementation: Option<PathBuf>,
    /// Instead of a module: any program that speaks the protocol (conformance/PROTOCOL.md),
    /// as one shell-style command line.
    #[arg(long, value_name = "PROGRAM ARGS", conflicts_with = "implementation")]
    pub cmd: Option<String>,
    /// The Python interpreter for `.py` modules.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: std::ffi::OsString,
    /// The Node.js interpreter (20 or later) for `.mjs`, `.cjs` and `.js` modules.
    #[arg(long, value_name = "PATH", default_value = "node")]
    pub node: std::ffi::OsString,
    #[command(flatten)]
    pub spec: SpecArg,
    /// Which part of the spec to check: the two exercises, or `runtime`, an agent
    /// framework's tool execution behind a runtime adapter (docs/runtime-adapters.md).
    #[arg(long, value_enum, default_value = "exercise")]
    pub profile: crate::spec::Profile,
    /// Only cases of this function (repeatable); it must belong to the profile.
    #[arg(long, value_enum)]
    pub function: Vec<crate::spec::Function>,
    /// Only cases whose id matches this glob, `*` and `?` allowed (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub case: Vec<String>,
    /// Only cases that check this requirement (repeatable).
    #[arg(long, value_name = "ID")]
    pub requirement: Vec<String>,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: crate::report::Format,
    /// When to colour the human report.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: crate::report::ColorChoice,
    /// Also write the report in FORMAT to PATH (repeatable), from the same run: for
    /// example `--report junit=parcall.xml --report markdown="$GITHUB_STEP_SUMMARY"`.
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_report_target)]
    pub report: Vec<ReportTarget>,
    /// The root of the repository the workflow runs in, for `--format github`: annotations
    /// name the case files of a `--spec` folder relative to it (default: the current
    /// folder). Cases of the built-in spec are no file of that repository: their
    /// annotations name the case and parcall's file in the message instead.
    #[arg(long, value_name = "DIR")]
    pub annotation_root: Option<PathBuf>,
    #[command(flatten)]
    pub process: ProcessArgs,
    /// Seconds the whole run may take; cases still waiting then are not run, and the run
    /// is incomplete (exit 3).
    #[arg(long, value_name = "SECONDS", default_value = "900", allow_negative_numbers = true, value_parser = values::seconds)]
    pub budget: Duration,
    /// Generated cases per function, beyond the spec's own (0: none). Default 500, or 0
    /// when --case or --requirement picks cases.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = values::generated)]
    pub fuzz: Option<usize>,
    /// Seed of the generated cases; the same seed reproduces the run exactly. Default: a
    /// fresh one, printed and recorded in every report.
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = values::seed)]
    pub seed: Option<u64>,
    /// Write each minimal counterexample to DIR as a case file ready to commit in spec/.
    #[arg(long, value_name = "DIR")]
    pub save_failures: Option<PathBuf>,
    /// The regressions file: counterexamples found before, replayed first; new ones are
    /// added to it.
    #[arg(
        long,
        value_name = "PATH",
        env = "PARCALL_REGRESSIONS",
        default_value = ".parcall/regressions.json"
    )]
    pub regressions: PathBuf,
    /// Neither replay nor record regressions.
    #[arg(long)]
    pub no_regressions: bool,
    /// Known failures of an implementation that knowingly deviates (docs/ci.md): each
    /// must still fail with its pinned outcome; anything else fails the run.
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    /// Rewrite the --expectations file from this run's failures (keeping known reasons).
    #[arg(long, requires = "expectations")]
    pub update_expectations: bool,
}

/// `parcall compare`'s exit codes: it compares, it does not gate.
const COMPARE_EXIT_HELP: &str = "\
Exit codes:
  0  the matrix was produced, whatever its cells say (a comparison, not a gate)
  2  usage or set-up error: bad flags, an implementation that does not exist, a manifest
     that does not parse, invalid spec
  3  the matrix could not be written (stdout, or a file under --out)";

/// `parcall compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Implementations, one column each: modules (`.py`, `.mjs`, `.cjs`, `.js`) as
    /// `parcall check` takes them, or a folder holding a `parcall.json` manifest
    /// (`{"cmd": ["PROGRAM", "ARG", ...]}`, run in that folder), or the manifest itself.
    #[arg(value_name = "IMPL", required_unless_present = "cmd")]
    pub implementations: Vec<PathBuf>,
    /// Also compare a program that speaks the protocol (conformance/PROTOCOL.md), as one
    /// shell-style command line (repeatable; its columns follow the IMPLs').
    #[arg(long, value_name = "PROGRAM ARGS")]
    pub cmd: Vec<String>,
    /// The Python interpreter for `.py` modules.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: std::ffi::OsString,
    /// The Node.js interpreter (20 or later) for `.mjs`, `.cjs` and `.js` modules.
    #[arg(long, value_name = "PATH", default_value = "node")]
    pub node: std::ffi::OsString,
    #[command(flatten)]
    pub spec: SpecArg,
    /// Which part of the spec to compare on: the two exercises, or `runtime`, agent
    /// frameworks behind runtime adapters (docs/runtime-adapters.md).
    #[arg(long, value_enum, default_value = "exercise")]
    pub profile: crate::spec::Profile,
    /// Compare only this function (repeatable); its requirements are the rows.
    #[arg(long, value_enum)]
    pub function: Vec<crate::spec::Function>,
    /// Generated cases per function, the same for every implementation (0: none).
    #[arg(long, value_name = "N", default_value = "500", allow_negative_numbers = true, value_parser = values::generated)]
    pub fuzz: usize,
    /// Seed of the generated cases, the same for every implementation. Default: a fresh
    /// one, printed and recorded in the matrix.
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = values::seed)]
    pub seed: Option<u64>,
    /// Implementations checked at once (default: the number of cores).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = values::jobs)]
    pub jobs: Option<usize>,
    /// Check every implementation this many times with the same cases: a cell whose verdict
    /// differs between runs is flagged flaky (its verdict is the failing run's).
    #[arg(long, value_name = "N", default_value = "1", allow_negative_numbers = true, value_parser = values::jobs)]
    pub runs: usize,
    /// The format written to stdout.
    #[arg(long, value_enum, default_value = "human")]
    pub format: crate::compare::render::Format,
    /// When to colour the human table.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: crate::report::ColorChoice,
    /// Also write matrix.md, matrix.json and matrix.html to DIR (created if missing), and
    /// reports/N.json, each implementation's full `check` report.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub process: ProcessArgs,
    /// Seconds the whole comparison may take; an implementation's cases still waiting then
    /// are not run, and its column fails.
    #[arg(long, value_name = "SECONDS", default_value = "900", allow_negative_numbers = true, value_parser = values::seconds)]
    pub budget: Duration,
}

/// How an implementation's process is run, for `check` and `compare` alike.
#[derive(Debug, Clone, clap::Args)]
pub struct ProcessArgs {
    /// Seconds one case may take.
    #[arg(long, value_name = "SECONDS", default_value = "5", allow_negative_numbers = true, value_parser = values::seconds)]
    pub timeout: Duration,
    /// Seconds start-up (import included) may take.
    #[arg(long, value_name = "SECONDS", default_value = "10", allow_negative_numbers = true, value_parser = values::seconds)]
    pub startup_timeout: Duration,
    /// Memory the implementation may use in MiB (0: none), as each process's private
    /// writable memory (RLIMIT_DATA), not the address space a JVM reserves. Reaching it
    /// counts as a crash.
    #[arg(long, value_name = "MIB", default_value = "2048", allow_negative_numbers = true, value_parser = values::mib)]
    pub memory_mib: u64,
    /// Pass this environment variable to the implementation too (repeatable). By default
    /// only PATH, HOME, TMPDIR, TZ, the locale (LANG, LANGUAGE, LC_*), PYTHONPATH,
    /// VIRTUAL_ENV, NODE_PATH and PARCALL_* pass: a CI job's secrets stay behind.
    #[arg(long, value_name = "NAME", value_parser = crate::subject::environment::variable_name)]
    pub pass_env: Vec<String>,
    /// Pass every environment variable to the implementation (secrets included).
    #[arg(long)]
    pub inherit_env: bool,
    /// A folder the sandbox lets the implementation read, bound read-only at its place
    /// (repeatable): the virtual environment or node_modules a runtime adapter's framework
    /// is installed in (docs/runtime-adapters.md). Nothing else of the machine is visible.
    #[arg(long, value_name = "DIR", value_parser = values::existing_folder)]
    pub readable: Vec<std::path::PathBuf>,
    /// Declare a runtime a `parcall.json` manifest may start by NAME (repeatable), e.g.
    /// `--runtime ruby=/usr/bin/ruby`: a manifest runs only declared runtimes (`python`,
    /// `node`, `sh` and `env` are declared already) and files of its own folder.
    #[arg(long, value_name = "NAME=PATH", value_parser = values::runtime)]
    pub runtime: Vec<(String, std::ffi::OsString)>,
    /// A file declaring runtimes, one `NAME=PATH` a line as `--runtime` takes it (`#`
    /// comments): a class's toolchains written once. Its runtimes come before `--runtime`'s.
    #[arg(long, value_name = "FILE", value_parser = values::runtimes_file)]
    pub runtimes: Option<values::RuntimesFile>,
    /// Seconds a manifest's build step (`"build"` in `parcall.json`: `go build`, `javac`) may
    /// take, inside the sandbox, before the program starts; the start-up deadline grows by
    /// it. A build past it fails as the implementation's.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::process::build::DEFAULT_SECONDS, allow_negative_numbers = true, value_parser = values::whole_seconds)]
    pub build_timeout: u64,
}

impl ProcessArgs {
    /// `--runtimes FILE`, then `--runtime`.
    pub fn declared(&self) -> Vec<(String, std::ffi::OsString)> {
        declared(&self.runtimes, &self.runtime)
    }

    /// The limits of the implementation's process.
    pub fn limits(&self) -> crate::process::Limits {
        crate::process::Limits {
            // values::mib bounds the flag, so the shift cannot overflow.
            memory_bytes: (self.memory_mib > 0).then_some(self.memory_mib << 20),
            build_seconds: self.build_timeout,
            ..crate::process::Limits::default()
        }
    }

    /// The runtimes the caller declares: `--runtime`, then `--python` and `--node` where
    /// found, then the sandbox's shell and `env`, all found on this process's PATH.
    pub fn runtimes(
        &self,
        python: &std::ffi::OsStr,
        node: &std::ffi::OsStr,
    ) -> Result<crate::sandbox::Runtimes, crate::sandbox::RuntimeError> {
        let search = std::env::var_os("PATH").unwrap_or_default();
        Ok(
            crate::sandbox::Runtimes::declare(&self.declared(), &search)?
                .or_found("python", python, &search)
                .or_found("node", node, &search),
        )
    }

    /// The environment the implementation gets.
    pub fn env(&self) -> crate::subject::environment::EnvPolicy {
        crate::subject::environment::EnvPolicy {
            inherit: self.inherit_env,
            pass: self.pass_env.clone(),
            readable: self.readable.clone(),
        }
    }
}

/// `parcall mutate`'s exit codes.
const MUTATE_EXIT_HELP: &str = "\
Exit codes:
  0  every mutant not listed as equivalent was killed, and every listed one still survives
  1  a mutant survived that is not listed as equivalent, or an entry of the equivalents file
     no longer holds (its mutant is killed, or no longer made)
  2  usage or set-up error: no such file, not a .py file, a syntax error, no function to
     mutate, an invalid equivalents file, a module that fails its own cases
  3  some mutants could not be checked";

/// `parcall mutate`.
#[derive(Debug, clap::Args)]
pub struct MutateArgs {
    /// The model solution: a Python module (`.py`) that passes every case.
    #[arg(value_name = "MODULE")]
    pub module: PathBuf,
    /// The equivalent-mutants file (default: MODULE's name with `.equivalent-mutants.json`
    /// in its folder, when it exists).
    #[arg(long, value_name = "FILE")]
    pub equivalents: Option<PathBuf>,
    /// Read no equivalent-mutants file, even the default one.
    #[arg(long, conflicts_with = "equivalents")]
    pub no_equivalents: bool,
    /// Generated cases per function, run on each mutant the fixed cases miss (0: none).
    #[arg(long, value_name = "N", default_value = "500", allow_negative_numbers = true, value_parser = values::generated)]
    pub fuzz: usize,
    /// Seed of the generated cases, the same for every mutant. Default: a fresh one,
    /// printed and recorded in the report.
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = values::seed)]
    pub seed: Option<u64>,
    /// Mutants checked at once (default: the number of cores).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = values::jobs)]
    pub jobs: Option<usize>,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: MutateFormat,
    /// The Python interpreter (3.9 or later for the mutator).
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: std::ffi::OsString,
    #[command(flatten)]
    pub spec: SpecArg,
    /// Seconds one case may take; a mutant that hangs is killed then, and counts as killed.
    #[arg(long, value_name = "SECONDS", default_value = "5", allow_negative_numbers = true, value_parser = values::seconds)]
    pub timeout: Duration,
    /// Seconds start-up (import included) may take.
    #[arg(long, value_name = "SECONDS", default_value = "10", allow_negative_numbers = true, value_parser = values::seconds)]
    pub startup_timeout: Duration,
    /// Memory each mutant may use in MiB (0: none), as RLIMIT_DATA.
    #[arg(long, value_name = "MIB", default_value = "2048", allow_negative_numbers = true, value_parser = values::mib)]
    pub memory_mib: u64,
}

/// `parcall mutate --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MutateFormat {
    /// For people: each mutant the fixed cases missed as a diff, then the counts.
    #[default]
    Human,
    /// One JSON document (its shape: docs/mutate.md).
    Json,
}

#[derive(Debug, Subcommand)]
pub enum SpecCommand {
    /// List every case: id, function, requirements, description.
    List {
        #[command(flatten)]
        spec: SpecArg,
    },
    /// Show one case or requirement as JSON.
    Show {
        /// A case id (`exec-seed-001`) or a requirement id (`EXEC-ID-GIVEN`).
        id: String,
        #[command(flatten)]
        spec: SpecArg,
    },
    /// Load and check a specification folder; print a summary.
    Check {
        #[command(flatten)]
        spec: SpecArg,
    },
    /// Write the specification to DIR in the spec's own layout (usable with `--spec DIR`),
    /// optionally with generated cases, for people writing their own harness.
    Export {
        /// The folder to write: new or empty, unless --overwrite.
        dir: PathBuf,
        /// Remove an earlier export in DIR first: refused when DIR holds anything an export
        /// does not write.
        #[arg(long)]
        overwrite: bool,
        #[command(flatten)]
        spec: SpecArg,
        /// Also write N generated cases per function (`cases/<function>/generated.json`),
        /// exactly those `parcall check --seed S --fuzz N` runs.
        #[arg(long, value_name = "N", default_value = "0", allow_negative_numbers = true, value_parser = values::generated)]
        generated: usize,
        /// Seed of the generated cases.
        #[arg(long, value_name = "S", default_value_t = 1, allow_negative_numbers = true,
              value_parser = values::seed)]
        seed: u64,
        /// Remove the tools' latency from generated cases (benchmarks of the runner itself).
        #[arg(long)]
        no_latency: bool,
    },
    /// Print the JSON Schema of case files or of requirements.json.
    Schema {
        #[arg(value_enum, default_value = "case")]
        which: SchemaKind,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SchemaKind {
    Case,
    Requirements,
}

/// `--report FORMAT=PATH`: one more report of the same run, written to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    pub format: crate::report::Format,
    pub path: PathBuf,
}

/// A `--report` value that is not `FORMAT=PATH` with a known format and a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportTargetError {
    #[error("`{text}` is not FORMAT=PATH (for example junit=parcall.xml)")]
    NoEquals { text: String },
    #[error("`{format}` is not a report format ({known})")]
    UnknownFormat { format: String, known: String },
    #[error("`{text}` names no file after `=`")]
    NoPath { text: String },
}

fn parse_report_target(text: &str) -> Result<ReportTarget, ReportTargetError> {
    use clap::ValueEnum;
    let (format, path) = text
        .split_once('=')
        .ok_or_else(|| ReportTargetError::NoEquals { text: text.into() })?;
    let format = crate::report::Format::from_str(format, true).map_err(|_| {
        let names: Vec<String> = crate::report::Format::value_variants()
            .iter()
            .filter_map(|f| f.to_possible_value().map(|v| v.get_name().to_owned()))
            .collect();
        ReportTargetError::UnknownFormat {
            format: format.into(),
            known: names.join(", "),
        }
    })?;
    if path.is_empty() {
        return Err(ReportTargetError::NoPath { text: text.into() });
    }
    Ok(ReportTarget {
        format,
        path: PathBuf::from(path),
    })
}

/// Where the specification is read from.
#[derive(Debug, Clone, clap::Args)]
pub struct SpecArg {
    /// A specification folder laid out like `spec/` (default: the one built in).
    #[arg(long, value_name = "DIR")]
    pub spec: Option<PathBuf>,
}

impl SpecArg {
    /// Where the specification comes from.
    pub fn source(&self) -> parcall_spec::Source {
        match &self.spec {
            Some(dir) => parcall_spec::Source::Dir(dir.clone()),
            None => parcall_spec::Source::Embedded,
        }
    }

    pub fn load(&self) -> Result<parcall_spec::Spec, parcall_spec::SpecError> {
        parcall_spec::Spec::load_from(&self.source())
    }
}

use crate::spec as parcall_spec;

/// Runs a parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Spec(command) => finished_if_reader_left(spec_cmd::run(command)),
        Command::Check(args) => check::run(*args),
        Command::Compare(args) => compare::run(*args),
        Command::Grade(args) => grade::run(*args),
        Command::Mutate(args) => mutate::run(*args),
        Command::Init(args) => finished_if_reader_left(init::run(args)),
        Command::Doctor(args) => finished_if_reader_left(grade::doctor(&args)),
        Command::Reference(args) => reference_cmd::run(args),
    }
}

/// Whether `error` is stdout's reader having gone (`parcall spec list | head`): nothing is
/// wrong with the run, the rest of what it printed is simply not wanted.
fn is_reader_gone(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::BrokenPipe
}

/// Output written to stdout, where the reader having gone is not a failure. The commands
/// that give a verdict (`check`, `grade`, `mutate`) keep the verdict's exit code then:
/// `parcall check x | head -2` in a pipeline must still fail a failing implementation.
pub(crate) fn written(result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Err(error) if is_reader_gone(&error) => Ok(()),
        other => other,
    }
}

/// For commands that only print (`spec`, `doctor`): a reader that left early ends them
/// successfully, as it does `cat`.
fn finished_if_reader_left(result: anyhow::Result<i32>) -> anyhow::Result<i32> {
    match result {
        Err(error)
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(is_reader_gone) =>
        {
            Ok(exit::SUCCESS)
        }
        other => other,
    }
}
