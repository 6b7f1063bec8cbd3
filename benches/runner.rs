//! The runner against the physical limit: `parcall check` of the Python example over the
//! spec plus 10,000 generated cases, against a pure-Python loop that runs the same cases
//! in-process with the same checks (no process boundary at all), and the cost per case of a
//! process-per-case design. parcall is timed twice: as it runs, the implementation on one
//! CPU with the thread answering it, and with the two left to the scheduler. Run: `cargo bench --bench runner`.

use parcall::check::Checker;
use parcall::fuzz::CaseRunner;
use parcall::judge::Judge;
use parcall::process::cpu::NO_SHARED_CPU_VARIABLE;
use parcall::process::Limits;
use parcall::runner::{Runner, Settings};
use parcall::spec::{Function, Spec};
use parcall::subject::adapters;
use std::process::Command;
use std::time::Instant;

const GENERATED_PER_FUNCTION: &str = "5000";

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let parcall = env!("CARGO_BIN_EXE_parcall");
    let solution = root.join("conformance/examples/python/solution.py");
    let dir = tempfile::tempdir().unwrap();
    let spec_dir = dir.path().join("spec");
    // The same cases for both sides: the spec and 10,000 generated cases, latency removed
    // so the measure is of the machinery, not of sleeps.
    let export = Command::new(parcall)
        .args([
            "spec",
            "export",
            spec_dir.to_str().unwrap(),
            "--generated",
            GENERATED_PER_FUNCTION,
            "--seed",
            "1",
            "--no-latency",
        ])
        .output()
        .unwrap();
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    // The export's 150 MB are flushed first, so writing them back is not timed with the check.
    Command::new("sync").status().unwrap();

    // The spec is loaded into this process only after the timed runs: 1.2 GB resident here
    // made the `parcall check` beside it 25% slower (8.0 s against 6.4 s alone).
    let check = |shared_cpu: bool| -> f64 {
        let mut command = Command::new(parcall);
        command.args([
            "check",
            solution.to_str().unwrap(),
            "--spec",
            spec_dir.to_str().unwrap(),
            "--fuzz",
            "0",
            "--no-regressions",
            "--format",
            "tap",
        ]);
        if !shared_cpu {
            command.env(NO_SHARED_CPU_VARIABLE, "1");
        }
        let start = Instant::now();
        let check = command.output().unwrap();
        let seconds = start.elapsed().as_secs_f64();
        let tap = String::from_utf8_lossy(&check.stdout);
        assert!(
            check.status.success(),
            "{}",
            tap.lines().last().unwrap_or_default()
        );
        seconds
    };
    let runner_seconds = check(true);
    let unshared_seconds = check(false);

    let python_loop = |mode: Option<&str>| -> f64 {
        let script = root.join("scripts/bench_inprocess.py");
        let mut command = Command::new("python3");
        command.arg(script);
        if let Some(mode) = mode {
            command.arg(mode);
        }
        let output = command.arg(&spec_dir).arg(&solution).output().unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{report}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        report.split_whitespace().next().unwrap().parse().unwrap()
    };
    let python_seconds = python_loop(None);
    let lean_seconds = python_loop(Some("--lean"));
    let decoded_seconds = python_loop(Some("--lean-decoded"));
    let requests_seconds = python_loop(Some("--requests"));

    // What one wake-up costs, the reason the implementation shares a CPU with parcall.
    let pingpong = Command::new("python3")
        .arg(root.join("scripts/bench_pingpong.py"))
        .output()
        .unwrap();
    assert!(pingpong.status.success());
    let pingpong = String::from_utf8_lossy(&pingpong.stdout).into_owned();
    let micros = |label: &str| {
        pingpong
            .lines()
            .find_map(|line| line.strip_prefix(label))
            .map_or("n/a (one CPU)".to_owned(), |v| format!("{} µs", v.trim()))
    };

    let spec = Spec::load(&spec_dir).unwrap();
    // The cases both sides run: the exercises' (the export holds the runtime profile's too,
    // which `parcall check` loads and leaves, as the Python loops never open them).
    let exercise_cases: Vec<_> = spec
        .cases
        .iter()
        .filter(|case| Function::EXERCISES.contains(&case.function()))
        .collect();
    let cases = exercise_cases.len();
    // Process per case: a fresh interpreter, adapter and handshake for each of 100 cases.
    let prepared =
        adapters::python_module(&solution, &"python3".into(), Limits::default()).unwrap();
    let sample: Vec<_> = exercise_cases.into_iter().take(100).cloned().collect();
    let judge = Judge::new(Default::default());
    let start = Instant::now();
    for case in &sample {
        let mut runner =
            Runner::start(&prepared.launch, &spec.version, Settings::default()).unwrap();
        let result = Checker::new(&mut runner, &judge).run_one(case.clone());
        assert!(result.outcome.is_pass());
        runner.shutdown();
    }
    let per_process = start.elapsed().as_secs_f64() / sample.len() as f64;

    let per = |s: f64| format!("{:.0} µs", s / cases as f64 * 1e6);
    println!(
        "runner: {cases} cases (the exercises' spec cases + 10,000 generated, seed 1, no latency)"
    );
    println!("| design | total | per case | ratio to in-process |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| pure-Python loop, in-process, same checks | {python_seconds:.2} s | {} | 1.0x |",
        per(python_seconds)
    );
    println!(
        "| parcall check (one process, pipelined protocol) | {runner_seconds:.2} s | {} | {:.2}x |",
        per(runner_seconds),
        runner_seconds / python_seconds
    );
    println!(
        "| parcall check, the implementation and parcall's answers left to the scheduler ({NO_SHARED_CPU_VARIABLE}) | {unshared_seconds:.2} s | {} | {:.2}x ({:.2}x the leanest loop) |",
        per(unshared_seconds),
        unshared_seconds / python_seconds,
        unshared_seconds / lean_seconds
    );
    println!(
        "| leanest loop: load the case, call, compare with == | {lean_seconds:.2} s | {} | {:.2}x (parcall: {:.2}x this) |",
        per(lean_seconds),
        lean_seconds / python_seconds,
        runner_seconds / lean_seconds
    );
    println!(
        "| the same on cases decoded before the clock | {decoded_seconds:.2} s | {} | {:.2}x (parcall: {:.1}x this) |",
        per(decoded_seconds),
        decoded_seconds / python_seconds,
        runner_seconds / decoded_seconds
    );
    println!(
        "| decoding the calls and scripts an adapter receives, alone | {requests_seconds:.2} s | {} | {:.2}x |",
        per(requests_seconds),
        requests_seconds / python_seconds
    );
    println!(
        "| process per case (100 sampled) | {:.2} s projected | {:.0} µs | {:.1}x |",
        per_process * cases as f64,
        per_process * 1e6,
        per_process * cases as f64 / python_seconds
    );
    println!(
        "pipe round trip between two processes: {} on one CPU, {} across two",
        micros("same-cpu"),
        micros("two-cpus")
    );
}
