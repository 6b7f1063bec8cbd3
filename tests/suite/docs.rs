//! The documents stay true: their links lead to files of the repository, the `parcall`
//! commands they show run and exit as they say, their JSON and YAML blocks parse, the
//! examples of `parcall --help` are the guides' own, and every requirement cites a rule that
//! `spec/RULES.md` states.
//!
//! A command line is documented to exit 0 unless its comment says `# exits N`; a line
//! marked `# not run: WHY` is skipped, and should stay rare.

use crate::common;

use common::{copy_dir, in_lanes, output_within, root, temp_dir};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Text that only a document leaning on files outside the repository would hold.
const OUTSIDE_REFERENCES: [&str; 3] = ["RULINGS", "../shared", "/work/"];

/// The folders of the repository a documented command may read, copied for each run so
/// that what the commands write (grades, reports, regressions) stays out of the checkout.
const COMMAND_FOLDERS: [&str; 2] = ["conformance", "spec"];

/// Every Markdown file of the repository, relative to its root.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                walk(&path, found);
            } else if name.ends_with(".md") {
                found.push(path.strip_prefix(root()).unwrap().to_owned());
            }
        }
    }
    let mut found = Vec::new();
    walk(&root(), &mut found);
    found.sort();
    found
}

/// The README and the guides: the documents whose commands people paste.
/// `scripts/runtime_matrix.sh`'s output.
const PUBLISHED_MATRIX: &str = "docs/runtimes.md";

fn guides() -> Vec<PathBuf> {
    markdown_files()
        .into_iter()
        .filter(|path| path == Path::new("README.md") || path.starts_with("docs"))
        .collect()
}

fn read(document: &Path) -> String {
    std::fs::read_to_string(root().join(document)).unwrap()
}

/// The fenced blocks of `language` in a Markdown text: each line with its line number.
fn blocks(text: &str, language: &str) -> Vec<Vec<(usize, String)>> {
    let mut found = Vec::new();
    let mut current: Option<(bool, Vec<(usize, String)>)> = None;
    for (index, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut current, fence) {
            (None, Some(info)) => current = Some((info.trim() == language, Vec::new())),
            (Some(_), Some(_)) => {
                let (wanted, lines) = current.take().unwrap();
                if wanted {
                    found.push(lines);
                }
            }
            (Some((_, lines)), None) => lines.push((index + 1, line.to_owned())),
            (None, None) => {}
        }
    }
    found
}

/// The text outside fenced blocks, line by line (blank where a block was), so that code
/// that happens to hold `](` is not read as a link.
fn prose(text: &str) -> String {
    let mut inside = false;
    let mut kept = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            kept.push("");
        } else {
            kept.push(if inside { "" } else { line });
        }
    }
    kept.join("\n")
}

/// The targets of a text's inline links (`[text](target)`) and reference definitions
/// (`[name]: target`), with their line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let inline = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let definition = regex::Regex::new(r"^\s*\[[^\]]+\]:\s*(\S+)").unwrap();
    let mut targets = Vec::new();
    for (index, line) in prose(text).lines().enumerate() {
        for found in inline
            .captures_iter(line)
            .chain(definition.captures_iter(line))
        {
            targets.push((index + 1, found[1].to_owned()));
        }
    }
    targets
}

fn is_external(target: &str) -> bool {
    target.starts_with('#') || target.contains("://") || target.starts_with("mailto:")
}

