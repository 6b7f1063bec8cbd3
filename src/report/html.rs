//! `--format html`: one self-contained page (inline style, no script, nothing fetched) with
//! the summary, a requirement-by-outcome matrix and every failure with its diagnosis and
//! diff. Every text that came from the implementation is escaped: it is hostile input.

use super::diff::{alike, json_diff};
use super::machine::failure_text;
use super::model::{CaseReport, Report, Status, Verdict};
use super::palette::Palette;
use crate::judge::OutcomeKind;
use crate::judge::{Failure, Outcome};
use std::fmt::Write as _;
use std::io::{self, Write};

/// The page's style, shared with the grading page.
pub const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1b1f24}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left}\
th{background:#f6f8fa}td.n{text-align:right}td.zero{color:#afb8c1}\
.pass{background:#dafbe1}.fail{background:#ffebe9}.expected{background:#fff8c5}.skip{background:#eaeef2}\
pre{background:#f6f8fa;padding:.6em;overflow:auto;white-space:pre-wrap}\
.del{color:#82071e;background:#ffebe9}.ins{color:#116329;background:#dafbe1}\
.verdict{font-weight:bold;padding:2px 8px;border-radius:4px}";

/// Escapes text for HTML element content and attribute values, and shows control
/// characters (terminal escapes and the like) as `\u{..}` instead of passing them on.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `--format html` for `parcall check`.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut page = String::new();
    let title = format!("parcall {} · {}", report.suite, report.target);
    page_start(&mut page, &title);
    summary(&mut page, report);
    matrix(&mut page, report);
    failures(&mut page, report);
    page.push_str("</body></html>\n");
    out.write_all(page.as_bytes())
}

/// The document head: title and the inline style, nothing loaded from anywhere.
pub fn page_start(page: &mut String, title: &str) {
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>",
        escape(title)
    );
}

fn summary(page: &mut String, report: &Report) {
    let (class, verdict) = match report.verdict {
        Verdict::Conforms => ("pass", "conforms"),
        Verdict::DoesNotConform => ("fail", "does not conform"),
        Verdict::Error => ("skip", "could not complete"),
    };
    let s = &report.summary;
    let _ = write!(
        page,
        "<h1>parcall {} · suite {}</h1><p>{} · number model {} · <span id=\"verdict\" class=\"verdict {class}\">{verdict}</span></p>\
         <p id=\"summary\">{} passed, {} failed, {} skipped, {} expected failures</p>",
        escape(&report.parcall),
        escape(&report.suite),
        escape(&report.target),
        report.number_model,
        s.passed,
        s.failed,
        s.skipped,
        s.expected_failures
    );
    if let Some(seed) = report.seed {
        let _ = write!(
            page,
            "<p>seed {seed} (rerun with <code>--seed {seed}</code>)</p>"
        );
    }
    if let Some(error) = &report.error {
        let _ = write!(
            page,
            "<h2>Error</h2><pre class=\"fail\">{}</pre>",
            escape(error)
        );
    }
    // The error is shown above; the run's other problems (expectations, cases not run)
    // are why a page without failing cases can still say "does not conform".
    let problems: Vec<_> = super::verdict::run_problems(report)
        .into_iter()
        .filter(|p| !p.cause.is_the_error())
        .collect();
    if !problems.is_empty() {
        page.push_str("<h2>Problems of the run</h2><ul id=\"problems\">");
        for problem in problems {
            let _ = write!(page, "<li class=\"fail\">{}</li>", escape(&problem.message));
        }
        page.push_str("</ul>");
    }
}

/// Rows: requirements; columns: outcomes; cells: how many of the requirement's cases
/// ended so.
fn matrix(page: &mut String, report: &Report) {
    page.push_str("<h2>Requirements by outcome</h2><table id=\"matrix\"><tr><th>requirement</th>");
    for outcome in OutcomeKind::ALL {
        let _ = write!(page, "<th>{outcome}</th>");
    }
    page.push_str("</tr>");
    for requirement in &report.requirements {
        let cases: Vec<&CaseReport> = report
            .cases
            .iter()
            .filter(|c| c.requirements.contains(&requirement.id))
            .collect();
        let class = if requirement.failed == 0 {
            "pass"
        } else {
            "fail"
        };
        let _ = write!(
            page,
            "<tr><td class=\"{class}\" title=\"{}\">{}</td>",
            escape(&requirement.statement),
            escape(&requirement.id)
        );
        for outcome in OutcomeKind::ALL {
            let count = cases.iter().filter(|c| c.outcome == outcome).count();
            let class = if count == 0 { "n zero" } else { "n" };
            let _ = write!(page, "<td class=\"{class}\">{count}</td>");
        }
        page.push_str("</tr>");
    }
    page.push_str("</table>");
}

fn failures(page: &mut String, report: &Report) {
    let failing: Vec<&CaseReport> = report
        .cases
        .iter()
        .filter(|c| c.outcome.is_failure())
        .collect();
    if failing.is_empty() {
        return;
    }
    page.push_str("<h2>Failures</h2>");
    for case in failing {
        let class = match case.status() {
            Status::ExpectedFailure => "expected",
            Status::Failed | Status::Passed | Status::Skipped => "fail",
        };
        let _ = write!(
            page,
            "<section class=\"case\" id=\"case-{id}\"><h3 class=\"{class}\">{id} · {outcome} [{requirements}]</h3><p>{description}</p>",
            id = escape(&case.id),
            outcome = case.outcome,
            requirements = escape(&super::model::charged(case).join(", ")),
            description = escape(&case.description)
        );
        if let Outcome::Fail(Failure::WrongOutput {
            expected, actual, ..
        }) = &case.detail
        {
            if alike(expected, actual) {
                page.push_str("<pre class=\"diff\">");
                for line in json_diff(expected, actual, Palette::plain()).lines() {
                    let class = match line.chars().next() {
                        Some('-') => "del",
                        Some('+') => "ins",
                        _ => "",
                    };
                    let _ = writeln!(page, "<span class=\"{class}\">{}</span>", escape(line));
                }
                page.push_str("</pre>");
            }
        }
        let _ = write!(page, "<pre>{}</pre>", escape(&failure_text(case)));
        if !case.printed.is_empty() {
            let _ = write!(
                page,
                "<p>It printed:</p><pre>{}</pre>",
                escape(&case.printed)
            );
        }
        page.push_str("</section>");
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_and_control_characters_are_escaped() {
        assert_eq!(
            escape("<script>alert('x')</script>&\u{1b}[2J"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;\\u{1b}[2J"
        );
    }
}
