//! `parcall check` under hostile implementations and bad input, end to end on the
//! real binary: inputs are read before untrusted code runs, nothing it starts outlives the
//! run, the caller's environment stays behind, its text cannot drive the terminal, memory
//! and reply sizes are bounded, and no flag value or input file panics or hangs.
//!
//! `PARCALL_TEST_BINARY=path` runs these against another build (an older one, to see them
//! fail).

use crate::common;

use common::{copy_dir, fresh_regressions, mkfifo, outcomes, processes_holding, root};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    std::env::var_os("PARCALL_TEST_BINARY")
        .map_or_else(|| env!("CARGO_BIN_EXE_parcall").into(), PathBuf::from)
}

/// Runs parcall with `envs` added; kills it and fails the test past `deadline` (a hang).
fn run_with(args: &[&str], envs: &[(&str, &str)], deadline: Duration) -> Output {
    let regressions = fresh_regressions();
    let mut command = Command::new(binary());
    command
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .env("PARCALL_REGRESSIONS", regressions.as_os_str())
        .stdin(Stdio::null());
    for (name, value) in envs {
        command.env(name, value);
    }
    let output = common::output_within(&mut command, deadline)
        .unwrap_or_else(|stderr| panic!("parcall {args:?} hung for {deadline:?}: {stderr}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "parcall {args:?} panicked: {stderr}"
    );
    output
}

fn run(args: &[&str]) -> Output {
    run_with(args, &[], Duration::from_secs(120))
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn json(output: &Output) -> serde_json::Value {
    let value = parcall::json::parse(&String::from_utf8_lossy(&output.stdout))
        .unwrap_or_else(|e| panic!("{e}: {}", text(output)));
    parcall::json::to_serde_json(&value)
}

fn fixture(name: &str) -> String {
    format!("conformance/fixtures/python/{name}.py")
}

const SOLUTION: &str = "conformance/examples/python/solution.py";

#[test]
fn an_implementation_cannot_rewrite_the_expectations_that_gate_it() {
    let dir = tempfile::tempdir().unwrap();
    let expectations = dir.path().join("expectations.json");
    let honest = r#"{"format": "parcall-expectations", "version": 1, "known_failures": []}"#;
    std::fs::write(&expectations, honest).unwrap();
    let output = run(&[
        "check",
        &fixture("forge_expectations"),
        "--case",
        "exec-seed-*",
        "--expectations",
        expectations.to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        !text(&output).contains("expected failures"),
        "{}",
        text(&output)
    );
}

fn assert_none_left(token: &str) {
    // Killed processes may take a moment to be torn down.
    let started = Instant::now();
    while !processes_holding(token).is_empty() && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let survivors = processes_holding(token);
    for pid in &survivors {
        // Do not leave them running for the next test.
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
    assert!(
        survivors.is_empty(),
        "processes left running: {survivors:?}"
    );
}

#[test]
fn double_forked_setsid_processes_without_environment_die_with_the_run() {
    let token = format!("parcall-escape-probe-{}", std::process::id());
    let output = run_with(
        &[
            "check",
            &fixture("escape_processes"),
            "--case",
            "exec-seed-001",
            "--format",
            "json",
        ],
        &[("PARCALL_FIXTURE_TOKEN", &token)],
        Duration::from_secs(60),
    );
    assert_none_left(&token);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report = json(&output);
    let containment = report["containment"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        containment.contains("PID namespace") || containment.contains("subreaper"),
        "{containment}"
    );
}

/// Where no PID namespace can be made, parcall is a child subreaper: the same escapees are
/// re-parented to it and killed.
#[test]
fn without_a_pid_namespace_the_subreaper_catches_them() {
    let token = format!("parcall-subreaper-probe-{}", std::process::id());
    let output = run_with(
        &[
            "check",
            &fixture("escape_processes"),
            "--case",
            "exec-seed-*",
            "--format",
            "json",
        ],
        &[
            ("PARCALL_FIXTURE_TOKEN", &token),
            ("PARCALL_NO_PID_NAMESPACE", "1"),
        ],
        Duration::from_secs(60),
    );
    assert_none_left(&token);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let containment = json(&output)["containment"].as_str().unwrap().to_owned();
    assert!(containment.starts_with("child subreaper"), "{containment}");
}

#[test]
fn the_implementation_dies_when_parcall_is_killed() {
    let token = format!("parcall-orphan-probe-{}", std::process::id());
    let regressions = fresh_regressions();
    let mut parcall = Command::new(binary())
        .args([
            "check",
            &fixture("escape_processes"),
            "--case",
            "exec-seed-001",
        ])
        .args(["--timeout", "60"])
        .current_dir(root())
        .env("PARCALL_FIXTURE_TOKEN", &token)
        .env("PARCALL_FIXTURE_HANG", "1")
        .env("PARCALL_REGRESSIONS", regressions.as_os_str())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the fixture's children to exist, then kill parcall outright.
    let started = Instant::now();
    while processes_holding(&token).len() < 2 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !processes_holding(&token).is_empty(),
        "the fixture never started"
    );
    parcall.kill().unwrap();
    parcall.wait().unwrap();
    assert_none_left(&token);
}

#[test]
fn the_callers_secrets_stay_behind_unless_passed() {
    let args = [
        "check",
        &fixture("reads_environment"),
        "--case",
        "exec-seed-001",
    ];
    let secret = [("CI_DEPLOY_TOKEN", "hunter2")];
    let long = Duration::from_secs(60);
    let default = run_with(&args, &secret, long);
    assert_eq!(default.status.code(), Some(0), "{}", text(&default));
    let passed = run_with(
        &[&args[..], &["--pass-env", "CI_DEPLOY_TOKEN"]].concat(),
        &secret,
        long,
    );
    assert_eq!(passed.status.code(), Some(1), "{}", text(&passed));
    let inherited = run_with(&[&args[..], &["--inherit-env"]].concat(), &secret, long);
    assert_eq!(inherited.status.code(), Some(1), "{}", text(&inherited));
    assert!(text(&inherited).contains("leaked: hunter2"));
}

#[test]
fn text_from_the_implementation_cannot_drive_the_terminal() {
    let output = run(&[
        "check",
        &fixture("terminal_injection"),
        "--case",
        "exec-seed-*",
        "--color",
        "always",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report = String::from_utf8_lossy(&output.stdout);
    // The palette's own colour codes are the only escape sequences: `ESC [ digits m`.
    let palette = regex::Regex::new(r"\x1b\[[0-9;]*m").unwrap();
    let rest = palette.replace_all(&report, "");
    let dangerous: Vec<char> = rest
        .chars()
        .filter(|c| (c.is_control() && *c != '\n' && *c != '\t') || *c == '\u{202e}')
        .collect();
    assert!(
        dangerous.is_empty(),
        "raw control characters: {dangerous:?}\n{report}"
    );
    assert!(report.contains("\\x1b]0;pwned\\x07"), "{report}");
    let tap = run(&[
        "check",
        &fixture("terminal_injection"),
        "--case",
        "exec-seed-*",
        "--format",
        "tap",
    ]);
    let tap = String::from_utf8_lossy(&tap.stdout);
    assert!(!tap.contains(['\x1b', '\r', '\u{202e}']), "{tap}");
    assert!(!report
        .lines()
        .any(|l| palette.replace_all(l, "") == "189 passed, 0 failed"));
}

#[test]
fn memory_errors_count_as_crashes_and_three_in_a_row_end_the_function() {
    let output = run(&[
        "check",
        &fixture("memory_error"),
        "--case",
        "exec-*",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let report = json(&output);
    let outcomes = outcomes(&report);
    assert_eq!(outcomes[..3], ["crash", "crash", "crash"], "{outcomes:?}");
    assert!(outcomes[3..].iter().all(|o| o == "skipped"), "{outcomes:?}");
    let message = report["cases"][0]["detail"]["message"].as_str().unwrap();
    // The limit is named: a bare MemoryError hides that parcall set it.
    assert!(
        message.contains("stopped by the memory limit of 2048 MiB"),
        "{message}"
    );
}

#[test]
fn a_spent_budget_ends_the_run_as_incomplete() {
    let started = Instant::now();
    let output = run(&[
        "check",
        &fixture("hang"),
        "--case",
        "exec-*",
        "--timeout",
        "30",
        "--budget",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    let report = json(&output);
    // Cases before the hang pass; the one that hangs and every later one are not run.
    let outcomes = outcomes(&report);
    assert!(outcomes.iter().any(|o| o == "skipped"), "{outcomes:?}");
    assert!(
        outcomes.iter().all(|o| o == "pass" || o == "skipped"),
        "{outcomes:?}"
    );
    assert!(report["error"].as_str().unwrap().contains("--budget"));
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn replies_past_a_bound_are_an_outcome_not_kept() {
    let output = run(&[
        "check",
        &fixture("huge_reply"),
        "--case",
        "exec-output-001",
        "--case",
        "exec-output-002",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let report = json(&output);
    let cases = report["cases"].as_array().unwrap();
    let messages: Vec<&str> = cases
        .iter()
        .filter_map(|c| c["detail"]["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("digits, more than 4300")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("message: 1000")),
        "{messages:?}"
    );
    // Nothing of the excess is kept in the report.
    assert!(
        output.stdout.len() < 200_000,
        "{} bytes",
        output.stdout.len()
    );
}

/// Every numeric flag of every command, fed absurd values: exit 2 and a message, never a
/// panic (`run_with` fails the test on one) or a run.
#[test]
fn absurd_numeric_flags_are_usage_errors() {
    let absurd = [
        "-1",
        "0",
        "NaN",
        "inf",
        "-inf",
        "1e309",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999",
        "",
        "abc",
    ];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("grades");
    let out = out.to_str().unwrap();
    let commands: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec!["check", SOLUTION, "--case", "exec-seed-001", "--fuzz", "0"],
            &["--timeout", "--startup-timeout", "--budget", "--memory-mib"],
        ),
        (
            vec!["check", SOLUTION, "--case", "exec-seed-001"],
            &["--fuzz"],
        ),
        (
            vec!["grade", SOLUTION, "--out", out, "--fuzz", "1"],
            &["--timeout", "--memory-mib", "--cpu-seconds", "--jobs"],
        ),
        (vec!["grade", SOLUTION, "--out", out], &["--fuzz"]),
        (vec!["spec", "export", out], &["--generated"]),
    ];
    for (base, flags) in commands {
        for flag in flags {
            for value in absurd {
                // 0 is valid here: no generated cases, no memory limit for `check`.
                let zero_ok = matches!(*flag, "--fuzz" | "--generated")
                    || (*flag == "--memory-mib" && base[0] == "check");
                if value == "0" && zero_ok {
                    continue;
                }
                let mut args = base.clone();
                let pair = format!("{flag}={value}");
                args.push(&pair);
                let output = run_with(&args, &[], Duration::from_secs(30));
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
                assert!(stderr.contains(flag), "{args:?}: {stderr}");
            }
        }
    }
}

/// FIFOs and devices named as input: refused at once with exit 2, never opened blocking.
#[test]
fn special_files_as_inputs_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("input.json");
    mkfifo(&fifo);
    let spec = dir.path().join("spec");
    copy_dir(&root().join("spec"), &spec);
    let case_file = spec.join("cases/execute_tool_calls/zz-fifo.json");
    mkfifo(&case_file);
    let fifo = fifo.to_str().unwrap();
    let out = dir.path().join("grades");
    let quick = ["--case", "exec-seed-001", "--fuzz", "0"];
    // Every input that is not a regular file is a usage error, the regressions file as much
    // as the expectations file.
    let expectations = |path| [&["check", SOLUTION, "--expectations", path][..], &quick].concat();
    let regressions = |path| vec!["check", SOLUTION, "--fuzz", "0", "--regressions", path];
    let spec_dir = [
        &["check", SOLUTION, "--spec", spec.to_str().unwrap()][..],
        &quick,
    ]
    .concat();
    let rubric = vec![
        "grade",
        SOLUTION,
        "--out",
        out.to_str().unwrap(),
        "--rubric",
        fifo,
    ];
    let runs: Vec<(Vec<&str>, i32)> = vec![
        (expectations(fifo), 2),
        (expectations("/dev/zero"), 2),
        (regressions(fifo), 2),
        (regressions("/dev/zero"), 2),
        (spec_dir, 2),
        (rubric, 2),
    ];
    for (args, code) in runs {
        let output = run_with(&args, &[], Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stderr.contains("not a regular file")
                || stderr.contains("FIFO")
                || stderr.contains("device"),
            "{args:?}: {stderr}"
        );
    }
}

#[rstest::rstest]
#[case::python(&["check", SOLUTION, "--python", "/nonexistent/python3"], "--python /nonexistent/python3: no such file")]
#[case::python_on_path(&["check", SOLUTION, "--python", "no-such-python-3"], "not found on PATH")]
#[case::node(&["check", "conformance/examples/javascript/solution.mjs", "--node", "/nonexistent/node"], "--node /nonexistent/node: no such file")]
#[case::cmd(&["check", "--cmd", "/nonexistent/program --flag"], "--cmd /nonexistent/program: no such file")]
#[case::folder(&["check", SOLUTION, "--python", "/tmp"], "not a file")]
fn a_missing_program_is_a_set_up_error(#[case] args: &[&str], #[case] message: &str) {
    let output = run(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

/// Runs parcall to the end and returns its exit code and the peak resident memory, in KiB,
/// of it and the processes it waited for (wait4's rusage).
fn run_measured(args: &[&str]) -> (i32, i64) {
    let regressions = fresh_regressions();
    #[expect(
        clippy::zombie_processes,
        reason = "reaped by wait4 below, which std does not know of"
    )]
    let child = Command::new(binary())
        .args(args)
        .current_dir(root())
        .env("PARCALL_REGRESSIONS", regressions.as_os_str())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; status and usage are ours.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    (libc::WEXITSTATUS(status), usage.ru_maxrss)
}

/// A module that wraps the adapter so every reply carries 10 MB cannot
/// grow parcall: each such reply is a protocol error, and nothing of it is kept.
#[test]
fn inflated_replies_do_not_grow_parcall() {
    let (code, peak_kib) = run_measured(&[
        "check",
        &fixture("inflate_replies"),
        "--case",
        "exec-*",
        "--fuzz",
        "0",
    ]);
    assert_eq!(code, 1);
    // 10 MB per case over about 100 cases would be a gigabyte; parcall and one Python
    // process at a time stay far below 300 MB.
    assert!(peak_kib < 300 * 1024, "peak {} MiB", peak_kib / 1024);
}

/// A module that finds parcall's pid and SIGKILLs it: parcall must survive to write its
/// report. In a PID namespace it cannot name parcall's pid; with the subreaper fallback it
/// can, which README says (so this test needs the namespace).
#[test]
fn an_implementation_cannot_kill_parcall() {
    let output = run(&[
        "check",
        &fixture("kills_parcall"),
        "--case",
        "exec-seed-001",
        "--format",
        "json",
    ]);
    let report = json(&output);
    if !report["containment"]
        .as_str()
        .unwrap_or_default()
        .starts_with("PID namespace")
    {
        eprintln!("no PID namespace on this machine: not applicable");
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(report["complete"], true);
}

/// A parcall killed outright leaves its adapter folder behind; the next run removes it.
#[test]
fn the_next_run_removes_the_folders_of_a_killed_one() {
    let mut gone = Command::new("true").spawn().unwrap();
    let dead_pid = gone.id();
    gone.wait().unwrap();
    let stale = std::env::temp_dir().join(format!("parcall-adapter-{dead_pid}-stale"));
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("parcall_adapter.py"), "").unwrap();
    let output = run(&["check", SOLUTION, "--case", "exec-seed-001", "--fuzz", "0"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(!stale.exists(), "{} is still there", stale.display());
}

/// Runs parcall with both output pipes closed before it writes a byte, as `parcall check x
/// 2>&1 | head -1` leaves them once `head` has its line: the exit code it gives then.
fn exit_code_with_readers_gone(args: &[&str]) -> Option<i32> {
    let regressions = fresh_regressions();
    let mut child = Command::new(binary())
        .args(args)
        .current_dir(root())
        .env("PARCALL_REGRESSIONS", regressions.as_os_str())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    child.wait().unwrap().code()
}

#[test]
fn a_reader_that_leaves_early_changes_no_exit_code() {
    // Once, writing to the closed stderr panicked (exit 101), and a closed stdout was a
    // usage error (exit 2): a pipeline that only looks at the first lines saw neither
    // verdict.
    let broken = "conformance/examples/python/broken/limit_off_by_one.py";
    let fast = ["--fuzz", "5", "--seed", "1", "--case", "exec-limit-*"];
    let mut failing = vec!["check", broken];
    failing.extend(fast);
    assert_eq!(exit_code_with_readers_gone(&failing), Some(1));
    let mut passing = vec!["check", "conformance/examples/python/solution.py"];
    passing.extend(fast);
    assert_eq!(exit_code_with_readers_gone(&passing), Some(0));
    assert_eq!(exit_code_with_readers_gone(&["spec", "list"]), Some(0));
    assert_eq!(exit_code_with_readers_gone(&["doctor"]), Some(0));
    assert_eq!(
        exit_code_with_readers_gone(&["check", "no/such/module.py"]),
        Some(2)
    );
}

/// What a case came to: its outcome and the requirements it is charged to.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String, Vec<String>)> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let mut charged: Vec<String> = case["charges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["requirement"].as_str().unwrap().to_owned())
                .collect();
            charged.sort();
            charged.dedup();
            (
                case["id"].as_str().unwrap().to_owned(),
                case["outcome"].as_str().unwrap().to_owned(),
                charged,
            )
        })
        .collect()
}

/// parcall, not the implementation, keeps the record of invocations and the scripted
/// answers (RULES C). A module with no cache that deletes its repeated invocations from
/// every record it can reach (the garbage collector's objects, the frames up its stack)
/// scores exactly what the same module scores without the scrub, and finds no scripted
/// answer in reach before it invokes anything. With the record in the adapter (protocol
/// version 1), the scrub passed DEDUP-CACHE-HIT and DEDUP-RAISE on 32 cases.
#[test]
fn a_module_that_scrubs_the_record_of_invocations_scores_what_it_does() {
    let check = |module: &str| {
        let output = run(&[
            "check",
            &format!("conformance/fixtures/python/hostile/{module}.py"),
            "--function",
            "run_parallel_calls",
            "--seed",
            "3",
            "--fuzz",
            "100",
            "--format",
            "json",
        ]);
        assert_eq!(output.status.code(), Some(1), "{module} must not conform");
        json(&output)
    };
    let honest = check("no_cache");
    let scrubbed = check("scrubs_invocations");
    assert_eq!(verdicts(&scrubbed), verdicts(&honest));
    let charged: Vec<String> = verdicts(&scrubbed)
        .into_iter()
        .flat_map(|(_, _, charged)| charged)
        .collect();
    assert!(
        charged.iter().any(|r| r == "DEDUP-CACHE-HIT"),
        "{charged:?}"
    );
    for case in scrubbed["cases"].as_array().unwrap() {
        assert!(
            !case["printed"].as_str().unwrap().contains("peeked"),
            "{}: {}",
            case["id"],
            case["printed"]
        );
    }
}
