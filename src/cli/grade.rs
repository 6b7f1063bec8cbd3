//! `parcall grade` and `parcall doctor`.

use super::{exit, GradeArgs};
use crate::grade::{
    self, formats,
    rubric::Rubric,
    sandbox::{Capabilities, Sandbox},
    Grading,
};
use crate::process::Limits;
use crate::runner::Settings;
use crate::spec::Function;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

fn limits(args: &GradeArgs) -> Limits {
    Limits {
        memory_bytes: Some(args.memory_mib << 20),
        cpu_seconds: Some(args.cpu_seconds),
        processes: Some(64),
        file_bytes: Some(16 << 20),
        ..Limits::default()
    }
}

pub fn run(args: GradeArgs) -> anyhow::Result<i32> {
    match prepare_and_grade(&args) {
        Ok(code) => Ok(code),
        Err(message) => {
            eprintln!("error: {message}");
            Ok(exit::USAGE)
        }
    }
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((i, n)) if n >= 1 && (1..=n).contains(&i) => Ok((i, n)),
        _ => Err(format!(
            "--shard {text}: expected I/N with 1 <= I <= N, like 2/8"
        )),
    }
}

fn prepare_and_grade(args: &GradeArgs) -> Result<i32, String> {
    let spec = args.spec.load().map_err(|e| e.to_string())?;
    let functions: Vec<Function> = if args.function.is_empty() {
        Function::ALL.to_vec()
    } else {
        args.function.clone()
    };
    let rubric = match &args.rubric {
        Some(path) => Rubric::load(path, &spec, &functions)?,
        None => Rubric::default_for(&spec, &functions),
    };
    let mut submissions = grade::discover(&args.paths)?;
    let shard_suffix = match &args.shard {
        Some(text) => {
            let (index, count) = parse_shard(text)?;
            submissions = grade::shard(submissions, index, count);
            format!(".shard-{index}-of-{count}")
        }
        None => String::new(),
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("{}: cannot create: {e}", args.out.display()))?;
    let seed = args.seed.unwrap_or_else(super::check::fresh_seed);
    let mut hidden: Vec<std::path::PathBuf> = args
        .paths
        .iter()
        .map(|p| {
            if p.is_file() {
                p.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                p.clone()
            }
        })
        .collect();
    hidden.push(args.out.clone());
    let limits = limits(args);
    let sandbox = Sandbox::new(hidden, args.python.clone(), limits)
        .map_err(|e| format!("cannot create the sandbox folder: {e}"))?;
    let settings = Settings {
        timeout: Duration::from_secs_f64(args.timeout),
        ..Settings::default()
    };
    let grading = Grading {
        spec: &spec,
        functions,
        rubric,
        seed,
        fuzz: args.fuzz,
        settings,
        sandbox: &sandbox,
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    eprintln!(
        "parcall: grading {} submissions, {jobs} at a time, hidden cases seed {seed}",
        submissions.len()
    );
    let graded = grading.grade_all(&submissions, jobs, &|g| {
        eprintln!(
            "parcall: graded {} ({:.1}s)",
            g.submission.name,
            g.duration.as_secs_f64()
        )
    });
    write_results(args, &graded, seed, &spec.version, &sandbox, &shard_suffix)
        .map_err(|e| format!("{}: cannot write results: {e}", args.out.display()))?;
    print!("{}", formats::human(&graded, seed));
    let incomplete = graded.iter().any(|g| g.setup_error.is_some());
    Ok(if incomplete {
        exit::INCOMPLETE
    } else {
        exit::SUCCESS
    })
}

fn write_results(
    args: &GradeArgs,
    graded: &[grade::Graded],
    seed: u64,
    suite: &str,
    sandbox: &Sandbox,
    suffix: &str,
) -> std::io::Result<()> {
    let pretty =
        |v: &serde_json::Value| serde_json::to_string_pretty(v).expect("plain JSON") + "\n";
    for g in graded {
        let dir = args.out.join(&g.submission.name);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("gradescope.json"),
            pretty(&formats::gradescope(g, seed)),
        )?;
        std::fs::write(dir.join("exercism.json"), pretty(&formats::exercism(g)))?;
        let mut report = Vec::new();
        crate::report::write(
            &g.report,
            crate::report::Format::Human,
            crate::report::Palette::plain(),
            &mut report,
        )?;
        std::fs::write(dir.join("report.txt"), report)?;
        let mut page = Vec::new();
        crate::report::write(
            &g.report,
            crate::report::Format::Html,
            crate::report::Palette::plain(),
            &mut page,
        )?;
        std::fs::write(dir.join("report.html"), page)?;
    }
    let protections = sandbox.capabilities.protections(&limits(args));
    std::fs::write(
        args.out.join(format!("gradebook{suffix}.csv")),
        formats::gradebook_csv(graded, seed),
    )?;
    std::fs::write(
        args.out.join(format!("gradebook{suffix}.json")),
        pretty(&formats::gradebook_json(graded, seed, suite, &protections)),
    )?;
    std::fs::write(
        args.out.join(format!("class{suffix}.html")),
        crate::grade::html::class_page(graded, seed),
    )?;
    Ok(())
}

/// `parcall doctor`.
pub fn doctor() -> anyhow::Result<i32> {
    let capabilities = Capabilities::detect();
    let defaults = Limits {
        memory_bytes: Some(1024 << 20),
        cpu_seconds: Some(120),
        processes: Some(64),
        file_bytes: Some(16 << 20),
        ..Limits::default()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "parcall grade protections on this machine:")?;
    for p in capabilities.protections(&defaults) {
        let mark = if p.active { "active  " } else { "INACTIVE" };
        writeln!(out, "  {mark}  {}: {}", p.name, p.detail)?;
    }
    // Submissions run with a scrubbed PATH, so `--python python3` may name another
    // interpreter than the one on this shell's PATH (and one the submission uid can read).
    let version = std::process::Command::new("python3")
        .arg("--version")
        .env_clear()
        .env("PATH", crate::grade::sandbox::SANDBOX_PATH)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match version {
        Some(version) => writeln!(out, "submissions run `python3` from PATH={}: {version}", crate::grade::sandbox::SANDBOX_PATH)?,
        None => writeln!(out, "no `python3` on PATH={}: pass --python with an absolute path the submissions' uid can read", crate::grade::sandbox::SANDBOX_PATH)?,
    }
    Ok(exit::SUCCESS)
}
