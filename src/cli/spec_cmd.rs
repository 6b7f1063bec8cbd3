//! `parcall spec …`: reading the specification without running anything.

use super::{exit, SchemaKind, SpecCommand};
use crate::json::{self, Style, Value};
use crate::spec::{self, Spec};
use std::io::Write;

pub fn run(command: SpecCommand) -> anyhow::Result<i32> {
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
                eprintln!("error: no case or requirement has the id `{id}` (list them with `parcall spec list`)");
                return Ok(exit::USAGE);
            };
            writeln!(
                out,
                "{}",
                json::dumps(
                    &value,
                    Style {
                        sort_keys: false,
                        ..Style::PRETTY
                    }
                )
            )?;
        }
        SpecCommand::Export {
            dir,
            spec,
            generated,
            seed,
            no_latency,
        } => {
            let spec = load(&spec)?;
            let written = export(&dir, &spec, generated, seed, no_latency)?;
            writeln!(out, "wrote {written} cases to {}", dir.display())?;
        }
        SpecCommand::Check { spec } => {
            let spec = load(&spec)?;
            for function in spec::Function::ALL {
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
    let to_value = |text: serde_json::Result<String>| text.ok().and_then(|t| json::parse(&t).ok());
    if let Some(case) = spec.cases.iter().find(|c| c.id() == id) {
        return to_value(match &case.case {
            spec::Case::Exec(c) => serde_json::to_string(c),
            spec::Case::Dedup(c) => serde_json::to_string(c),
        });
    }
    to_value(serde_json::to_string(spec.requirement(id)?))
}

/// `parcall spec export`.
pub fn export(
    dir: &std::path::Path,
    spec: &Spec,
    generated: usize,
    seed: u64,
    no_latency: bool,
) -> anyhow::Result<usize> {
    use crate::fuzz::regressions::case_file;
    use crate::spec::{CaseFile, Function};
    let mut files: indexmap::IndexMap<(Function, String), Vec<crate::spec::SpecCase>> =
        indexmap::IndexMap::new();
    for case in &spec.cases {
        let topic = case
            .file
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
    for function in Function::ALL {
        if generated == 0 {
            break;
        }
        let mut cases = crate::fuzz::generated_cases(function, &spec.cases, generated, seed);
        if no_latency {
            cases.iter_mut().for_each(strip_latency);
        }
        files.insert((function, "generated".into()), cases);
    }
    std::fs::create_dir_all(dir.join("schema"))?;
    std::fs::write(dir.join("VERSION"), format!("{}\n", spec.version))?;
    let requirements = crate::spec::RequirementsFile {
        schema: None,
        requirements: spec.requirements.clone(),
    };
    std::fs::write(
        dir.join("requirements.json"),
        serde_json::to_string_pretty(&requirements)? + "\n",
    )?;
    std::fs::write(
        dir.join("schema/case.schema.json"),
        spec::case_file_schema(),
    )?;
    let mut written = 0;
    for ((function, topic), cases) in files {
        let folder = dir.join("cases").join(function.name());
        std::fs::create_dir_all(&folder)?;
        let merged = cases.iter().map(case_file).reduce(|mut all, one| {
            match (&mut all, one) {
                (
                    CaseFile::ExecuteToolCalls { cases: a, .. },
                    CaseFile::ExecuteToolCalls { cases: b, .. },
                ) => a.extend(b),
                (
                    CaseFile::RunParallelCalls { cases: a, .. },
                    CaseFile::RunParallelCalls { cases: b, .. },
                ) => a.extend(b),
                _ => {}
            }
            all
        });
        let Some(mut file) = merged else { continue };
        match &mut file {
            CaseFile::ExecuteToolCalls { topic: t, .. }
            | CaseFile::RunParallelCalls { topic: t, .. } => *t = topic.clone(),
        }
        std::fs::write(
            folder.join(format!("{topic}.json")),
            serde_json::to_string_pretty(&file)? + "\n",
        )?;
        written += cases.len();
    }
    Ok(written)
}

fn strip_latency(case: &mut crate::spec::SpecCase) {
    use crate::spec::{Case, Dispatch};
    let scripts = match &mut case.case {
        Case::Exec(c) => match &mut c.dispatch {
            Dispatch::Scripted { tools } => tools,
            Dispatch::Sandbox => return,
        },
        Case::Dedup(c) => &mut c.tools,
    };
    scripts.values_mut().for_each(|s| s.latency_ms = 0);
}
