//! The Ruby kit: checked as `ruby main.rb`, with nothing to build.

use super::{assert_conforms, filled_kit, parcall_in, toolchain};
use crate::common;

use std::path::Path;
use std::process::Output;

/// Ruby's library folders, which parcall's sandbox does not bind on its own yet: each one
/// present is passed as `--readable`. Drop this once the sandbox binds them.
const RUBY_LIBRARY: &[&str] = &[
    "/usr/lib/ruby",
    "/usr/lib/x86_64-linux-gnu/ruby",
    "/var/lib/gems",
];

fn check(dir: &Path, fuzz: &str) -> Output {
    let mut args = vec!["check", "--cmd", "ruby main.rb", "--fuzz", fuzz];
    for folder in RUBY_LIBRARY {
        if Path::new(folder).is_dir() {
            args.extend(["--readable", folder]);
        }
    }
    parcall_in(dir, &args)
}

#[test]
fn the_ruby_kit_filled_in_conforms() {
    if !toolchain("ruby", "--version") {
        return;
    }
    let (_work, dir) = filled_kit("ruby", "solution.rb");
    assert_conforms(&check(&dir, "30"));
}

#[test]
fn the_ruby_kit_checking_the_limit_first_is_charged_the_order_rule() {
    if !toolchain("ruby", "--version") {
        return;
    }
    let (_work, dir) = filled_kit("ruby", "broken_limit_before_duplicate.rb");
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
