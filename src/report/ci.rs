//! Reports for CI systems: GitHub Actions annotations and a Markdown step summary.
//!
//! GitHub shows at most ten error annotations per step and drops the rest, so the
//! annotations are chosen, not dumped: the run's own problems first (the clearest: the
//! implementation did not start, the expectations file is out of date), then one per
//! broken requirement on its smallest failing case, and last a summary (`::error` when the
//! run failed) that counts what did not fit.

use super::machine::failure_text;
use super::model::{charged, CaseLocation, CaseReport, Report, Verdict};
use super::verdict::{run_problems, verdict_label};
use crate::text::terminal;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// The most error annotations GitHub shows for one step.
pub const MAX_ERROR_ANNOTATIONS: usize = 10;

/// Where annotations point: which of the report's case files exist in the repository the
/// workflow runs in, and where that repository is. The report alone cannot tell: a case
/// of parcall's built-in spec names `spec/...`, a file of parcall's repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnnotationPaths {
    /// The folder annotation paths are relative to (absolute, normalised).
    root: PathBuf,
    /// The folder parcall ran in (absolute, normalised): case paths of a `--spec` folder
    /// are relative to it.
    cwd: PathBuf,
    /// Whether the cases come from a `--spec` folder rather than from parcall's built-in
    /// spec. Without one (the default), no annotation names a file.
    spec_folder: bool,
}

impl AnnotationPaths {
    /// `--annotation-root` (default: the current folder, where a workflow's steps run)
    /// and whether `--spec` was given, resolved against the current folder `cwd`.
    pub fn new(root: Option<&Path>, spec_folder: bool, cwd: &Path) -> AnnotationPaths {
        let cwd = normalize(cwd);
        AnnotationPaths {
            root: root.map_or_else(|| cwd.clone(), |root| normalize(&cwd.join(root))),
            cwd,
            spec_folder,
        }
    }

    /// The path to annotate for a case written at `location`, relative to the root;
    /// `None` when the file is not in the repository (the built-in spec, a folder outside
    /// the root).
    fn file(&self, location: &CaseLocation) -> Option<String> {
        if !self.spec_folder {
            return None;
        }
        let absolute = normalize(&self.cwd.join(&location.path));
        let relative = absolute.strip_prefix(&self.root).ok()?;
        Some(relative.to_str()?.to_owned())
    }
}

