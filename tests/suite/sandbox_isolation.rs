//! The sandbox that starts from nothing, attacked: a submission that searches the disk, one
//! that goes after keyrings, an implementation that spies on the `check` running it, and
//! correct implementations that need many threads. Each attack touches only files, keys and
//! processes its test created. Tests skip, saying why, where the OS allows no namespaces.

use crate::common;

use common::{copy_from_repo, root, scores, site};
use parcall::sandbox::Capabilities;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SOLUTION: &str = "conformance/examples/python/solution.py";

/// Whether `grade` runs submissions in the sandbox here; says why not otherwise.
fn isolated() -> bool {
    let capabilities = Capabilities::detect();
    if !capabilities.isolated() {
        eprintln!(
            "skipped: the sandbox cannot start here ({})",
            capabilities.namespace_error
        );
    }
    capabilities.isolated()
}

/// A class of the correct `alice.py` and one hostile fixture in a folder of its own.
fn class_with(work: &Path, hostile: &str, settings: &serde_json::Value) -> PathBuf {
    let class = work.join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    let folder = class.join(hostile);
    copy_from_repo(
        &format!("conformance/fixtures/python/hostile/{hostile}.py"),
        &folder.join("main.py"),
    );
    std::fs::write(folder.join("hostile.json"), settings.to_string()).unwrap();
    class
}

fn grade_command(class: &Path, out: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .arg("grade")
        .arg(class)
        .args(["--out", out.to_str().unwrap()])
        .args([
            "--seed",
            "5",
            "--fuzz",
            "0",
            "--timeout",
            "5",
            "--jobs",
            "2",
        ])
        .args(["--function", "execute_tool_calls"])
        .stdin(Stdio::null());
    command
}

