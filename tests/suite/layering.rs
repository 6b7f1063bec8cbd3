//! The layers of ARCHITECTURE.md, enforced: every `crate::` path in the library points to a
//! lower floor. An import that runs up or sideways fails here, with the line that made it,
//! instead of waiting for someone to notice the cycle it closes.

use crate::common::root;
use std::path::Path;

/// The floors of ARCHITECTURE.md, top to bottom. A module missing here fails the test, so a
/// new module is placed on purpose.
const FLOORS: &[(&str, u8)] = &[
    ("cli", 9),
    ("grade", 8),
    ("mutate", 8),
    ("compare", 8),
    ("check", 7),
    ("fuzz", 6),
    ("report", 6),
    ("subject", 5),
    ("runner", 4),
    ("judge", 4),
    ("protocol", 3),
    ("generate", 3),
    ("spec", 2),
    ("reference", 1),
    ("json", 0),
    ("process", 0),
    ("text", 0),
];

fn floor(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

/// The first segment of every `crate::` path on a line: `crate::judge::Judge` and each
/// member of `crate::{judge, report::Report}`.
fn crate_modules(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for member in group[..end].split(',') {
                let name: String = member
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        } else {
            found.push(
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            );
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every import that runs up or sideways, as `file:line: here -> there`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let relative = path.strip_prefix(src).unwrap();
        let parts: Vec<&str> = relative.iter().map(|p| p.to_str().unwrap()).collect();
        if parts.len() < 2 {
            continue; // lib.rs, main.rs: the top of the house
        }
        // Test-only modules may reach up for fixtures.
        if path.file_name().is_some_and(|n| n == "tests.rs") || parts.contains(&"tests") {
            continue;
        }
        let here = parts[0];
        let Some(here_floor) = floor(here) else {
            found.push(format!(
                "src/{}: module {here} has no floor",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.trim() == "#[cfg(test)]" {
                break; // the unit tests at the end of a file
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            for there in crate_modules(line) {
                if there == here {
                    continue;
                }
                match floor(&there) {
                    None => found.push(format!(
                        "src/{}:{}: module {there} has no floor",
                        relative.display(),
                        number + 1
                    )),
                    Some(there_floor) if there_floor >= here_floor => found.push(format!(
                        "src/{}:{}: {here} (floor {here_floor}) -> {there} (floor {there_floor})",
                        relative.display(),
                        number + 1
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    found
}

#[test]
fn every_import_points_to_a_lower_floor() {
    let found = violations(&root().join("src"));
    assert!(
        found.is_empty(),
        "imports against ARCHITECTURE.md's layers:\n{}",
        found.join("\n")
    );
}

/// The check catches both spellings of an upward import, and leaves comments and unit tests
/// alone: the test above would pass on an empty scan.
#[test]
fn the_layering_check_finds_an_upward_import_in_either_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let runner = dir.path().join("runner");
    std::fs::create_dir(&runner).unwrap();
    std::fs::write(
        runner.join("mod.rs"),
        "use crate::json::Value;\n\
         use crate::{protocol, report::Report};\n\
         // crate::cli is only named here\n\
         fn f() { crate::judge::Judge::new(Default::default()); }\n\
         #[cfg(test)]\n\
         mod tests { use crate::check::Plan; }\n",
    )
    .unwrap();
    assert_eq!(
        violations(dir.path()),
        [
            "src/runner/mod.rs:2: runner (floor 4) -> report (floor 6)",
            "src/runner/mod.rs:4: runner (floor 4) -> judge (floor 4)",
        ]
    );
}
