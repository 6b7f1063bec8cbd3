//! Reports: the run as people and machines read it. Renderers take a writer and a palette
//! and never print on their own.

mod ci;
pub mod diff;
pub mod html;
mod human;
mod junit;
mod machine;
mod model;
mod outcome_json;
mod palette;
mod stamp;
mod tap;
mod verdict;

pub use crate::judge::GeneratedTally;
pub use ci::{cell as markdown_cell, size as input_size, AnnotationPaths, MAX_ERROR_ANNOTATIONS};
pub use junit::Stamp;
pub use machine::failure_text;
pub use model::{
    batch_input, charged, failed_batch, CaseLocation, CaseReport, ConcurrencyReport,
    GeneratedReport, Report, RequirementSummary, Status, Summary, Verdict, REPORT_VERSION,
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
    /// TAP version 13, as `prove` and the other standard harnesses read it.
    Tap,
    /// GitHub Actions workflow commands: the run's problems, one error annotation per
    /// broken requirement (on its case's line when the case file is in the repository),
    /// at most ten errors in all, and a summary.
    Github,
    /// A Markdown summary, for `$GITHUB_STEP_SUMMARY` and the like.
    Markdown,
    /// One self-contained HTML page: summary, requirement-by-outcome matrix, failures with
    /// their diagnosis and diff.
    Html,
}

/// What some formats need besides the report: where annotations point, and when and where
/// the run happened (JUnit).
#[derive(Debug, Clone)]
pub struct Options {
    pub palette: Palette,
    pub annotations: AnnotationPaths,
    pub stamp: Stamp,
}

impl Options {
    /// For a report written now, on this machine, with annotations that name no file.
    pub fn now(report: &Report, palette: Palette) -> Options {
        Options {
            palette,
            annotations: AnnotationPaths::default(),
            stamp: stamp::now(report),
        }
    }
}

/// Writes `report` in `format`, with the defaults of [`Options::now`].
pub fn write(
    report: &Report,
    format: Format,
    palette: Palette,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_with(report, format, &Options::now(report, palette), out)
}

/// Writes `report` in `format`.
pub fn write_with(
    report: &Report,
    format: Format,
    options: &Options,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::render(report, options.palette, out),
        Format::Json => machine::json(report, out),
        Format::Junit => junit::junit(report, &options.stamp, out),
        Format::Tap => tap::tap(report, out),
        Format::Github => ci::github(report, &options.annotations, out),
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
            ("report/junit.rs", include_str!("junit.rs")),
            ("report/tap.rs", include_str!("tap.rs")),
            ("report/verdict.rs", include_str!("verdict.rs")),
            ("report/html.rs", include_str!("html.rs")),
            ("report/model.rs", include_str!("model.rs")),
            ("check/gate.rs", include_str!("../check/gate.rs")),
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
