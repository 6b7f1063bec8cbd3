//! `gradebook.json` as a type: what a grading run, or one shard of it, scored and what
//! decided the scores. `grade` writes it and `grade merge` reads it back through the same
//! struct, so a merged gradebook holds exactly what a one-run gradebook holds, and every
//! gradebook, CSV and class page of either command comes from [`write`].

use super::out::OutDir;
use super::rubric::RequirementScore;
use super::{formats, html, Entry};
use crate::report::Verdict;
use crate::spec::Function;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The `format` of every gradebook.
pub const FORMAT: &str = "parcall-gradebook";
/// Version 2 added what `grade merge` checks and reads back: the options, the shard, and
/// each submission's headline, start and requirements' functions and statements.
pub const VERSION: u32 = 2;

/// `teacher/gradebook.json` (`gradebook.shard-I-of-N.json` for a shard).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gradebook {
    pub format: String,
    pub version: u32,
    /// `false` while the run is still grading, or when it was killed.
    pub complete: bool,
    /// The specification's version.
    pub suite: String,
    /// The hidden cases' seed.
    pub seed: u64,
    pub options: Options,
    /// Which shard of the class this is; `null` for a whole class.
    pub shard: Option<Shard>,
    pub protections: Vec<ProtectionRecord>,
    pub site: SiteRecord,
    pub submissions: Vec<SubmissionRecord>,
}

/// The flags besides the seed and the spec that decide a score: shards graded with
/// different ones cannot be merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The functions graded (`--function`, both by default).
    pub functions: Vec<Function>,
    /// Hidden generated cases per function (`--fuzz`).
    pub fuzz: usize,
    /// Points per requirement in scope, from `--rubric` or the default rubric.
    pub points: IndexMap<String, f64>,
    pub partial_credit: bool,
    /// `--timeout`.
    pub timeout_seconds: f64,
    pub memory_mib: u64,
    pub cpu_seconds: u64,
    pub submission_seconds: u64,
}

/// One shard of a class: `--shard INDEX/COUNT` of a class of `class` submissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    pub class: usize,
}

