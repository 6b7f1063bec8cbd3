//! `parcall grade` against one attack at a time: each test grades a correct
//! submission beside one hostile submission or planted file and asserts the attack is
//! contained. Tests that need root, namespaces or cgroups say so and skip without them.

use crate::common;

use common::{copy_from_repo, gradebook_entry, root, scores, site};
use parcall::sandbox::Capabilities;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SOLUTION: &str = "conformance/examples/python/solution.py";

/// A class folder holding the correct `alice.py` and the given hostile fixtures, each in a
/// folder of its own with `hostile.json` carrying `settings`.
fn class_with(work: &Path, hostiles: &[&str], settings: &serde_json::Value) -> PathBuf {
    let class = work.join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    for name in hostiles {
        let folder = class.join(name);
        copy_from_repo(
            &format!("conformance/fixtures/python/hostile/{name}.py"),
            &folder.join("main.py"),
        );
        std::fs::write(folder.join("hostile.json"), settings.to_string()).unwrap();
    }
    class
}

/// The quick settings every test grades with, after `extra`.
fn quick(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    args.extend(
        [
            "--out",
            out.to_str().unwrap(),
            "--seed",
            "5",
            "--fuzz",
            "0",
            "--timeout",
            "2",
            "--function",
            "execute_tool_calls",
            "--jobs",
            "1",
        ]
        .map(String::from),
    );
    args
}

/// Runs `parcall grade ARGS` in `cwd`, killed after `limit` (a hung grade fails the test
/// instead of hanging it).
fn grade_in(cwd: &Path, args: &[String], limit: Duration) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .arg("grade")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null());
    common::output_within(&mut command, limit)
        .unwrap_or_else(|stderr| panic!("parcall grade hung for {limit:?}: {stderr}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, concatenated: whatever a submission leaked is in there.
fn all_results(dir: &Path) -> String {
    let mut all = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return all;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            all += &all_results(&path);
        } else if kind.is_file() {
            all += &text(&std::fs::read(&path).unwrap());
        }
    }
    all
}

/// The results of one submission, the student's and the teacher's.
fn results_of(out: &Path, name: &str) -> String {
    all_results(&out.join("students").join(name))
        + &all_results(&out.join("teacher/reports").join(name))
}

/// Skips (with the reason printed) when the sandbox cannot be exercised here.
fn sandboxed() -> bool {
    let capabilities = Capabilities::detect();
    if !(capabilities.own_uid() && capabilities.namespaces) {
        eprintln!(
            "skipped: needs root, setpriv and namespaces ({})",
            capabilities.namespace_error
        );
        return false;
    }
    true
}

#[test]
fn inherited_descriptors_do_not_reach_submissions() {
    let work = tempfile::tempdir().unwrap();
    let class = class_with(work.path(), &["inherited_fds"], &serde_json::json!({}));
    let secret = work.path().join("secret");
    std::fs::write(&secret, format!("SECRET-FD-{}\n", std::process::id())).unwrap();
    let log = work.path().join("root.log");
    std::fs::write(&log, "").unwrap();
    let out = work.path().join("out");
    let mut args = vec![
        "-c".to_owned(),
        r#"exec "$0" grade "$@" 7<"$PARCALL_TEST_SECRET" 8>>"$PARCALL_TEST_LOG""#.to_owned(),
        env!("CARGO_BIN_EXE_parcall").to_owned(),
        class.to_str().unwrap().to_owned(),
    ];
    args.extend(quick(&out, &[]));
    let output = Command::new("sh")
        .args(&args)
        .env("PARCALL_TEST_SECRET", &secret)
        .env("PARCALL_TEST_LOG", &log)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "",
        "fd 8 was written"
    );
    let results = results_of(&out, "inherited_fds");
    assert!(
        results.contains("FD-SCAN"),
        "the attack did not report: {results}"
    );
    assert!(!results.contains("SECRET-FD"), "fd 7 was read: {results}");
}

