//! No false failures: a correct implementation conforms whatever order it dispatches in,
//! whatever look-alike values a case holds, whichever functions it defines, whatever was
//! checked before from the same folder, and wherever parcall was built.

use crate::common;

use common::{fresh_regressions, in_lanes, json_report, parcall, root, stdout, temp_dir, TempPath};
use std::path::{Path, PathBuf};
use std::process::Command;

fn example(name: &str) -> String {
    format!("conformance/examples/python/{name}.py")
}

#[test]
fn correct_solutions_in_any_dispatch_order_or_style_conform() {
    // One seed each: the reference in any dispatch order is held on twenty seeds in
    // process (fuzz.rs); this is about the real interpreter running each style.
    let runs: Vec<(&str, &str)> = [
        "solution_reverse_dispatch",
        "solution_thread_pool",
        "solution_asyncio",
    ]
    .into_iter()
    .map(|name| (name, "1"))
    .collect();
    let reports = in_lanes(&runs, 3, |(name, seed)| {
        json_report(&["check", &example(name), "--seed", seed])
    });
    for ((name, seed), (code, report)) in runs.iter().zip(reports) {
        let failed: Vec<_> = report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["outcome"] != "pass")
            .map(|c| c["id"].clone())
            .collect();
        assert_eq!(code, 0, "{name} seed {seed}: {failed:?}");
    }
}

/// Files beside a module named like standard modules (a student's `logging.py` helper) must
/// not break what the standard library imports: asyncio for an `async def` solution,
/// concurrent.futures (which imports logging) for a thread-pool one.
#[test]
fn solutions_beside_files_named_like_the_standard_library_conform() {
    for name in ["solution_asyncio", "solution_thread_pool"] {
        let dir = temp_dir("stdlib-names");
        let module = dir.join(format!("{name}.py"));
        std::fs::copy(root().join(example(name)), &module).unwrap();
        for helper in ["selectors", "logging", "signal", "heapq"] {
            std::fs::write(dir.join(format!("{helper}.py")), "HELPER = 1\n").unwrap();
        }
        let (code, report) = json_report(&[
            "check",
            module.to_str().unwrap(),
            "--case",
            "exec-dispatch-00*",
            "--case",
            "dedup-*-001",
        ]);
        assert_eq!(code, 0, "{name}: {report:#}");
    }
}

/// A file name is bytes: one that is not UTF-8 reaches Python intact (its adapter once
/// failed to send the name, so a correct solution got 0 with an error about memory), and
/// Node, which cannot load it, is a set-up error that says why.
#[test]
fn a_file_name_that_is_not_utf8_is_no_failure() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("not-utf8");
    let folder = dir.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir(&folder).unwrap();
    let python = folder.join(std::ffi::OsStr::from_bytes(b"solution\xff.py"));
    std::fs::copy(root().join(example("solution")), &python).unwrap();
    let raising = folder.join(std::ffi::OsStr::from_bytes(b"raises\xff.py"));
    std::fs::write(
        &raising,
        "def execute_tool_calls(calls, max_parallel=4):\n    raise ValueError('no')\n",
    )
    .unwrap();
    let javascript = folder.join(std::ffi::OsStr::from_bytes(b"solution\xff.mjs"));
    std::fs::copy(
        root().join("conformance/examples/javascript/solution.mjs"),
        &javascript,
    )
    .unwrap();
    let check = |module: &Path| {
        Command::new(env!("CARGO_BIN_EXE_parcall"))
            .arg("check")
            .arg(module)
            .args(["--fuzz", "20", "--seed", "1", "--no-regressions"])
            .output()
            .unwrap()
    };
    let output = check(&python);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // Its traceback names the file: the report still arrives, and judges the module.
    let output = check(&raising);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(stdout(&output).contains("raised"), "{}", stdout(&output));
    let output = check(&javascript);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not") && stderr.contains("UTF-8"),
        "{stderr}"
    );
}

