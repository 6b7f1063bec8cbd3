//! Helpers shared by the end-to-end tests: running the real binary, reading its JSON report.
pub(crate) mod browser;
pub(crate) mod built_adapters;
pub(crate) mod subjects;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A regressions file of its own for every run, so runs neither replay each other's
/// counterexamples nor write into the repository. Its folder goes when the value is dropped.
pub(crate) fn fresh_regressions() -> TempPath {
    let dir = tempfile::Builder::new()
        .prefix("parcall-test-regressions-")
        .tempdir()
        .expect("a temporary folder");
    let path = dir.path().join("regressions.json");
    TempPath { _dir: dir, path }
}

/// A path inside a temporary folder of its own, removed with everything in it when the value
/// is dropped: a run of the suite leaves nothing behind in the temporary folder (it used to
/// leave about a hundred folders a run). Only a reference to it is `AsRef`: a function
/// taking the value itself (`Command::env`, `Command::current_dir`) would drop it, removing
/// the folder before the command runs. For the same reason, never chain on a temporary one
/// (`temp_dir("x").join("f")` removes the folder at once): keep it in a variable, or use
/// [`TempPath::into_file`].
pub struct TempPath {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl TempPath {
    /// The path of `name` inside this folder, which stays as long as the result does.
    pub fn into_file(self, name: &str) -> TempPath {
        TempPath {
            path: self.path.join(name),
            _dir: self._dir,
        }
    }
}

impl AsRef<Path> for &TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for &TempPath {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

impl std::ops::Deref for TempPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

pub(crate) fn parcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .expect("the parcall binary runs")
}

pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn json_report(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let output = parcall(&all);
    // parcall's reader: reports may hold 1e400 (an infinity), which serde_json refuses.
    let report = parcall::json::parse(&stdout(&output)).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            stdout(&output),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let report = parcall::json::to_serde_json(&report);
    assert_tallies_add_up(&report);
    (output.status.code().unwrap_or(-1), report)
}

/// Every check report this suite reads: no requirement is charged, or shown kept, in more
/// cases than exercise it, fixed or generated (a student once read "244 of 230 cases break
/// this rule").
pub(crate) fn assert_tallies_add_up(report: &serde_json::Value) {
    let Some(requirements) = report["requirements"].as_array() else {
        return;
    };
    for r in requirements {
        // A field renamed or gone fails here, rather than passing as 0.
        let count = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("{r}"));
        let generated = &r["generated"];
        assert!(
            count(&r["failed"]) <= count(&r["cases"])
                && count(&r["shown"]) <= count(&r["cases"])
                && count(&r["not_run"]) <= count(&r["passed"])
                && count(&generated["charged"]) <= count(&generated["exercised"])
                && count(&generated["shown"]) <= count(&generated["exercised"])
                && count(&generated["not_run"]) <= count(&generated["exercised"]),
            "{}'s tallies do not add up: {r}",
            r["id"]
        );
    }
}

/// An empty folder of its own under the system's temporary folder, removed when dropped.
pub(crate) fn temp_dir(name: &str) -> TempPath {
    let dir = tempfile::Builder::new()
        .prefix(&format!("parcall-test-{name}-"))
        .tempdir()
        .expect("a temporary folder");
    let path = dir.path().to_owned();
    TempPath { _dir: dir, path }
}

/// Spawns `command` with both output pipes and waits at most `deadline`: `Err` with what it
/// wrote to stderr when it had to be killed. Both pipes are drained while waiting, since a
/// report larger than a pipe's buffer would otherwise block the child on its write and look
/// like a hang.
pub(crate) fn output_within(
    command: &mut std::process::Command,
    deadline: std::time::Duration,
) -> Result<std::process::Output, String> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the parcall binary runs");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting works") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = stderr.join().unwrap_or_default();
            return Err(String::from_utf8_lossy(&stderr).into_owned());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// `run` on every item, `lanes` items at a time, results in the items' order. For
/// end-to-end checks that spend much of their time waiting on an interpreter or on latency
/// probes, so running a few at once keeps the machine's cores busy.
pub(crate) fn in_lanes<T: Sync, R: Send>(
    items: &[T],
    lanes: usize,
    run: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    // Each lane takes the next item not yet taken: items differ in cost (an example that
    // hangs waits out its deadlines), and lanes dealt a fixed share sat idle while one worked
    // through the slow ones.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (run, next) = (&run, &next);
        let handles: Vec<_> = (0..lanes)
            .map(|_| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, run(item)));
                    }
                })
            })
            .collect();
        let mut results: Vec<(usize, R)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    })
}

