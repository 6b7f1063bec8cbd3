//! What a grading run writes: Gradescope's and Exercism's `results.json`, a gradebook as
//! CSV and JSON, and a human summary. Student-facing text never reveals the hidden seed or
//! more than one generated case, and goes through [`for_student`]: control characters shown
//! escaped (what a submission prints cannot clear a screen or forge a line), no path of the
//! grader's machine, a set-up error told as the grader's, in one sentence.

use super::rubric::RequirementScore;
use super::{Entry, Graded};
use crate::judge::OutcomeKind;
use crate::judge::{Failure, Outcome};
use crate::report::CaseReport;
use crate::spec::Function;
use crate::text::{spreadsheet, terminal};
use serde_json::{json, Value};
use std::fmt::Write;

/// Exercism v3 caps each test's `output` at 500 characters.
pub const EXERCISM_OUTPUT_LIMIT: usize = 500;
/// Our own cap on any one feedback text, so a flood of output never bloats a results file.
pub const FEEDBACK_LIMIT: usize = 4000;

/// Cuts `text` to at most `limit` characters, saying so inside the limit.
pub fn cap(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let note = "\n[... cut]";
    let kept: String = text
        .chars()
        .take(limit.saturating_sub(note.len()))
        .collect();
    format!("{kept}{note}")
}

/// The case a student should look at for a requirement: the smallest charged to it, among
/// the fixed cases and the one counterexample per requirement the generated cases kept.
/// When none is charged (the requirement was never shown kept), the smallest failing case
/// that exercises it.
fn smallest_failure<'r>(graded: &'r Graded, requirement: &str) -> Option<&'r CaseReport> {
    let size = |c: &&CaseReport| c.inputs.iter().map(|i| i.to_string().len()).sum::<usize>();
    let fixed = graded
        .report
        .cases
        .iter()
        .filter(|c| !c.id.starts_with("generated-"));
    let generated = graded
        .report
        .generated
        .iter()
        .flat_map(|g| &g.counterexamples);
    let charged = fixed
        .clone()
        .chain(generated)
        .filter(|c| c.charges.iter().any(|ch| ch.requirement == requirement))
        .min_by_key(size);
    charged.or_else(|| {
        fixed
            .filter(|c| {
                c.outcome != OutcomeKind::Pass && c.requirements.iter().any(|r| r == requirement)
            })
            .min_by_key(size)
    })
}

/// What a student is told when their sandbox could not be set up: the grader's fault; the
/// details (paths of the grader's machine among them) are in the teacher's report.
pub const SETUP_ERROR_FOR_STUDENT: &str = "parcall could not set up the sandbox to grade this \
     submission: a problem on the grader's side, not in your work. Your teacher has the \
     details and can grade it again.";

/// Text a student receives, made safe to hand over: every path of the grader's machine in
/// `graded.host_paths` left out (a path inside the submission's copy becomes relative to
/// it), control characters escaped as the teacher's report escapes them
/// ([`terminal::multiline`]), then cut to `limit` characters.
pub fn for_student(graded: &Graded, text: &str, limit: usize) -> String {
    let mut text = text.to_owned();
    for path in &graded.host_paths {
        text = without_host_path(&text, &path.display().to_string());
    }
    // The sandbox's own home: the submission's copy, so a path in it is the student's.
    text = text.replace(&format!("{}/", crate::sandbox::HOME), "");
    cap(&terminal::multiline(&text), limit)
}

/// `text` with `host` left out: `HOST/submission-N/home/FILE` (a file of the submission's
/// copy) and `HOST/FILE` become `FILE`, `HOST` alone "(a folder of the grader's)".
fn without_host_path(text: &str, host: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(host) {
        kept.push_str(&rest[..at]);
        rest = &rest[at + host.len()..];
        match rest.strip_prefix('/') {
            Some(inside) => rest = copy_relative(inside),
            None => kept.push_str("(a folder of the grader's)"),
        }
    }
    kept.push_str(rest);
    kept
}

/// `submission-N/home/FILE` as `FILE`: the copy's home is the submission itself.
fn copy_relative(inside: &str) -> &str {
    let Some(slot) = inside.strip_prefix("submission-") else {
        return inside;
    };
    let digits = slot.len() - slot.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    slot[digits..].strip_prefix("/home/").unwrap_or(inside)
}

