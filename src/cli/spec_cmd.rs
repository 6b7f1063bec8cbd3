//! `parcall spec …`: reading the specification without running anything.

use super::{exit, SchemaKind, SpecCommand};
use crate::json::{self, Style, Value};
use crate::spec::{self, Spec};
use std::io::Write;

pub(super) fn run(command: SpecCommand) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    match command {
        SpecCommand::Schema { which } => {
            let text = match which {
                SchemaKind::Case => spec::case_file_schema(),
                SchemaKind::Requirements => spec::requirements_schema(),
            };
            out.write_all(text.as_bytes())?;
        }
        SpecCommand::List { spec } => {
            let spec = load(&spec)?;
            for case in &spec.cases {
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}",
                    case.id(),
                    case.function(),
                    case.requirements().join(","),
                    case.description()
                )?;
            }
        }
        SpecCommand::Show { id, spec } => {
            let spec = load(&spec)?;
            let Some(value) = find(&spec, &id) else {
                say!("error: no case or requirement has the id `{id}` (list them with `parcall spec list`)");
                return Ok(exit::USAGE);
            };
            writeln!(out, "{}", json::dumps(&value, Style::FILE))?;
        }
        SpecCommand::Export {
            dir,
            overwrite,
            spec,
            generated,
            seed,
            no_latency,
        } => {
            let source = spec.source();
            let spec = load(&spec)?;
            make_room(&dir, overwrite)?;
            let written = export(&dir, &spec, &source, generated, seed, no_latency)?;
            writeln!(out, "wrote {written} cases to {}", dir.display())?;
        }
        SpecCommand::Check { spec } => {
            let spec = load(&spec)?;
            for function in spec::Function::EVERY {
                let cases = spec
                    .cases
                    .iter()
                    .filter(|c| c.function() == function)
                    .count();
                let requirements = spec
                    .requirements
                    .iter()
                    .filter(|r| r.function == function)
                    .count();
                writeln!(
                    out,
                    "{function}: {requirements} requirements, {cases} cases"
                )?;
            }
            writeln!(out, "spec {} is valid", spec.version)?;
        }
    }
    Ok(exit::SUCCESS)
}

fn load(arg: &super::SpecArg) -> anyhow::Result<Spec> {
    Ok(arg.load()?)
}

/// A case or requirement as JSON, by id.
fn find(spec: &Spec, id: &str) -> Option<Value> {
    if let Some(case) = spec.cases.iter().find(|c| c.id() == id) {
        return Some(match &*case.case {
            spec::Case::Exec(c) => json::to_value(c),
            spec::Case::Dedup(c) => json::to_value(c),
            spec::Case::Runtime(c) => json::to_value(c),
        });
    }
    Some(json::to_value(spec.requirement(id)?))
}

/// What `spec export` writes at the top of its folder, each name with whether it is a
/// folder: the built-in spec's files and folders, and `cases/` (a loaded spec's and the
/// generated cases).
fn export_names() -> std::collections::BTreeMap<String, bool> {
    spec::Source::embedded_files()
        .iter()
        .map(|(relative, _)| match relative.split_once('/') {
            Some((top, _)) => (top.to_owned(), true),
            None => ((*relative).to_owned(), false),
        })
        .chain([("cases".to_owned(), true)])
        .collect()
}

