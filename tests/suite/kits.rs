//! The starter kits (`parcall init LANG`): each is written, filled with a correct
//! implementation kept in `tests/fixtures/kits/LANG/`, built with its toolchain and checked;
//! it must conform, so no kit can rot. A language whose toolchain this machine lacks is
//! skipped with a message (`.ci/run` installs every one).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod go;
mod java;
mod modules;
mod ruby;
mod rust;
mod typescript;

/// Whether `program` runs here; says why the test is skipped when it does not.
pub(crate) fn toolchain(program: &str, version_flag: &str) -> bool {
    let found = Command::new(program)
        .arg(version_flag)
        .output()
        .is_ok_and(|o| o.status.success());
    // CI installs every toolchain: there, a missing one fails instead of skipping.
    if !found && std::env::var_os("PARCALL_REQUIRE_TOOLCHAINS").is_some() {
        panic!("`{program}` is required (PARCALL_REQUIRE_TOOLCHAINS is set)");
    }
    if !found {
        eprintln!("skipped: no `{program}` on this machine (.ci/run installs it)");
    }
    found
}

/// `parcall init LANGUAGE` into a fresh folder, with the kit's functions file replaced by the
/// fixture `tests/fixtures/kits/LANGUAGE/FIXTURE`.
pub(crate) fn filled_kit(language: &str, fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("kit");
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["init", language])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let functions = functions_file(&common::stdout(&output));
    std::fs::copy(
        common::root().join(format!("tests/fixtures/kits/{language}/{fixture}")),
        dir.join(&functions),
    )
    .unwrap();
    (work, dir)
}

/// The functions file `parcall init` names ("Write the two functions in FILE, ...").
fn functions_file(said: &str) -> String {
    let after = said
        .split_once("Write the two functions in ")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("init did not name the functions file: {said}"));
    after.split(", then").next().unwrap().trim().to_owned()
}

/// `parcall ARGS` run in `dir`, with a regressions file of its own.
pub(crate) fn parcall_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env("PARCALL_REGRESSIONS", dir.join(".regressions.json"))
        .output()
        .unwrap()
}

/// Asserts that a check conformed, with what parcall said when it did not.
pub(crate) fn assert_conforms(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        common::stdout(output),
        String::from_utf8_lossy(&output.stderr)
    );
}
