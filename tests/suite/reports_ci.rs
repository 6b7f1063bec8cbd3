//! Every report a CI reads tells the exit code's story, read by the consumer a CI uses:
//! JUnit validated against the Ant schema by the JDK (and its failures and errors added up
//! as a CI's reader adds them), TAP by Perl's `prove`, JSON against `report.schema.json`,
//! annotations by GitHub's rules, Markdown by its table grammar. In every state a run ends
//! in: pass, fail, expected failure, unexpected pass, start failure, budget spent.

use crate::common;

use common::{fresh_regressions, root, temp_dir, TempPath};
use rstest::rstest;
use std::path::Path;
use std::process::Command;

/// The reports of one `parcall check` run, every format at once.
struct Reports {
    code: i32,
    github: String,
    junit: String,
    tap: String,
    markdown: String,
    json: serde_json::Value,
    dir: TempPath,
}

fn check(args: &[&str]) -> Reports {
    let dir = temp_dir("reports");
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command.arg("check").args(args).args(["--format", "github"]);
    for format in ["junit", "tap", "markdown", "json"] {
        command
            .arg("--report")
            .arg(format!("{format}={}", dir.join(format).display()));
    }
    let output = command
        .current_dir(root())
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let json = parcall::json::to_serde_json(&parcall::json::parse(&read("json")).unwrap());
    Reports {
        code: output.status.code().unwrap_or(-1),
        github: String::from_utf8(output.stdout).unwrap(),
        junit: read("junit"),
        tap: read("tap"),
        markdown: read("markdown"),
        json,
        dir,
    }
}

/// A program on PATH, or a note that the check it does is skipped here. `.ci/run` sets
/// `PARCALL_REQUIRE_CONSUMERS`, so in CI a missing consumer fails instead of skipping.
fn have(program: &str, version_flag: &str) -> bool {
    let found = Command::new(program).arg(version_flag).output().is_ok();
    if !found {
        assert!(
            std::env::var_os("PARCALL_REQUIRE_CONSUMERS").is_none(),
            "`{program}` is required to read the reports as a CI does"
        );
        eprintln!("skipped a check: no `{program}` on this machine");
    }
    found
}

