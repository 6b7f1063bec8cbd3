//! `parcall check` end to end, on the real binary: the examples are judged right, the
//! misbehaving fixtures are contained (verdict, bounded time, nothing left running), usage
//! errors say what is wrong, and every report format is snapshotted.

use crate::common;

use common::{fresh_regressions, json_report, outcomes, parcall, processes_holding, root, stdout};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn the_correct_solution_conforms() {
    let output = parcall(&[
        "check",
        "conformance/examples/python/solution.py",
        "--color",
        "never",
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    // 236 spec cases and one entry per function for the 500 generated cases each.
    assert!(text.trim_end().ends_with("238 passed, 0 failed"), "{text}");
}

#[test]
fn the_reference_served_over_the_protocol_conforms() {
    let command = format!("{} reference", env!("CARGO_BIN_EXE_parcall"));
    let (code, report) = json_report(&["check", "--cmd", &command]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["verdict"], "conforms");
    assert_eq!(report["implementation"]["language"], "rust");
}

/// A `--cmd` program named by a path relative to where parcall runs is found, though the
/// containment starts it in a folder of its own.
#[test]
fn a_cmd_program_named_by_a_relative_path_starts() {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_parcall"));
    let output = std::process::Command::new(binary)
        .args([
            "check",
            "--cmd",
            "./parcall reference",
            "--fuzz",
            "0",
            "--case",
            "exec-seed-001",
        ])
        .current_dir(binary.parent().unwrap())
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `parcall reference key` prints what an implementation's keying function must produce,
/// from an argument or from stdin, under either number model.
#[test]
fn reference_key_prints_the_canonical_key_of_an_args_object() {
    let key = |args: &[&str]| {
        let mut all = vec!["reference", "key"];
        all.extend(args);
        let output = parcall(&all);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        stdout(&output)
    };
    assert_eq!(key(&[r#"{"b": 1, "a": 1.0}"#]), "{\"a\": 1.0, \"b\": 1}\n");
    assert_eq!(
        key(&[
            "--tool",
            "search",
            r#"{"q": "é😀", "n": [1e400, NaN, 1E2, -0]}"#
        ]),
        "search({\"n\": [Infinity, NaN, 100.0, 0], \"q\": \"\\u00e9\\ud83d\\ude00\"})\n"
    );
    assert_eq!(
        key(&[
            "--number-model",
            "float64",
            r#"{"a": 1.0, "b": [1e21, 1e-7]}"#
        ]),
        "{\"a\": 1, \"b\": [1e+21, 1e-7]}\n"
    );
    let mut piped = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["reference", "key", "--tool", "f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    piped
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"z\": {\"y\": 2, \"x\": 1}}\n")
        .unwrap();
    let output = piped.wait_with_output().unwrap();
    assert_eq!(stdout(&output), "f({\"z\": {\"x\": 1, \"y\": 2}})\n");
}

/// The requirements a report does not count as met, among those the default rubric scores
/// (the sandbox's and the MAYs earn nothing).
fn lost_requirements(report: &serde_json::Value) -> Vec<String> {
    report["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["id"].as_str().unwrap().starts_with("SANDBOX-") && r["level"] != "MAY")
        .filter(|r| r["met"] != true)
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The broken example with no logic at all (it replays the public spec) keeps at most a
/// tenth of the scored requirements, end to end through the command line. Every single-bug
/// example is held to its declared requirements over ten seeds in `blame.rs`.
#[test]
fn an_example_that_replays_the_public_spec_keeps_at_most_a_tenth_of_the_requirements() {
    let path = root().join("conformance/examples/python/broken/answers_from_the_spec.py");
    let (code, report) = json_report(&[
        "check",
        path.to_str().unwrap(),
        "--fuzz",
        "100",
        "--seed",
        "1",
        "--no-regressions",
    ]);
    assert_eq!(code, 1, "answers_from_the_spec.py was not caught");
    assert!(report["error"].is_null(), "{}", report["error"]);
    let lost = lost_requirements(&report);
    let scored = report["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["id"].as_str().unwrap().starts_with("SANDBOX-") && r["level"] != "MAY")
        .count();
    assert!(
        (scored - lost.len()) * 10 <= scored,
        "answers_from_the_spec.py keeps {} of {scored} requirements: {lost:?}",
        scored - lost.len()
    );
}

fn fixture(name: &str) -> String {
    format!("conformance/fixtures/python/{name}.py")
}

/// Runs a fixture and returns its report and how long it took.
fn run_fixture(name: &str, extra: &[&str]) -> (i32, serde_json::Value, Duration) {
    let started = Instant::now();
    let path = fixture(name);
    let mut args = vec!["check", path.as_str()];
    args.extend(extra);
    let (code, report) = json_report(&args);
    (code, report, started.elapsed())
}

fn case<'r>(report: &'r serde_json::Value, id: &str) -> &'r serde_json::Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

#[test]
fn a_hanging_implementation_costs_seconds_and_is_given_up_on() {
    let (code, report, took) = run_fixture("hang", &["--case", "exec-seed-*", "--timeout", "1"]);
    assert_eq!(code, 1);
    assert_eq!(
        outcomes(&report),
        ["timeout", "timeout", "timeout", "skipped"]
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// Giving up ends the function's cases for the rest of the run: its generated cases, and any
/// shrinking of them, are not run after its spec cases gave up. Each of them hung its full
/// timeout again, so a hanging submission cost its give-up three times over.
#[test]
fn a_function_given_up_on_runs_no_generated_cases() {
    let (code, report, _) = run_fixture(
        "hostile/infinite_loop",
        &[
            "--function",
            "execute_tool_calls",
            "--timeout",
            "1",
            "--fuzz",
            "5",
            "--seed",
            "1",
        ],
    );
    assert_eq!(code, 1);
    let outcomes = outcomes(&report);
    let timeouts = outcomes.iter().filter(|o| *o == "timeout").count();
    assert_eq!(timeouts, 3, "{outcomes:?}");
    assert!(
        outcomes.iter().all(|o| o == "timeout" || o == "skipped"),
        "{outcomes:?}"
    );
    // The generated entry says they were not run; it is neither a pass nor a counterexample.
    let entry = case(&report, "generated-exec");
    assert_eq!(entry["outcome"], "skipped", "{entry:#}");
    // And the counts say so: not passed (as every version-1 report counts them), and of
    // those, not run.
    let generated = &report["generated"][0];
    let counts = ["passed", "failed", "not_run"].map(|field| generated[field].as_u64());
    assert_eq!(counts, [Some(0), Some(5), Some(5)], "{generated:#}");
    let reasons: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] == "skipped")
        .map(|c| c["detail"]["reason"].as_str().unwrap_or_default())
        .collect();
    assert!(
        reasons.iter().all(|r| r.contains("3 consecutive timeouts")),
        "{reasons:?}"
    );
}

#[test]
fn an_exit_mid_run_is_a_crash_and_the_run_goes_on() {
    let (code, report, _) = run_fixture(
        "exit_mid_run",
        &["--case", "exec-seed-001", "--case", "exec-output-00*"],
    );
    assert_eq!(code, 1);
    let crashed = case(&report, "exec-seed-001");
    assert_eq!(crashed["outcome"], "crash");
    assert!(crashed["detail"]["message"]
        .as_str()
        .unwrap()
        .contains("exited with status 3"));
    assert_eq!(
        case(&report, "exec-output-005")["outcome"],
        "pass",
        "{report:#}"
    );
}

#[test]
fn flooding_stdout_neither_hangs_nor_corrupts_the_protocol() {
    let (code, report, took) = run_fixture("flood_stdout", &["--case", "exec-seed-*"]);
    assert_eq!(code, 0, "{report:#}");
    let printed = report["cases"][0]["printed"].as_str().unwrap();
    assert!(
        printed.len() < 100_000,
        "captured output is not bounded: {} bytes",
        printed.len()
    );
    assert!(printed.contains("more characters not shown"));
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn forged_protocol_lines_are_just_output() {
    let (code, report, _) = run_fixture(
        "forge_protocol",
        &["--function", "execute_tool_calls", "--fuzz", "50"],
    );
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn a_memory_hog_is_stopped_by_the_limit() {
    let (code, report, took) = run_fixture(
        "hog_memory",
        &[
            "--case",
            "exec-seed-001",
            "--case",
            "exec-output-002",
            "--memory-mib",
            "512",
            "--timeout",
            "20",
        ],
    );
    assert_eq!(code, 1);
    let outcome = case(&report, "exec-seed-001")["outcome"].as_str().unwrap();
    assert!(["exception", "crash"].contains(&outcome), "{outcome}");
    assert_eq!(case(&report, "exec-output-002")["outcome"], "pass");
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[test]
fn reading_stdin_gets_end_of_file_and_closing_std_fds_is_harmless() {
    for name in ["read_stdin", "close_std_fds"] {
        let (code, report, _) = run_fixture(name, &["--case", "exec-seed-*"]);
        assert_eq!(code, 0, "{name}: {report:#}");
    }
}

#[test]
fn no_process_started_by_the_implementation_outlives_the_run() {
    let token = format!("parcall-leftover-probe-{}", std::process::id());
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", &fixture("leave_child"), "--case", "exec-seed-001"])
        .current_dir(root())
        .env("PARCALL_FIXTURE_TOKEN", &token)
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    std::thread::sleep(Duration::from_millis(300));
    let survivors = processes_holding(&token);
    assert!(
        survivors.is_empty(),
        "processes left running: {survivors:?}"
    );
}

#[rstest::rstest]
#[case::hang_at_import("hang_at_import", "did not answer the handshake within")]
#[case::syntax_error("syntax_error", "SyntaxError")]
#[case::raise_at_import("raise_at_import", "JSONDecodeError")]
#[case::no_functions("no_functions", "defines neither")]
#[case::wrong_signature(
    "wrong_signature",
    "cannot be called as execute_tool_calls(calls, max_parallel)"
)]
fn modules_that_cannot_be_checked_get_a_clear_message_and_exit_1(
    #[case] name: &str,
    #[case] message: &str,
) {
    let started = Instant::now();
    let output = parcall(&[
        "check",
        &fixture(name),
        "--startup-timeout",
        "2",
        "--color",
        "never",
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains(message), "{text}");
    assert!(text.contains("skipped"), "{text}");
    // The one-line summary names the cause too, not only what announces it (it once read
    // "cases not run: the implementation cannot be loaded:" and stopped).
    assert!(
        text.lines()
            .any(|l| l.contains("cases not run") && l.contains(message)),
        "{text}"
    );
    // Nothing ran, and nothing reads as if it had ("checked ... (127 cases)", a
    // requirement at "6/6 cases").
    assert!(!text.contains("checked execute_tool_calls"), "{text}");
    assert!(text.contains("  0/6 cases (6 not run)"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn results_that_are_not_json_are_a_clear_per_case_failure() {
    let (code, report) = json_report(&[
        "check",
        &fixture("returns_set"),
        "--case",
        "exec-seed-001",
        "--case",
        "dedup-seed-001",
    ]);
    assert_eq!(code, 1);
    let messages: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["detail"]["message"].as_str().unwrap())
        .collect();
    assert!(messages[0].contains("$ is a set"), "{messages:?}");
    assert!(
        messages[1].contains("has a key of type tuple"),
        "{messages:?}"
    );
}

#[rstest::rstest]
#[case::missing_file(&["check", "no/such/module.py"], "no such file")]
#[case::not_python(&["check", "README.md"], "parcall checks Python modules")]
#[case::unknown_requirement(&["check", "conformance/examples/python/solution.py", "--requirement", "EXEC-NOPE"], "no such requirement")]
#[case::empty_selection(&["check", "conformance/examples/python/solution.py", "--case", "nothing-*"], "select no case")]
#[case::invalid_spec(&["check", "conformance/examples/python/solution.py", "--spec", "/nonexistent"], "invalid spec")]
#[case::bad_flag(&["check", "--frobnicate"], "unexpected argument")]
#[case::key_of_invalid_json(&["reference", "key", r#"{"a": }"#], "not JSON in Python's dialect: expecting a value at line 1 column 7")]
#[case::key_of_a_list(&["reference", "key", "[1]"], "must be a JSON object")]
#[case::key_with_the_server_flag(&["reference", "--number-model", "float64", "key", "{}"], "cannot be used with")]
fn usage_errors_exit_2_and_say_what_is_wrong(#[case] args: &[&str], #[case] message: &str) {
    let output = parcall(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

/// A memory limit under which the interpreter itself cannot start is the user's set-up
/// error (exit 2) that says so and names a limit that starts it, not a verdict blaming the
/// implementation (exit 1) for a start-up it never reached.
#[test]
fn a_memory_limit_too_small_for_the_interpreter_is_a_set_up_error() {
    let output = parcall(&[
        "check",
        "conformance/examples/python/solution.py",
        "--memory-mib",
        "1",
        "--fuzz",
        "0",
        "--no-regressions",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}{}", stdout(&output));
    assert!(
        stderr.contains("--memory-mib 1 is too small for `python3` to start"),
        "{stderr}"
    );
    let works: u64 = stderr
        .split("starts under --memory-mib ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no working limit named: {stderr}"));
    assert!((2..=2048).contains(&works), "{stderr}");
}

/// Too few generated cases to show every scored requirement: a warning names what no
/// implementation can meet and the size that shows them all, instead of a silently lower
/// result; at that size there is none.
#[test]
fn too_few_generated_cases_are_warned_of() {
    let check = |fuzz: &str| {
        parcall(&[
            "check",
            "conformance/examples/python/solution.py",
            "--fuzz",
            fuzz,
            "--seed",
            "3",
            "--no-regressions",
        ])
    };
    let output = check("1");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: --fuzz 1: the generated cases of execute_tool_calls (seed 3) never show EXEC-"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--fuzz 17 or more shows every requirement"),
        "{stderr}"
    );
    let enough = check("18");
    let stderr = String::from_utf8_lossy(&enough.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(enough.status.code(), Some(0), "{stderr}");
}

/// A negative number is refused as what it is, by every numeric flag of every command: not
/// taken for a flag with clap's tip to pass it after `--`, which would make it a path.
#[rstest::rstest]
#[case::check_seed(&["check", "m.py", "--seed"], "-1", "seeds are 0 to 2^64-1")]
#[case::check_fuzz(&["check", "m.py", "--fuzz"], "-1", "cases from 0 to")]
#[case::check_timeout(&["check", "m.py", "--timeout"], "-0.5", "seconds must be above 0")]
#[case::check_startup(&["check", "m.py", "--startup-timeout"], "-1", "seconds must be above 0")]
#[case::check_budget(&["check", "m.py", "--budget"], "-1", "seconds must be above 0")]
#[case::check_memory(&["check", "m.py", "--memory-mib"], "-1", "MiB from 0 to")]
#[case::grade_seed(&["grade", "c", "--seed"], "-7", "seeds are 0 to 2^64-1")]
#[case::grade_fuzz(&["grade", "c", "--fuzz"], "-1", "cases from 0 to")]
#[case::grade_jobs(&["grade", "c", "--jobs"], "-3", "jobs from 1 to")]
#[case::grade_timeout(&["grade", "c", "--timeout"], "-1", "seconds must be above 0")]
#[case::grade_memory(&["grade", "c", "--memory-mib"], "-1", "MiB from 16 to")]
#[case::grade_cpu(&["grade", "c", "--cpu-seconds"], "-1", "whole seconds from 1 to")]
#[case::grade_submission(&["grade", "c", "--submission-seconds"], "-1", "whole seconds from 1 to 86400")]
#[case::compare_jobs(&["compare", "m.py", "--jobs"], "-1", "jobs from 1 to")]
#[case::compare_seed(&["compare", "m.py", "--seed"], "-1", "seeds are 0 to 2^64-1")]
#[case::mutate_fuzz(&["mutate", "m.py", "--fuzz"], "-2", "cases from 0 to")]
#[case::mutate_memory(&["mutate", "m.py", "--memory-mib"], "-1", "MiB from 0 to")]
#[case::export_generated(&["spec", "export", "d", "--generated"], "-1", "cases from 0 to")]
#[case::export_seed(&["spec", "export", "d", "--seed"], "-1", "seeds are 0 to 2^64-1")]
fn a_negative_number_is_refused_as_negative(
    #[case] args: &[&str],
    #[case] value: &str,
    #[case] accepted: &str,
) {
    let flag = args.last().unwrap();
    let output = parcall(&[args, &[value]].concat());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{value} is negative; ")) && stderr.contains(accepted),
        "{flag}: {stderr}"
    );
    assert!(stderr.contains(flag), "{stderr}");
    assert!(!stderr.contains("tip:"), "{stderr}");
}

#[test]
fn colour_follows_the_flag() {
    let args = [
        "check",
        "conformance/examples/python/solution.py",
        "--case",
        "exec-seed-001",
    ];
    let always = stdout(&parcall(&[&args[..], &["--color", "always"]].concat()));
    assert!(always.contains("\x1b["));
    let auto = stdout(&parcall(&args));
    assert!(!auto.contains("\x1b["), "not a terminal: no colour");
}

/// Masks what changes from machine to machine: versions and durations.
fn stable(text: &str) -> String {
    let patterns = [
        (r"python \d+\.\d+\.\d+", "python [version]"),
        (r#""version": "\d+\.\d+\.\d+""#, r#""version": "[version]""#),
        (r#""duration_ms": [0-9.e+-]+"#, r#""duration_ms": "[ms]""#),
        (r#"time="[0-9.]+""#, r#"time="[s]""#),
        (r#"timestamp="[^"]+""#, r#"timestamp="[t]""#),
        (r#"hostname="[^"]+""#, r#"hostname="[host]""#),
        // PID namespace or subreaper, depending on what the machine allows.
        (r"containment: [^\n]+", "containment: [containment]"),
        (
            r#""containment": "[^"]*""#,
            r#""containment": "[containment]""#,
        ),
    ];
    let mut text = text.to_owned();
    for (pattern, replacement) in patterns {
        text = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&text, replacement)
            .into_owned();
    }
    text
}

fn snapshot_run(format: &str) -> String {
    let output = parcall(&[
        "check",
        "conformance/examples/python/broken/limit_before_duplicate.py",
        "--case",
        "exec-limit-004",
        "--case",
        "exec-limit-001",
        "--case",
        "exec-dup-004",
        "--color",
        "never",
        "--format",
        format,
    ]);
    assert_eq!(output.status.code(), Some(1));
    stable(&stdout(&output))
}

#[test]
fn report_human() {
    insta::assert_snapshot!(snapshot_run("human"));
}

#[test]
fn report_json() {
    insta::assert_snapshot!(snapshot_run("json"));
}

#[test]
fn report_junit() {
    insta::assert_snapshot!(snapshot_run("junit"));
}

#[test]
fn report_tap() {
    insta::assert_snapshot!(snapshot_run("tap"));
}

#[test]
fn the_report_schema_is_generated_from_the_report_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/report.schema.json");
    let generated = parcall::report::report_schema();
    common::assert_generated(&path, &generated);
    let (_, report) = json_report(&[
        "check",
        "conformance/examples/python/broken/zero_means_default.py",
    ]);
    common::assert_follows_schema(&generated, &report, "the report");
}

#[test]
fn the_protocol_schema_is_generated_from_the_message_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/protocol.schema.json");
    let generated = parcall::protocol::protocol_schema();
    common::assert_generated(&path, &generated);
    let validator = common::schema_validator(&generated);
    let hello = serde_json::json!({"type": "hello", "protocol": 1, "implementation": {"name": "x", "language": "go", "version": "1"}, "functions": ["run_parallel_calls"]});
    assert!(validator.is_valid(&hello));
    let bad =
        serde_json::json!({"type": "hello", "protocol": 1, "functions": ["run_parallel_calls"]});
    assert!(!validator.is_valid(&bad));
}

/// The summary counts the requirements a submission is scored on apart from the SANDBOX-*
/// and MAY ones, which no implementation can be charged with: "16 of 27 met" for a file with
/// one bug read as if eleven were broken.
#[test]
fn the_summary_counts_scored_requirements_apart() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args([
            "check",
            "conformance/examples/python/broken/limit_off_by_one.py",
            "--fuzz",
            "40",
            "--seed",
            "1",
            "--no-regressions",
        ])
        .current_dir(crate::common::root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("requirements: "))
        .unwrap_or_else(|| panic!("no summary line:\n{stdout}"));
    let scored = parcall::judge::blame::ids::checked_in(parcall::spec::Profile::Exercise).count();
    assert!(
        line.contains(&format!(" of {scored} scored requirements met; "))
            && line.ends_with(" SANDBOX and MAY requirements are not scored"),
        "{line}"
    );
}

/// `parcall reference` started by hand, without the protocol's descriptors (or told to use
/// stdout as one), says how it is meant to be started and exits 2, instead of aborting on a
/// descriptor it does not own.
#[test]
fn the_reference_without_its_descriptors_says_how_to_start_it() {
    for fds in [None, Some("1,2"), Some("3,3")] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
        command.arg("reference");
        if let Some(fds) = fds {
            command.env("PARCALL_PROTOCOL_FDS", fds);
        }
        let output = command.output().unwrap();
        let errors = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{fds:?}: {errors}");
        assert!(
            errors.contains("parcall check --cmd \"parcall reference\""),
            "{fds:?}: {errors}"
        );
    }
}

/// A regressions file that is not a regular file (a FIFO, a folder, a path through a file)
/// is a usage error, as the same mistake with `--expectations` is; one that is simply absent
/// is made on the first failure, and a later run says it replays what was kept there.
#[test]
fn a_regressions_path_that_cannot_hold_them_is_exit_2_and_a_replay_is_announced() {
    let work = tempfile::tempdir().unwrap();
    let fifo = work.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let file = work.path().join("file");
    std::fs::write(&file, "").unwrap();
    let module = root().join("conformance/examples/python/broken/ids_zero_based.py");
    let check = |regressions: &Path| {
        Command::new(env!("CARGO_BIN_EXE_parcall"))
            .arg("check")
            .arg(&module)
            .args(["--fuzz", "10", "--seed", "1", "--regressions"])
            .arg(regressions)
            .output()
            .unwrap()
    };
    for bad in [
        fifo.clone(),
        work.path().to_owned(),
        file.join("regressions.json"),
    ] {
        let output = check(&bad);
        let errors = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{}: {errors}", bad.display());
        assert!(errors.contains("--regressions"), "{errors}");
    }
    let kept = work.path().join("new/regressions.json");
    let first = check(&kept);
    assert_eq!(first.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&first.stderr).contains("replayed"));
    let second = check(&kept);
    let errors = String::from_utf8_lossy(&second.stderr);
    assert!(
        errors.contains("replayed 1 counterexample an earlier run recorded in"),
        "{errors}"
    );
}

/// An interpreter that cannot run parcall's adapter at all (`--python /bin/true`) is the
/// caller's set-up error, exit 2, naming the flag; a module that itself dies at import under
/// a working interpreter is still the implementation's failure, exit 1.
#[test]
fn an_interpreter_that_cannot_run_the_adapter_is_a_set_up_error() {
    let solution = root().join("conformance/examples/python/solution.py");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("check")
        .arg(&solution)
        .args(["--python", "/bin/true", "--fuzz", "0", "--no-regressions"])
        .output()
        .unwrap();
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{errors}");
    assert!(
        errors.contains("--python /bin/true: it cannot run"),
        "{errors}"
    );

    let work = tempfile::tempdir().unwrap();
    let dying = work.path().join("dying.py");
    std::fs::write(&dying, "import sys\nsys.exit(3)\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("check")
        .arg(&dying)
        .args(["--fuzz", "0", "--no-regressions"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
}

/// A generated failure's rerun command draws it again: what a draw gives depends on how many
/// are drawn, so the command carries the run's `--fuzz` with its seed (compare's reruns are
/// built the same way), and run as written it fails the same generated case.
#[test]
fn a_generated_failures_rerun_carries_the_count_it_was_drawn_among() {
    let module = "conformance/examples/python/broken/ids_zero_based.py";
    let (code, report) = json_report(&[
        "check",
        module,
        "--function",
        "execute_tool_calls",
        "--fuzz",
        "25",
        "--seed",
        "3",
        "--no-regressions",
    ]);
    assert_eq!(code, 1);
    let rerun = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["rerun"].as_str())
        .find(|r| r.contains("--seed"))
        .unwrap_or_else(|| panic!("no generated rerun in {report:#}"))
        .to_owned();
    assert!(rerun.ends_with("--seed 3 --fuzz 25"), "{rerun}");
    let words = shell_words::split(&rerun).unwrap();
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    args.push("--no-regressions");
    let (again, _) = json_report(&args);
    assert_eq!(again, 1, "{rerun}");
}
