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

/// Which implementation fills a kit: the correct one, or the same with its language's one bug
/// ([`BUGS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    Correct,
    Broken,
}

/// One bug per language, made from the correct implementation by one edit, and the rule it
/// breaks: the one-bug submissions of the kits' tests and of the mixed-language class.
pub(crate) struct Bug {
    pub(crate) language: &'static str,
    /// The text of the correct implementation the bug replaces (found exactly once).
    from: &'static str,
    to: &'static str,
    pub(crate) rule: &'static str,
}

pub(crate) const BUGS: &[Bug] = &[
    Bug {
        language: "go",
        from: r#"fmt.Sprintf("call_%d", position)"#,
        to: r#"fmt.Sprintf("call_%d", i)"#,
        rule: "EXEC-ID-GENERATED",
    },
    Bug {
        language: "java",
        from: r#""call_" + position;"#,
        to: r#""call_" + (position - 1);"#,
        rule: "EXEC-ID-GENERATED",
    },
    Bug {
        language: "ruby",
        from: "      if seen[id]\n        \"error: duplicate tool_call_id '#{id}'\"\n      elsif position > max_parallel\n        \"error: too many parallel tool calls (limit #{max_parallel})\"\n",
        to: "      if position > max_parallel\n        \"error: too many parallel tool calls (limit #{max_parallel})\"\n      elsif seen[id]\n        \"error: duplicate tool_call_id '#{id}'\"\n",
        rule: "EXEC-DUP-BEFORE-LIMIT",
    },
    Bug {
        language: "rust",
        from: r#"format!("call_{position}")"#,
        to: r#"format!("call_{index}")"#,
        rule: "EXEC-ID-GENERATED",
    },
    Bug {
        language: "typescript",
        from: "position > maxParallel",
        to: "position >= maxParallel",
        rule: "EXEC-LIMIT-POSITION",
    },
];

/// The correct implementation of `language`, as the repository keeps it.
fn correct(language: &str) -> PathBuf {
    common::root().join(match language {
        "python" => "conformance/examples/python/solution.py",
        "javascript" => "conformance/examples/javascript/solution.mjs",
        "go" => "tests/fixtures/kits/go/solution.go",
        "java" => "tests/fixtures/kits/java/Solution.java",
        "ruby" => "tests/fixtures/kits/ruby/solution.rb",
        "rust" => "tests/fixtures/kits/rust/solution.rs",
        "typescript" => "tests/fixtures/kits/typescript/solution.ts",
        other => panic!("no implementation kept for {other}"),
    })
}

/// The text that fills `language`'s kit.
fn source(language: &str, fill: Fill) -> String {
    let text = std::fs::read_to_string(correct(language)).unwrap();
    if fill == Fill::Correct {
        return text;
    }
    let bug = BUGS
        .iter()
        .find(|b| b.language == language)
        .unwrap_or_else(|| panic!("no bug kept for {language}"));
    assert_eq!(
        text.matches(bug.from).count(),
        1,
        "{language}: {}",
        bug.from
    );
    text.replace(bug.from, bug.to)
}

/// `parcall init LANGUAGE DIR`, with the kit's functions file filled as `fill` says.
pub(crate) fn write_kit(language: &str, fill: Fill, dir: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["init", language])
        .arg(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let functions = functions_file(&common::stdout(&output));
    std::fs::write(dir.join(functions), source(language, fill)).unwrap();
}

/// [`write_kit`] into a fresh folder.
pub(crate) fn filled_kit(language: &str, fill: Fill) -> (tempfile::TempDir, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("kit");
    write_kit(language, fill, &dir);
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