/// Why the submission could not be graded, as its student is told. The first line is
/// parcall's; every line after it is what the submission printed before it stopped (a start
/// error's tail), each quoted, so a line it printed never reads as one of parcall's.
fn student_error(graded: &Graded) -> Option<String> {
    if graded.setup_error.is_some() {
        return Some(SETUP_ERROR_FOR_STUDENT.to_owned());
    }
    let error = graded.error()?;
    let mut lines = error.lines();
    let mut text = lines.next().unwrap_or_default().to_owned();
    for line in lines {
        text.push_str("\n  | ");
        text.push_str(line);
    }
    Some(text)
}

/// Feedback for one requirement, for the student: why it is lost, on the smallest case
/// charged to it (every batch's input, expected and actual, what the submission printed).
/// Never a seed, a rerun command, or more than one generated case.
pub fn feedback(graded: &Graded, score: &RequirementScore) -> String {
    for_student(graded, &feedback_text(graded, score), FEEDBACK_LIMIT)
}

fn feedback_text(graded: &Graded, score: &RequirementScore) -> String {
    if let Some(error) = student_error(graded) {
        return error;
    }
    if score.earned >= score.points {
        return format!("Met: kept in all {} cases that exercise it.", score.cases);
    }
    let Some(case) = smallest_failure(graded, &score.id) else {
        return format!(
            "Not met: no case shows this rule kept ({} cases exercise it). Where it applies, \
             your function raised, timed out or returned nothing this rule can be checked on.",
            score.cases
        );
    };
    let generated = case.id.starts_with("generated-");
    let title = if generated {
        "A hidden case (shrunk to a small example):".to_owned()
    } else {
        format!("Case {}: {}", case.id, case.description)
    };
    let mut text = format!(
        "{} of {} cases break this rule. {title}\n",
        score.failed, score.cases
    );
    let compact = crate::json::Style {
        ensure_ascii: false,
        ..crate::json::Style::PYTHON
    };
    for charge in case.charges.iter().filter(|c| c.requirement == score.id) {
        let _ = writeln!(text, "why (batch {}): {}", charge.batch, charge.diagnosis);
    }
    if !case.charges.iter().any(|c| c.requirement == score.id) {
        if let Some(charge) = case.charges.first() {
            let _ = writeln!(
                text,
                "this case is charged to {} instead: {}",
                charge.requirement, charge.diagnosis
            );
        }
    }
    let many = case.inputs.len() > 1;
    for (index, input) in case.inputs.iter().enumerate() {
        let label = if many {
            format!(
                "input, batch {} (batches run one after another):",
                index + 1
            )
        } else {
            "input:".to_owned()
        };
        let _ = writeln!(text, "{label} {}", crate::json::dumps(input, compact));
    }
    match &case.detail {
        Outcome::Fail(Failure::WrongOutput {
            expected, actual, ..
        }) => {
            let pointers = crate::report::diff::differences(expected, actual);
            let _ = writeln!(text, "differs at: {}", pointers.join(", "));
            let _ = writeln!(text, "expected: {}", crate::json::dumps(expected, compact));
            let _ = writeln!(text, "actual:   {}", crate::json::dumps(actual, compact));
        }
        Outcome::Fail(Failure::WrongInvocations { diff, .. }) => {
            for value in &diff.missing {
                let _ = writeln!(
                    text,
                    "missing invocation:    {}",
                    crate::json::dumps(value, compact)
                );
            }
            for value in &diff.unexpected {
                let _ = writeln!(
                    text,
                    "unexpected invocation: {}",
                    crate::json::dumps(value, compact)
                );
            }
        }
        Outcome::Fail(Failure::Exception { message, .. }) => {
            let _ = writeln!(text, "your function raised: {message}");
        }
        Outcome::Fail(Failure::Timeout { seconds }) => {
            let _ = writeln!(
                text,
                "no answer within {seconds:.1}s (an infinite loop, or a deadlock?)"
            );
        }
        Outcome::Fail(Failure::Crash { message } | Failure::Protocol { message }) => {
            let _ = writeln!(text, "{message}");
        }
        _ => {}
    }
    if !case.printed.trim().is_empty() {
        // Each line quoted, so a line it printed never reads as one of parcall's.
        let _ = write!(text, "your code printed:");
        for line in case.printed.trim_end().lines() {
            let _ = write!(text, "\n  | {line}");
        }
    }
    text.trim_end().to_owned()
}

