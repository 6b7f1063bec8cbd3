//! What the race probes cost and what they catch, side by side in one run: `parcall check`
//! of two correct Python implementations (the sequential solution and a thread pool's) over
//! the spec plus 10,000 generated cases, exported once with their latency and once without
//! (`spec export --no-latency`), the two checks alternated three times and the median of each
//! kept (the machines are noisy); then two concurrent broken modules checked on seeds 1-20,
//! counting the seeds where the generated cases catch them on their own (the spec's fixed
//! cases catch them too; they are not what is measured): the racy cache example
//! (`run_parallel_calls`) and a fixture whose workers share one slot for the id of the call
//! they run (`execute_tool_calls`).
//! Run: `cargo bench --bench race_probes`; `-- --parcall PATH` measures another build.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const GENERATED_PER_FUNCTION: &str = "5000";
const SEEDS: u64 = 20;
const ROUNDS: usize = 3;
/// The implementations timed: the subject, which runs calls one by one (alone in its
/// process, so its adapter skips the probes' waits), and one that runs them on a thread pool
/// (where every probe waits, overlapped with the pool's other calls).
const IMPLEMENTATIONS: [(&str, &str); 2] = [
    (
        "conformance/examples/python/solution.py",
        "sequential (solution.py)",
    ),
    (
        "conformance/examples/python/solution_thread_pool.py",
        "thread pool (solution_thread_pool.py)",
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let parcall = args
        .iter()
        .position(|a| a == "--parcall")
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_parcall").to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let regressions = dir.path().join("regressions.json");
    let run = |args: &[&str]| {
        let output = Command::new(&parcall)
            .args(args)
            .env("PARCALL_REGRESSIONS", &regressions)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };

    let mut specs = Vec::new();
    for (name, strip) in [("with", false), ("without", true)] {
        let spec = dir.path().join(name);
        let spec = spec.to_str().unwrap().to_owned();
        let mut export = vec![
            "spec",
            "export",
            &spec,
            "--generated",
            GENERATED_PER_FUNCTION,
        ];
        export.extend(["--seed", "1"]);
        if strip {
            export.push("--no-latency");
        }
        assert_eq!(run(&export).0, Some(0), "spec export failed");
        specs.push(spec);
    }
    // Per implementation, the median seconds with and without latency.
    let timed: Vec<(&str, [f64; 2])> = IMPLEMENTATIONS
        .iter()
        .map(|&(module, what)| {
            let module = root.join(module);
            let mut seconds = [Vec::new(), Vec::new()];
            for _ in 0..ROUNDS {
                for (spec, times) in specs.iter().zip(&mut seconds) {
                    let started = Instant::now();
                    let check = [
                        "check",
                        module.to_str().unwrap(),
                        "--spec",
                        spec,
                        "--fuzz",
                        "0",
                        "--no-regressions",
                        "--format",
                        "tap",
                    ];
                    let (code, tap) = run(&check);
                    assert_eq!(code, Some(0), "{}", tap.lines().last().unwrap_or_default());
                    times.push(started.elapsed().as_secs_f64());
                }
            }
            (what, seconds.map(median))
        })
        .collect();
    let probed = count_probed(&dir.path().join("with"));

    // Seeds where the generated cases of `function` fail `module`, and how many fail in all.
    let caught = |module: &Path, function: &str| {
        let mut failing = 0;
        let seeds = (1..=SEEDS)
            .filter(|seed| {
                let seed = seed.to_string();
                let module = module.to_str().unwrap();
                let (_, json) = run(&[
                    "check",
                    module,
                    "--function",
                    function,
                    "--no-regressions",
                    "--seed",
                    &seed,
                    "--format",
                    "json",
                ]);
                let report = parcall::json::parse(&json).expect("a JSON report");
                let failed = report
                    .as_object()
                    .and_then(|r| r.get("generated"))
                    .and_then(|g| g.as_list())
                    .and_then(|g| g.first())
                    .and_then(|g| g.as_object())
                    .and_then(|g| g.get("failed"))
                    .map_or(0, |n| n.to_string().parse::<u64>().unwrap_or(0));
                failing += failed;
                failed > 0
            })
            .count();
        (seeds, failing)
    };
    let racy = caught(
        &root.join("conformance/examples/python/broken/dedup_racy_cache.py"),
        "run_parallel_calls",
    );
    let shared = caught(
        &root.join("conformance/fixtures/python/ids_shared_between_workers.py"),
        "execute_tool_calls",
    );

    println!(
        "race probes: a correct Python implementation over the spec and 10,000 generated \
         cases (seed 1), median of {ROUNDS} alternated runs; {probed} cases have latency"
    );
    println!("| implementation | without latency | with the race probes | ratio | the probes' share of the run |");
    println!("| --- | --- | --- | --- | --- |");
    for (what, [with, without]) in &timed {
        println!(
            "| {what} | {without:.2} s | {with:.2} s | {:.2}x | {:.0}% |",
            with / without,
            (with - without) / with * 100.0
        );
    }
    let line = |what: &str, (seeds, failing): (usize, u64)| {
        println!("{what} caught by generated cases on {seeds} of {SEEDS} seeds ({failing} failing generated cases in all)");
    };
    line("racy cache example", racy);
    line("ids shared between workers", shared);
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// How many exported cases have a tool script with latency.
fn count_probed(spec: &Path) -> usize {
    let mut count = 0;
    let mut stack = vec![spec.join("cases")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let file = parcall::json::parse(&text).unwrap();
                let cases = file
                    .as_object()
                    .and_then(|f| f.get("cases"))
                    .and_then(|c| c.as_list())
                    .unwrap_or(&[]);
                count += cases
                    .iter()
                    .filter(|case| {
                        parcall::json::dumps(case, parcall::json::Style::PYTHON)
                            .contains("\"latency_ms\"")
                    })
                    .count();
            }
        }
    }
    count
}
