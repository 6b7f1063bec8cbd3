//! The TypeScript kit: compiled by `tsc` (the `typescript` package, installed once for the
//! suite under target/kits-npm), then run by Node and checked with `--cmd`.

use super::{assert_conforms, filled_kit, parcall_in, toolchain, Fill};
use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const CMD: &str = "node dist/main.js";

/// `tsc` from the `typescript` package, installed once for every test of the suite; `None`,
/// with the reason said, where npm or its registry cannot be reached.
fn tsc() -> Option<&'static PathBuf> {
    static TSC: OnceLock<Option<PathBuf>> = OnceLock::new();
    TSC.get_or_init(|| {
        if !(toolchain("node", "--version") && toolchain("npm", "--version")) {
            return None;
        }
        let folder = common::root().join("target/kits-npm");
        let tsc = folder.join("node_modules/typescript/bin/tsc");
        if tsc.is_file() {
            return Some(tsc);
        }
        std::fs::create_dir_all(&folder).unwrap();
        let installed = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "typescript@5"])
            .current_dir(&folder)
            .output()
            .unwrap();
        if !installed.status.success() || !tsc.is_file() {
            eprintln!(
                "skipped: npm could not install typescript (is the registry reachable?): {}",
                String::from_utf8_lossy(&installed.stderr)
            );
            return None;
        }
        Some(tsc)
    })
    .as_ref()
}

fn compiled(tsc: &Path, dir: &Path) {
    let output = Command::new("node")
        .arg(tsc)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", common::stdout(&output));
}

#[test]
fn the_typescript_kit_filled_in_conforms() {
    let Some(tsc) = tsc() else { return };
    let (_work, dir) = filled_kit("typescript", Fill::Correct);
    compiled(tsc, &dir);
    assert_conforms(&parcall_in(&dir, &["check", "--cmd", CMD, "--fuzz", "30"]));
}

#[test]
fn the_typescript_kit_with_the_limit_off_by_one_is_charged_exec_limit_position() {
    let Some(tsc) = tsc() else { return };
    let (_work, dir) = filled_kit("typescript", Fill::Broken);
    compiled(tsc, &dir);
    let output = parcall_in(&dir, &["check", "--cmd", CMD, "--fuzz", "30"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("✗ EXEC-LIMIT-POSITION"));
}

#[test]
fn the_empty_typescript_kit_builds_and_says_its_functions_are_not_written_yet() {
    let Some(tsc) = tsc() else { return };
    let work = tempfile::tempdir().unwrap();
    assert!(parcall_in(work.path(), &["init", "typescript", "kit"])
        .status
        .success());
    let dir = work.path().join("kit");
    compiled(tsc, &dir);
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