/// Copies the repository's file `from` to `to`, creating `to`'s folder.
pub(crate) fn copy_from_repo(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(root().join(from), to).unwrap();
}

/// Copies the folder `from` into `to`, recursively.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The pids of the processes whose command line holds `token` as one argument.
pub(crate) fn processes_holding(token: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == token.as_bytes()))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The outcome of every case of a JSON report, in order.
pub(crate) fn outcomes(report: &serde_json::Value) -> Vec<String> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["outcome"].as_str().unwrap().to_owned())
        .collect()
}

/// A grading run's `teacher/gradebook.json`, as written so far.
pub(crate) fn read_gradebook(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("teacher/gradebook.json")).unwrap())
        .unwrap()
}

/// Makes a FIFO at `path`.
pub(crate) fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// One submission's entry in a grading run's `gradebook.json`, by name.
pub(crate) fn gradebook_entry(out: &Path, name: &str) -> serde_json::Value {
    let book = read_gradebook(out);
    book["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no submission {name} in {book}"))
        .clone()
}

/// Each submission's score and maximum score, from a grading run's `gradebook.json`.
pub(crate) fn gradebook(out: &Path) -> BTreeMap<String, (f64, f64)> {
    let book = read_gradebook(out);
    book["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let score = |field: &str| s[field].as_f64().unwrap();
            let name = s["name"].as_str().unwrap().to_owned();
            (name, (score("score"), score("max_score")))
        })
        .collect()
}

/// Each submission's score, from a grading run's `gradebook.json`.
pub(crate) fn scores(out: &Path) -> BTreeMap<String, f64> {
    gradebook(out)
        .into_iter()
        .map(|(name, (score, _))| (name, score))
        .collect()
}

/// Where a grading run's submissions ran, from its `gradebook.json` (`"site"`): the run's
/// workspace and, when submissions get uids of their own, its block of uids. Checks of what
/// a run leaves on the machine look at these alone, so other tests may grade meanwhile.
pub(crate) struct Site {
    pub workspace: PathBuf,
    pub uids: Option<RangeInclusive<u32>>,
}

pub(crate) fn site(out: &Path) -> Site {
    let book = read_gradebook(out);
    let site = &book["site"];
    let uid = |end: &str| u32::try_from(site["uids"][end].as_u64().unwrap()).unwrap();
    Site {
        workspace: PathBuf::from(site["workspace"].as_str().unwrap()),
        uids: (!site["uids"].is_null()).then(|| uid("first")..=uid("last")),
    }
}

/// The pids of the live processes (zombies left out) of the run at `site`: under a uid of
/// its block, and not in another run's control groups (named after that run's workspace).
/// A block is free again once its run ends, and another test's run may lease it meanwhile.
pub(crate) fn processes_of(site: &Site) -> Vec<String> {
    let Some(uids) = &site.uids else {
        return Vec::new();
    };
    let ours = site.workspace.file_name().unwrap().to_string_lossy();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(status) = std::fs::read_to_string(entry.path().join("status")) {
            let uid = status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next()?.parse::<u32>().ok());
            // A zombie runs nothing; it waits for its parent (here, init) to reap it.
            let zombie = status
                .lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'));
            let groups = std::fs::read_to_string(entry.path().join("cgroup")).unwrap_or_default();
            let another_run = groups
                .split('/')
                .any(|part| part.starts_with("parcall-grade-") && part != ours);
            if uid.is_some_and(|u| uids.contains(&u)) && !zombie && !another_run {
                found.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
    }
    found
}

/// Compares a file generated from the Rust types with what is committed, or rewrites it when
/// `PARCALL_BLESS=1` is set.
pub(crate) fn assert_generated(path: &Path, generated: &str) {
    if std::env::var_os("PARCALL_BLESS").is_some() {
        std::fs::write(path, generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date with the Rust types or spec files; rerun with PARCALL_BLESS=1 \
         (`PARCALL_BLESS=1 cargo test --test suite`) and commit the result",
        path.display()
    );
}

/// A validator for the JSON Schema `schema` (its text).
pub(crate) fn schema_validator(schema: &str) -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(schema).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// Fails, listing every error, unless `value` follows the JSON Schema `schema` (its text).
pub(crate) fn assert_follows_schema(schema: &str, value: &serde_json::Value, what: &str) {
    let errors: Vec<String> = schema_validator(schema)
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}
