//! The requirements section of `spec/SPEC.md`, generated from `requirements.json` and the
//! cases, so the document always lists the cases that check each requirement.

use super::load::Spec;
use super::requirements::Function;
use std::fmt::Write;

/// The marker lines that delimit the generated section in SPEC.md.
pub const BEGIN_MARKER: &str = "<!-- requirements: generated from requirements.json and cases/ -->";
pub const END_MARKER: &str = "<!-- end of requirements -->";

/// The generated section, markers included.
pub fn requirements_section(spec: &Spec) -> String {
    let mut out = format!("{BEGIN_MARKER}\n");
    for function in Function::EVERY {
        let requirements = spec.requirements.iter().filter(|r| r.function == function);
        let cases = spec
            .cases
            .iter()
            .filter(|c| c.function() == function)
            .count();
        let count = requirements.clone().count();
        writeln!(
            out,
            "\n## `{function}`: {count} requirements, {cases} cases\n"
        )
        .unwrap();
        for requirement in requirements {
            let case_ids: Vec<String> = spec
                .cases
                .iter()
                .filter(|c| c.requirements().contains(&requirement.id))
                .map(|c| format!("`{}`", c.id()))
                .collect();
            let note = if requirement.describes_the_sandbox() {
                "*Of the provided sandbox:* this describes what the exercise's sandbox answers, \
                 not a choice of the implementation; it is checked against the reference and \
                 worth 0 points in the default grading rubric.\n\n"
            } else if requirement.level == super::requirements::Level::May {
                "*A freedom:* its cases check that the suite accepts every allowed choice; \
                 worth 0 points in the default grading rubric.\n\n"
            } else {
                ""
            };
            writeln!(
                out,
                "### {} ({}, RULES {})\n\n{}\n\n{note}*Why:* {}\n\n*Cases:* {}\n",
                requirement.id,
                requirement.level.as_str(),
                requirement.ruling,
                requirement.statement,
                requirement.rationale,
                case_ids.join(", ")
            )
            .unwrap();
        }
    }
    out.push_str(END_MARKER);
    out
}

/// Replaces the generated section of `document` (SPEC.md's text). `None` when the markers
/// are missing.
pub fn with_requirements_section(document: &str, spec: &Spec) -> Option<String> {
    let start = document.find(BEGIN_MARKER)?;
    let end = document[start..].find(END_MARKER)? + start + END_MARKER.len();
    Some(format!(
        "{}{}{}",
        &document[..start],
        requirements_section(spec),
        &document[end..]
    ))
}
