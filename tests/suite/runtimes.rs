//! The runtime profile on real agent frameworks, end to end: the pinned frameworks installed
//! into the project-local environment on first use (`scripts/runtime_env.sh`), every adapter
//! shown to drive its framework's own tool execution, the matrix finding each defect class on
//! the framework that has it, the published matrix (docs/runtimes.md) reproduced, and every
//! minimal reproduction of a divergence still showing it.

use crate::common::{browser, root};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The adapters parcall ships, with the framework each drives.
const ADAPTERS: [(&str, &str); 5] = [
    (
        "conformance/runtimes/python/langgraph_toolnode.py",
        "langgraph",
    ),
    (
        "conformance/runtimes/python/pydantic_ai_agent.py",
        "pydantic-ai-slim",
    ),
    (
        "conformance/runtimes/python/openai_agents_runner.py",
        "openai-agents",
    ),
    (
        "conformance/runtimes/python/smolagents_toolcalling.py",
        "smolagents",
    ),
    (
        "conformance/runtimes/javascript/vercel_ai_generate.mjs",
        "ai",
    ),
];

const VENV: &str = ".runtimes/python";
const NODE_MODULES: &str = "conformance/runtimes/javascript/node_modules";

/// Installs the pinned frameworks once per test run (a no-op when the pins have not
/// changed since the last install).
fn environment() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(|p| p.into_inner());
    INSTALLED.get_or_init(|| {
        let output = Command::new(root().join("scripts/runtime_env.sh"))
            .current_dir(root())
            .output()
            .expect("scripts/runtime_env.sh runs");
        assert!(
            output.status.success(),
            "installing the runtimes failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    });
}

/// The pinned version of `package` in the Python requirements or the npm manifest.
fn pinned(package: &str) -> String {
    let requirements =
        std::fs::read_to_string(root().join("conformance/runtimes/python/requirements.txt"))
            .unwrap();
    let prefix = format!("{package}==");
    if let Some(line) = requirements.lines().find(|l| l.starts_with(&prefix)) {
        return line[prefix.len()..].trim().to_owned();
    }
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("conformance/runtimes/javascript/package.json"))
            .unwrap(),
    )
    .unwrap();
    manifest["dependencies"][package]
        .as_str()
        .unwrap_or_else(|| panic!("{package} is pinned nowhere"))
        .to_owned()
}

/// Imports an adapter outside parcall, runs one turn of two calls through it with plain
/// stubs, and prints what it declared and gave.
const PYTHON_PROBE: &str = r#"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("adapter", sys.argv[1])
adapter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adapter)
ran = []
def stub(name):
    def tool(args):
        ran.append(name)
        return name + " says hi"
    tool.__name__ = name
    tool.parameters = {"type": "object", "properties": {"q": {}}, "additionalProperties": False}
    tool.description = "The %s tool." % name
    return tool
tools = {"search": stub("search"), "lookup": stub("lookup")}
calls = [{"id": "call_a", "name": "search", "arguments": {"q": "x"}},
         {"id": "call_b", "name": "lookup", "arguments": {"q": "y"}}]
results = adapter.run_tool_calls(tools, calls)
declared = adapter.RUNTIME.get("message_types", adapter.RUNTIME.get("message_type"))
declared = [declared] if isinstance(declared, str) else declared
classes = []
for name in declared:
    module, _, qualname = name.rpartition(".")
    target = sys.modules[module]
    for part in qualname.split("."):
        target = getattr(target, part)
    classes.append(target.__module__ + "." + target.__qualname__)
print(json.dumps({"runtime": adapter.RUNTIME, "results": results, "ran": sorted(ran),
                  "classes": classes}))
"#;

const NODE_PROBE: &str = r#"
import { pathToFileURL } from "node:url";
const adapter = await import(pathToFileURL(process.argv[1]).href);
const ran = [];
const stub = (name) => {
  const tool = (args) => { ran.push(name); return `${name} says hi`; };
  tool.parameters = { type: "object", properties: { q: {} }, additionalProperties: false };
  tool.description = `The ${name} tool.`;
  return tool;
};
const calls = [{ id: "call_a", name: "search", arguments: { q: "x" } },
               { id: "call_b", name: "lookup", arguments: { q: "y" } }];
