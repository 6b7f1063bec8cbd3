//! Reports keep a bounded excerpt of every value: an implementation answering every case
//! with the largest values the reply bounds allow (seven strings of 260,000 characters)
//! gets reports of a few megabytes in every format, each long value saying how much of it
//! was cut, and the excerpt of a wrong output still shows where it first differs.

use crate::common::{fresh_regressions, output_within, root};
use std::process::{Command, Stdio};
use std::time::Duration;

const MAXIMAL: &str = "conformance/fixtures/python/hostile/maximal_replies.py";

/// Far below the whole values (about 1.8 MB per case, over 400 MB for the spec's cases),
/// far above what the excerpts take (about 16 KB per case, pretty JSON).
const MAX_REPORT_BYTES: usize = 6 << 20;

/// The reports of one `parcall check MAXIMAL` over every spec case, no generated ones: the
/// JSON on stdout, HTML and text written by `--report` beside it.
fn reports() -> [(&'static str, String); 3] {
    let regressions = fresh_regressions();
    let written = tempfile::tempdir().unwrap();
    let html = written.path().join("report.html");
    let human = written.path().join("report.txt");
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .args([
            "check", MAXIMAL, "--fuzz", "0", "--color", "never", "--format", "json",
        ])
        .arg("--report")
        .arg(format!("html={}", html.display()))
        .arg("--report")
        .arg(format!("human={}", human.display()))
        .current_dir(root())
        .env("PARCALL_REGRESSIONS", regressions.as_os_str())
        .stdin(Stdio::null());
    let output = output_within(&mut command, Duration::from_secs(300))
        .unwrap_or_else(|stderr| panic!("parcall check hung: {stderr}"));
    assert_eq!(output.status.code(), Some(1));
    let read = |path: &std::path::Path| std::fs::read_to_string(path).expect("a report is UTF-8");
    [
        (
            "json",
            String::from_utf8(output.stdout).expect("a report is UTF-8"),
        ),
        ("html", read(&html)),
        ("human", read(&human)),
    ]
}

#[test]
fn maximal_replies_make_reports_of_bounded_size_that_say_what_was_cut() {
    let mut total = 0;
    for (format, text) in reports() {
        assert!(
            text.len() < MAX_REPORT_BYTES,
            "{format} report: {} bytes",
            text.len()
        );
        assert!(
            text.contains("… (259,800 more characters)"),
            "the {format} report does not say what was cut"
        );
        total += text.len();
        if format == "json" {
            the_excerpt_shows_the_first_difference(&text);
        }
    }
    assert!(total < 3 * MAX_REPORT_BYTES, "{total} bytes in all");
}

/// The fixture pads each right answer: the excerpt of the actual value starts with it, and
/// the JSON Pointers are the ones of the whole values.
fn the_excerpt_shows_the_first_difference(text: &str) {
    // parcall's own parser: some cases nest deeper than serde_json's recursion limit.
    let report = parcall::json::to_serde_json(&parcall::json::parse(text).unwrap());
    let cases = report["cases"].as_array().unwrap();
    assert!(cases.len() > 100, "{} cases", cases.len());
    let seed = cases
        .iter()
        .find(|c| c["id"] == "exec-seed-001")
        .expect("exec-seed-001 ran");
    let detail = &seed["detail"];
    assert_eq!(detail["kind"], "wrong_output", "{detail}");
    assert_eq!(detail["pointer"], "/0/content", "{detail}");
    let expected = detail["expected"][0]["content"].as_str().unwrap();
    let actual = detail["actual"][0]["content"].as_str().unwrap();
    assert!(actual.starts_with(&format!("{expected}x")), "{actual}");
    assert!(actual.chars().count() < 300, "{actual}");
}