/// The JDK's validator against the Ant JUnit schema: `OK tests=.. failures=.. errors=..
/// skipped=..` for a valid document, `INVALID ...` with every problem otherwise.
fn validate_junit(paths: &[&Path]) -> Vec<String> {
    let fixtures = root().join("tests/fixtures/junit");
    let output = Command::new("java")
        .arg(fixtures.join("Validate.java"))
        .arg(fixtures.join("JUnit.xsd"))
        .args(paths)
        .output()
        .unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `failures + errors` summed over the `<testsuite>` elements, as CI readers add them.
fn junit_red(junit: &str) -> usize {
    let attribute = |name: &str| {
        regex::Regex::new(&format!(r#"<testsuite [^>]*\b{name}="(\d+)""#))
            .unwrap()
            .captures_iter(junit)
            .map(|c| c[1].parse::<usize>().unwrap())
            .sum::<usize>()
    };
    attribute("failures") + attribute("errors")
}

/// Whether `prove` passes the stream, and what it said.
fn prove(tap: &Path) -> (bool, String) {
    let output = Command::new("prove")
        .args(["--exec", "cat"])
        .arg(tap)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), said)
}

/// A failing test point: `not ok` without a TODO directive.
fn tap_red(tap: &str) -> usize {
    tap.lines()
        .filter(|l| l.starts_with("not ok") && !l.contains(" # TODO "))
        .count()
}

/// Every Markdown table row has as many cells as its table's header (an unescaped `|`
/// would add one).
fn assert_tables_hold(markdown: &str) {
    let cells = |row: &str| {
        let mut count = 0;
        let mut escaped = false;
        for c in row.chars() {
            match c {
                '\\' if !escaped => escaped = true,
                '|' if !escaped => count += 1,
                _ => escaped = false,
            }
        }
        count
    };
    let mut header = None;
    for line in markdown.lines() {
        match (line.starts_with('|'), header) {
            (true, None) => header = Some(cells(line)),
            (true, Some(width)) => assert_eq!(cells(line), width, "{line}\n{markdown}"),
            (false, _) => header = None,
        }
    }
}

fn assert_json_valid(report: &serde_json::Value) {
    let schema = std::fs::read_to_string(root().join("conformance/report.schema.json")).unwrap();
    common::assert_follows_schema(&schema, report, "the report");
}

/// Every format agrees with the exit code, each read by its own consumer.
fn assert_one_story(reports: &Reports) {
    let red = reports.code != 0;
    let story = format!(
        "exit {}\n--- github\n{}\n--- tap\n{}\n--- junit\n{}",
        reports.code, reports.github, reports.tap, reports.junit
    );
    assert_eq!(junit_red(&reports.junit) > 0, red, "{story}");
    assert_eq!(tap_red(&reports.tap) > 0, red, "{story}");
    assert_eq!(
        reports.json["verdict"] == "conforms",
        !red,
        "{}",
        reports.json
    );
    assert_json_valid(&reports.json);
    assert_tables_hold(&reports.markdown);
    assert_eq!(reports.markdown.starts_with("## parcall: ✅"), !red);
    let errors = reports
        .github
        .lines()
        .filter(|l| l.starts_with("::error "))
        .count();
    assert!(errors <= parcall::report::MAX_ERROR_ANNOTATIONS, "{story}");
    assert_eq!(errors > 0, red, "{story}");
    let last = reports.github.lines().last().unwrap_or_default();
    let summary = if red { "::error " } else { "::notice " };
    assert!(
        last.starts_with(summary) && last.contains("title=parcall suite"),
        "{story}"
    );
    if have("prove", "--version") {
        let (passed, said) = prove(&reports.dir.join("tap"));
        assert_eq!(passed, !red, "{said}\n{story}");
        assert!(!said.contains("Parse errors"), "{said}");
    }
    if have("java", "-version") {
        let junit = reports.dir.join("junit");
        let verdicts = validate_junit(&[&junit]);
        assert!(
            verdicts.len() == 1 && verdicts[0].starts_with("OK "),
            "{verdicts:?}\n{story}"
        );
        let red_in_java = !verdicts[0].contains(" failures=0 errors=0 ");
        assert_eq!(red_in_java, red, "{verdicts:?}");
    }
}

const SOLUTION: &str = "conformance/examples/python/solution.py";
const JS: &str = "conformance/examples/javascript/stringify_numbers.mjs";

/// An expectations file listing `entries` (`(case, outcome)`), kept with the reports.
fn expectations(dir: &Path, entries: &[(&str, &str)]) -> String {
    let known: Vec<serde_json::Value> = entries
        .iter()
        .map(|(case, outcome)| serde_json::json!({"case": case, "outcome": outcome}))
        .collect();
    let path = dir.join("expectations.json");
    let file = serde_json::json!({"format": "parcall-expectations", "version": 1, "known_failures": known});
    std::fs::write(&path, file.to_string()).unwrap();
    path.display().to_string()
}

#[rstest]
#[case::pass(&[SOLUTION, "--case", "exec-seed-*"], 0)]
#[case::fail(&["conformance/examples/python/broken/ids_zero_based.py", "--case", "exec-seed-*"], 1)]
#[case::start_failure(&["--cmd", "sh -c 'exit 1'"], 1)]
#[case::budget_spent(&["conformance/fixtures/python/hang.py", "--case", "exec-*", "--timeout", "30", "--budget", "2"], 3)]
fn every_format_tells_the_exit_code_s_story(#[case] args: &[&str], #[case] code: i32) {
    let reports = check(args);
    assert_eq!(reports.code, code, "{}", reports.github);
    assert_one_story(&reports);
}

/// Listed failures that still fail with their outcome: green, and shown as such.
#[test]
fn expected_failures_tell_a_green_story() {
    if !have("node", "--version") {
        return;
    }
    let dir = temp_dir("expected");
    let file = expectations(
        &dir,
        &[
            ("dedup-number-006", "wrong output"),
            ("dedup-number-007", "wrong output"),
        ],
    );
    let reports = check(&[JS, "--case", "dedup-number-00?", "--expectations", &file]);
    assert_eq!(reports.code, 0, "{}", reports.github);
    assert_eq!(reports.tap.matches(" # TODO expected failure").count(), 2);
    assert_one_story(&reports);
}

/// A listed failure that passes now fails the gate, and every format says so (JUnit and
/// TAP once read all green here).
#[test]
fn an_unexpected_pass_tells_a_red_story() {
    let dir = temp_dir("unexpected-pass");
    let file = expectations(&dir, &[("exec-seed-001", "wrong output")]);
    let reports = check(&[SOLUTION, "--case", "exec-seed-*", "--expectations", &file]);
    assert_eq!(reports.code, 1, "{}", reports.github);
    assert!(
        reports.junit.contains("type=\"expectations\""),
        "{}",
        reports.junit
    );
    assert!(reports.tap.contains("not ok"), "{}", reports.tap);
    assert!(
        reports
            .github
            .contains("exec-seed-001: expected `wrong output`, but it passes now"),
        "{}",
        reports.github
    );
    assert_one_story(&reports);
}

/// U+FFFF in a failing case's input (the case Java's and JavaScript's default sort fail):
/// the JUnit file stays XML, the TAP stream stays TAP.
#[test]
fn noncharacters_in_a_failure_keep_junit_xml_and_tap_parseable() {
    let reports = check(&[
        "conformance/examples/python/broken/dedup_unsorted_keys.py",
        "--case",
        "dedup-key-003",
    ]);
    assert_eq!(reports.code, 1);
    assert!(!reports.junit.contains('\u{ffff}'), "{}", reports.junit);
    assert!(reports.junit.contains("\\u{ffff}"), "{}", reports.junit);
    assert!(!reports.tap.contains('\u{ffff}'), "{}", reports.tap);
    assert_one_story(&reports);
}

/// An implementer debugging 64-bit overflow reads the limit exactly, in every format.
#[test]
fn max_parallel_2_to_the_64_minus_1_is_exact_in_every_report() {
    let reports = check(&[
        "conformance/examples/python/broken/limit_capped.py",
        "--case",
        "exec-scale-003",
    ]);
    assert_eq!(reports.code, 1, "{}", reports.github);
    let exact = "18446744073709551615";
    for (format, text) in [
        ("github", reports.github.as_str()),
        ("junit", &reports.junit),
        ("tap", &reports.tap),
    ] {
        assert!(
            text.contains(&format!("\"max_parallel\": {exact}")),
            "{format}: {text}"
        );
        assert!(!text.contains("\"max_parallel\": -"), "{format}: {text}");
    }
    let json = std::fs::read_to_string(reports.dir.join("json")).unwrap();
    assert!(json.contains(&format!("\"max_parallel\": {exact}")));
    for format in ["human", "html"] {
        let output = common::parcall(&[
            "check",
            "conformance/examples/python/broken/limit_capped.py",
            "--case",
            "exec-scale-003",
            "--format",
            format,
            "--color",
            "never",
        ]);
        let text = common::stdout(&output);
        assert!(text.contains(exact), "{format}");
        assert!(!text.contains("max_parallel: -"), "{format}");
    }
}

/// An implementation that breaks many requirements: one annotation per broken requirement
/// on its smallest case, ten errors in all with the summary last, counting the rest.
#[test]
fn annotations_are_capped_at_ten_with_a_summary_that_counts_the_rest() {
    let dir = temp_dir("many");
    let module = dir.join("empty.py");
    std::fs::write(
        &module,
        "def execute_tool_calls(calls, max_parallel=4):\n    return [{\"role\": \"tool\", \"tool_call_id\": \"x\", \"content\": \"\"} for _ in calls]\n\n\ndef run_parallel_calls(tools, calls):\n    return {\"x\": None}\n",
    )
    .unwrap();
    let reports = check(&[module.to_str().unwrap(), "--fuzz", "0"]);
    assert_eq!(reports.code, 1);
    let errors: Vec<&str> = reports
        .github
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(
        errors.len(),
        parcall::report::MAX_ERROR_ANNOTATIONS,
        "{}",
        reports.github
    );
    let last = errors.last().unwrap();
    assert!(last.contains("title=parcall suite"), "{last}");
    assert!(last.contains("more not annotated"), "{last}");
    // One per requirement: no requirement twice.
    let titles: Vec<&str> = errors[..errors.len() - 1]
        .iter()
        .map(|l| {
            l.split("::")
                .nth(1)
                .unwrap()
                .split(" broken in ")
                .next()
                .unwrap()
        })
        .collect();
    let mut unique = titles.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), titles.len(), "{titles:?}");
    assert_one_story(&reports);
}
