//! The Go kit: built with `go build` on the host, then checked as any program is.

use super::{assert_conforms, filled_kit, parcall_in, toolchain, Fill};
use crate::common;

use std::path::Path;
use std::process::Command;

/// `go build -o impl .` in the kit's folder, offline: the kit needs no module but its own.
fn build(dir: &Path) {
    let output = Command::new("go")
        .args(["build", "-o", "impl", "."])
        .current_dir(dir)
        .env("GOPROXY", "off")
        .output()
        .unwrap();
    assert!(output.status.success(), "go build failed: {output:?}");
}

fn check(dir: &Path, fuzz: &str) -> std::process::Output {
    parcall_in(dir, &["check", "--cmd", "./impl", "--fuzz", fuzz])
}

#[test]
fn the_go_kit_filled_in_conforms() {
    if !toolchain("go", "version") {
        return;
    }
    let (_work, dir) = filled_kit("go", Fill::Correct);
    // As `parcall init go` says: its manifest builds it inside the sandbox, with the Go
    // declared by name, and the caller's folder gains nothing.
    assert_conforms(&parcall_in(
        &dir,
        &["check", ".", "--runtime", "go=go", "--fuzz", "30"],
    ));
    assert!(!dir.join("impl").exists());
}

#[test]
fn the_go_kit_with_ids_counted_from_zero_is_charged_the_generated_id_rule() {
    if !toolchain("go", "version") {
        return;
    }
    let (_work, dir) = filled_kit("go", Fill::Broken);
    build(&dir);
    let output = check(&dir, "30");
    assert_eq!(output.status.code(), Some(1), "{}", common::stdout(&output));
    let said = common::stdout(&output);
    assert!(
        said.lines()
            .any(|line| line.contains('✗') && line.contains("EXEC-ID-GENERATED")),
        "{said}"
    );
}

#[test]
fn the_go_kit_empty_builds_and_fails_with_its_message() {
    if !toolchain("go", "version") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let init = parcall_in(work.path(), &["init", "go", "kit"]);
    assert!(init.status.success(), "{init:?}");
    let dir = work.path().join("kit");
    build(&dir);
    let output = check(&dir, "0");
    assert_eq!(output.status.code(), Some(1));
    let said = common::stdout(&output);
    for function in ["execute_tool_calls", "run_parallel_calls"] {
        assert!(
            said.contains(&format!("{function} is not written yet")),
            "{said}"
        );
    }
}
