//! Reports: the run as people and machines read it. Renderers take a writer and a palette
//! and never print on their own.

mod ci;
pub mod diff;
pub mod escape;
pub mod expectations;
pub mod html;
mod human;
mod machine;
mod model;
mod outcome_json;
mod palette;

pub use crate::judge::GeneratedTally;
pub use machine::failure_text;
pub use model::{
    batch_input, CaseReport, Context, GeneratedReport, Report, RequirementSummary, Status, Summary,
    Verdict, REPORT_VERSION,
};
pub use palette::{ColorChoice, Palette};

use std::io::{self, Write};

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// For people: failures in full, a summary per requirement.
    #[default]
    Human,
    /// The report as one JSON document (conformance/report.schema.json).
    Json,
    /// JUnit XML, for CI systems.
    Junit,
    /// TAP version 14.
    Tap,
    /// GitHub Actions workflow commands: an error annotation on each failing case's line
    /// in its spec file.
    Github,
    /// A Markdown summary, for `$GITHUB_STEP_SUMMARY` and the like.
    Markdown,
    /// One self-contained HTML page: summary, requirement-by-outcome matrix, failures with
    /// their diagnosis and diff.
    Html,
}

/// Writes `report` in `format`.
pub fn write(
    report: &Report,
    format: Format,
    palette: Palette,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::render(report, palette, out),
        Format::Json => machine::json(report, out),
        Format::Junit => machine::junit(report, out),
        Format::Tap => machine::tap(report, out),
        Format::Github => ci::github(report, out),
        Format::Markdown => ci::markdown(report, out),
        Format::Html => html::render(report, out),
    }
}

/// The JSON Schema of `--format json`.
pub fn report_schema() -> String {
    let mut schema = schemars::schema_for!(Report);
    schema.insert("title".into(), "parcall report".into());
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is plain JSON");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    /// Renderers match the typed outcome ([`crate::judge::OutcomeKind`], [`model::Status`]),
    /// never its label as text: a label compared as a string keeps compiling when a kind is
    /// added or renamed, and silently renders it wrong.
    #[test]
    fn no_renderer_compares_outcome_labels_as_text() {
        let renderers = [
            ("report/human.rs", include_str!("human.rs")),
            ("report/machine.rs", include_str!("machine.rs")),
            ("report/ci.rs", include_str!("ci.rs")),
            ("report/html.rs", include_str!("html.rs")),
            ("report/model.rs", include_str!("model.rs")),
            ("report/expectations.rs", include_str!("expectations.rs")),
            ("grade/formats.rs", include_str!("../grade/formats.rs")),
            ("grade/html.rs", include_str!("../grade/html.rs")),
            ("grade/out.rs", include_str!("../grade/out.rs")),
        ];
        for (file, source) in renderers {
            for text_match in [
                "outcome == \"",
                "outcome != \"",
                "outcome.as_str()",
                "LABELS",
            ] {
                assert!(
                    !source.contains(text_match),
                    "src/{file} matches outcomes as text (`{text_match}`): match OutcomeKind or Status"
                );
            }
        }
    }
}