fn run(mut command: Command, limit: Duration) -> Output {
    common::output_within(&mut command, limit)
        .unwrap_or_else(|stderr| panic!("parcall hung for {limit:?}: {stderr}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file of one submission's results, the student's and the teacher's, concatenated.
fn results_of(out: &Path, name: &str) -> String {
    let mut all = String::new();
    for dir in [out.join("students"), out.join("teacher/reports")] {
        for entry in std::fs::read_dir(dir.join(name)).unwrap().flatten() {
            all += &text(&std::fs::read(entry.path()).unwrap_or_default());
        }
    }
    all
}

#[test]
fn a_submission_searching_the_disk_finds_only_its_own_files_and_the_standard_library() {
    if !isolated() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    // World-readable on purpose: what an earlier class, its teacher and a reference solution
    // left on the machine, where any uid may read it.
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let old_class = work.path().join("old-class");
    std::fs::create_dir_all(old_class.join("submissions/bob")).unwrap();
    let secret = format!("OLD-CLASS-SECRET-{}", std::process::id());
    std::fs::write(old_class.join("bob.py"), format!("# {secret}\n")).unwrap();
    let report = old_class.join("submissions/bob/report.txt");
    std::fs::write(&report, format!("seed 42 {secret}\n")).unwrap();
    let reference = work.path().join("reference_solution.py");
    copy_from_repo(SOLUTION, &reference);
    let settings = serde_json::json!({
        "secrets": [old_class.join("bob.py"), report, reference],
        "grader_paths": [work.path(), root()],
    });
    let class = class_with(work.path(), "searches_disk", &settings);
    let out = work.path().join("out");
    let output = run(grade_command(&class, &out), Duration::from_secs(120));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let results = results_of(&out, "searches_disk");
    assert!(
        results.contains("PYTHON-FILES-OUTSIDE"),
        "the attack did not report: {results}"
    );
    assert!(results.contains("PYTHON-FILES-OUTSIDE 0"), "{results}");
    assert!(!results.contains("READ-SECRET"), "{results}");
    assert!(!results.contains("MOUNTINFO-NAMES"), "{results}");
    assert!(!results.contains(&secret));
    assert!(scores(&out)["alice"] > 0.0);
}

/// The uids of `/proc/key-users` (every uid the kernel holds keys for).
fn key_users() -> Vec<u32> {
    std::fs::read_to_string("/proc/key-users")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().split(':').next()?.parse().ok())
        .collect()
}

/// Runs the child in a session keyring of its own holding one user key named `name` (the
/// test's, standing for the teacher's).
fn with_session_key(command: &mut Command, name: &str) {
    let name = std::ffi::CString::new(name).unwrap();
    let session = std::ffi::CString::new("parcall-test-session").unwrap();
    let kind = std::ffi::CString::new("user").unwrap();
    // SAFETY: between fork and exec, keyctl(2) and add_key(2) read NUL-terminated strings
    // and a payload owned by this closure, alive for each call; no allocation happens here.
    unsafe {
        command.pre_exec(move || {
            const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
            const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
            libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_JOIN_SESSION_KEYRING,
                session.as_ptr(),
            );
            let payload = b"the teacher's secret";
            libc::syscall(
                libc::SYS_add_key,
                kind.as_ptr(),
                name.as_ptr(),
                payload.as_ptr(),
                payload.len(),
                KEY_SPEC_SESSION_KEYRING,
            );
            Ok(())
        });
    }
}

#[test]
fn keyrings_of_the_grader_and_of_earlier_submissions_stay_out_of_reach() {
    if !isolated() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let session_key = format!("parcall-teacher-key-{}", std::process::id());
    let settings = serde_json::json!({
        "session_key": session_key,
        "leak": format!("parcall-leak-{}", std::process::id()),
    });
    let class = class_with(work.path(), "keyrings", &settings);
    let out = work.path().join("out");
    let mut command = grade_command(&class, &out);
    with_session_key(&mut command, &session_key);
    let output = run(command, Duration::from_secs(120));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let results = results_of(&out, "keyrings");
    // The system-call filter refuses `add_key` now; where a kernel let it through, the key
    // must still die with the submission (checked below).
    assert!(
        results.contains("USER-KEY-ADDED") || results.contains("USER-KEY-REFUSED"),
        "the attack did not report: {results}"
    );
    assert!(!results.contains("SESSION-KEY-FOUND"), "{results}");
    assert!(!results.contains("USER-KEY-SURVIVED"), "{results}");
    // What the submission left in its uid's user keyring is gone with it: the kernel holds
    // no key for any uid of the run's block (the next run may lease the block).
    let Some(block) = site(&out).uids else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<u32> = key_users()
            .into_iter()
            .filter(|u| block.contains(u))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "keys of submission uids {left:?} outlived the run"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn check_gives_the_implementation_none_of_the_callers_environment_stdout_or_binary() {
    // SAFETY: geteuid(2) takes no argument and cannot fail.
    let root_user = unsafe { libc::geteuid() } == 0;
    if let Some(reason) = parcall::sandbox::contain::sandbox_error(root_user) {
        eprintln!("skipped: the sandbox cannot start here ({reason})");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let module = work.path().join("spies.py");
    copy_from_repo(
        "conformance/fixtures/python/hostile/spies_on_parcall.py",
        &module,
    );
    let secret = format!("ci-secret-{}", std::process::id());
    let binary = Path::new(env!("CARGO_BIN_EXE_parcall"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(binary);
    command
        .args(["check", module.to_str().unwrap(), "--fuzz", "0"])
        .args(["--function", "execute_tool_calls"])
        .env("CI_SECRET_TOKEN", &secret)
        .env("PATH", &path)
        .current_dir(work.path())
        .stdin(Stdio::null());
    let output = run(command, Duration::from_secs(120));
    let stdout = text(&output.stdout);
    let all = format!("{stdout}{}", text(&output.stderr));
    assert!(all.contains("FINDINGS"), "the attack did not report: {all}");
    assert!(!stdout.contains("FORGED-SUMMARY"), "{stdout}");
    assert!(!all.contains("STDOUT-WRITTEN"), "{all}");
    assert!(!all.contains(&secret), "{all}");
    assert!(!all.contains("PARCALL-EXE"), "{all}");
    assert!(!all.contains("PARCALL-ON-PATH"), "{all}");
    assert!(!all.contains("UID 0"), "{all}");
    assert_eq!(output.status.code(), Some(1), "{all}");
}

/// Every correct implementation the project ships, and one that starts a thread per accepted
/// call: `grade` gives each full marks exactly when `check` says it conforms.
#[test]
fn every_correct_example_passes_grade_exactly_as_it_passes_check() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let mut files: Vec<PathBuf> = ["python", "javascript"]
        .iter()
        .flat_map(|language| {
            std::fs::read_dir(root().join("conformance/examples").join(language))
                .unwrap()
                .flatten()
                .map(|e| e.path())
        })
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("solution") && (name.ends_with(".py") || name.ends_with(".mjs"))
        })
        .collect();
    files.push(root().join("src/grade/canary.py"));
    // One name each: `solution.py` and `solution.mjs` would share one.
    let named = |file: &Path| {
        let extension = file.extension().unwrap().to_string_lossy().into_owned();
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        (
            format!("{stem}_{extension}"),
            format!("{stem}_{extension}.{extension}"),
        )
    };
    std::fs::create_dir_all(&class).unwrap();
    for file in &files {
        std::fs::copy(file, class.join(named(file).1)).unwrap();
    }
    let out = work.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .arg("grade")
        .arg(&class)
        .args([
            "--out",
            out.to_str().unwrap(),
            "--seed",
            "7",
            "--fuzz",
            "30",
        ])
        .stdin(Stdio::null());
    let output = run(command, Duration::from_secs(600));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let book = common::gradebook(&out);
    for file in &files {
        let (name, file_name) = named(file);
        let (score, max) = book[&name];
        let mut check = Command::new(env!("CARGO_BIN_EXE_parcall"));
        check
            .args(["check", class.join(file_name).to_str().unwrap()])
            .args(["--seed", "7", "--fuzz", "30"])
            .current_dir(work.path())
            .stdin(Stdio::null());
        let checked = run(check, Duration::from_secs(300));
        let conforms = checked.status.code() == Some(0);
        assert!(conforms, "check fails {name}: {}", text(&checked.stdout));
        assert_eq!(
            score,
            max,
            "{name} conforms under check but scores {score} of {max} under grade: {}",
            results_of(&out, &name)
        );
    }
}

/// A correct submission whose file name is longer than the handshake allows is graded like
/// any other, not failed for a protocol error.
#[test]
fn a_correct_submission_with_a_very_long_name_scores_full_marks() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let name = "a".repeat(249);
    copy_from_repo(SOLUTION, &class.join(format!("{name}.py")));
    let out = work.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .arg("grade")
        .arg(&class)
        .args([
            "--out",
            out.to_str().unwrap(),
            "--seed",
            "3",
            "--fuzz",
            "10",
        ])
        .stdin(Stdio::null());
    let output = run(command, Duration::from_secs(120));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let book = common::gradebook(&out);
    assert_eq!(book.len(), 1, "{book:?}");
    let (score, max) = book.values().next().copied().unwrap();
    assert_eq!(score, max, "{}", text(&output.stdout));
}

/// `check` as an unprivileged user: the same sandbox, in a user namespace of that user's, for
/// a correct module and for one that spies on the check. Skips where the OS gives no user
/// namespace to that user.
#[test]
fn check_as_an_unprivileged_user_runs_in_a_user_namespace_of_its_own() {
    let work = tempfile::tempdir().unwrap();
    // Where `nobody` may read and run everything the check needs.
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let binary = work.path().join("parcall");
    std::fs::copy(env!("CARGO_BIN_EXE_parcall"), &binary).unwrap();
    let solution = work.path().join("solution.py");
    copy_from_repo(SOLUTION, &solution);
    let spies = work.path().join("spies.py");
    copy_from_repo(
        "conformance/fixtures/python/hostile/spies_on_parcall.py",
        &spies,
    );
    for file in [&solution, &spies] {
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    // SAFETY: geteuid(2) takes no argument and cannot fail.
    let root_user = unsafe { libc::geteuid() } == 0;
    let check = |module: &Path| {
        let mut command = if root_user {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
            c.arg(&binary);
            c
        } else {
            Command::new(&binary)
        };
        command
            .args(["check", module.to_str().unwrap(), "--fuzz", "0"])
            .env("CI_SECRET_TOKEN", "nobody-secret")
            .env("PARCALL_REGRESSIONS", work.path().join("regressions.json"))
            .current_dir(work.path())
            .stdin(Stdio::null());
        run(command, Duration::from_secs(120))
    };
    let correct = check(&solution);
    let stdout = text(&correct.stdout);
    if !stdout.contains("containment: sandbox") {
        eprintln!("skipped: no sandbox for an unprivileged user here: {stdout}");
        return;
    }
    assert!(stdout.contains("in a user namespace"), "{stdout}");
    assert_eq!(
        correct.status.code(),
        Some(0),
        "{stdout}{}",
        text(&correct.stderr)
    );
    let spied = check(&spies);
    let all = format!("{}{}", text(&spied.stdout), text(&spied.stderr));
    assert!(all.contains("FINDINGS"), "the attack did not report: {all}");
    assert!(!text(&spied.stdout).contains("FORGED-SUMMARY"), "{all}");
    assert!(!all.contains("nobody-secret"), "{all}");
    assert!(!all.contains("STDOUT-WRITTEN"), "{all}");
    assert!(!all.contains("PARCALL-EXE"), "{all}");
}

/// A shard that holds nobody is the teacher's mistake, said as such: not a gradebook whose
/// mean score reads `-0`.
#[test]
fn an_empty_shard_is_a_usage_error() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    let out = work.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .arg("grade")
        .arg(&class)
        .args([
            "--out",
            out.to_str().unwrap(),
            "--shard",
            "2/3",
            "--seed",
            "1",
        ])
        .stdin(Stdio::null());
    let output = run(command, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(
        text(&output.stderr).contains("this shard holds no submission"),
        "{}",
        text(&output.stderr)
    );
    assert!(!out.join("teacher/gradebook.shard-2-of-3.json").exists());
}