/// `feedback.txt`: the student's whole feedback, one section per requirement not met.
pub fn feedback_file(graded: &Graded) -> String {
    let mut text = format!("{}\n", summary_line(graded));
    if let Some(error) = student_error(graded) {
        let _ = writeln!(text, "\n{}", for_student(graded, &error, FEEDBACK_LIMIT));
        return text;
    }
    for score in graded.requirements.iter().filter(|r| r.earned < r.points) {
        let _ = writeln!(
            text,
            "\n== {} ({} of {} points): {}\n{}",
            score.id,
            fmt_points(score.earned),
            fmt_points(score.points),
            score.statement,
            feedback(graded, score)
        );
    }
    text
}

fn summary_line(graded: &Graded) -> String {
    let met = graded.met();
    format!(
        "{} / {} points: {met} of {} requirements met.",
        fmt_points(graded.score),
        fmt_points(graded.max_score),
        graded.requirements.len()
    )
}

fn fmt_points(points: f64) -> String {
    if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.2}")
    }
}

/// Gradescope's `results.json` (autograder specification): one test per requirement.
pub fn gradescope(graded: &Graded) -> Value {
    let tests: Vec<Value> = graded
        .requirements
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "name": format!("{}: {}", r.id, r.statement),
                "number": (i + 1).to_string(),
                "score": r.earned,
                "max_score": r.points,
                "status": if r.earned >= r.points { "passed" } else { "failed" },
                "output": feedback(graded, r),
                "visibility": "visible",
            })
        })
        .collect();
    json!({
        "score": graded.score,
        "max_score": graded.max_score,
        "execution_time": graded.duration.as_secs_f64(),
        "output": match student_error(graded) {
            Some(error) => format!("{}\n\n{}", summary_line(graded), for_student(graded, &error, FEEDBACK_LIMIT)),
            None => summary_line(graded),
        },
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        // Nothing here may reveal the hidden seed: students see this file.
        "extra_data": {"parcall_suite": graded.report.suite},
    })
}

/// Exercism's test runner `results.json`, version 3: a test per requirement, `task_id` 1
/// for `execute_tool_calls` and 2 for `run_parallel_calls`, output capped at 500 characters.
pub fn exercism(graded: &Graded) -> Value {
    if let Some(error) = student_error(graded) {
        return json!({"version": 3, "status": "error", "message": for_student(graded, &error, FEEDBACK_LIMIT), "tests": []});
    }
    let tests: Vec<Value> = graded
        .requirements
        .iter()
        .map(|r| {
            let passed = r.earned >= r.points;
            let mut test = json!({
                "name": format!("{}: {}", r.id, r.statement),
                "status": if passed { "pass" } else { "fail" },
                "test_code": format!("parcall requirement {} ({} cases)", r.id, r.cases),
                "task_id": match r.function { Function::ExecuteToolCalls => 1, Function::RunParallelCalls => 2, Function::RunToolCalls => 3 },
            });
            if !passed {
                test["message"] = json!(feedback(graded, r));
                let printed = smallest_failure(graded, &r.id).map(|c| c.printed.clone()).unwrap_or_default();
                if !printed.is_empty() {
                    test["output"] = json!(for_student(graded, &printed, EXERCISM_OUTPUT_LIMIT));
                }
            }
            test
        })
        .collect();
    let status = if graded.requirements.iter().all(|r| r.earned >= r.points) {
        "pass"
    } else {
        "fail"
    };
    json!({"version": 3, "status": status, "tests": tests})
}

