//! `parcall compare`: cells are a function of the implementation, not of the seed; every
//! requirement is a row; a one-function implementation, a number model and an
//! implementation that cannot start are each shown for what they are; the matrix is written
//! as Markdown, JSON (valid against its schema) and HTML (rendered in a real browser);
//! bad input is a usage error that names it.

use crate::common;

use common::browser::{chromium, rendered};
use common::{parcall, root, stdout, temp_dir};
use parcall::compare::{self, CellVerdict, Entry, Matrix};
use parcall::sandbox::Runtimes;
use parcall::spec::{Function, Spec};
use parcall::subject::adapters;
use std::path::{Path, PathBuf};

const SOLUTION: &str = "conformance/examples/python/solution.py";
const BROKEN: &str = "conformance/examples/python/broken/ids_zero_based.py";

/// The solution with `run_parallel_calls` renamed away: an implementation of one function.
fn one_function_module(dir: &Path) -> PathBuf {
    let solution = std::fs::read_to_string(root().join(SOLUTION)).unwrap();
    let path = dir.join("exec_only.py");
    std::fs::write(
        &path,
        solution.replace("def run_parallel_calls(", "def _not_asked_for("),
    )
    .unwrap();
    path
}

/// The Rust example and `java`, declared as runtimes the manifests below start by name.
fn runtimes() -> Runtimes {
    let rust = common::built_adapters::rust_program();
    let search = std::env::var_os("PATH").unwrap_or_default();
    Runtimes::declare(&[("rust-example".into(), rust.into())], &search)
        .unwrap()
        .or_found("java", "java".as_ref(), &search)
}

fn entry(path: &Path) -> Entry {
    let limits = parcall::process::Limits::default();
    let runtimes = runtimes();
    let prepared =
        adapters::module_or_manifest(path, &"python3".into(), &"node".into(), &runtimes, limits)
            .unwrap();
    Entry {
        prepared,
        rerun_base: format!("parcall check {}", path.display()),
    }
}

fn compare_on(spec: &Spec, paths: &[PathBuf], seed: u64) -> Matrix {
    let entries: Vec<Entry> = paths.iter().map(|p| entry(p)).collect();
    let plan = compare::Plan {
        spec,
        cases: &spec.cases,
        functions: &Function::EXERCISES,
        fuzz: 5,
        seed,
        settings: Default::default(),
        jobs: 3,
        runs: 1,
    };
    compare::compare(&plan, &entries, &|_| {}).0
}

fn verdicts(matrix: &Matrix) -> Vec<(String, Vec<CellVerdict>)> {
    matrix
        .requirements
        .iter()
        .map(|row| {
            (
                row.id.clone(),
                row.cells.iter().map(|c| c.verdict).collect(),
            )
        })
        .collect()
}

