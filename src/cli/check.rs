//! `parcall check`: run the spec's cases against an implementation and report.

use super::exit;
use super::{CheckArgs, SpecArg};
use crate::process::Limits;
use crate::report::{self, Context, Palette, Report, Verdict};
use crate::runner::{self, Settings};
use crate::spec::{Spec, SpecCase};
use crate::subject::adapters::{self, Prepared};
use std::io::{IsTerminal, Write};
use std::time::Duration;

pub fn run(args: CheckArgs) -> anyhow::Result<i32> {
    let spec = match args.spec.load() {
        Ok(spec) => spec,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(exit::USAGE);
        }
    };
    let cases = match select(&spec, &args) {
        Ok(cases) => cases,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(exit::USAGE);
        }
    };
    let prepared = match prepare(&args) {
        Ok(prepared) => prepared,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(exit::USAGE);
        }
    };
    let settings = Settings {
        timeout: Duration::from_secs_f64(args.timeout),
        startup: Duration::from_secs_f64(args.startup_timeout),
        ..Settings::default()
    };
    let run = runner::run(&prepared.launch, &spec.version, &cases, settings);
    let rerun_base = rerun_base(&args);
    let report = Report::new(
        &run,
        &Context {
            spec: &spec,
            target: &prepared.target,
            rerun_base: &rerun_base,
        },
    );
    let stdout = std::io::stdout();
    let palette = Palette::for_stream(args.color, stdout.is_terminal());
    let mut out = stdout.lock();
    report::write(&report, args.format, palette, &mut out)?;
    out.flush()?;
    Ok(match report.verdict {
        Verdict::Conforms => exit::SUCCESS,
        Verdict::DoesNotConform => exit::DOES_NOT_CONFORM,
        Verdict::Error => exit::INCOMPLETE,
    })
}

fn prepare(args: &CheckArgs) -> Result<Prepared, adapters::PrepareError> {
    let limits = Limits {
        memory_bytes: (args.memory_mib > 0).then_some(args.memory_mib << 20),
        ..Limits::default()
    };
    match (&args.implementation, &args.cmd) {
        (_, Some(cmd)) => adapters::command(cmd, limits),
        (Some(path), None) => adapters::python_module(path, &args.python, limits),
        (None, None) => Err(adapters::PrepareError::Command(
            "name an implementation (a .py file) or pass --cmd \"PROGRAM ARGS\"".into(),
        )),
    }
}

/// The command that reruns this check, without case filters.
fn rerun_base(args: &CheckArgs) -> String {
    let mut words = vec!["parcall".to_owned(), "check".to_owned()];
    if let Some(cmd) = &args.cmd {
        words.push("--cmd".into());
        words.push(cmd.clone());
    } else if let Some(path) = &args.implementation {
        words.push(path.display().to_string());
    }
    if let SpecArg { spec: Some(dir) } = &args.spec {
        words.push("--spec".into());
        words.push(dir.display().to_string());
    }
    shell_words::join(words)
}

/// The cases the filters select. A filter that selects nothing is a usage error: it is
/// almost always a typo.
fn select(spec: &Spec, args: &CheckArgs) -> Result<Vec<SpecCase>, String> {
    for id in &args.requirement {
        if spec.requirement(id).is_none() {
            return Err(format!(
                "--requirement {id}: no such requirement (see spec/SPEC.md or `parcall spec list`)"
            ));
        }
    }
    let selected: Vec<SpecCase> = spec
        .cases
        .iter()
        .filter(|c| args.function.is_empty() || args.function.contains(&c.function()))
        .filter(|c| args.case.is_empty() || args.case.iter().any(|g| glob_match(g, c.id())))
        .filter(|c| {
            args.requirement.is_empty()
                || c.requirements()
                    .iter()
                    .any(|r| args.requirement.contains(r))
        })
        .cloned()
        .collect();
    if selected.is_empty() {
        return Err("the filters select no case (list the cases with `parcall spec list`)".into());
    }
    Ok(selected)
}

/// `*` matches any run of characters, `?` any one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("exec-*", "exec-seed-001"));
        assert!(glob_match("*-00?", "dedup-seed-001"));
        assert!(glob_match("exec-seed-001", "exec-seed-001"));
        assert!(!glob_match("exec-*", "dedup-seed-001"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*b", "acbd"));
    }
}