/// A spec folder: the built-in one exported, plus `extra` case files.
fn spec_with(name: &str, extra: &[(&str, &str)]) -> TempPath {
    let dir = temp_dir(name);
    let output = parcall(&["spec", "export", dir.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    for (path, text) in extra {
        std::fs::write(dir.join(path), text).unwrap();
    }
    dir
}

const ZEROS: &str = r#"{"function": "execute_tool_calls", "topic": "zeros", "cases": [
  {"id": "zeros-001", "description": "0.0 and -0.0 are two requests.", "requirements": ["EXEC-DISPATCH-ONCE"],
   "batches": [{"calls": [{"tool": "add", "arguments": {"a": 0, "b": 0.0}}, {"tool": "add", "arguments": {"a": 0, "b": -0.0}},
                          {"tool": "add", "arguments": {"a": 1, "b": 1}}, {"tool": "add", "arguments": {"a": 1, "b": 1.0}}],
                "expected": [{"role": "tool", "tool_call_id": "call_1", "content": "0.0"},
                             {"role": "tool", "tool_call_id": "call_2", "content": "0.0"},
                             {"role": "tool", "tool_call_id": "call_3", "content": "2"},
                             {"role": "tool", "tool_call_id": "call_4", "content": "2.0"}],
                "invocations": [{"tool": "add", "arguments": {"a": 0, "b": 0.0}}, {"tool": "add", "arguments": {"a": 0, "b": -0.0}},
                                {"tool": "add", "arguments": {"a": 1, "b": 1}}, {"tool": "add", "arguments": {"a": 1, "b": 1.0}}]}]}]}
"#;

const NAN: &str = r#"{"function": "run_parallel_calls", "topic": "nan", "cases": [
  {"id": "nan-001", "description": "NaN and the infinities reach the implementation as themselves.", "requirements": ["DEDUP-KEY-LITERALS"],
   "tools": {"t": {"responses": [{"answers": [{"type": "return", "value": "ok"}]}]}},
   "batches": [{"calls": [{"name": "t", "args": {"x": NaN}}, {"name": "t", "args": {"x": Infinity}}, {"name": "t", "args": {"x": null}}],
                "expected": {"t({\"x\": NaN})": "ok", "t({\"x\": Infinity})": "ok", "t({\"x\": null})": "ok"},
                "invocations": [{"name": "t", "args": {"x": NaN}}, {"name": "t", "args": {"x": Infinity}}, {"name": "t", "args": {"x": null}}]}]}]}
"#;

/// `__proto__` is an ordinary key and an ordinary tool name in JSON; a JavaScript object
/// built by assignment turns it into the object's prototype and loses it, so `{"__proto__":
/// 1}` and `{}` would look like one call.
const PROTO: &str = r#"{"function": "run_parallel_calls", "topic": "proto", "cases": [
  {"id": "proto-001", "description": "__proto__ is an argument key and a tool name like any other.", "requirements": ["DEDUP-KEY-LITERALS"],
   "tools": {"t": {"responses": [{"answers": [{"type": "return", "value": "ok"}]}]},
             "__proto__": {"responses": [{"answers": [{"type": "return", "value": {"__proto__": 2}}]}]}},
   "batches": [{"calls": [{"name": "t", "args": {"__proto__": 1}}, {"name": "t", "args": {}}, {"name": "t", "args": {"__proto__": {"x": 1}}},
                          {"name": "__proto__", "args": {"a": 1}}],
                "expected": {"t({\"__proto__\": 1})": "ok", "t({})": "ok", "t({\"__proto__\": {\"x\": 1}})": "ok",
                             "__proto__({\"a\": 1})": {"__proto__": 2}},
                "invocations": [{"name": "t", "args": {"__proto__": 1}}, {"name": "t", "args": {}}, {"name": "t", "args": {"__proto__": {"x": 1}}},
                                {"name": "__proto__", "args": {"a": 1}}]}]}]}
"#;

#[test]
fn look_alike_values_reach_the_implementation_as_distinct_requests() {
    let spec = spec_with(
        "look-alikes",
        &[
            ("cases/execute_tool_calls/zeros.json", ZEROS),
            ("cases/run_parallel_calls/nan.json", NAN),
            ("cases/run_parallel_calls/proto.json", PROTO),
        ],
    );
    let reference = format!("{} reference", env!("CARGO_BIN_EXE_parcall"));
    for target in [
        vec!["--cmd", reference.as_str()],
        vec![&*example("solution")],
        vec!["conformance/examples/javascript/solution.mjs"],
    ] {
        let mut args = vec!["check"];
        args.extend(&target);
        args.extend([
            "--spec",
            spec.to_str().unwrap(),
            "--case",
            "zeros-*",
            "--case",
            "nan-*",
            "--case",
            "proto-*",
        ]);
        let (code, report) = json_report(&args);
        assert_eq!(code, 0, "{target:?}: {report:#}");
        assert_eq!(report["summary"]["passed"], 3, "{report:#}");
    }
}

