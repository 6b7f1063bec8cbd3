//! The Ruby kit: checked through its manifest (`ruby main.rb`), with nothing to build.

use super::{assert_conforms, filled_kit, parcall_in, toolchain, Fill};
use crate::common;

use std::path::Path;
use std::process::Output;

/// Checked through its manifest, as `parcall init ruby` says: Ruby declared by name, its
/// standard library found by asking it.
fn check(dir: &Path, fuzz: &str) -> Output {
    parcall_in(
        dir,
        &["check", ".", "--runtime", "ruby=ruby", "--fuzz", fuzz],
    )
}

#[test]
fn the_ruby_kit_filled_in_conforms() {
    if !toolchain("ruby", "--version") {
        return;
    }
    let (_work, dir) = filled_kit("ruby", Fill::Correct);
    assert_conforms(&check(&dir, "30"));
}

#[test]
fn the_ruby_kit_checking_the_limit_first_is_charged_the_order_rule() {
    if !toolchain("ruby", "--version") {
        return;
    }
    let (_work, dir) = filled_kit("ruby", Fill::Broken);
    let output = check(&dir, "30");
    let said = common::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.lines()
            .any(|line| line.contains('✗') && line.contains("EXEC-DUP-BEFORE-LIMIT")),
        "{said}"
    );
}

#[test]
fn the_ruby_kit_empty_fails_with_its_message() {
    if !toolchain("ruby", "--version") {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let init = parcall_in(work.path(), &["init", "ruby", "kit"]);
    assert!(init.status.success(), "{init:?}");
    let output = check(&work.path().join("kit"), "0");
    let said = common::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    for function in ["execute_tool_calls", "run_parallel_calls"] {
        assert!(
            said.contains(&format!("{function} is not written yet")),
            "{said}"
        );
    }
}
