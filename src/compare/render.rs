//! The matrix as people and machines read it: a terminal table, Markdown, one
//! self-contained HTML page, and JSON (the [`Matrix`] itself). Renderers take a writer and
//! never print; every text that came from an implementation (its name, a failing case's
//! input) is escaped for where it is shown.

use super::matrix::{Cell, CellVerdict, Column, FailingCase, Matrix, Row};
use crate::json::{dumps, Style, Value};
use crate::report::html::{escape, page_start};
use crate::report::{markdown_cell, Palette, Verdict};
use crate::text::terminal;
use std::fmt::Write as _;
use std::io::{self, Write};

/// `parcall compare --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// For people: the implementations numbered, then one line per requirement.
    #[default]
    Human,
    /// A Markdown table and each smallest failing case, for `$GITHUB_STEP_SUMMARY` and the
    /// like.
    Markdown,
    /// The matrix as one JSON document (conformance/compare.schema.json).
    Json,
    /// One self-contained HTML page: the matrix, each cell linked to its smallest failing
    /// case.
    Html,
}

impl Format {
    /// The file name `--out DIR` writes this format to (none for the terminal's).
    pub fn file_name(self) -> Option<&'static str> {
        match self {
            Format::Human => None,
            Format::Markdown => Some("matrix.md"),
            Format::Json => Some("matrix.json"),
            Format::Html => Some("matrix.html"),
        }
    }
}

/// Writes `matrix` in `format`; `palette` colours only the human table.
pub fn write(
    matrix: &Matrix,
    format: Format,
    palette: Palette,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => human(matrix, palette, out),
        Format::Markdown => markdown(matrix, out),
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, matrix).map_err(io::Error::other)?;
            writeln!(out)
        }
        Format::Html => html(matrix, out),
    }
}

/// What a column says about itself: its handshake, its number model, whether it defines
/// only some of the functions, why it could not be checked.
fn column_notes(column: &Column) -> Vec<String> {
    let mut notes = Vec::new();
    // A runtime adapter's handshake names its framework, said below with more.
    if let Some(info) = column
        .implementation
        .as_ref()
        .filter(|_| column.runtime.is_none())
    {
        notes.push(format!(
            "{} ({} {})",
            info.name, info.language, info.version
        ));
    }
    notes.push(format!("number model {}", column.number_model));
    if let Some(runtime) = &column.runtime {
        notes.push(format!(
            "{} {} via {}",
            runtime.framework, runtime.version, runtime.entry
        ));
        notes.push(format!("declares: {}", runtime.policies.describe()));
    }
    if let Some(concurrency) = &column.concurrency {
        notes.push(format!(
            "measured: at most {} at once",
            concurrency.measured
        ));
    }
    if column.partial {
        let defined: Vec<String> = column.functions.iter().map(|f| f.to_string()).collect();
        notes.push(format!("defines only {}", defined.join(", ")));
    }
    if let Some(error) = &column.error {
        notes.push(format!("could not be checked: {error}"));
    }
    notes
}

/// `failed/cases` and what was not run: the counts behind a verdict.
fn counts(cell: &Cell) -> String {
    let flaky = if cell.flaky { ", flaky" } else { "" };
    match cell.verdict {
        CellVerdict::NotDefined => String::new(),
        _ if cell.not_run > 0 => {
            format!(
                "{}/{}, {} not run{flaky}",
                cell.failed, cell.cases, cell.not_run
            )
        }
        _ => format!("{}/{}{flaky}", cell.failed, cell.cases),
    }
}

fn headline(matrix: &Matrix) -> String {
    let functions: Vec<String> = matrix.functions.iter().map(|f| f.to_string()).collect();
    format!(
        "parcall {} · suite {} · seed {} · {} generated cases per function · {}",
        matrix.parcall,
        matrix.suite,
        matrix.seed,
        matrix.fuzz,
        functions.join(", ")
    )
}