#[test]
fn cells_are_a_function_of_the_implementation_not_the_seed() {
    // The repository's examples in each language: the Rust and Java adapters run from
    // manifest folders, as a team comparing its own programs would name them.
    let dir = temp_dir("compare-languages");
    let manifest = |name: &str, cmd: Vec<String>| {
        let folder = dir.join(name);
        std::fs::create_dir(&folder).unwrap();
        let text = serde_json::json!({ "cmd": cmd }).to_string();
        std::fs::write(folder.join("parcall.json"), text).unwrap();
        folder
    };
    let mut paths = vec![
        root().join(SOLUTION),
        root().join("conformance/examples/javascript/solution.mjs"),
        root().join(BROKEN),
        root().join("conformance/examples/javascript/broken/ids_zero_based.cjs"),
        manifest("rust", vec!["rust-example".to_owned()]),
    ];
    if let Some(java) = common::built_adapters::java_command() {
        let words = java.split(' ').map(str::to_owned).collect();
        paths.push(manifest("java", words));
    }
    let spec = Spec::load_from(&parcall::spec::Source::Embedded).unwrap();
    // One seed after another, the implementations of each side by side (three at a time):
    // three seeds at once would put every implementation's process on two cores at once.
    let matrices: Vec<Matrix> = [1, 2, 3]
        .into_iter()
        .map(|seed| compare_on(&spec, &paths, seed))
        .collect();
    let first = verdicts(&matrices[0]);
    for matrix in &matrices[1..] {
        let differing: Vec<String> = verdicts(matrix)
            .iter()
            .zip(&first)
            .zip(&matrix.requirements)
            .filter(|((now, then), _)| now != then)
            .map(|((now, then), row)| {
                format!("{}: {:?} then {:?}: {:?}", row.id, then.1, now.1, row.cells)
            })
            .collect();
        assert!(differing.is_empty(), "seed {}: {differing:#?}", matrix.seed);
    }
    let matrix = &matrices[0];
    let exercise_requirements = spec
        .requirements
        .iter()
        .filter(|r| Function::EXERCISES.contains(&r.function))
        .count();
    assert_eq!(matrix.requirements.len(), exercise_requirements);
    let row = |id: &str| matrix.requirements.iter().find(|r| r.id == id).unwrap();
    // The solutions meet everything, SANDBOX and MAY rows (not scored) included; so does
    // the Java skeleton, which keeps Python's number rules.
    let java_column = paths.len() - 1;
    for row in &matrix.requirements {
        assert_eq!(row.cells[0].verdict, CellVerdict::Met, "{}", row.id);
        assert_eq!(row.cells[1].verdict, CellVerdict::Met, "{}", row.id);
        if paths.len() == 6 {
            assert_eq!(
                row.cells[java_column].verdict,
                CellVerdict::Met,
                "{}",
                row.id
            );
        }
    }
    // The Rust example fails only where its expectations file says it deviates (numbers
    // keyed as doubles, serde_json's recursion limit): each of its failed cells comes from a
    // case listed there, or from generated cases of the function listed there.
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("conformance/adapters/rust/expectations.json"))
            .unwrap(),
    )
    .unwrap();
    let listed: Vec<&str> = expected["known_failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["case"].as_str().unwrap())
        .collect();
    let rust_failures: Vec<(&str, String)> = matrix
        .requirements
        .iter()
        .filter(|row| row.cells[4].verdict != CellVerdict::Met)
        .map(|row| {
            let case = row.cells[4].smallest_failure.as_ref();
            (
                row.id.as_str(),
                case.map_or(String::new(), |c| c.id.clone()),
            )
        })
        .collect();
    assert!(
        !rust_failures.is_empty()
            && rust_failures.iter().all(|(_, case)| {
                listed
                    .iter()
                    .any(|l| case == l || case.starts_with(&format!("{l}-")))
            }),
        "the Rust example's failures {rust_failures:?} are not all listed in {listed:?}"
    );
    // The broken JavaScript example fails the rule it breaks, as the Python one does.
    assert_eq!(
        row("EXEC-ID-GENERATED").cells[3].verdict,
        CellVerdict::Failed
    );
    assert!(!row("SANDBOX-RAISE").scored && !row("EXEC-DISPATCH-ANY-ORDER").scored);
    assert!(row("EXEC-ID-GENERATED").scored);
    // The broken one fails the rule it breaks, with counts and its smallest failing case.
    let broken = &row("EXEC-ID-GENERATED").cells[2];
    assert_eq!(broken.verdict, CellVerdict::Failed);
    assert!(
        broken.failed > 0 && broken.failed <= broken.cases,
        "{broken:?}"
    );
    let case = broken.smallest_failure.as_ref().unwrap();
    assert!(
        case.rerun.ends_with(&format!("--case {}", case.id)),
        "{case:?}"
    );
    assert!(!case.inputs.is_empty());
    // The handshake says by which number model each is judged.
    let columns = &matrix.implementations;
    assert_eq!(columns[0].number_model, parcall::json::NumberModel::Python);
    assert_eq!(columns[1].number_model, parcall::json::NumberModel::Float64);
}

/// A folder whose manifest starts a program that exits at once: it cannot start.
fn crashing_manifest(dir: &Path) -> PathBuf {
    let folder = dir.join("crashes");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("parcall.json"),
        r#"{"cmd": ["sh", "-c", "echo '<b>boom</b>' >&2; exit 3"]}"#,
    )
    .unwrap();
    folder
}

