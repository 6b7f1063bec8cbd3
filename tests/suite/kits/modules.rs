//! The Python and JavaScript kits: a module that parcall's own adapter loads.

use super::{assert_conforms, filled_kit, parcall_in, Fill};

fn filled_conforms_and_empty_fails_with_its_message(language: &str, module: &str) {
    let (_work, dir) = filled_kit(language, Fill::Correct);
    assert_conforms(&parcall_in(&dir, &["check", module, "--fuzz", "10"]));

    let empty = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["init", language])
        .arg(empty.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let output = parcall_in(empty.path(), &["check", module, "--fuzz", "0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(crate::common::stdout(&output).contains("is not written yet"));
}

#[test]
fn the_python_kit_filled_in_conforms_and_empty_fails_with_its_message() {
    filled_conforms_and_empty_fails_with_its_message("python", "solution.py");
}

#[test]
fn the_javascript_kit_filled_in_conforms_and_empty_fails_with_its_message() {
    filled_conforms_and_empty_fails_with_its_message("javascript", "solution.mjs");
}