/// A case whose every line is far longer than one read of a pipe, made of characters of
/// three bytes each: wherever a read ends, it ends inside one, in either direction.
/// (The reply stays within the protocol's bound of 256 KiB per output.)
fn long_multibyte_case() -> String {
    let text = "한".repeat(25_000);
    let escaped = "\\\\ud55c".repeat(25_000);
    let answer = "한".repeat(20_000);
    let args = format!(r#"{{"s": "{text}"}}"#);
    format!(
        r#"{{"function": "run_parallel_calls", "topic": "long-text", "cases": [
  {{"id": "long-text-001", "description": "A long text of multibyte characters crosses the pipe intact.", "requirements": ["DEDUP-KEY-ASCII"],
   "tools": {{"t": {{"responses": [{{"answers": [{{"type": "return", "value": "{answer}"}}]}}]}}}},
   "batches": [{{"calls": [{{"name": "t", "args": {args}}}],
                "expected": {{"t({{\"s\": \"{escaped}\"}})": "{answer}"}},
                "invocations": [{{"name": "t", "args": {args}}}]}}]}}]}}
"#
    )
}

#[test]
fn characters_split_across_reads_of_the_pipe_arrive_whole() {
    let spec = spec_with(
        "long-text",
        &[(
            "cases/run_parallel_calls/long_text.json",
            &long_multibyte_case(),
        )],
    );
    let reference = format!("{} reference", env!("CARGO_BIN_EXE_parcall"));
    let python = example("solution");
    let targets: [&[&str]; 3] = [
        &["--cmd", &reference],
        &[&python],
        &["conformance/examples/javascript/solution.mjs"],
    ];
    for target in targets {
        let mut args = vec!["check"];
        args.extend(target);
        args.extend(["--spec", spec.to_str().unwrap(), "--case", "long-text-*"]);
        let (code, report) = json_report(&args);
        assert_eq!(code, 0, "{target:?}: {:#}", report["cases"]);
        assert_eq!(report["summary"]["passed"], 1, "{target:?}");
    }
}

fn without_run_parallel_calls(dir: &Path) -> PathBuf {
    let source = std::fs::read_to_string(root().join(example("solution"))).unwrap();
    let module = dir.join("exec_only.py");
    std::fs::write(
        &module,
        source.replace("def run_parallel_calls(", "def _not_exported("),
    )
    .unwrap();
    module
}

#[test]
fn a_module_defining_one_function_is_judged_on_that_function_only() {
    let dir = temp_dir("one-function");
    let module = without_run_parallel_calls(&dir);
    let (code, report) = json_report(&["check", module.to_str().unwrap(), "--seed", "1"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        report["functions"],
        serde_json::json!(["execute_tool_calls"])
    );
    let functions: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["function"].as_str().unwrap())
        .collect();
    assert!(
        functions.iter().all(|f| *f == "execute_tool_calls"),
        "{functions:?}"
    );
    let human = parcall(&[
        "check",
        module.to_str().unwrap(),
        "--seed",
        "1",
        "--color",
        "never",
    ]);
    assert!(
        stdout(&human).contains("run_parallel_calls is not defined: not checked"),
        "{}",
        stdout(&human)
    );
    // Asking for the missing function by name is still a failure.
    let (code, _) = json_report(&[
        "check",
        module.to_str().unwrap(),
        "--function",
        "run_parallel_calls",
        "--fuzz",
        "0",
    ]);
    assert_eq!(code, 1);
}