#[test]
fn every_relative_link_leads_to_a_file_of_the_repository() {
    let repository = root().canonicalize().unwrap();
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in markdown_files() {
        for (line, target) in link_targets(&read(&document)) {
            if is_external(&target) {
                continue;
            }
            let file = target.split('#').next().unwrap();
            let resolved = root().join(document.parent().unwrap()).join(file);
            match resolved.canonicalize() {
                Ok(path) if path.starts_with(&repository) => checked += 1,
                Ok(_) => broken.push(format!(
                    "{}:{line}: {target} is outside the repository",
                    document.display()
                )),
                Err(_) => broken.push(format!(
                    "{}:{line}: {target}: no such file",
                    document.display()
                )),
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 20, "only {checked} relative links found");
}

#[test]
fn no_document_refers_to_a_file_outside_the_repository() {
    let mut found = Vec::new();
    for document in markdown_files() {
        for (index, line) in read(&document).lines().enumerate() {
            for reference in OUTSIDE_REFERENCES {
                if line.contains(reference) {
                    found.push(format!("{}:{}: {line}", document.display(), index + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "these lines refer to files outside the repository ({OUTSIDE_REFERENCES:?}); \
         cite spec/RULES.md or a file of the repository instead:\n{}",
        found.join("\n")
    );
}

/// One `parcall` line of a `sh` block, and the exit code its document promises.
#[derive(Debug)]
struct DocumentedCommand {
    place: String,
    line: String,
    exit_code: i32,
}

/// The exit code a command's trailing comment documents: `# exits N`, else 0. `None` for a
/// line marked `# not run: WHY`.
fn documented_exit_code(line: &str) -> Option<i32> {
    let comment = line
        .split_once(" # ")
        .map_or("", |(_, comment)| comment.trim());
    if comment.starts_with("not run:") {
        return None;
    }
    let code = comment
        .strip_prefix("exits ")
        .map(|code| code.split_whitespace().next().unwrap_or_default());
    Some(code.map_or(0, |code| {
        code.parse()
            .unwrap_or_else(|_| panic!("`# exits {code}` is not a number: {line}"))
    }))
}

/// Every distinct `parcall` line of the guides' `sh` blocks, with where it first appears.
/// The published matrix of agent runtimes is a report, not a guide: its rerun commands need
/// the frameworks installed, and `runtimes.rs` runs them.
fn documented_commands() -> Vec<DocumentedCommand> {
    let mut seen = BTreeSet::new();
    let mut commands = Vec::new();
    for document in guides()
        .into_iter()
        .filter(|d| d != Path::new(PUBLISHED_MATRIX))
    {
        for block in blocks(&read(&document), "sh") {
            for (number, line) in block {
                let line = line.trim().to_owned();
                if !line.starts_with("parcall ") || !seen.insert(line.clone()) {
                    continue;
                }
                if let Some(exit_code) = documented_exit_code(&line) {
                    let place = format!("{}:{number}", document.display());
                    commands.push(DocumentedCommand {
                        place,
                        line,
                        exit_code,
                    });
                }
            }
        }
    }
    commands
}

/// `PATH` with the folder of the parcall under test first, so a documented line runs as
/// pasted, `parcall` inside `--cmd "parcall reference"` included.
fn path_with_parcall() -> std::ffi::OsString {
    let binary = Path::new(env!("CARGO_BIN_EXE_parcall"));
    let mut folders = vec![binary.parent().unwrap().to_owned()];
    folders.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(folders).unwrap()
}

/// Runs `command` with `sh` in `folder`: `None` when it exits as documented, else why not.
fn mismatch(command: &DocumentedCommand, folder: &Path) -> Option<String> {
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(&command.line)
        .current_dir(folder)
        .env("PATH", path_with_parcall())
        .env_remove("PARCALL_REGRESSIONS")
        .env("NO_COLOR", "1");
    let output = match output_within(&mut shell, Duration::from_secs(180)) {
        Ok(output) => output,
        Err(stderr) => return Some(format!("did not finish in 180 s; stderr:\n{stderr}")),
    };
    let code = output.status.code().unwrap_or(-1);
    (code != command.exit_code).then(|| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
        format!(
            "exited {code}, documented {}; the end of its stderr:\n{}",
            command.exit_code,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )
    })
}

#[test]
fn every_documented_command_runs_and_exits_as_documented() {
    let commands = documented_commands();
    assert!(
        commands.len() >= 10,
        "only {} commands found",
        commands.len()
    );
    let folder = temp_dir("docs-commands");
    for name in COMMAND_FOLDERS {
        copy_dir(&root().join(name), &folder.join(name));
    }
    let failures: Vec<String> = in_lanes(&commands, 2, |command| {
        mismatch(command, &folder).map(|why| format!("{}: `{}` {why}", command.place, command.line))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "documented commands that do not do what their document says (fix the command, or \
         mark the line `# exits N`):\n\n{}",
        failures.join("\n\n")
    );
}

#[test]
fn exit_codes_are_read_from_the_comment() {
    assert_eq!(documented_exit_code("parcall check a.py"), Some(0));
    assert_eq!(
        documented_exit_code("parcall check a.py --case 'x-*'   # only some cases"),
        Some(0)
    );
    assert_eq!(
        documented_exit_code("parcall check b.py   # exits 1"),
        Some(1)
    );
    assert_eq!(
        documented_exit_code("parcall x   # not run: needs a class"),
        None
    );
}

#[test]
fn every_yaml_and_json_block_in_the_documents_parses() {
    let mut checked = 0;
    for document in markdown_files() {
        let text = read(&document);
        let join = |block: &[(usize, String)]| {
            let first = block.first().map_or(0, |(line, _)| *line);
            let lines: Vec<&str> = block.iter().map(|(_, line)| line.as_str()).collect();
            (first, lines.join("\n"))
        };
        for block in blocks(&text, "yaml") {
            let (line, block) = join(&block);
            if let Err(error) = yaml_rust2::YamlLoader::load_from_str(&block) {
                panic!(
                    "{}:{line}: the YAML block does not parse: {error}",
                    document.display()
                );
            }
            checked += 1;
        }
        for block in blocks(&text, "json") {
            let (line, block) = join(&block);
            if let Err(error) = parcall::json::parse(&block) {
                panic!(
                    "{}:{line}: the JSON block does not parse: {error}",
                    document.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} blocks found");
}

/// The `parcall ...` examples (in backticks) of the help of `args`.
fn help_examples(args: &[&str]) -> Vec<String> {
    let output = common::parcall(args);
    assert!(output.status.success(), "parcall {args:?} fails");
    let help = common::stdout(&output);
    help.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.starts_with("parcall "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_examples_of_the_help_are_in_the_guides() {
    let guides: String = guides()
        .iter()
        .map(|document| read(document))
        .collect::<Vec<_>>()
        .join("\n")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let commands: [&[&str]; 11] = [
        &["--help"],
        &["check", "--help"],
        &["compare", "--help"],
        &["grade", "--help"],
        &["grade", "merge", "--help"],
        &["mutate", "--help"],
        &["doctor", "--help"],
        &["reference", "--help"],
        &["reference", "key", "--help"],
        &["spec", "--help"],
        &["spec", "export", "--help"],
    ];
    let mut missing = Vec::new();
    let mut examples = 0;
    for args in commands {
        for example in help_examples(args) {
            examples += 1;
            if !guides.contains(&example) {
                missing.push(format!("parcall {}: `{example}`", args.join(" ")));
            }
        }
    }
    assert!(examples >= 2, "only {examples} examples found in the help");
    assert!(
        missing.is_empty(),
        "examples of the help that no guide shows (README.md, docs/):\n{}",
        missing.join("\n")
    );
}

/// The ids `spec/RULES.md` states: a section's letter (`## A. ...`, `### sandbox. ...`) and
/// each rule's (`- **A3.** ...`).
fn rule_ids() -> BTreeSet<String> {
    let heading = regex::Regex::new(r"^#{2,3} ([A-Za-z0-9]+)\. ").unwrap();
    let item = regex::Regex::new(r"^- \*\*([A-Z][0-9]+[a-z]?)\.\*\* ").unwrap();
    read(Path::new("spec/RULES.md"))
        .lines()
        .filter_map(|line| heading.captures(line).or_else(|| item.captures(line)))
        .map(|found| found[1].to_owned())
        .collect()
}

#[test]
fn every_requirement_and_every_citation_names_a_rule_that_exists() {
    let ids = rule_ids();
    assert!(ids.contains("A1") && ids.contains("sandbox") && ids.contains("E4"));
    let requirements: serde_json::Value =
        serde_json::from_str(&read(Path::new("spec/requirements.json"))).unwrap();
    let mut unknown = Vec::new();
    for requirement in requirements["requirements"].as_array().unwrap() {
        let ruling = requirement["ruling"].as_str().unwrap();
        if !ids.contains(ruling) {
            unknown.push(format!("{}: ruling {ruling}", requirement["id"]));
        }
    }
    let citation = regex::Regex::new(r"\bRULES ([A-E][0-9]*[a-z]?|sandbox)\b").unwrap();
    for document in markdown_files() {
        for (index, line) in read(&document).lines().enumerate() {
            for found in citation.captures_iter(line) {
                if !ids.contains(&found[1]) {
                    unknown.push(format!(
                        "{}:{}: RULES {}",
                        document.display(),
                        index + 1,
                        &found[1]
                    ));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "citations of rules that spec/RULES.md does not state:\n{}",
        unknown.join("\n")
    );
}

/// Every version the documents pin (the GitHub Action's `@vX.Y.Z`, `cargo install --tag
/// vX.Y.Z`) is the one the next release publishes: `Cargo.toml`'s, which CHANGELOG.md's newest
/// entry names, beside the suite it carries.
#[test]
fn every_pinned_version_is_the_next_release() {
    let version = env!("CARGO_PKG_VERSION");
    let changelog = read(&root().join("CHANGELOG.md"));
    let newest = changelog
        .lines()
        .find(|line| line.starts_with("## "))
        .expect("CHANGELOG.md has an entry");
    assert!(
        newest.starts_with(&format!("## {version} ")) || newest == format!("## {version}"),
        "CHANGELOG.md's newest entry is `{newest}`, Cargo.toml says {version}"
    );
    let suite = read(&root().join("spec/VERSION"));
    assert!(
        changelog.contains(&format!("Suite {}", suite.trim())),
        "CHANGELOG.md does not name the suite {}",
        suite.trim()
    );
    let pin = regex::Regex::new(r"(?:parcall@|--tag )(v[0-9][^\s`]*)").unwrap();
    let mut pins = 0;
    for document in markdown_files()
        .into_iter()
        .chain([root().join("action.yml")])
    {
        let text = read(&document);
        for found in pin.captures_iter(&text) {
            pins += 1;
            assert_eq!(
                &found[1],
                format!("v{version}"),
                "{}: pins {}",
                document.display(),
                &found[0]
            );
        }
    }
    assert!(pins >= 3, "only {pins} pins found");
}
