//! `--format junit`: the Ant JUnit XML format that CI systems read, valid against the Ant
//! JUnit schema (tests/fixtures/junit/JUnit.xsd): one `<testsuite>` per function with the
//! timestamp, host and time consumers expect, one `<testcase>` per case, and a `parcall`
//! suite with the run's own problems (see `verdict`), so its failures and errors add up
//! to more than zero exactly when the run failed.
//!
//! Written by hand rather than with a JUnit library: the schema fixes the order of elements
//! and forbids attributes the libraries add, and the text must be escaped by XML 1.0's
//! character rules, which a library's escaper leaves to the caller.

use super::machine::{expected_failure_text, failure_text};
use super::model::{CaseReport, Report, Status};
use super::verdict::{run_problems, verdict_label, RunProblem, Severity};
use std::fmt::Write as _;
use std::io::{self, Write};

/// What JUnit records about the machine and the moment of a run, which the report does not
/// hold: taken once, at the edge, so the renderer stays a function of its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// When the run started, UTC, as the schema's pattern wants it (`2024-01-31T12:00:00`,
    /// no zone).
    pub timestamp: String,
    /// The machine's name; `localhost` when it has none.
    pub hostname: String,
}

/// `--format junit`.
pub(crate) fn junit(report: &Report, stamp: &Stamp, out: &mut dyn Write) -> io::Result<()> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    let mut id = 0;
    for function in crate::spec::Function::EVERY {
        let cases: Vec<&CaseReport> = report
            .cases
            .iter()
            .filter(|c| c.function == function)
            .collect();
        if cases.is_empty() {
            continue;
        }
        let suite = Suite::of_cases(function.name(), &cases);
        suite.write(id, report, stamp, &mut xml);
        id += 1;
    }
    let problems = run_problems(report);
    if !problems.is_empty() {
        Suite::of_problems(&problems).write(id, report, stamp, &mut xml);
    }
    xml.push_str("</testsuites>\n");
    out.write_all(xml.as_bytes())
}

/// One `<testsuite>`, its test cases already written.
struct Suite<'a> {
    name: &'a str,
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    seconds: f64,
    cases: String,
    printed: String,
}

impl<'a> Suite<'a> {
    fn empty(name: &'a str) -> Suite<'a> {
        Suite {
            name,
            tests: 0,
            failures: 0,
            errors: 0,
            skipped: 0,
            seconds: 0.0,
            cases: String::new(),
            printed: String::new(),
        }
    }

    fn of_cases(name: &'a str, cases: &[&CaseReport]) -> Suite<'a> {
        let mut suite = Suite::empty(name);
        for case in cases {
            suite.add_case(case);
        }
        suite
    }

    fn of_problems(problems: &[RunProblem]) -> Suite<'static> {
        let mut suite = Suite::empty("parcall");
        for (index, problem) in problems.iter().enumerate() {
            // Several expectation problems share a name: number them so every test case
            // is one entry in a CI's list.
            let same = problems.iter().filter(|p| p.cause == problem.cause).count();
            let name = if same > 1 {
                format!("{} {}", problem.name(), index + 1)
            } else {
                problem.name().to_owned()
            };
            let element = match problem.severity {
                Severity::Failure => "failure",
                Severity::Error => "error",
            };
            let headline = crate::text::headline(&problem.message);
            let body = format!(
                "<{element} message=\"{}\" type=\"{}\">{}</{element}>",
                attribute(&headline),
                attribute(problem.kind()),
                text(&problem.message)
            );
            suite.push(&name, "parcall.run", 0.0, Some(body));
            match problem.severity {
                Severity::Failure => suite.failures += 1,
                Severity::Error => suite.errors += 1,
            }
        }
        suite
    }

    fn add_case(&mut self, case: &CaseReport) {
        let body = match case.status() {
            Status::Passed => None,
            // Listed in the expectations file: it does not fail the run, so it shows as
            // skipped, with why, rather than red.
            Status::ExpectedFailure => Some(format!(
                "<skipped message=\"{}\">{}</skipped>",
                attribute(&expected_failure_text(case)),
                text(&failure_text(case))
            )),
            Status::Skipped => Some(format!(
                "<skipped message=\"{}\"/>",
                attribute(&crate::text::headline(&failure_text(case)))
            )),
            Status::Failed => Some(self.failed_case(case)),
        };
        match case.status() {
            Status::ExpectedFailure | Status::Skipped => self.skipped += 1,
            Status::Passed | Status::Failed => {}
        }
        let classname = format!(
            "{}.{}",
            case.function.name(),
            case.file
                .trim_end_matches(".json")
                .rsplit('/')
                .next()
                .unwrap_or("")
        );
        self.push(&case.id, &classname, case.duration_ms / 1e3, body);
        if !case.printed.is_empty() {
            // The schema has no output per test case: the suite's output names the case.
            let _ = writeln!(self.printed, "== {} printed:\n{}", case.id, case.printed);
        }
    }

    fn failed_case(&mut self, case: &CaseReport) -> String {
        let element = if case.outcome.is_error() {
            self.errors += 1;
            "error"
        } else {
            self.failures += 1;
            "failure"
        };
        format!(
            "<{element} message=\"{}\" type=\"{}\">{}</{element}>",
            attribute(&format!(
                "{} [{}]",
                case.outcome,
                super::model::charged(case).join(", ")
            )),
            attribute(case.outcome.label()),
            text(&failure_text(case))
        )
    }

    fn push(&mut self, name: &str, classname: &str, seconds: f64, body: Option<String>) {
        self.tests += 1;
        self.seconds += seconds;
        let _ = write!(
            self.cases,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
            attribute(name),
            attribute(classname),
            decimal(seconds)
        );
        match body {
            None => self.cases.push_str("/>\n"),
            Some(body) => {
                let _ = writeln!(self.cases, ">\n      {body}\n    </testcase>");
            }
        }
    }

    fn write(&self, id: usize, report: &Report, stamp: &Stamp, xml: &mut String) {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{name}\" package=\"{name}\" id=\"{id}\" timestamp=\"{}\" \
             hostname=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
            attribute(&stamp.timestamp),
            attribute(&stamp.hostname),
            self.tests,
            self.failures,
            self.errors,
            self.skipped,
            decimal(self.seconds),
            name = attribute(self.name),
        );
        xml.push_str("    <properties>\n");
        let mut properties = vec![
            ("parcall", report.parcall.clone()),
            ("suite", report.suite.clone()),
            ("target", report.target.clone()),
            ("number_model", report.number_model.name().to_owned()),
            ("verdict", verdict_label(report.verdict).to_owned()),
        ];
        if let Some(seed) = report.seed {
            properties.push(("seed", seed.to_string()));
        }
        for (name, value) in properties {
            let _ = writeln!(
                xml,
                "      <property name=\"{name}\" value=\"{}\"/>",
                attribute(&value)
            );
        }
        xml.push_str("    </properties>\n");
        xml.push_str(&self.cases);
        let _ = writeln!(
            xml,
            "    <system-out>{}</system-out>\n    <system-err/>\n  </testsuite>",
            text(&self.printed)
        );
    }
}