/// The gradebook, one row per submission.
pub fn gradebook_csv(graded: &[Entry], seed: u64) -> String {
    let mut out = String::from(
        "submission,score,max_score,percent,requirements_met,requirements,verdict,seed,error,functions\n",
    );
    for g in graded {
        let met = g.met();
        let percent = if g.max_score > 0.0 {
            100.0 * g.score / g.max_score
        } else {
            0.0
        };
        let fields = [
            g.name.clone(),
            fmt_points(g.score),
            fmt_points(g.max_score),
            format!("{percent:.1}"),
            met.to_string(),
            g.requirements.len().to_string(),
            serde_json::to_value(g.verdict)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            seed.to_string(),
            g.error_headline.clone().unwrap_or_default(),
            function_list(&g.functions, " "),
        ];
        // Every cell may carry a student's text (a name, a load error).
        let row: Vec<String> = fields
            .iter()
            .map(|f| csv_field(&spreadsheet::cell(f)))
            .collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

fn function_list(functions: &[Function], separator: &str) -> String {
    functions
        .iter()
        .map(Function::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}

fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// When the class was graded on both functions but every submission that started defines
/// only one and the same one, the grades are about the wrong assignment: say which
/// `--function` grades the exercise they wrote.
pub fn one_exercise_note(graded: &[Entry]) -> Option<String> {
    let started: Vec<&Entry> = graded.iter().filter(|g| g.started).collect();
    let first = started.first()?;
    let [only] = first.functions.as_slice() else {
        return None;
    };
    if !started.iter().all(|g| g.functions == [*only]) {
        return None;
    }
    let missing = Function::EXERCISES
        .into_iter()
        .find(|f| f != only)
        .expect("two functions");
    Some(format!(
        "every submission defines only {only}, so each lost every {missing} point; to grade the {only} exercise alone, run again with --function {only}"
    ))
}

/// Every function some submission of `class` defines.
pub fn defined_in(class: &[Entry]) -> Vec<Function> {
    Function::EXERCISES
        .into_iter()
        .filter(|f| class.iter().any(|g| g.functions.contains(f)))
        .collect()
}

/// When `entry` is scored on a function it does not define and another submission of the
/// class defines it (`defined`: [`defined_in`] the class), its score is not comparable with
/// theirs (a correct one-function file ranks below a two-function one that games the
/// other): what it defines, what it is scored on, and how to grade like with like.
pub fn fewer_functions_note(entry: &Entry, defined: &[Function]) -> Option<String> {
    if !entry.started {
        return None;
    }
    let mut scored: Vec<Function> = Vec::new();
    for r in &entry.requirements {
        if !scored.contains(&r.function) {
            scored.push(r.function);
        }
    }
    let missing: Vec<Function> = scored
        .iter()
        .copied()
        .filter(|f| !entry.functions.contains(f))
        .filter(|f| defined.contains(f))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let defines = match entry.functions.as_slice() {
        [] => "defines neither function".to_owned(),
        defined => format!("defines only {}", function_list(defined, " and ")),
    };
    let first = entry.functions.first().unwrap_or(&missing[0]);
    Some(format!(
        "{defines} but is scored on {}, so it lost every {} point other submissions could earn; to grade each exercise alone, run again with --function {first}",
        function_list(&scored, " and "),
        function_list(&missing, " and "),
    ))
}

/// The summary a teacher reads: a line per submission.
pub fn human(graded: &[Entry], seed: u64) -> String {
    let width = graded
        .iter()
        .map(|g| terminal::line(&g.name).chars().count())
        .max()
        .unwrap_or(10)
        .max(10);
    let mut out = format!("{:<width$}  {:>9}  requirements\n", "submission", "score");
    for g in graded {
        let met = g.met();
        let note = g
            .error_headline
            .as_ref()
            .map(|e| format!("  ({})", terminal::line(e)))
            .unwrap_or_default();
        let score = format!("{}/{}", fmt_points(g.score), fmt_points(g.max_score));
        let _ = writeln!(
            out,
            "{:<width$}  {score:>9}  {met}/{}{note}",
            terminal::line(&g.name),
            g.requirements.len()
        );
    }
    let defined = defined_in(graded);
    for g in graded {
        if let Some(note) = fewer_functions_note(g, &defined) {
            let _ = writeln!(out, "note: {}: {note}", terminal::line(&g.name));
        }
    }
    let mean = graded.iter().map(|g| g.score).sum::<f64>() / graded.len().max(1) as f64;
    let _ = writeln!(
        out,
        "\n{} submissions graded, mean score {}, seed {seed} (regrade with --seed {seed})",
        graded.len(),
        fmt_points((mean * 100.0).round() / 100.0)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::Submission;
    use crate::json::NumberModel;
    use crate::report::{Report, Summary, Verdict};
    use std::path::PathBuf;
    use std::time::Duration;

    /// A submission refused at discovery, under a name a student chose.
    fn refused(name: &str) -> Graded {
        let summary = Summary {
            total: 0,
            passed: 0,
            failed: 0,
            skipped: 0,
            expected_failures: 0,
        };
        Graded {
            submission: Submission {
                name: name.to_owned(),
                source: PathBuf::from("class"),
                module: PathBuf::from("class/m.py"),
                refused: Some("a symbolic link".to_owned()),
                kind: None,
            },
            report: Report {
                format: "parcall-report".into(),
                version: 1,
                parcall: String::new(),
                suite: String::new(),
                target: name.to_owned(),
                implementation: None,
                functions: Vec::new(),
                number_model: NumberModel::Python,
                runtime: None,
                concurrency: None,
                verdict: Verdict::DoesNotConform,
                error: None,
                error_headline: None,
                summary,
                requirements: Vec::new(),
                cases: Vec::new(),
                seed: None,
                generated: Vec::new(),
                expectation_problems: Vec::new(),
                containment: None,
                duration_ms: 0.0,
                complete: true,
            },
            requirements: Vec::new(),
            score: 0.0,
            max_score: 0.0,
            duration: Duration::ZERO,
            setup_error: None,
            refusal: Some("a symbolic link".to_owned()),
            host_paths: Vec::new(),
        }
    }

    /// U+202E turns the rest of a line around and U+2066 opens an isolate: a name with them
    /// could pass as another student's in the teacher's terminal or spreadsheet.
    #[test]
    fn bidi_controls_in_a_name_never_reach_the_gradebook() {
        let graded = [refused("alice\u{202e}txt.py\u{2066}x").entry()];
        let shown = "alice\\u{202e}txt.py\\u{2066}x";
        let csv = gradebook_csv(&graded, 7);
        let table = human(&graded, 7);
        for written in [&csv, &table] {
            assert!(written.contains(shown), "{written}");
            assert!(!written.contains(['\u{202e}', '\u{2066}']), "{written}");
        }
    }

    /// Everything a student receives, in every format: escape codes shown, not obeyed; no
    /// path of the grader's machine; a set-up error told without its details.
    #[test]
    fn student_files_hold_no_escape_code_and_no_host_path() {
        let mut graded = refused("alice");
        graded.host_paths = vec![PathBuf::from("/srv/class"), PathBuf::from("/var/tmp/ws")];
        graded.refusal = Some(
            "\u{1b}[2J\rALL TESTS PASSED\n/var/tmp/ws/submission-3/home/main.py line 1, \
             /srv/class/alice.py, /home/sandbox/util.py, in /var/tmp/ws"
                .to_owned(),
        );
        let students = |g: &Graded| {
            [
                feedback_file(g),
                gradescope(g).to_string(),
                exercism(g).to_string(),
            ]
        };
        for written in students(&graded) {
            assert!(
                !written.contains('\u{1b}') && !written.contains('\r'),
                "{written}"
            );
            assert!(!written.contains("/srv/class") && !written.contains("/var/tmp/ws"));
            assert!(!written.contains("/home/sandbox"), "{written}");
        }
        let text = feedback_file(&graded);
        assert!(text.contains("\\x1b[2J\\rALL TESTS PASSED"), "{text}");
        assert!(text.contains("main.py line 1, alice.py, util.py"), "{text}");
        assert!(text.contains("in (a folder of the grader's)"), "{text}");

        graded.setup_error = Some("cannot prepare the sandbox: /var/tmp/ws: EACCES".into());
        for written in students(&graded) {
            assert!(
                written.contains("a problem on the grader's side"),
                "{written}"
            );
            assert!(!written.contains("EACCES"), "{written}");
        }
    }
}
