//! The Java kit: compiled with `javac` on the host, then checked with `--cmd`.

use super::{assert_conforms, filled_kit, parcall_in, toolchain, Fill};
use crate::common;
use std::path::Path;
use std::process::Command;

const CMD: &str = "java -Xmx512m -cp classes Main";

fn compiled(dir: &Path) {
    let sources: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().ends_with(".java"))
        .collect();
    // A few small files: javac's quick compiler and serial collector start it sooner.
    let output = Command::new("javac")
        .args([
            "-J-XX:TieredStopAtLevel=1",
            "-J-XX:+UseSerialGC",
            "-d",
            "classes",
        ])
        .args(sources)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
}

fn have_jdk() -> bool {
    toolchain("javac", "-version") && toolchain("java", "-version")
}

#[test]
fn the_java_kit_filled_in_conforms() {
    if !have_jdk() {
        return;
    }
    let (_work, dir) = filled_kit("java", Fill::Correct);
    // As `parcall init java` says: its manifest compiles it inside the sandbox.
    let declared = ["--runtime", "java=java", "--runtime", "javac=javac"];
    let mut args = vec!["check", ".", "--fuzz", "30"];
    args.extend(declared);
    assert_conforms(&parcall_in(&dir, &args));
}

#[test]
fn the_java_kit_with_ids_counted_from_zero_is_charged_exec_id_generated() {
    if !have_jdk() {
        return;
    }
    let (_work, dir) = filled_kit("java", Fill::Broken);
    compiled(&dir);
    let output = parcall_in(&dir, &["check", "--cmd", CMD, "--fuzz", "30"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("✗ EXEC-ID-GENERATED"));
}

#[test]
fn the_empty_java_kit_builds_and_says_its_functions_are_not_written_yet() {
    if !have_jdk() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    assert!(parcall_in(work.path(), &["init", "java", "kit"])
        .status
        .success());
    let dir = work.path().join("kit");
    compiled(&dir);
    let output = parcall_in(&dir, &["check", "--cmd", CMD, "--fuzz", "0"]);
    assert_eq!(output.status.code(), Some(1));
    let said = common::stdout(&output);
    assert!(
        said.contains("execute_tool_calls is not written yet"),
        "{said}"
    );
    assert!(
        said.contains("run_parallel_calls is not written yet"),
        "{said}"
    );
}
