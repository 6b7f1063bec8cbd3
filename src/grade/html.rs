//! `class.html`: the class at a glance, one self-contained page. A heatmap of submissions by
//! requirements (met, lost, not graded), each requirement's pass rate over the class, and
//! the requirements sorted by it, lowest first: what to teach again. Submission names are
//! chosen by students and escaped like any hostile text.

use super::Entry;
use crate::report::html::{escape, page_start};
use std::fmt::Write as _;

/// The page for `graded` (submissions in gradebook order).
pub fn class_page(graded: &[Entry], seed: u64) -> String {
    let mut page = String::new();
    page_start(&mut page, &format!("parcall grades · seed {seed}"));
    let ids = requirement_ids(graded);
    let _ = write!(
        page,
        "<h1>parcall grades</h1><p id=\"summary\">{} submissions, {} requirements, seed {seed}</p>",
        graded.len(),
        ids.len()
    );
    heatmap(&mut page, graded, &ids);
    teach_again(&mut page, graded, &ids);
    page.push_str("</body></html>\n");
    page
}

/// Every requirement some submission was scored on, in rubric order.
fn requirement_ids(graded: &[Entry]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for g in graded {
        for r in &g.requirements {
            if !ids.contains(&r.id) {
                ids.push(r.id.clone());
            }
        }
    }
    ids
}

/// Whether submission `g` met requirement `id`: `None` when it was not scored on it.
fn met(g: &Entry, id: &str) -> Option<bool> {
    g.requirements
        .iter()
        .find(|r| r.id == id)
        .map(|r| g.error.is_none() && r.earned >= r.points)
}

fn heatmap(page: &mut String, graded: &[Entry], ids: &[String]) {
    page.push_str("<h2>Submissions by requirement</h2><table id=\"heatmap\"><tr><th>submission</th><th>score</th>");
    for id in ids {
        let _ = write!(page, "<th>{}</th>", escape(id));
    }
    page.push_str("</tr>");
    for g in graded {
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"n\">{}/{}</td>",
            escape(&g.name),
            g.score,
            g.max_score
        );
        for id in ids {
            let (class, mark) = match met(g, id) {
                Some(true) => ("pass", "✓"),
                Some(false) => ("fail", "✗"),
                None => ("skip", ""),
            };
            let _ = write!(
                page,
                "<td class=\"{class}\" title=\"{}\">{mark}</td>",
                escape(id)
            );
        }
        page.push_str("</tr>");
    }
    page.push_str("<tr><th>pass rate</th><th></th>");
    for id in ids {
        let _ = write!(
            page,
            "<th class=\"n\">{}</th>",
            percent(pass_rate(graded, id))
        );
    }
    page.push_str("</tr></table>");
}

/// The share of the submissions scored on `id` that met it.
fn pass_rate(graded: &[Entry], id: &str) -> f64 {
    let scored: Vec<bool> = graded.iter().filter_map(|g| met(g, id)).collect();
    if scored.is_empty() {
        return 0.0;
    }
    scored.iter().filter(|m| **m).count() as f64 / scored.len() as f64
}

fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

fn teach_again(page: &mut String, graded: &[Entry], ids: &[String]) {
    let mut rates: Vec<(&String, f64)> = ids.iter().map(|id| (id, pass_rate(graded, id))).collect();
    rates.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    page.push_str("<h2>What to teach again</h2><table id=\"rates\"><tr><th>requirement</th><th>pass rate</th><th>statement</th></tr>");
    for (id, rate) in rates {
        let statement = graded
            .iter()
            .flat_map(|g| &g.requirements)
            .find(|r| &r.id == id)
            .map(|r| r.statement.as_str())
            .unwrap_or_default();
        let class = if rate < 1.0 { "fail" } else { "pass" };
        let _ = write!(
            page,
            "<tr><td class=\"{class}\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            escape(id),
            percent(rate),
            escape(statement)
        );
    }
    page.push_str("</table>");
}