fn human(matrix: &Matrix, palette: Palette, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}\n", terminal::line(&headline(matrix)))?;
    for (index, column) in matrix.implementations.iter().enumerate() {
        let notes = column_notes(column).join("; ");
        writeln!(
            out,
            "[{}] {}: {}",
            index + 1,
            terminal::line(&column.target),
            terminal::line(&notes)
        )?;
    }
    let width = matrix
        .requirements
        .iter()
        .map(|r| r.id.len())
        .max()
        .unwrap_or(0);
    // As wide as the widest cell, so a column of cases not run stays a column.
    let cell_width = matrix
        .requirements
        .iter()
        .flat_map(|r| &r.cells)
        .map(|c| cell_text(c).chars().count())
        .max()
        .unwrap_or(0)
        .max(14);
    write!(out, "\n{:width$}  ", "requirement")?;
    for index in 1..=matrix.implementations.len() {
        write!(out, " {:<cell_width$}", format!("[{index}]"))?;
    }
    writeln!(out)?;
    for row in &matrix.requirements {
        let scored = if row.scored { " " } else { "*" };
        write!(out, "{:width$} {scored}", row.id)?;
        for cell in &row.cells {
            let padded = format!("{:<cell_width$}", cell_text(cell));
            match cell.verdict {
                CellVerdict::Met => write!(out, " {}", palette.pass(padded)),
                CellVerdict::Failed => write!(out, " {}", palette.fail(padded)),
                CellVerdict::NotShown => write!(out, " {}", palette.warn(padded)),
                CellVerdict::NotDefined => write!(out, " {}", palette.dim(padded)),
            }?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "\n✓ met  ✗ failed (cases that broke it / cases that apply)  ? not shown  - not defined\n\
         * not scored (SANDBOX and MAY requirements: judged by their tagged cases passing)"
    )?;
    smallest_failures_text(matrix, out)
}

fn cell_text(cell: &Cell) -> String {
    format!("{} {}", mark(cell.verdict), counts(cell))
}

fn mark(verdict: CellVerdict) -> &'static str {
    match verdict {
        CellVerdict::Met => "✓",
        CellVerdict::Failed => "✗",
        CellVerdict::NotShown => "?",
        CellVerdict::NotDefined => "-",
    }
}

/// Each failing case a cell points to, once per implementation, with its rerun command.
fn failing_cases(matrix: &Matrix, column: usize) -> Vec<(&FailingCase, Vec<&str>)> {
    let mut found: Vec<(&FailingCase, Vec<&str>)> = Vec::new();
    for row in &matrix.requirements {
        let Some(case) = &row.cells[column].smallest_failure else {
            continue;
        };
        match found.iter_mut().find(|(c, _)| c.id == case.id) {
            Some((_, requirements)) => requirements.push(&row.id),
            None => found.push((case, vec![&row.id])),
        }
    }
    found
}

/// The columns with a failing case, each with its index and its cases.
fn columns_with_failures(
    matrix: &Matrix,
) -> impl Iterator<Item = (usize, &Column, Vec<(&FailingCase, Vec<&str>)>)> {
    matrix
        .implementations
        .iter()
        .enumerate()
        .map(|(index, column)| (index, column, failing_cases(matrix, index)))
        .filter(|(_, _, cases)| !cases.is_empty())
}

fn smallest_failures_text(matrix: &Matrix, out: &mut dyn Write) -> io::Result<()> {
    for (index, column, cases) in columns_with_failures(matrix) {
        writeln!(
            out,
            "\n[{}] {}: smallest failing cases",
            index + 1,
            terminal::line(&column.target)
        )?;
        for (case, requirements) in cases {
            writeln!(
                out,
                "  {} ({}) breaks {}\n    rerun: {}",
                terminal::line(&case.id),
                case.outcome,
                requirements.join(", "),
                terminal::line(&case.rerun)
            )?;
        }
    }
    Ok(())
}

