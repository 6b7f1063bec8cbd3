//! The layers of ARCHITECTURE.md, enforced: every `crate::` path in the library, and every
//! `super::` path that climbs out of its top-level module, points to a lower floor. An import
//! that runs up or sideways fails here, with the line that made it, instead of waiting for
//! someone to notice the cycle it closes. The rules are those of the shared `layers` tool
//! (unit tests after `#[cfg(test)]` and `tests` modules are not counted).

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
    ("sandbox", 1),
    ("json", 0),
    ("process", 0),
    ("text", 0),
];

fn floor(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first segment of the path that starts `rest`, or each member's of a group:
/// `judge::Judge` and `{judge, report::Report}`.
fn first_segments(rest: &str) -> Vec<String> {
    let word = |text: &str| -> String { text.trim().chars().take_while(|c| is_word(*c)).collect() };
    match rest.strip_prefix('{') {
        Some(group) => {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(word)
                .filter(|name| !name.is_empty())
                .collect()
        }
        None => vec![word(rest)],
    }
}

/// The first segment of every `crate::` path on a line: `crate::judge::Judge` and each
/// member of `crate::{judge, report::Report}`.
fn crate_modules(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        found.extend(first_segments(rest));
    }
    found
}

/// Where a `super::` path leads.
#[derive(Debug, PartialEq, Eq)]
enum Reached {
    /// A top-level module of the crate.
    Module(String),
    /// More `super::` than the file has modules above it.
    PastTheRoot,
}

/// The top-level module every `super::` path on a line reaches, resolved from `module`, the
/// file's module path (`["process", "contain"]` for src/process/contain.rs, `["process"]`
/// for src/process/mod.rs). A path with fewer `super::` than `module` has segments stays in
/// the file's own top-level module; one with as many reaches the crate root, and the name
/// after it (or each member of a group there) is the module it reaches.
fn super_modules(line: &str, module: &[&str]) -> Vec<Reached> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("super::") {
        // `xsuper::` is not a path starting at `super`.
        let starts_a_path = !rest[..at].ends_with(is_word);
        rest = &rest[at..];
        let mut ups = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            ups += 1;
            rest = after;
        }
        if !starts_a_path {
            continue;
        }
        match ups.cmp(&module.len()) {
            std::cmp::Ordering::Less => found.push(Reached::Module(module[0].to_owned())),
            std::cmp::Ordering::Equal => {
                found.extend(first_segments(rest).into_iter().map(Reached::Module))
            }
            std::cmp::Ordering::Greater => found.push(Reached::PastTheRoot),
        }
    }
    found
}

/// The module path of a file under src/, from its path's parts: a `mod.rs` is its folder's
/// module, any other file a module of its own.
fn module_path<'a>(parts: &[&'a str]) -> Vec<&'a str> {
    let (file, folders) = parts.split_last().expect("a file has a name");
    let mut module = folders.to_vec();
    if *file != "mod.rs" {
        module.push(file.strip_suffix(".rs").unwrap_or(file));
    }
    module
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
        let module = module_path(&parts);
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.trim() == "#[cfg(test)]" {
                break; // the unit tests at the end of a file
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            let mut reached: Vec<Reached> = crate_modules(line)
                .into_iter()
                .map(Reached::Module)
                .collect();
            reached.extend(super_modules(line, &module));
            for there in reached {
                let there = match there {
                    Reached::Module(there) => there,
                    Reached::PastTheRoot => {
                        found.push(format!(
                            "src/{}:{}: super:: past the crate root",
                            relative.display(),
                            number + 1
                        ));
                        continue;
                    }
                };
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

/// `super::` paths resolve from the file's module path: they stay inside their top-level
/// module until as many `super::` as the path has segments reach the crate root.
#[test]
fn super_paths_resolve_from_the_files_module() {
    let module = |name: &str| Reached::Module(name.to_owned());
    let contain = ["process", "contain"];
    assert_eq!(
        super_modules("let x = super::super::subject::launch::f();", &contain),
        [module("subject")]
    );
    assert_eq!(
        super_modules("use super::jail;", &contain),
        [module("process")]
    );
    assert_eq!(
        super_modules("use super::super::{json, text::Line};", &contain),
        [module("json"), module("text")]
    );
    assert_eq!(
        super_modules("use super::super::super::x;", &contain),
        [Reached::PastTheRoot]
    );
    // From a mod.rs, one `super::` already reaches the root.
    assert_eq!(
        super_modules("use super::judge::Judge;", &["runner"]),
        [module("judge")]
    );
    let deep = ["judge", "blame", "exec", "output"];
    assert_eq!(
        super_modules("use super::super::Blame;", &deep),
        [module("judge")]
    );
    assert_eq!(
        super_modules("pub(super) fn f(a: super::A, b: super::super::B) {}", &deep),
        [module("judge"), module("judge")]
    );
    assert_eq!(super_modules("use mysuper::x;", &deep), []);
    assert_eq!(module_path(&["process", "contain.rs"]), contain);
    assert_eq!(module_path(&["runner", "mod.rs"]), ["runner"]);
}

/// The check catches every spelling of an upward import, and leaves comments and unit tests
/// alone: the test above would pass on an empty scan.
#[test]
fn the_layering_check_finds_an_upward_import_in_every_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let runner = dir.path().join("runner");
    std::fs::create_dir(&runner).unwrap();
    std::fs::write(runner.join("session.rs"), "use super::super::cli::Cli;\n").unwrap();
    std::fs::write(
        runner.join("mod.rs"),
        "use crate::json::Value;\n\
         use crate::{protocol, report::Report};\n\
         // crate::cli is only named here\n\
         fn f() { crate::judge::Judge::new(Default::default()); }\n\
         use super::super::check::Plan;\n\
         use super::protocol::Message;\n\
         #[cfg(test)]\n\
         mod tests { use crate::check::Plan; use super::super::cli::Cli; }\n",
    )
    .unwrap();
    assert_eq!(
        violations(dir.path()),
        [
            "src/runner/mod.rs:2: runner (floor 4) -> report (floor 6)",
            "src/runner/mod.rs:4: runner (floor 4) -> judge (floor 4)",
            "src/runner/mod.rs:5: super:: past the crate root",
            "src/runner/session.rs:1: runner (floor 4) -> cli (floor 9)",
        ]
    );
}
