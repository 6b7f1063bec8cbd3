//! Reading the spec's JSON files into typed values, each problem naming the file.

use super::super::requirements::{Requirement, RequirementsFile};
use super::super::source::Source;
use crate::json::{self, Value};
use std::collections::HashSet;
use thiserror::Error;

pub(super) fn read_version(source: &Source, problems: &mut Vec<String>) -> String {
    let version = source
        .read("VERSION")
        .map_err(|problem| problems.push(problem.to_string()))
        .unwrap_or_default()
        .trim()
        .to_owned();
    let parts: Vec<&str> = version.split('.').collect();
    let semver = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if !semver && !version.is_empty() {
        problems.push(format!(
            "{}: `{version}` is not a MAJOR.MINOR.PATCH version",
            source.display("VERSION")
        ));
    }
    version
}

/// Reads one JSON file of the spec into a typed value; a problem names the file, and the
/// line and column or the field path.
pub(super) fn read_json<T: serde::de::DeserializeOwned>(
    source: &Source,
    relative: &str,
    problems: &mut Vec<String>,
) -> Option<T> {
    let parsed = source
        .read(relative)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            parse_json_text(source, relative, &text, |_| ()).map_err(|e| e.to_string())
        });
    parsed
        .map(|(value, ())| value)
        .map_err(|problem| problems.push(problem.to_string()))
        .ok()
}

/// Parses a file's `text` into a typed value, with what `inspect` finds in the parsed JSON
/// before it is taken apart into the typed value.
pub(super) fn parse_json_text<T: serde::de::DeserializeOwned, I>(
    source: &Source,
    relative: &str,
    text: &str,
    inspect: impl FnOnce(&Value) -> I,
) -> Result<(T, I), JsonTextError> {
    let name = source.display(relative);
    let value = json::parse(text).map_err(|source| JsonTextError::Json {
        name: name.clone(),
        source,
    })?;
    let found = inspect(&value);
    // Copied, not taken apart: moving the values out left the freed containers of a large
    // export scattered between the live strings, and every allocation of the run that
    // followed paid for the holes (BENCHMARKS.md section 3).
    let typed = json::from_value(&value).map_err(|source| JsonTextError::Shape { name, source })?;
    Ok((typed, found))
}

pub(super) fn read_requirements(source: &Source, problems: &mut Vec<String>) -> Vec<Requirement> {
    let Some(file) = read_json::<RequirementsFile>(source, "requirements.json", problems) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    for requirement in &file.requirements {
        if !seen.insert(requirement.id.as_str()) {
            problems.push(format!(
                "{}: requirement {} is listed twice",
                source.display("requirements.json"),
                requirement.id
            ));
        }
    }
    file.requirements
}

/// Why a file's text is not the typed value it should hold; each names the file.
#[derive(Debug, Error)]
pub(super) enum JsonTextError {
    #[error("{name}: invalid JSON: {source}")]
    Json {
        name: String,
        source: json::ParseError,
    },
    #[error("{name}: {source}")]
    Shape {
        name: String,
        source: json::ShapeError,
    },
}