/// Seconds as an `xs:decimal`: fixed-point, never an exponent, never negative.
fn decimal(seconds: f64) -> String {
    format!("{:.3}", seconds.max(0.0))
}

/// Text content: markup escaped, and every character XML 1.0 cannot hold (see `push_char`)
/// shown escaped.
fn text(value: &str) -> String {
    escape(value, false)
}

/// An attribute value in double quotes: as text, and the quote, tab and line ends as
/// character references, which a parser would otherwise turn into spaces.
fn attribute(value: &str) -> String {
    escape(value, true)
}

fn escape(value: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if in_attribute => out.push_str("&quot;"),
            '\n' if in_attribute => out.push_str("&#10;"),
            '\t' if in_attribute => out.push_str("&#9;"),
            // A parser turns a raw CR (and CR LF) into LF in text too.
            '\r' => out.push_str("&#13;"),
            _ if is_xml_char(c) && !c.is_control() || matches!(c, '\n' | '\t') => out.push(c),
            // Not even a character reference may name these: they are shown as text.
            _ => {
                let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
            }
        }
    }
    out
}

/// XML 1.0's `Char` production. A Rust `char` is never a surrogate, so lone surrogates
/// cannot reach here: an implementation's `\ud800` stays escaped in the JSON text that
/// carries it.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::markup("a<b>&c", "a&lt;b&gt;&amp;c")]
    #[case::nonchar_ffff("\u{ffff}", "\\u{ffff}")]
    #[case::nonchar_fffe("x\u{fffe}", "x\\u{fffe}")]
    #[case::nul("\u{0}", "\\u{0000}")]
    #[case::escape_sequence("\u{1b}[2J", "\\u{001b}[2J")]
    #[case::del("\u{7f}", "\\u{007f}")]
    #[case::c1("\u{85}", "\\u{0085}")]
    #[case::carriage_return("a\r\nb", "a&#13;\nb")]
    #[case::astral("\u{1F600}", "\u{1F600}")]
    #[case::last_bmp("\u{fffd}", "\u{fffd}")]
    fn text_escapes_by_xml_rules(#[case] raw: &str, #[case] escaped: &str) {
        assert_eq!(text(raw), escaped);
    }

    #[test]
    fn attributes_keep_their_line_ends_and_quotes() {
        assert_eq!(attribute("a \"b\"\n\tc"), "a &quot;b&quot;&#10;&#9;c");
    }

    #[test]
    fn decimals_are_fixed_point() {
        assert_eq!(decimal(1e-9), "0.000");
        assert_eq!(decimal(12345.6789), "12345.679");
    }
}