/// `a/./b/../c` as `a/c`, without asking the file system (the folder may be gone, and a
/// symlinked checkout should still name its files as the workflow sees them).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Workflow-command escaping of a message (`%`, CR, LF); every other control character
/// and bidirectional override is shown escaped first, as on a terminal, since the log
/// renders escape sequences.
fn escape_message(text: &str) -> String {
    terminal::multiline(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value (`file`, `title`): as a message, and `:` `,`, which end properties.
fn escape_property(text: &str) -> String {
    escape_message(&terminal::line(text))
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// One annotation before escaping.
struct Annotation {
    file: Option<(String, usize)>,
    title: String,
    message: String,
}

impl Annotation {
    fn write(&self, level: &str, out: &mut dyn Write) -> io::Result<()> {
        let place = self
            .file
            .as_ref()
            .map(|(path, line)| format!("file={},line={line},", escape_property(path)))
            .unwrap_or_default();
        writeln!(
            out,
            "::{level} {place}title={}::{}",
            escape_property(&self.title),
            escape_message(&self.message)
        )
    }
}

/// `--format github`.
pub(super) fn github(
    report: &Report,
    paths: &AnnotationPaths,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut errors: Vec<Annotation> = run_problems(report)
        .into_iter()
        .map(|problem| Annotation {
            file: None,
            title: format!("parcall: {}", problem.kind()),
            message: problem.message,
        })
        .collect();
    errors.extend(
        broken_requirements(report)
            .into_iter()
            .map(|(requirement, case, count)| {
                requirement_annotation(requirement, case, count, paths)
            }),
    );
    let failed = report.verdict != Verdict::Conforms;
    // The summary is one of the ten when it is an error itself.
    let room = MAX_ERROR_ANNOTATIONS - usize::from(failed);
    let left_out = errors.len().saturating_sub(room);
    for annotation in errors.iter().take(room) {
        annotation.write("error", out)?;
    }
    summary(report, left_out).write(if failed { "error" } else { "notice" }, out)
}

/// The summary annotation: the verdict, the counts, and how many annotations did not fit.
fn summary(report: &Report, left_out: usize) -> Annotation {
    let s = &report.summary;
    let mut message = format!(
        "{}: {} passed, {} failed, {} expected failures, {} skipped (number model {})",
        verdict_label(report.verdict),
        s.passed,
        s.failed,
        s.expected_failures,
        s.skipped,
        report.number_model
    );
    if !report.expectation_problems.is_empty() {
        message.push_str(&format!(
            ", {} expectation problems",
            report.expectation_problems.len()
        ));
    }
    if left_out > 0 {
        message.push_str(&format!(
            "\n{left_out} more not annotated (GitHub shows {MAX_ERROR_ANNOTATIONS} per step): \
             the step summary and the JUnit report list every failure"
        ));
    }
    Annotation {
        file: None,
        title: format!("parcall suite {}", report.suite),
        message,
    }
}

/// Each requirement charged by a case that fails the run, in order of first appearance,
/// with its smallest such case (the least input to read) and how many cases broke it.
fn broken_requirements(report: &Report) -> Vec<(String, &CaseReport, usize)> {
    let mut broken: Vec<(String, &CaseReport, usize)> = Vec::new();
    for case in report.cases.iter().filter(|c| c.fails_the_run()) {
        for requirement in charged(case) {
            match broken.iter_mut().find(|(id, _, _)| *id == requirement) {
                Some((_, smallest, count)) => {
                    *count += 1;
                    if size(case) < size(smallest) {
                        *smallest = case;
                    }
                }
                None => broken.push((requirement, case, 1)),
            }
        }
    }
    broken
}

/// How much a reader has to take in to see a case fail: its inputs as JSON text.
pub fn size(case: &CaseReport) -> usize {
    case.inputs
        .iter()
        .map(|input| crate::json::dumps(input, crate::json::Style::PYTHON).len())
        .sum()
}

fn requirement_annotation(
    requirement: String,
    case: &CaseReport,
    count: usize,
    paths: &AnnotationPaths,
) -> Annotation {
    let file = case
        .location
        .as_ref()
        .and_then(|l| Some((paths.file(l)?, l.line)));
    let mut message = String::new();
    if file.is_none() {
        // The case is not a file of this repository: name it, and where parcall keeps it.
        message.push_str(&format!("case {}", case.id));
        if let Some(location) = &case.location {
            message.push_str(&format!(" (parcall's {}:{})", location.path, location.line));
        }
        message.push('\n');
    }
    message.push_str(&format!("{}\n{}", case.description, failure_text(case)));
    let others = if count > 1 {
        format!(" (and {} more)", count - 1)
    } else {
        String::new()
    };
    Annotation {
        file,
        title: format!(
            "parcall: {requirement} broken in {} {}{others}",
            case.id, case.outcome
        ),
        message,
    }
}

/// A Markdown table cell: one line, no column break, no HTML, no code-span break.
pub fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in terminal::line(text).chars() {
        match c {
            '|' => out.push_str("\\|"),
            '\\' => out.push_str("\\\\"),
            '`' => out.push_str("\\`"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
    out
}

/// `--format markdown`.
pub(super) fn markdown(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let verdict = match report.verdict {
        Verdict::Conforms => "✅ conforms",
        Verdict::DoesNotConform => "❌ does not conform",
        Verdict::Error => "⚠️ could not complete",
    };
    writeln!(out, "## parcall: {verdict}\n")?;
    let implementation = report
        .implementation
        .as_ref()
        .map(|i| format!(" ({} {})", cell(&i.language), cell(&i.version)))
        .unwrap_or_default();
    writeln!(
        out,
        "{}{implementation} against suite {}, number model {}{}\n",
        cell(&report.target),
        cell(&report.suite),
        report.number_model,
        report
            .seed
            .map(|s| format!(", seed {s}"))
            .unwrap_or_default()
    )?;
    let s = &report.summary;
    writeln!(out, "| passed | failed | expected failures | skipped |\n| --- | --- | --- | --- |\n| {} | {} | {} | {} |\n", s.passed, s.failed, s.expected_failures, s.skipped)?;
    let problems = run_problems(report);
    for problem in &problems {
        writeln!(out, "- **{}:** {}", problem.kind(), cell(&problem.message))?;
    }
    if !problems.is_empty() {
        writeln!(out)?;
    }
    let failures: Vec<&CaseReport> = report.cases.iter().filter(|c| c.fails_the_run()).collect();
    if !failures.is_empty() {
        writeln!(
            out,
            "| case | outcome | requirements | description |\n| --- | --- | --- | --- |"
        )?;
        for case in failures {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(&case.id),
                case.outcome,
                cell(&charged(case).join(", ")),
                cell(&case.description)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(path: &str) -> CaseLocation {
        CaseLocation {
            path: path.into(),
            line: 7,
        }
    }

    #[test]
    fn built_in_cases_name_no_file_of_the_repository() {
        let paths = AnnotationPaths::new(None, false, Path::new("/work/repo"));
        assert_eq!(paths.file(&location("spec/cases/x.json")), None);
    }

    #[test]
    fn spec_folder_cases_are_named_from_the_annotation_root() {
        let cwd = Path::new("/work/repo/sub");
        let here = AnnotationPaths::new(None, true, cwd);
        assert_eq!(
            here.file(&location("./myspec/cases/x.json")).as_deref(),
            Some("myspec/cases/x.json")
        );
        let above = AnnotationPaths::new(Some(Path::new("..")), true, cwd);
        assert_eq!(
            above.file(&location("myspec/cases/x.json")).as_deref(),
            Some("sub/myspec/cases/x.json")
        );
        assert_eq!(above.file(&location("/elsewhere/x.json")), None);
    }

    #[test]
    fn messages_and_properties_escape_by_the_workflow_command_rules() {
        assert_eq!(escape_message("50%\nnext"), "50%25%0Anext");
        // A lone CR would rewrite the log line: shown, as on a terminal.
        assert_eq!(escape_message("a\rb"), "a\\rb");
        assert_eq!(escape_message("\u{1b}[31m"), "\\x1b[31m");
        assert_eq!(escape_property("a:b,c\nd"), "a%3Ab%2Cc\\nd");
    }

    #[test]
    fn cells_cannot_break_a_table() {
        assert_eq!(
            cell("a|b\n`c` <img src=x> &"),
            "a\\|b\\\\n\\`c\\` &lt;img src=x&gt; &amp;"
        );
    }
}