#[test]
fn the_out_folder_holds_the_matrix_as_markdown_json_and_html() {
    let dir = temp_dir("compare-out");
    let crashes = crashing_manifest(&dir);
    let one = one_function_module(&dir);
    let out = dir.join("out");
    let output = parcall(&[
        "compare",
        BROKEN,
        one.to_str().unwrap(),
        crashes.to_str().unwrap(),
        "--fuzz",
        "5",
        "--seed",
        "7",
        "--format",
        "markdown",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A comparison, not a gate: the matrix was produced, so 0, whatever its cells say.
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let markdown = std::fs::read_to_string(out.join("matrix.md")).unwrap();
    assert_eq!(stdout(&output), markdown);
    assert!(
        markdown.contains("| EXEC-ID-GENERATED | MUST |"),
        "{markdown}"
    );
    assert!(markdown.contains("| SANDBOX-RAISE | MUST (not scored) |"));
    assert!(markdown.contains("defines only execute_tool_calls"));

    let text = std::fs::read_to_string(out.join("matrix.json")).unwrap();
    let matrix: serde_json::Value = serde_json::from_str(&text).unwrap();
    common::assert_follows_schema(&parcall::compare::matrix::schema(), &matrix, "matrix.json");
    // The handshake says it defines one function: the column is marked, the other
    // function's rows say so.
    let one = &matrix["implementations"][1];
    assert_eq!(one["partial"], true, "{one}");
    assert_eq!(one["functions"], serde_json::json!(["execute_tool_calls"]));
    let rows = matrix["requirements"].as_array().unwrap();
    assert_eq!(rows.len(), 45, "every requirement is a row");
    let dedup = rows.iter().find(|r| r["id"] == "DEDUP-KEY-ORDER").unwrap();
    assert_eq!(dedup["cells"][1]["verdict"], "not_defined");
    // The one that cannot start is a column of failures, with why.
    let crashed = &matrix["implementations"][2];
    assert!(
        crashed["error"].as_str().unwrap().contains("exit"),
        "{crashed}"
    );
    for row in matrix["requirements"].as_array().unwrap() {
        assert_eq!(row["cells"][2]["verdict"], "failed", "{row}");
    }
    assert!(out.join("reports/3.json").is_file());

    let page = out.join("matrix.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<b>boom</b>"), "what it printed stays text");
    let Some(browser) = chromium() else {
        eprintln!("skipped the rendering: no Chromium here (.ci/run installs Debian's `chromium`)");
        return;
    };
    let dom = rendered(browser, &page);
    assert!(dom.contains("<table id=\"matrix\">"), "{dom}");
    assert!(
        dom.contains("<th id=\"impl-2\" class=\"met partial\">"),
        "{dom}"
    );
    // Each failed cell links to its smallest failing case, which the page holds.
    let row_start = dom.find("<tr id=\"req-EXEC-ID-GENERATED\">").unwrap();
    let row = &dom[row_start..row_start + dom[row_start..].find("</tr>").unwrap()];
    let link = row.split("<a href=\"#").nth(1).unwrap();
    let anchor = &link[..link.find('"').unwrap()];
    assert!(anchor.starts_with("fail-1-"), "{row}");
    assert!(dom.contains(&format!("<section id=\"{anchor}\">")), "{dom}");
    let dedup = dom.find("<tr id=\"req-DEDUP-KEY-ORDER\">").unwrap();
    let dedup = &dom[dedup..dedup + dom[dedup..].find("</tr>").unwrap()];
    assert!(
        dedup.contains("<td class=\"not-defined\">not defined"),
        "{dedup}"
    );
}

#[test]
fn bad_implementations_are_usage_errors_that_name_them() {
    let dir = temp_dir("compare-bad");
    let bad_manifest = dir.join("bad");
    std::fs::create_dir(&bad_manifest).unwrap();
    std::fs::write(bad_manifest.join("parcall.json"), r#"{"cmd": "./run.sh"}"#).unwrap();
    let missing = dir.join("missing.py");
    let runs = [
        (missing.clone(), "missing.py: no such file"),
        (bad_manifest.clone(), "parcall.json: invalid type"),
        (dir.to_path_buf(), "parcall.json: no such file"),
    ];
    for (path, message) in runs {
        let output = parcall(&["compare", SOLUTION, path.to_str().unwrap(), "--fuzz", "0"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
        assert!(!stderr.contains("comparing"), "nothing ran: {stderr}");
    }
}

/// The renderings people read, on a matrix of in-process subjects (no process, so the
/// snapshot holds no timing, path or version of this machine): the reference, the
/// reference defining only `execute_tool_calls`, and a cache that outlives its batch.
#[test]
fn the_human_and_markdown_renderings() {
    use common::subjects;
    use parcall::compare::render::{self, Format};
    use parcall::reference::Execution;
    use parcall::subject::in_process::{self, InProcess};
    let model = parcall::json::NumberModel::Python;
    let mut reference = in_process::reference(model, Execution::Sequential);
    let mut exec_only = InProcess::new(&[Function::ExecuteToolCalls], |case: &_| {
        let runs = parcall::judge::runs::run_case(model, case, Execution::Sequential);
        (runs.unwrap_or_default(), None)
    });
    let mut cache = InProcess::new(&[Function::RunParallelCalls], subjects::shared_cache());
    let reports = [
        subjects::check(&mut reference, 1, 0),
        subjects::check(&mut exec_only, 1, 0),
        subjects::check(&mut cache, 1, 0),
    ];
    let spec = subjects::spec();
    let plan = compare::Plan {
        spec,
        cases: &spec.cases,
        functions: &Function::EXERCISES,
        fuzz: 0,
        seed: 1,
        settings: Default::default(),
        jobs: 1,
        runs: 1,
    };
    let matrix = compare::build(&plan, &reports);
    let rendered = |format| {
        let mut out = Vec::new();
        render::write(&matrix, format, parcall::report::Palette::plain(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    insta::assert_snapshot!("compare_human", rendered(Format::Human));
    insta::assert_snapshot!("compare_markdown", rendered(Format::Markdown));
}

/// `parcall check` takes a manifest folder as `compare` and `grade` do.
#[test]
fn check_takes_a_manifest_folder_too() {
    let dir = temp_dir("check-manifest");
    let folder = dir.join("reference");
    std::fs::create_dir(&folder).unwrap();
    // The manifest names the runtime the caller declared, by name.
    let manifest = serde_json::json!({"cmd": ["parcall", "reference"]});
    std::fs::write(folder.join("parcall.json"), manifest.to_string()).unwrap();
    let runtime = format!("parcall={}", env!("CARGO_BIN_EXE_parcall"));
    let output = parcall(&[
        "check",
        folder.to_str().unwrap(),
        "--runtime",
        &runtime,
        "--case",
        "exec-seed-00*",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}{}", stdout(&output));
    assert!(
        stdout(&output).contains("passed, 0 failed"),
        "{}",
        stdout(&output)
    );
}
