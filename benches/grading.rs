//! Grading throughput: submissions graded per minute with `--jobs 1` and `--jobs 2`, on a
//! class of 12 (the correct solution and 11 broken examples), default settings otherwise
//! (200 hidden generated cases per function, every protection this machine allows).
//! Run: `cargo bench --bench grading`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::copy(
        root.join("conformance/examples/python/solution.py"),
        class.join("solution.py"),
    )
    .unwrap();
    let mut broken: Vec<_> = std::fs::read_dir(root.join("conformance/examples/python/broken"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    broken.sort();
    for path in broken
        .iter()
        .filter(|p| !p.ends_with("dedup_shared_cache.py"))
        .take(11)
    {
        std::fs::copy(path, class.join(path.file_name().unwrap())).unwrap();
    }
    let count = std::fs::read_dir(&class).unwrap().count();
    println!("grading {count} submissions, 200 generated cases per function, seed 1");
    println!("| --jobs | wall time | submissions per minute | speed-up |");
    println!("| --- | --- | --- | --- |");
    let mut first = 0.0;
    for jobs in [1, 2] {
        let out = work.path().join(format!("out-{jobs}"));
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_parcall"))
            .args([
                "grade",
                class.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--seed",
                "1",
                "--jobs",
                &jobs.to_string(),
            ])
            .stderr(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let seconds = start.elapsed().as_secs_f64();
        if jobs == 1 {
            first = seconds;
        }
        println!(
            "| {jobs} | {seconds:.1} s | {:.0} | {:.2}x |",
            count as f64 / seconds * 60.0,
            first / seconds
        );
    }
}
