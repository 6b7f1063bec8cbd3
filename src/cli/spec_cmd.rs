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