#[test]
fn a_module_defining_neither_function_fails_with_a_clear_message() {
    let dir = temp_dir("no-function");
    let module = dir.join("nothing.py");
    std::fs::write(&module, "x = 1\n").unwrap();
    let output = parcall(&["check", module.to_str().unwrap(), "--color", "never"]);
    assert_eq!(output.status.code(), Some(1));
    let text = format!(
        "{}{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("defines neither"), "{text}");
}

fn check_with_regressions(
    module: &str,
    regressions: &Path,
    extra: &[&str],
) -> (i32, serde_json::Value, String) {
    let mut args = vec![
        "check", module, "--seed", "5", "--fuzz", "60", "--format", "json",
    ];
    args.extend(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(&args)
        .current_dir(root())
        .env("PARCALL_REGRESSIONS", regressions)
        .output()
        .unwrap();
    let report = parcall::json::parse(&stdout(&output)).unwrap();
    (
        output.status.code().unwrap_or(-1),
        parcall::json::to_serde_json(&report),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn one_implementations_counterexamples_never_reach_another() {
    let regressions = fresh_regressions();
    let broken = example("broken/ids_zero_based");
    let (code, _, stderr) = check_with_regressions(&broken, &regressions, &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains("recorded in"), "{stderr}");
    // The broken module's counterexample is replayed against it on the next run...
    let (_, again, _) = check_with_regressions(&broken, &regressions, &[]);
    let replayed = |report: &serde_json::Value| {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                c["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("regressions.json"))
            })
            .count()
    };
    assert_eq!(replayed(&again), 1);
    // ...but never against another implementation checked from the same folder.
    let (code, correct, _) = check_with_regressions(&example("solution"), &regressions, &[]);
    assert_eq!(code, 0);
    assert_eq!(replayed(&correct), 0);
    let alone = fresh_regressions();
    let (_, baseline, _) = check_with_regressions(&example("solution"), &alone, &[]);
    assert_eq!(correct["summary"], baseline["summary"]);
}

#[test]
fn with_an_expectations_file_regressions_neither_run_nor_get_pinned() {
    let regressions = fresh_regressions();
    let broken = example("broken/ids_zero_based");
    check_with_regressions(&broken, &regressions, &[]);
    let expectations = temp_dir("expectations").into_file("expected.json");
    let path = expectations.to_str().unwrap();
    let (code, _, stderr) = check_with_regressions(
        &broken,
        &regressions,
        &["--expectations", path, "--update-expectations"],
    );
    assert_eq!(code, 0, "{stderr}");
    let written = std::fs::read_to_string(&expectations).unwrap();
    assert!(!written.contains("regressions"), "{written}");
    // The gated verdict is the same with the regressions file gone, and the gate writes
    // none: it once left `.parcall/regressions.json` in the checkout it gated, saying "the
    // next run replays it first", which no gated run does.
    let untouched = fresh_regressions();
    let (code, _, stderr) = check_with_regressions(&broken, &untouched, &["--expectations", path]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!untouched.exists(), "{stderr}");
    assert!(!stderr.contains("recorded in"), "{stderr}");
}

#[test]
fn a_corrupt_regressions_file_is_a_warning_that_names_it() {
    let regressions = fresh_regressions();
    std::fs::create_dir_all(regressions.parent().unwrap()).unwrap();
    std::fs::write(&regressions, "{not json").unwrap();
    let (code, report, stderr) = check_with_regressions(&example("solution"), &regressions, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(report["verdict"], "conforms");
    assert!(
        stderr.contains("warning") && stderr.contains(regressions.to_str().unwrap()),
        "{stderr}"
    );
    // A broken module finds a counterexample, and it is not written over the file: the
    // user decides what to do with it.
    let broken = example("broken/ids_zero_based");
    let (code, _, stderr) = check_with_regressions(&broken, &regressions, &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains("warning"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&regressions).unwrap(), "{not json");
}

/// The built-in spec is the one the binary was built with: hiding the source tree's spec
/// folder (a tmpfs mounted over it in a private mount namespace) changes nothing.
#[test]
fn the_spec_travels_inside_the_binary() {
    let spec_dir = root().join("spec");
    let script = format!(
        "mount -t tmpfs none {} && {} spec check",
        shell_quote(&spec_dir),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_parcall")))
    );
    let probe = Command::new("unshare").args(["--mount", "true"]).output();
    // SAFETY: geteuid has no side effects.
    let root = unsafe { libc::geteuid() } == 0;
    if !probe.is_ok_and(|o| o.status.success()) {
        // As root (CI, and every developer machine here) the namespace must be there.
        assert!(!root, "root cannot create a mount namespace here");
        eprintln!(
            "skipped: not root, so no mount namespace (`unshare --mount`) hides the source tree"
        );
        return;
    }
    let output = Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{text}");
    assert!(text.contains("is valid"), "{text}");
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

#[test]
fn spec_export_writes_the_built_in_files_byte_for_byte() {
    let dir = temp_dir("export");
    let output = parcall(&["spec", "export", dir.to_str().unwrap()]);
    assert!(output.status.success());
    for (relative, text) in parcall::spec::Source::embedded_files() {
        let written = std::fs::read_to_string(dir.join(relative)).unwrap();
        assert_eq!(&written, text, "{relative}");
        let source = std::fs::read_to_string(root().join("spec").join(relative)).unwrap();
        assert_eq!(
            &source, text,
            "{relative} differs from the source tree: rebuild"
        );
    }
}