impl Shard {
    /// What a shard's files carry after `gradebook`/`class`.
    pub fn suffix(&self) -> String {
        format!(".shard-{}-of-{}", self.index, self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A protection and whether it was active (see [`crate::sandbox::Protection`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProtectionRecord {
    pub name: String,
    pub active: bool,
    pub detail: String,
}

/// Where the run's submissions ran (see [`crate::sandbox::RunSite`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteRecord {
    pub workspace: String,
    pub uids: Option<UidBlock>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UidBlock {
    pub first: u32,
    pub last: u32,
}

/// One submission's line of the gradebook: an [`Entry`], and its note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmissionRecord {
    pub name: String,
    pub module: String,
    pub functions: Vec<Function>,
    /// [`formats::fewer_functions_note`] over the class this gradebook holds; a merge works
    /// it out again over the whole class.
    pub note: Option<String>,
    pub score: f64,
    pub max_score: f64,
    pub verdict: Verdict,
    pub error: Option<String>,
    pub error_headline: Option<String>,
    pub started: bool,
    pub setup_error: bool,
    pub duration_ms: f64,
    pub requirements: Vec<RequirementScore>,
}

/// What every gradebook of one run shares: what decided its scores and where it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub suite: String,
    pub seed: u64,
    pub options: Options,
    pub shard: Option<Shard>,
    pub protections: Vec<ProtectionRecord>,
    pub site: SiteRecord,
}

impl Run {
    /// The protections as a gradebook records them.
    pub fn protections(protections: &[crate::sandbox::Protection]) -> Vec<ProtectionRecord> {
        protections
            .iter()
            .map(|p| ProtectionRecord {
                name: p.name.to_owned(),
                active: p.active,
                detail: p.detail.clone(),
            })
            .collect()
    }

    /// The site as a gradebook records it.
    pub fn site(site: &crate::sandbox::RunSite) -> SiteRecord {
        SiteRecord {
            workspace: site.workspace.display().to_string(),
            uids: site.uids.as_ref().map(|block| UidBlock {
                first: *block.start(),
                last: *block.end(),
            }),
        }
    }

    /// The run a gradebook was written by.
    pub fn of(book: &Gradebook) -> Run {
        Run {
            suite: book.suite.clone(),
            seed: book.seed,
            options: book.options.clone(),
            shard: book.shard,
            protections: book.protections.clone(),
            site: book.site.clone(),
        }
    }
}

impl Gradebook {
    /// The gradebook of `graded` (in gradebook order) from `run`.
    pub fn new(run: &Run, graded: &[Entry], complete: bool) -> Gradebook {
        let defined = formats::defined_in(graded);
        Gradebook {
            format: FORMAT.to_owned(),
            version: VERSION,
            complete,
            suite: run.suite.clone(),
            seed: run.seed,
            options: run.options.clone(),
            shard: run.shard,
            protections: run.protections.clone(),
            site: run.site.clone(),
            submissions: graded
                .iter()
                .map(|g| SubmissionRecord::of(g, &defined))
                .collect(),
        }
    }

    /// The entries it holds, as the run that wrote it kept them.
    pub fn entries(&self) -> Vec<Entry> {
        self.submissions
            .iter()
            .map(SubmissionRecord::entry)
            .collect()
    }
}

impl SubmissionRecord {
    fn of(g: &Entry, defined: &[Function]) -> SubmissionRecord {
        SubmissionRecord {
            name: g.name.clone(),
            module: g.module.display().to_string(),
            functions: g.functions.clone(),
            note: formats::fewer_functions_note(g, defined),
            score: g.score,
            max_score: g.max_score,
            verdict: g.verdict,
            error: g.error.clone(),
            error_headline: g.error_headline.clone(),
            started: g.started,
            setup_error: g.setup_error,
            duration_ms: g.duration.as_secs_f64() * 1e3,
            requirements: g.requirements.clone(),
        }
    }

    fn entry(&self) -> Entry {
        Entry {
            name: self.name.clone(),
            module: PathBuf::from(&self.module),
            verdict: self.verdict,
            error: self.error.clone(),
            error_headline: self.error_headline.clone(),
            started: self.started,
            functions: self.functions.clone(),
            requirements: self.requirements.clone(),
            score: self.score,
            max_score: self.max_score,
            // A hand-edited time is not worth refusing a shard for.
            duration: Duration::try_from_secs_f64(self.duration_ms / 1e3).unwrap_or_default(),
            setup_error: self.setup_error,
        }
    }
}

/// Writes the gradebooks (CSV and JSON) and the class page of `graded` into `teacher`,
/// with a shard's suffix when `run` is a shard's.
pub fn write(teacher: &OutDir, run: &Run, graded: &[Entry], complete: bool) -> std::io::Result<()> {
    let suffix = run.shard.map(|s| s.suffix()).unwrap_or_default();
    let csv = formats::gradebook_csv(graded, run.seed);
    let book = Gradebook::new(run, graded, complete);
    teacher.write(&format!("gradebook{suffix}.csv"), csv.as_bytes())?;
    // Through a `Value`, whose keys are sorted, as every gradebook before this type was.
    let json = serde_json::to_value(&book).expect("plain JSON");
    teacher.write(&format!("gradebook{suffix}.json"), &pretty(&json))?;
    let page = html::class_page(graded, run.seed);
    teacher.write(&format!("class{suffix}.html"), page.as_bytes())
}

/// The JSON Schema of [`Gradebook`], as `conformance/gradebook.schema.json` holds it.
pub fn schema() -> String {
    let mut schema = schemars::schema_for!(Gradebook);
    schema.insert("title".into(), "parcall gradebook".into());
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is plain JSON");
    text.push('\n');
    text
}

/// `value` as pretty JSON and a newline, as every results file is written.
pub fn pretty(value: &impl Serialize) -> Vec<u8> {
    (serde_json::to_string_pretty(value).expect("plain JSON") + "\n").into_bytes()
}
