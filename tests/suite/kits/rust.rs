//! The Rust kit: built with `cargo build --release --offline` in its own folder (it has no
//! crates to fetch), then checked with `--cmd`.

use super::{assert_conforms, filled_kit, parcall_in, toolchain, Fill};
use crate::common;
use std::path::Path;
use std::process::Command;

/// The program the kit's README and `parcall.json` name, built into the kit's own target/.
const CMD: &str = "./target/release/parcall-kit";

fn built(dir: &Path) {
    let output = Command::new("cargo")
        .args(["build", "--release", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let warnings = String::from_utf8_lossy(&output.stderr);
    assert!(!warnings.contains("warning"), "{warnings}");
}

#[test]
fn the_rust_kit_filled_in_conforms() {
    if !toolchain("cargo", "--version") {
        return;
    }
    let (_work, dir) = filled_kit("rust", Fill::Correct);
    built(&dir);
    assert_conforms(&parcall_in(&dir, &["check", "--cmd", CMD, "--fuzz", "30"]));
}

#[test]
fn the_rust_kit_with_ids_counted_from_zero_is_charged_exec_id_generated() {
    if !toolchain("cargo", "--version") {
        return;
    }
    let (_work, dir) = filled_kit("rust", Fill::Broken);
    built(&dir);
    let output = parcall_in(&dir, &["check", "--cmd", CMD, "--fuzz", "30"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("✗ EXEC-ID-GENERATED"));
}

#[test]
fn the_empty_rust_kit_builds_without_a_warning_and_says_its_functions_are_not_written_yet() {
    if !toolchain("cargo", "--version") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    assert!(parcall_in(work.path(), &["init", "rust", "kit"])
        .status
        .success());
    let dir = work.path().join("kit");
    built(&dir);
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
