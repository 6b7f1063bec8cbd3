//! What the race probes cost and what they catch, side by side in one run: `parcall check`
//! of the (sequential) Python solution over the spec plus 10,000 generated cases, exported
//! once with their latency and once without (`spec export --no-latency`), and the racy
//! cache example checked on seeds 1-20, counting the seeds where the generated cases catch
//! it (the spec's fixed cases catch it too; they are not what is measured).
//! Run: `cargo bench --bench race_probes`; `-- --parcall PATH` measures another build.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const GENERATED_PER_FUNCTION: &str = "5000";
const SEEDS: u64 = 20;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let parcall = args
        .iter()
        .position(|a| a == "--parcall")
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_parcall").to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let solution = root.join("conformance/examples/python/solution.py");
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

    let mut seconds = Vec::new();
    for (name, strip) in [("with", false), ("without", true)] {
        let spec = dir.path().join(name);
        let spec = spec.to_str().unwrap();
        let mut export = vec![
            "spec",
            "export",
            spec,
            "--generated",
            GENERATED_PER_FUNCTION,
        ];
        export.extend(["--seed", "1"]);
        if strip {
            export.push("--no-latency");
        }
        assert_eq!(run(&export).0, Some(0), "spec export failed");
        let started = Instant::now();
        let check = [
            "check",
            solution.to_str().unwrap(),
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
        seconds.push(started.elapsed().as_secs_f64());
    }
    let probed = count_probed(&dir.path().join("with"));

    let racy = root.join("conformance/examples/python/broken/dedup_racy_cache.py");
    let caught = (1..=SEEDS)
        .filter(|seed| {
            let seed = seed.to_string();
            let (_, json) = run(&[
                "check",
                racy.to_str().unwrap(),
                "--function",
                "run_parallel_calls",
                "--no-regressions",
                "--seed",
                &seed,
                "--format",
                "json",
            ]);
            let report = parcall::json::parse(&json).expect("a JSON report");
            let failed = report.as_object().and_then(|r| r.get("generated"));
            failed
                .and_then(|g| g.as_list())
                .and_then(|g| g.first())
                .and_then(|g| g.as_object())
                .and_then(|g| g.get("failed"))
                .is_some_and(|n| n.to_string() != "0")
        })
        .count();

    println!("race probes: the Python solution over the spec and 10,000 generated cases (seed 1)");
    println!("| run | wall time | ratio |");
    println!("| --- | --- | --- |");
    println!("| without latency | {:.2} s | 1.00x |", seconds[1]);
    println!(
        "| with the race probes ({probed} cases with latency) | {:.2} s | {:.2}x (probes: {:.0}% of the run) |",
        seconds[0],
        seconds[0] / seconds[1],
        (seconds[0] - seconds[1]) / seconds[0] * 100.0
    );
    println!("racy cache example caught by generated cases on {caught} of {SEEDS} seeds");
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