/// Makes sure `dir` may take an export: missing or empty; with `overwrite`, an earlier
/// export there is removed first, and only when it holds nothing an export does not write,
/// each name of the kind an export writes (so no file or folder of anyone's is ever removed
/// by mistake, a file named `cases` included).
fn make_room(dir: &std::path::Path, overwrite: bool) -> anyhow::Result<()> {
    let entries: Vec<(std::ffi::OsString, bool)> = match std::fs::read_dir(dir) {
        Ok(listing) => listing
            .map(|e| {
                let e = e?;
                // The entry itself, never what a link leads to.
                Ok((e.file_name(), e.file_type()?.is_dir()))
            })
            .collect::<std::io::Result<_>>()
            .map_err(|e| anyhow::anyhow!("{}: cannot list: {e}", dir.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // Not a folder, or unreadable: the export's own error names it.
        Err(_) => return Ok(()),
    };
    if entries.is_empty() {
        return Ok(());
    }
    let ours = export_names();
    for (name, is_dir) in &entries {
        match ours.get(&*name.to_string_lossy()) {
            None => anyhow::bail!(
                "{}: is not empty and holds `{}`, which an export does not write; export into a \
                 new or empty folder (--overwrite replaces only an earlier export, nothing else)",
                dir.display(),
                name.to_string_lossy()
            ),
            Some(folder) if folder != is_dir => anyhow::bail!(
                "{}: exists and is not a {}",
                dir.join(name).display(),
                if *folder { "folder" } else { "file" }
            ),
            Some(_) => {}
        }
    }
    let names: Vec<std::ffi::OsString> = entries.into_iter().map(|(name, _)| name).collect();
    if !overwrite {
        anyhow::bail!(
            "{}: already holds an export; pass --overwrite to replace it, or export into a \
             new folder",
            dir.display()
        );
    }
    for name in names {
        let path = dir.join(name);
        let removed = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        removed.map_err(|e| anyhow::anyhow!("{}: cannot remove: {e}", path.display()))?;
    }
    Ok(())
}

/// `parcall spec export`: the built-in spec's files byte for byte (or, for `--spec DIR`,
/// its cases as loaded), then any generated cases as `cases/<function>/generated.json`.
pub(super) fn export(
    dir: &std::path::Path,
    spec: &Spec,
    source: &spec::Source,
    generated: usize,
    seed: u64,
    no_latency: bool,
) -> anyhow::Result<usize> {
    use crate::spec::Function;
    create_folder(dir)?;
    let mut written = match source {
        spec::Source::Embedded => {
            for (relative, text) in spec::Source::embedded_files() {
                write_file(&dir.join(relative), text)?;
            }
            spec.cases.len()
        }
        spec::Source::Dir(_) => write_loaded(dir, spec)?,
    };
    for function in Function::EVERY {
        if generated == 0 {
            break;
        }
        let mut cases = crate::fuzz::generated_cases(function, &spec.cases, generated, seed);
        if no_latency {
            cases.iter_mut().for_each(strip_latency);
        }
        let folder = dir.join("cases").join(function.name());
        if let Some(file) = merged_case_file(&cases, "generated") {
            write_file(&folder.join("generated.json"), &file_text(&file))?;
            written += cases.len();
        }
    }
    Ok(written)
}

/// Writes a loaded specification in the spec's layout, one file per topic.
fn write_loaded(dir: &std::path::Path, spec: &Spec) -> anyhow::Result<usize> {
    use crate::spec::Function;
    let mut files: indexmap::IndexMap<(Function, String), Vec<crate::spec::SpecCase>> =
        indexmap::IndexMap::new();
    for case in &spec.cases {
        let topic = case
            .origin
            .file()
            .rsplit('/')
            .next()
            .unwrap_or("cases")
            .trim_end_matches(".json")
            .to_owned();
        files
            .entry((case.function(), topic))
            .or_default()
            .push(case.clone());
    }
    write_file(&dir.join("VERSION"), &format!("{}\n", spec.version))?;
    let requirements = crate::spec::RequirementsFile {
        schema: None,
        requirements: spec.requirements.clone(),
    };
    write_file(&dir.join("requirements.json"), &file_text(&requirements))?;
    write_file(
        &dir.join("schema/case.schema.json"),
        &spec::case_file_schema(),
    )?;
    write_file(
        &dir.join("schema/requirements.schema.json"),
        &spec::requirements_schema(),
    )?;
    let mut written = 0;
    for ((function, topic), cases) in files {
        let folder = dir.join("cases").join(function.name());
        if let Some(file) = merged_case_file(&cases, &topic) {
            write_file(&folder.join(format!("{topic}.json")), &file_text(&file))?;
            written += cases.len();
        }
    }
    Ok(written)
}

/// One case file holding `cases` (all of one function) under `topic`.
fn merged_case_file(cases: &[crate::spec::SpecCase], topic: &str) -> Option<spec::CaseFile> {
    use crate::check::regressions::case_file;
    use crate::spec::CaseFile;
    let mut file = cases.iter().map(case_file).reduce(|mut all, one| {
        match (&mut all, one) {
            (
                CaseFile::ExecuteToolCalls { cases: a, .. },
                CaseFile::ExecuteToolCalls { cases: b, .. },
            ) => a.extend(b),
            (
                CaseFile::RunParallelCalls { cases: a, .. },
                CaseFile::RunParallelCalls { cases: b, .. },
            ) => a.extend(b),
            (CaseFile::RunToolCalls { cases: a, .. }, CaseFile::RunToolCalls { cases: b, .. }) => {
                a.extend(b)
            }
            _ => {}
        }
        all
    })?;
    match &mut file {
        CaseFile::ExecuteToolCalls { topic: t, .. }
        | CaseFile::RunParallelCalls { topic: t, .. }
        | CaseFile::RunToolCalls { topic: t, .. } => *t = topic.to_owned(),
    }
    Some(file)
}

/// A typed value as a file's text, NaN and the infinities kept (Python's dialect).
fn file_text<T: serde::Serialize>(value: &T) -> String {
    json::dumps(&json::to_value(value), Style::FILE) + "\n"
}

fn write_file(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        create_folder(parent)?;
    }
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))
}

/// Creates `dir` and the folders above it; an error names the folder (a file of that name,
/// or one above it, says `File exists` or `Not a directory` and nothing else).
fn create_folder(dir: &std::path::Path) -> anyhow::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    // The nearest path of `dir` and its parents that exists: a file there is what stops it.
    let existing = dir
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find_map(|a| std::fs::metadata(a).ok().map(|m| (a, m)));
    if let Some((path, _)) = existing.filter(|(_, m)| !m.is_dir()) {
        anyhow::bail!("{}: exists and is not a folder", path.display());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot create the folder: {e}", dir.display()))
}

fn strip_latency(case: &mut crate::spec::SpecCase) {
    use crate::spec::{Case, Dispatch, ToolScript};
    let scripts = match std::sync::Arc::make_mut(&mut case.case) {
        Case::Exec(c) => match &mut c.dispatch {
            Dispatch::Scripted { tools } => tools,
            Dispatch::Sandbox => return,
        },
        Case::Dedup(c) => &mut c.tools,
        Case::Runtime(c) => &mut c.tools,
    };
    scripts.values_mut().for_each(ToolScript::clear_latency);
}