/// A column's heading in Markdown: its target, then what it says about itself.
fn markdown_heading(column: &Column) -> String {
    let mut heading = markdown_cell(&column.target);
    for note in column_notes(column) {
        let _ = write!(heading, "<br>{}", markdown_cell(&note));
    }
    heading
}

fn markdown(matrix: &Matrix, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "## parcall compare\n\n{}\n",
        markdown_cell(&headline(matrix))
    )?;
    write!(out, "| requirement | level |")?;
    for column in &matrix.implementations {
        write!(out, " {} |", markdown_heading(column))?;
    }
    write!(out, "\n| --- | --- |")?;
    for _ in &matrix.implementations {
        write!(out, " --- |")?;
    }
    writeln!(out)?;
    for row in &matrix.requirements {
        write!(out, "| {} | {} |", markdown_cell(&row.id), level(row))?;
        for cell in &row.cells {
            let emoji = match cell.verdict {
                CellVerdict::Met => "✅",
                CellVerdict::Failed => "❌",
                CellVerdict::NotShown => "❔",
                CellVerdict::NotDefined => "➖",
            };
            let mut text = format!("{emoji} {} {}", cell.verdict.label(), counts(cell));
            if let Some(case) = &cell.smallest_failure {
                let _ = write!(text, ": {}", markdown_cell(&case.id));
            }
            write!(out, " {} |", text.trim_end())?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "\nCounts: cases that broke the requirement / cases that apply. Not scored: SANDBOX \
         and MAY requirements, judged by their tagged cases passing."
    )?;
    for (_, column, cases) in columns_with_failures(matrix) {
        writeln!(
            out,
            "\n### {}: smallest failing cases\n",
            markdown_cell(&column.target)
        )?;
        for (case, requirements) in cases {
            writeln!(
                out,
                "- {} ({}) breaks {}:\n\n  ```sh\n  {}\n  ```",
                markdown_cell(&case.id),
                case.outcome,
                requirements.join(", "),
                terminal::line(&case.rerun).replace("```", "` ` `")
            )?;
            for (label, text) in evidence(case) {
                writeln!(out, "\n  {label}: `{}`", markdown_code(&text))?;
            }
        }
    }
    Ok(())
}

/// What a failing case shows, each as one line: why it breaks its requirement, the calls,
/// and what the implementation gave.
fn evidence(case: &FailingCase) -> Vec<(&'static str, String)> {
    let mut lines = Vec::new();
    if let Some(diagnosis) = &case.diagnosis {
        lines.push(("why", diagnosis.clone()));
    }
    for input in &case.inputs {
        lines.push(("input", dumps(input, Style::PYTHON)));
    }
    if let Some(returned) = &case.returned {
        let text = match returned {
            Value::Str(text) => text.to_string(),
            other => dumps(other, Style::PYTHON),
        };
        lines.push(("returned", text));
    }
    lines
        .into_iter()
        .map(|(label, text)| (label, shortened(&text, 600)))
        .collect()
}

/// `text` on one line, cut to `limit` characters (and said so).
fn shortened(text: &str, limit: usize) -> String {
    let line = text.replace('\n', "\\n");
    if line.chars().count() <= limit {
        return line;
    }
    let cut: String = line.chars().take(limit).collect();
    format!("{cut}… (cut)")
}

/// Text inside a Markdown code span: backticks cannot end it early.
fn markdown_code(text: &str) -> String {
    markdown_cell(text).replace('`', "ˋ")
}

fn level(row: &Row) -> String {
    if row.scored {
        row.level.clone()
    } else {
        format!("{} (not scored)", row.level)
    }
}

/// The anchor of a failing case of column `column`.
fn anchor(column: usize, case: &FailingCase) -> String {
    escape(&format!("fail-{}-{}", column + 1, case.id))
}