const results = await adapter.run_tool_calls({ search: stub("search"), lookup: stub("lookup") }, calls);
console.log(JSON.stringify({ runtime: adapter.RUNTIME, results, ran: ran.sort(), classes: adapter.RUNTIME.message_types }));
"#;

/// A test fails if an adapter stops exercising its framework: it must answer through the
/// framework's own result objects (every result's `message_type` one the framework defines
/// and the adapter declares), run each tool once, and report the pinned version.
#[test]
fn every_adapter_drives_its_framework_s_own_tool_execution() {
    environment();
    for (adapter, framework) in ADAPTERS {
        let path = root().join(adapter);
        let output = if adapter.ends_with(".py") {
            Command::new(root().join(VENV).join("bin/python"))
                .args(["-c", PYTHON_PROBE])
                .arg(&path)
                .output()
        } else {
            Command::new("node")
                .args(["--input-type=module", "-e", NODE_PROBE])
                .arg(&path)
                .current_dir(root().join("conformance/runtimes/javascript"))
                .output()
        }
        .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{adapter}: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let probe: serde_json::Value = serde_json::from_str(text.lines().last().unwrap())
            .unwrap_or_else(|e| panic!("{adapter}: {e}: {text}"));
        assert_eq!(probe["runtime"]["framework"], framework, "{adapter}");
        assert_eq!(probe["runtime"]["version"], pinned(framework), "{adapter}");
        assert_eq!(
            probe["ran"],
            serde_json::json!(["lookup", "search"]),
            "{adapter}"
        );
        let classes = probe["classes"].as_array().unwrap();
        let results = probe["results"].as_array().unwrap();
        assert_eq!(results.len(), 2, "{adapter}: {results:?}");
        for result in results {
            assert!(
                classes.contains(&result["message_type"]),
                "{adapter}: {result} is not one of the framework's {classes:?}"
            );
        }
        let ids: Vec<&str> = results
            .iter()
            .map(|r| r["tool_call_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["call_a", "call_b"], "{adapter}");
    }
}

/// The comparison the published matrix is made with (scripts/runtime_matrix.sh), at `seed`.
fn matrix(seed: u64, runs: usize) -> serde_json::Value {
    environment();
    let mut command = Command::new(env!("CARGO_BIN_EXE_parcall"));
    command
        .arg("compare")
        .args(ADAPTERS.map(|(adapter, _)| adapter))
        .args(["--profile", "runtime", "--fuzz", "100", "--format", "json"])
        .args(["--seed", &seed.to_string(), "--runs", &runs.to_string()])
        .args(["--python", &format!("{VENV}/bin/python")])
        .args(["--readable", VENV, "--readable", NODE_MODULES])
        // Importing a framework takes 2-3 s on an idle machine and over 10 s while the suite's
        // other tests load both cores; the start-up deadline is not what is tested here.
        .args(["--startup-timeout", "60"])
        .current_dir(root());
    let output = command.output().unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The matrix of seed 1 with two runs, as published: computed once for the tests that read it.
fn seed_one() -> &'static serde_json::Value {
    static MATRIX: OnceLock<serde_json::Value> = OnceLock::new();
    MATRIX.get_or_init(|| matrix(1, 2))
}

/// Each cell's verdict and whether it is flaky, by (framework, requirement).
fn verdicts(matrix: &serde_json::Value) -> Vec<((String, String), (String, bool))> {
    let columns: Vec<String> = matrix["implementations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["runtime"]["framework"].as_str().unwrap_or("?").to_owned())
        .collect();
    let mut cells = Vec::new();
    for row in matrix["requirements"].as_array().unwrap() {
        for (column, cell) in columns.iter().zip(row["cells"].as_array().unwrap()) {
            let verdict = cell["verdict"].as_str().unwrap().to_owned();
            let flaky = cell["flaky"].as_bool().unwrap_or(false);
            cells.push((
                (column.clone(), row["id"].as_str().unwrap().to_owned()),
                (verdict, flaky),
            ));
        }
    }
    cells
}

fn verdict(matrix: &serde_json::Value, framework: &str, requirement: &str) -> String {
    verdicts(matrix)
        .into_iter()
        .find(|((f, r), _)| f == framework && r == requirement)
        .map(|(_, (v, _))| v)
        .unwrap_or_else(|| panic!("no cell {framework} × {requirement}"))
}

/// The defect classes real frameworks were found to have, each found by the matrix on the
/// framework that has it (docs/runtimes/repros/ has each in plain framework code).
#[test]
fn the_matrix_finds_each_defect_class_on_the_framework_that_has_it() {
    let matrix = seed_one();
    // A tool that raises aborts the turn, losing the results of the calls that ran.
    for framework in [
        "langgraph",
        "pydantic-ai-slim",
        "openai-agents",
        "smolagents",
    ] {
        assert_eq!(
            verdict(matrix, framework, "RUNTIME-ERROR-ISOLATED"),
            "failed",
            "{framework}"
        );
    }
    assert_eq!(verdict(matrix, "ai", "RUNTIME-ERROR-ISOLATED"), "met");
    // A malformed call (no id) crashes the turn after the tools ran.
    assert_eq!(
        verdict(matrix, "langgraph", "RUNTIME-MALFORMED-ANSWERED"),
        "failed"
    );
    // Calls that share an id collapse: only one of them runs. OpenAI Agents declares it
    // (`collapsed`) and is held to that; smolagents drops calls its declaration does not
    // cover (several without id, calls beside a failing one).
    assert_eq!(
        verdict(matrix, "smolagents", "RUNTIME-EXECUTE-ONCE"),
        "failed"
    );
    assert_eq!(
        verdict(matrix, "openai-agents", "RUNTIME-EXECUTE-ONCE"),
        "met"
    );
    assert_eq!(verdict(matrix, "langgraph", "RUNTIME-EXECUTE-ONCE"), "met");
    // Results come back in completion order.
    assert_eq!(
        verdict(matrix, "smolagents", "RUNTIME-RESULT-ORDER"),
        "failed"
    );
    assert_eq!(verdict(matrix, "langgraph", "RUNTIME-RESULT-ORDER"), "met");
}

/// The published matrix is this one: every cell's verdict is what a fresh run of the same
/// command gives, apart from cells flagged flaky in either.
#[test]
fn the_published_matrix_is_what_the_command_gives() {
    let published: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/runtimes.json")).unwrap())
            .unwrap();
    assert_same_verdicts(
        &published,
        seed_one(),
        "docs/runtimes.json (rerun scripts/runtime_matrix.sh)",
    );
}

/// The verdicts do not move with the seed: another seed's cases find the same cells, apart
/// from cells flagged flaky.
#[test]
fn the_matrix_is_the_same_across_seeds_apart_from_flaky_cells() {
    assert_same_verdicts(seed_one(), &matrix(2, 2), "seed 2 against seed 1");
}

fn assert_same_verdicts(a: &serde_json::Value, b: &serde_json::Value, what: &str) {
    let (a, b) = (verdicts(a), verdicts(b));
    assert_eq!(a.len(), b.len(), "{what}");
    let differing: Vec<String> = a
        .iter()
        .zip(&b)
        .filter(|((_, (va, fa)), (_, (vb, fb)))| va != vb && !fa && !fb)
        .map(|(((f, r), (va, _)), (_, (vb, _)))| format!("{f} × {r}: {va} / {vb}"))
        .collect();
    assert!(differing.is_empty(), "{what}: {differing:#?}");
}

/// The rerun command the published matrix gives for each framework's first failing fixed
/// case reruns exactly that case, which fails again.
#[test]
fn the_published_rerun_commands_rerun_the_failing_case() {
    environment();
    let published: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/runtimes.json")).unwrap())
            .unwrap();
    let parcall = PathBuf::from(env!("CARGO_BIN_EXE_parcall"));
    for column in 0..ADAPTERS.len() {
        let rerun = published["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|row| row["cells"][column]["smallest_failure"].as_object())
            .map(|case| case["rerun"].as_str().unwrap().to_owned())
            .find(|rerun| rerun.contains("--case runtime-"))
            .unwrap_or_else(|| panic!("column {column} has no failing fixed case"));
        let words = shell_words::split(&rerun).unwrap();
        assert_eq!(words[..2], ["parcall", "check"], "{rerun}");
        let output = Command::new(&parcall)
            .args(&words[1..])
            .args(["--format", "json"])
            .current_dir(root())
            .output()
            .unwrap();
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
                panic!("{rerun}: {e}: {}", String::from_utf8_lossy(&output.stderr))
            });
        assert_eq!(output.status.code(), Some(1), "{rerun}");
        let cases = report["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 1, "{rerun}");
        assert_ne!(cases[0]["outcome"], "pass", "{rerun}");
    }
}

/// The published page is read in a real browser: one column per framework, one row per
/// requirement of the profile, and every failing cell's evidence linked.
#[test]
fn the_published_page_shows_every_framework_and_requirement_in_a_browser() {
    let Some(browser) = browser::chromium() else {
        assert!(
            std::env::var_os("PARCALL_REQUIRE_CONSUMERS").is_none(),
            "chromium is required here"
        );
        eprintln!("skipped: no chromium");
        return;
    };
    let dom = browser::rendered(browser, &root().join("docs/runtimes.html"));
    for (_, framework) in ADAPTERS {
        assert!(
            dom.contains(&format!("{framework} ")),
            "{framework} is not on the page"
        );
    }
    let rows = dom.matches("<tr id=\"req-RUNTIME-").count();
    let requirements: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("spec/requirements.json")).unwrap(),
    )
    .unwrap();
    let runtime_requirements = requirements["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["id"].as_str().unwrap_or_default().starts_with("RUNTIME-"))
        .count();
    assert_eq!(
        rows, runtime_requirements,
        "one row per requirement of the runtime profile"
    );
    for link in dom.split("href=\"#").skip(1) {
        let anchor = &link[..link.find('"').unwrap()];
        assert!(
            dom.contains(&format!("id=\"{anchor}\"")),
            "{anchor} links nowhere"
        );
    }
}

/// Every reproduction under docs/runtimes/repros/ runs in the pinned environment and still
/// shows its divergence, and every failed cell of the published matrix has one naming it.
#[test]
fn every_divergence_has_a_reproduction_that_still_shows_it() {
    environment();
    let folder = root().join("docs/runtimes/repros");
    let mut repros: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    repros.sort();
    let mut named = Vec::new();
    for repro in &repros {
        let text = std::fs::read_to_string(repro).unwrap();
        let output = if repro.extension().is_some_and(|e| e == "py") {
            Command::new(root().join(VENV).join("bin/python"))
                .arg(repro)
                .output()
        } else {
            Command::new("node")
                .arg("--input-type=module")
                .stdin(std::fs::File::open(repro).unwrap())
                .current_dir(root().join("conformance/runtimes/javascript"))
                .output()
        }
        .unwrap();
        let shown = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && shown.contains("ACTUAL"),
            "{}: {shown}{}",
            repro.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        for line in text.lines().filter(|l| l.contains("parcall: RUNTIME-")) {
            let id = &line[line.find("RUNTIME-").unwrap()..];
            let id: String = id
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '-')
                .collect();
            let name = repro.file_name().unwrap().to_string_lossy().into_owned();
            named.push((name, id));
        }
    }
    let published: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/runtimes.json")).unwrap())
            .unwrap();
    let prefixes = [
        ("langgraph", "langgraph-"),
        ("pydantic-ai-slim", "pydantic-ai-"),
        ("openai-agents", "openai-agents-"),
        ("smolagents", "smolagents-"),
        ("ai", "vercel-ai-"),
    ];
    for ((framework, requirement), (verdict, _)) in verdicts(&published) {
        if verdict != "failed" {
            continue;
        }
        let prefix = prefixes.iter().find(|(f, _)| *f == framework).unwrap().1;
        assert!(
            named
                .iter()
                .any(|(file, id)| file.starts_with(prefix) && *id == requirement),
            "{framework} fails {requirement}, and no repro under docs/runtimes/repros/ names it"
        );
    }
}
