//! What CI users copy and read: one run writes several reports, expected failures look
//! skipped in JUnit and TAP, annotations name the case's line when it is a file of the
//! repository and the case otherwise, async entry points are awaited, and a runtime killed
//! by the memory limit at start-up is told so.

use crate::common;

use common::{fresh_regressions, mkfifo, parcall, root, stdout, temp_dir};
use std::path::Path;
use std::process::Command;

/// A JavaScript module that knowingly deviates, with its expectations file: a gated run
/// that passes, with expected failures.
#[test]
fn one_gated_run_writes_every_report_and_expected_failures_are_not_red() {
    let dir = temp_dir("reports");
    let junit = dir.join("junit.xml");
    let markdown = dir.join("summary.md");
    let tap = dir.join("report.tap");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args([
            "check",
            "conformance/examples/javascript/stringify_numbers.mjs",
            "--seed",
            "1",
            "--expectations",
            "conformance/examples/javascript/stringify_numbers.expectations.json",
            "--format",
            "github",
        ])
        .arg("--report")
        .arg(format!("junit={}", junit.display()))
        .arg("--report")
        .arg(format!("markdown={}", markdown.display()))
        .arg("--report")
        .arg(format!("tap={}", tap.display()))
        .current_dir(root())
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .unwrap();
    if String::from_utf8_lossy(&output.stderr).contains("cannot start `node`") {
        eprintln!("skipped: no node on this machine");
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(junit.contains("failures=\"0\""), "{junit}");
    assert!(
        junit.contains("<skipped message=\"expected failure ("),
        "{junit}"
    );
    let tap = std::fs::read_to_string(&tap).unwrap();
    assert!(
        !tap.lines()
            .any(|l| l.starts_with("not ok") && !l.contains(" # TODO ")),
        "{tap}"
    );
    assert!(tap.contains(" # TODO expected failure ("), "{tap}");
    assert!(std::fs::read_to_string(&markdown)
        .unwrap()
        .contains("parcall"));
}

#[test]
fn a_bad_report_target_is_a_usage_error() {
    for bad in ["junit", "pdf=x.pdf", "junit="] {
        let output = parcall(&[
            "check",
            "conformance/examples/python/solution.py",
            "--report",
            bad,
        ]);
        assert_eq!(output.status.code(), Some(2), "{bad}: {output:?}");
    }
}

/// The line of `id` in the built-in spec's `file`, 1-based.
fn spec_line(file: &str, id: &str) -> usize {
    let spec = std::fs::read_to_string(root().join("spec").join(file)).unwrap();
    spec.lines()
        .position(|l| l.contains(&format!("\"id\": \"{id}\"")))
        .unwrap()
        + 1
}

/// The `::error` line about `case` that `parcall check ARGS --format github` writes, run
/// in `folder`.
fn annotation(folder: &Path, args: &[&str], case: &str) -> String {
    let module = root().join("conformance/examples/python/broken/ids_zero_based.py");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .arg("check")
        .arg(&module)
        .args(["--case", case, "--format", "github"])
        .args(args)
        .current_dir(folder)
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .unwrap();
    let text = stdout(&output);
    text.lines()
        .find(|l| l.starts_with("::error") && l.contains(case))
        .unwrap_or_else(|| panic!("{text}"))
        .to_owned()
}

/// A case of the built-in spec is no file of the repository a workflow runs in: its
/// annotation names no file (GitHub would point at one that does not exist) but the case
/// and parcall's file and line, from any folder.
#[test]
fn built_in_cases_are_annotated_with_the_case_not_a_file() {
    let elsewhere = temp_dir("annotations");
    let line = annotation(&elsewhere, &[], "exec-seed-002");
    assert!(!line.contains("file="), "{line}");
    let place = format!(
        "case exec-seed-002 (parcall's spec/cases/execute_tool_calls/seed.json:{})",
        spec_line("cases/execute_tool_calls/seed.json", "exec-seed-002")
    );
    assert!(line.contains(&place), "{line}");
}

/// The cases of a `--spec` folder in the repository are annotated on their line, by a path
/// relative to the repository's root: the current folder, or `--annotation-root`.
#[test]
fn spec_folder_cases_are_annotated_relative_to_the_annotation_root() {
    let repository = temp_dir("annotation-root");
    common::copy_dir(&root().join("spec"), &repository.join("conformance-spec"));
    std::fs::create_dir_all(repository.join("sub")).unwrap();
    let expected = format!(
        "::error file=conformance-spec/cases/execute_tool_calls/seed.json,line={},",
        spec_line("cases/execute_tool_calls/seed.json", "exec-seed-002")
    );
    let at_root = annotation(
        &repository,
        &["--spec", "conformance-spec"],
        "exec-seed-002",
    );
    assert!(at_root.starts_with(&expected), "{at_root}");
    let below = annotation(
        &repository.join("sub"),
        &["--spec", "../conformance-spec", "--annotation-root", ".."],
        "exec-seed-002",
    );
    assert!(below.starts_with(&expected), "{below}");
    // A spec folder outside the root names no file, but the case.
    let outside = annotation(
        &repository.join("sub"),
        &["--spec", "../conformance-spec", "--annotation-root", "."],
        "exec-seed-002",
    );
    assert!(!outside.contains("file="), "{outside}");
    assert!(outside.contains("case exec-seed-002"), "{outside}");
}

#[test]
fn async_entry_points_are_awaited() {
    let output = parcall(&[
        "check",
        "conformance/examples/python/solution_asyncio.py",
        "--seed",
        "1",
        "--color",
        "never",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

/// A JVM reserves a gigabyte of address space at start-up (its compressed class space): it
/// died under the address-space limit parcall once set, and starts under the memory limit
/// (RLIMIT_DATA) set now, so `java -version` ends by itself, and nothing blames memory. One
/// that dies silently is told the limit may be the cause, and pointed at `--memory-mib`.
#[test]
fn a_runtime_killed_at_start_up_by_the_memory_limit_is_told_so() {
    if Command::new("java").arg("-version").output().is_err() {
        assert!(
            std::env::var_os("PARCALL_REQUIRE_CONSUMERS").is_none(),
            "`java` (17 or later) is required"
        );
        eprintln!("skipped: no java on this machine; the same message is checked with sh below");
    } else {
        let output = parcall(&["check", "--cmd", "java -version", "--color", "never"]);
        let text = stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(text.contains("it exited with status 0"), "{text}");
        assert!(!text.contains("memory limit"), "{text}");
    }
    let output = parcall(&["check", "--cmd", "sh -c 'exit 1'", "--color", "never"]);
    assert!(
        stdout(&output).contains("--memory-mib"),
        "{}",
        stdout(&output)
    );
    assert!(
        stdout(&output).contains("memory limit of 2048 MiB"),
        "{}",
        stdout(&output)
    );
    let unlimited = parcall(&[
        "check",
        "--cmd",
        "sh -c 'exit 1'",
        "--memory-mib",
        "0",
        "--color",
        "never",
    ]);
    assert!(!stdout(&unlimited).contains("memory limit"));
    // What it printed explains it, and says nothing of memory: no word of the limit then,
    // but how it ended (the note once sent users after memory for a `bad option`).
    let explained = parcall(&[
        "check",
        "--cmd",
        "sh -c 'echo bad option: -I >&2; exit 9'",
        "--color",
        "never",
    ]);
    let text = stdout(&explained);
    assert!(text.contains("it exited with status 9"), "{text}");
    assert!(text.contains("bad option: -I"), "{text}");
    assert!(!text.contains("memory limit"), "{text}");
}

/// A FIFO at a `--report` path (planted by the implementation, say) with no reader is an
/// error naming the file, never a hang.
#[test]
fn a_report_path_that_is_a_fifo_without_a_reader_does_not_hang() {
    let dir = temp_dir("fifo-report");
    let fifo = dir.join("report.xml");
    mkfifo(&fifo);
    let started = std::time::Instant::now();
    let output = parcall(&[
        "check",
        "conformance/examples/python/solution.py",
        "--case",
        "exec-seed-*",
        "--report",
        &format!("junit={}", fifo.display()),
    ]);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("report.xml"));
}

/// A FIFO whose reader is slower than the report is long (`--report json=>(sleep 3; wc -c)`)
/// gets the whole report: the write once failed with EAGAIN, and a correct run exited 3.
#[test]
fn a_report_path_that_is_a_fifo_with_a_slow_reader_gets_the_whole_report() {
    use std::io::Read;
    let dir = temp_dir("fifo-slow-report");
    let fifo = dir.join("report.json");
    mkfifo(&fifo);
    let reading = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut file = std::fs::File::open(&reading).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        text
    });
    // More than a pipe's 64 KiB of report.
    let output = parcall(&[
        "check",
        "conformance/examples/python/solution.py",
        "--fuzz",
        "300",
        "--seed",
        "1",
        "--report",
        &format!("json={}", fifo.display()),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = reader.join().unwrap();
    assert!(text.len() > 65536, "{} bytes", text.len());
    parcall::json::parse(&text).unwrap();
}

/// The Java kit (standard library only), filled in, compiles with `javac` and conforms under
/// the default memory limit: the JVM starts under RLIMIT_DATA, and its own JSON reader and
/// writer keep Python's number rules.
#[test]
fn the_java_kit_conforms_under_the_default_limits() {
    let Some(command) = common::built_adapters::java_command() else {
        return;
    };
    let (code, report) =
        crate::common::json_report(&["check", "--cmd", &command, "--fuzz", "20", "--seed", "1"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["implementation"]["language"], "java");
}

/// A `--cmd` program that never completes the handshake is told the likely cause: a hello
/// written to stdout (the wrong descriptor), a reply left in a buffer it never flushes, or
/// a wait for the hello on stdin, which is at its end; none of them is blamed on memory.
#[test]
fn a_program_that_never_answers_the_handshake_is_told_the_likely_cause() {
    // A shell starts at once, so the hello is on stdout well before the deadline; it then
    // reads the requests and waits for more, as a program would wait for its first case.
    let hello_on_stdout =
        r#"sh -c 'echo "{\"type\": \"hello\", \"protocol\": 2}"; while read line; do :; done <&3'"#;
    let never_flushed =
        r#"python3 -c 'import os, time; f = os.fdopen(4, "w"); f.write("{}\n"); time.sleep(30)'"#;
    let reads_stdin = "sh -c 'read line || exit 0'";
    let runs = [
        (hello_on_stdout, "wrote a protocol message to stdout"),
        (never_flushed, "flush after each message"),
        (reads_stdin, "waits for the hello on stdin"),
    ];
    let outputs = crate::common::in_lanes(&runs, 3, |(command, _)| {
        let args = ["check", "--cmd", command, "--startup-timeout", "2"];
        stdout(&parcall(&[&args[..], &["--color", "never"]].concat()))
    });
    for ((command, cause), text) in runs.iter().zip(outputs) {
        assert!(text.contains(cause), "{command}: {text}");
        assert!(!text.contains("memory limit"), "{command}: {text}");
    }
}