fn html(matrix: &Matrix, out: &mut dyn Write) -> io::Result<()> {
    let mut page = String::new();
    page_start(
        &mut page,
        &format!("parcall compare · suite {}", matrix.suite),
    );
    page.push_str(
        "<style>#matrix tr>td:first-child{white-space:nowrap}td.met{background:#dafbe1}td.failed{background:#ffebe9}\
         td.not-shown{background:#fff8c5}td.not-defined{background:#eaeef2;color:#57606a}\
         .partial{font-style:italic}small{color:#57606a}</style>",
    );
    let _ = write!(
        page,
        "<h1>parcall compare</h1><p id=\"headline\">{}</p>",
        escape(&headline(matrix))
    );
    html_table(&mut page, matrix);
    page.push_str(
        "<p>Counts: cases that broke the requirement / cases that apply. Not scored: SANDBOX \
         and MAY requirements, judged by their tagged cases passing.</p>",
    );
    html_failures(&mut page, matrix);
    page.push_str("</body></html>\n");
    out.write_all(page.as_bytes())
}

fn html_table(page: &mut String, matrix: &Matrix) {
    page.push_str("<table id=\"matrix\"><tr><th>requirement</th><th>level</th>");
    for (index, column) in matrix.implementations.iter().enumerate() {
        let class = match column.verdict {
            _ if column.error.is_some() => "failed",
            Verdict::Conforms => "met",
            Verdict::DoesNotConform | Verdict::Error => "failed",
        };
        let partial = if column.partial { " partial" } else { "" };
        let _ = write!(
            page,
            "<th id=\"impl-{}\" class=\"{class}{partial}\">{}",
            index + 1,
            escape(&column.target)
        );
        for note in column_notes(column) {
            let _ = write!(page, "<br><small>{}</small>", escape(&note));
        }
        page.push_str("</th>");
    }
    page.push_str("</tr>");
    for row in &matrix.requirements {
        let _ = write!(
            page,
            "<tr id=\"req-{id}\"><td title=\"{}\">{id}</td><td>{}</td>",
            escape(&row.statement),
            escape(&level(row)),
            id = escape(&row.id)
        );
        for (index, cell) in row.cells.iter().enumerate() {
            let class = cell.verdict.label().replace(' ', "-");
            let _ = write!(
                page,
                "<td class=\"{class}\">{} <small>{}</small>",
                cell.verdict.label(),
                counts(cell)
            );
            if let Some(case) = &cell.smallest_failure {
                let _ = write!(
                    page,
                    " <a href=\"#{}\">{}</a>",
                    anchor(index, case),
                    escape(&case.id)
                );
            }
            page.push_str("</td>");
        }
        page.push_str("</tr>");
    }
    page.push_str("</table>");
}

fn html_failures(page: &mut String, matrix: &Matrix) {
    for (index, column, cases) in columns_with_failures(matrix) {
        let _ = write!(
            page,
            "<h2>{}: smallest failing cases</h2>",
            escape(&column.target)
        );
        for (case, requirements) in cases {
            let inputs: Vec<String> = case
                .inputs
                .iter()
                .map(|input| dumps(input, Style::PRETTY))
                .collect();
            let mut shown = String::new();
            if let Some(diagnosis) = &case.diagnosis {
                let _ = write!(shown, "<p class=\"why\">{}</p>", escape(diagnosis));
            }
            if let Some(returned) = &case.returned {
                let _ = write!(
                    shown,
                    "<p>returned:</p><pre class=\"returned\">{}</pre>",
                    escape(&dumps(returned, Style::PRETTY))
                );
            }
            let _ = write!(
                page,
                "<section id=\"{}\"><h3>{} · {} · breaks {}</h3>{shown}<p>input:</p><pre>{}</pre><p>rerun: <code>{}</code></p></section>",
                anchor(index, case),
                escape(&case.id),
                case.outcome,
                escape(&requirements.join(", ")),
                escape(&inputs.join("\n")),
                escape(&case.rerun)
            );
        }
    }
}