#[test]
fn links_fifos_and_special_files_are_refused_with_a_reason() {
    let work = tempfile::tempdir().unwrap();
    let class = class_with(work.path(), &[], &serde_json::json!({}));
    let secret = work.path().join("shadow");
    std::fs::write(&secret, "root:SECRET-LINK-HASH:19000:0:99999:7:::\n").unwrap();
    let answers = work.path().join("answers.py");
    std::fs::copy(root().join(SOLUTION), &answers).unwrap();
    for file in [&secret, &answers] {
        std::fs::set_permissions(file, PermissionsExt::from_mode(0o600)).unwrap();
    }
    std::os::unix::fs::symlink(&secret, class.join("shadow.py")).unwrap();
    std::os::unix::fs::symlink(&answers, class.join("answers.py")).unwrap();
    let elsewhere = work.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::copy(root().join(SOLUTION), elsewhere.join("main.py")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, class.join("linked_folder")).unwrap();
    std::fs::create_dir(class.join("folder")).unwrap();
    std::os::unix::fs::symlink(&answers, class.join("folder/main.py")).unwrap();
    let fifo = std::ffi::CString::new(class.join("fifo.py").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let out = work.path().join("out");
    let output = grade_in(
        work.path(),
        &quick(&out, &[class.to_str().unwrap()]),
        Duration::from_secs(120),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let scores = scores(&out);
    assert!(scores["alice"] > 0.0);
    for name in ["shadow", "answers", "folder", "fifo", "linked_folder"] {
        assert_eq!(scores[name], 0.0, "{name} scored");
        // Refused, it ran no case: it does not conform (the gradebook once said "conforms").
        assert_eq!(
            gradebook_entry(&out, name)["verdict"],
            "does_not_conform",
            "{name}"
        );
        let results = results_of(&out, name);
        assert!(
            results.contains("not a regular file") || results.contains("symbolic link"),
            "{name} got no reason: {results}"
        );
    }
    assert!(!all_results(&out).contains("SECRET-LINK"));
}

const FILL_PLACES: [&str; 4] = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"];

#[test]
fn disk_use_is_bounded_and_nothing_is_left_behind() {
    if !sandboxed() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let class = class_with(work.path(), &["fills_disk"], &serde_json::json!({}));
    let sparse = class.join("sparse");
    copy_from_repo(SOLUTION, &sparse.join("main.py"));
    let blob = std::fs::File::create(sparse.join("blob.bin")).unwrap();
    blob.set_len(1 << 30).unwrap();
    drop(blob);
    let out = work.path().join("out");
    let output = grade_in(
        work.path(),
        &quick(&out, &[class.to_str().unwrap()]),
        Duration::from_secs(240),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let scores = scores(&out);
    assert_eq!(scores["sparse"], 0.0);
    assert!(results_of(&out, "sparse").contains("larger than"));
    let filled = results_of(&out, "fills_disk");
    let wrote: Vec<u64> = regex::Regex::new(r"WROTE-MIB (\d+)")
        .unwrap()
        .captures_iter(&filled)
        .map(|c| c[1].parse().unwrap())
        .collect();
    assert!(!wrote.is_empty(), "the attack did not report: {filled}");
    assert!(wrote.iter().all(|&mib| mib <= 64), "wrote {wrote:?} MiB");
    for place in FILL_PLACES {
        assert!(
            !Path::new(place).join("parcall-hostile-fill-0").exists(),
            "left in {place}"
        );
    }
    let workspace = site(&out).workspace;
    assert!(!workspace.exists(), "left behind: {}", workspace.display());
}

fn ipc_keys(kind: &str) -> String {
    std::fs::read_to_string(format!("/proc/sysvipc/{kind}")).unwrap_or_default()
}

#[test]
fn ipc_and_shared_folders_do_not_outlive_a_submission() {
    if !sandboxed() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let key = 0x5E00_0000 + std::process::id() as i64 % 0x10000;
    let class = class_with(
        work.path(),
        &["leaves_ipc"],
        &serde_json::json!({ "ipc_key": key }),
    );
    let out = work.path().join("out");
    let output = grade_in(
        work.path(),
        &quick(&out, &[class.to_str().unwrap()]),
        Duration::from_secs(120),
    );
    // Remove what leaked before asserting, so a failure does not poison later runs.
    let leaked_shm = ipc_keys("shm")
        .lines()
        .any(|l| l.split_whitespace().next() == Some(&key.to_string()));
    let leaked_msg = ipc_keys("msg")
        .lines()
        .any(|l| l.split_whitespace().next() == Some(&key.to_string()));
    let _ = Command::new("ipcrm")
        .args(["-M", &key.to_string(), "-Q", &key.to_string()])
        .stderr(Stdio::null())
        .status();
    let files: Vec<PathBuf> = ["/run/lock", "/var/tmp", "/dev/shm"]
        .iter()
        .map(|d| Path::new(d).join(format!("parcall-hostile-{key}")))
        .filter(|p| p.exists())
        .collect();
    for file in &files {
        let _ = std::fs::remove_file(file);
    }
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(scores(&out)["leaves_ipc"], scores(&out)["alice"]);
    assert!(!leaked_shm, "SysV shared memory outlived the submission");
    assert!(!leaked_msg, "a SysV message queue outlived the submission");
    assert!(files.is_empty(), "files outlived the submission: {files:?}");
}

#[test]
fn a_submissions_processes_share_one_memory_limit() {
    if !sandboxed() {
        return;
    }
    let v2 = std::fs::read_to_string("/sys/fs/cgroup/cgroup.controllers")
        .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"));
    if !v2 && !Path::new("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists() {
        eprintln!("skipped: no cgroup memory controller (v2 or v1) under /sys/fs/cgroup");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let class = class_with(work.path(), &["memory_together"], &serde_json::json!({}));
    let out = work.path().join("out");
    let output = grade_in(
        work.path(),
        &quick(&out, &[class.to_str().unwrap(), "--memory-mib", "320"]),
        Duration::from_secs(240),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let results = results_of(&out, "memory_together");
    assert!(
        !results.contains("HELD 3 OF 3"),
        "three processes held 600 MiB under --memory-mib 320"
    );
    assert!(scores(&out)["alice"] > 0.0);
}

#[test]
fn bare_file_names_are_hidden_too() {
    if !sandboxed() {
        return;
    }
    // Outside /tmp and the source tree (both hidden for other reasons) and readable by
    // anyone, so only hiding the class folder keeps the spy out.
    let work = tempfile::Builder::new().tempdir_in("/run").unwrap();
    std::fs::set_permissions(work.path(), PermissionsExt::from_mode(0o755)).unwrap();
    let settings = serde_json::json!({ "class_dir": work.path().join("class") });
    let class = class_with(work.path(), &["spies_on_class"], &settings);
    let secret = format!("SECRET-BARE-{}", std::process::id());
    let alice = std::fs::read_to_string(class.join("alice.py")).unwrap();
    std::fs::write(class.join("alice.py"), format!("# {secret}\n{alice}")).unwrap();
    for dir in [class.clone(), class.join("spies_on_class")] {
        std::fs::set_permissions(dir, PermissionsExt::from_mode(0o755)).unwrap();
    }
    let out = work.path().join("out");
    let output = grade_in(
        &class,
        &quick(&out, &["alice.py", "spies_on_class"]),
        Duration::from_secs(120),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!results_of(&out, "spies_on_class").contains(&secret));
}

#[test]
fn protocol_errors_count_toward_giving_up() {
    let work = tempfile::tempdir().unwrap();
    let class = class_with(work.path(), &["wrong_ids"], &serde_json::json!({}));
    let out = work.path().join("out");
    let started = Instant::now();
    let output = grade_in(
        work.path(),
        &quick(&out, &[class.to_str().unwrap()]),
        Duration::from_secs(300),
    );
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(took < Duration::from_secs(30), "grading took {took:?}");
    assert_eq!(scores(&out)["wrong_ids"], 0.0);
}

#[test]
fn each_submission_has_a_wall_clock_budget() {
    let work = tempfile::tempdir().unwrap();
    let class = class_with(work.path(), &["slow_answers"], &serde_json::json!({}));
    let out = work.path().join("out");
    let started = Instant::now();
    let output = grade_in(
        work.path(),
        &quick(
            &out,
            &[class.to_str().unwrap(), "--submission-seconds", "5"],
        ),
        Duration::from_secs(300),
    );
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(took < Duration::from_secs(30), "grading took {took:?}");
    assert!(results_of(&out, "slow_answers").contains("time budget"));
    assert!(scores(&out)["alice"] > 0.0);
}

#[test]
fn submissions_learn_no_case_ids_and_reach_no_parcall() {
    if !sandboxed() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let settings = serde_json::json!({
        "spec_dirs": [root().join("spec"), root().join("spec/cases")],
        "parcall": [env!("CARGO_BIN_EXE_parcall")],
    });
    let class = class_with(work.path(), &["oracle"], &settings);
    let out = work.path().join("out");
    let output = grade_in(
        work.path(),
        &quick(&out, &[class.to_str().unwrap()]),
        Duration::from_secs(120),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let results = results_of(&out, "oracle");
    let learnt: Vec<String> = regex::Regex::new(r"CASE-ID ([A-Za-z0-9_-]+)")
        .unwrap()
        .captures_iter(&results)
        .map(|c| c[1].to_owned())
        .collect();
    assert!(!learnt.is_empty(), "the attack did not report: {results}");
    for id in &learnt {
        assert!(
            !["exec-", "sandbox-", "dedup-", "generated"]
                .iter()
                .any(|p| id.starts_with(p)),
            "the implementation learnt case id {id}"
        );
    }
    assert!(!results.contains("SPEC-READABLE"), "{results}");
    assert!(!results.contains("PARCALL-RUNNABLE"), "{results}");
}
