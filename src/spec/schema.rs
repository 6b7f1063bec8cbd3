//! The JSON Schemas of the spec's files, generated from the Rust types that read them, so
//! the two cannot drift: `spec/schema/*.json` are these outputs, checked by a test.

use super::model::CaseFile;
use super::requirements::RequirementsFile;

/// `spec/schema/case.schema.json`.
pub fn case_file_schema() -> String {
    pretty(schemars::schema_for!(CaseFile), "parcall case file")
}

/// `spec/schema/requirements.schema.json`.
pub fn requirements_schema() -> String {
    pretty(
        schemars::schema_for!(RequirementsFile),
        "parcall requirements",
    )
}

fn pretty(mut schema: schemars::Schema, title: &str) -> String {
    schema.insert("title".into(), title.into());
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is plain JSON");
    text.push('\n');
    text
}
