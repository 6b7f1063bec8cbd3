//! Number models (RULES E) end to end: an implementation declares `float64` in its
//! handshake, the reference computes its expectations as a float64 runtime must, every
//! report states the model, and an implementation that tells `1` from `1.0` apart where a
//! float64 runtime cannot is caught, and charged to the number rules.

use crate::common;

use common::{in_lanes, json_report, parcall, root, stdout, temp_dir};
use std::collections::BTreeSet;

const JS: &str = "conformance/examples/javascript/solution.mjs";

/// Every requirement the report's cases and generated counterexamples are charged to.
fn charged(report: &serde_json::Value) -> BTreeSet<String> {
    let generated = report["generated"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["counterexamples"].as_array().unwrap().iter());
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .chain(generated)
        .flat_map(|c| c["charges"].as_array().unwrap().iter())
        .map(|c| c["requirement"].as_str().unwrap().to_owned())
        .collect()
}

fn failures(report: &serde_json::Value) -> Vec<String> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] != "pass")
        .map(|c| format!("{} {} {}", c["id"], c["outcome"], c["charges"]))
        .collect()
}

#[test]
fn the_javascript_example_conforms_with_no_expectations_file_on_every_seed() {
    let seeds: Vec<String> = (1..=5).map(|seed| seed.to_string()).collect();
    let reports = in_lanes(&seeds, 3, |seed| {
        json_report(&["check", JS, "--seed", seed])
    });
    for (seed, (code, report)) in seeds.iter().zip(reports) {
        assert_eq!(code, 0, "seed {seed}: {:#?}", failures(&report));
        assert_eq!(report["number_model"], "float64");
        assert_eq!(report["summary"]["expected_failures"], 0);
        for generated in report["generated"].as_array().unwrap() {
            assert_eq!(generated["cases"], 500, "seed {seed}");
            assert_eq!(generated["failed"], 0, "seed {seed}");
        }
    }
}

/// A port that writes every number of a key as Python writes a float (`1` and `1.0` both
/// as `1.0`): each failure is charged to the number rule of the literal it respells.
#[test]
fn a_javascript_port_writing_python_floats_is_charged_to_the_number_rules_alone() {
    let module = "conformance/examples/javascript/broken/dedup_python_float_repr.mjs";
    let (code, report) = json_report(&["check", module, "--seed", "1", "--no-regressions"]);
    assert_eq!(code, 1);
    assert_eq!(report["number_model"], "float64");
    let expected: BTreeSet<String> = ["DEDUP-NUMBER-FLOAT", "DEDUP-NUMBER-INT"]
        .map(String::from)
        .into();
    assert_eq!(charged(&report), expected);
    let case = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "dedup-number-001")
        .unwrap();
    let diagnosis = case["charges"][0]["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.contains(r#"call 1's key is "f({\"a\": 1.0})", expected "f({\"a\": 1})""#),
        "{diagnosis}"
    );
}

/// The embedded Python adapter, changed to announce `number_model` in its handshake.
fn python_adapter_declaring(model: &str) -> common::TempPath {
    let source =
        std::fs::read_to_string(root().join("conformance/adapters/python/parcall_adapter.py"))
            .unwrap();
    let plain = r#""functions": [], "problems": []}"#;
    assert!(source.contains(plain), "the adapter's hello changed");
    let declared = source.replace(
        plain,
        &format!(r#""functions": [], "problems": [], "number_model": {model}}}"#),
    );
    let path =
        temp_dir(&format!("adapter-{}", model.trim_matches('"'))).into_file("parcall_adapter.py");
    std::fs::write(&path, declared).unwrap();
    path
}

fn python_solution_command(adapter: &std::path::Path) -> String {
    format!(
        "python3 {} {}",
        adapter.display(),
        root()
            .join("conformance/examples/python/solution.py")
            .display()
    )
}

/// Python's own semantics behind a handshake that declares float64: it keys `{"a": 1.0}`
/// as `f({"a": 1.0})` and `1` and `1.0` as two calls, which no float64 runtime can.
#[test]
fn an_implementation_that_tells_1_from_1_0_apart_under_float64_is_caught() {
    let adapter = python_adapter_declaring(r#""float64""#);
    let command = python_solution_command(&adapter);
    let (code, report) = json_report(&[
        "check",
        "--cmd",
        &command,
        "--function",
        "run_parallel_calls",
        "--fuzz",
        "0",
    ]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["number_model"], "float64");
    let lost = charged(&report);
    assert!(lost.contains("DEDUP-NUMBER-FLOAT"), "{lost:?}");
    assert!(
        lost.iter().all(|r| r.starts_with("DEDUP-NUMBER-")),
        "{lost:?}: {:#?}",
        failures(&report)
    );
    let distinct = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "dedup-number-011")
        .unwrap();
    assert_eq!(distinct["outcome"], "wrong output", "{distinct:#}");
    // The same module, declaring nothing, conforms on them.
    let adapter = python_adapter_declaring(r#""python""#);
    let command = python_solution_command(&adapter);
    let (code, report) = json_report(&[
        "check",
        "--cmd",
        &command,
        "--function",
        "run_parallel_calls",
        "--fuzz",
        "0",
    ]);
    assert_eq!(code, 0, "{:#?}", failures(&report));
    assert_eq!(report["number_model"], "python");
}

#[test]
fn a_number_model_the_runner_does_not_know_is_a_protocol_error_naming_it() {
    for (declared, shown) in [
        (
            r#""float32""#,
            r#"number_model "float32" is not a number model"#,
        ),
        ("64", "number_model 64 is not a number model"),
    ] {
        let adapter = python_adapter_declaring(declared);
        let output = parcall(&[
            "check",
            "--cmd",
            &python_solution_command(&adapter),
            "--fuzz",
            "0",
            "--color",
            "never",
        ]);
        let text = stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(
            text.contains("the implementation broke the protocol during the handshake"),
            "{text}"
        );
        assert!(text.contains(shown), "{text}");
    }
}

#[test]
fn the_reference_served_as_a_float64_runtime_conforms_and_every_format_says_so() {
    let float64 = format!(
        "{} reference --number-model float64",
        env!("CARGO_BIN_EXE_parcall")
    );
    let (code, report) = json_report(&["check", "--cmd", &float64, "--seed", "3"]);
    assert_eq!(code, 0, "{:#?}", failures(&report));
    assert_eq!(report["number_model"], "float64");
    let header = |format: &str| {
        stdout(&parcall(&[
            "check",
            "--cmd",
            &float64,
            "--fuzz",
            "0",
            "--case",
            "dedup-number-001",
            "--format",
            format,
            "--color",
            "never",
        ]))
    };
    let human = header("human");
    assert!(
        human
            .lines()
            .next()
            .unwrap()
            .ends_with(" · number model float64"),
        "{human}"
    );
    assert!(header("markdown").contains("number model float64"));
    assert!(header("html").contains("number model float64"));
    assert!(header("tap").contains("· number model float64"));
    assert!(header("github").contains("(number model float64)"));
    assert!(header("junit").contains(r#"<property name="number_model" value="float64"/>"#));
    let python = format!("{} reference", env!("CARGO_BIN_EXE_parcall"));
    let (code, report) = json_report(&["check", "--cmd", &python, "--fuzz", "0"]);
    assert_eq!(code, 0);
    assert_eq!(report["number_model"], "python");
}

/// `ecmascript_number` against Node's own `String(x)` on 100,000 doubles: random bit
/// patterns, integers around 2^53, short decimals and halfway cases.
#[test]
fn ecmascript_numbers_match_node() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut values: Vec<f64> = Vec::new();
    for i in 0..100_000u64 {
        let value = match i % 4 {
            0 => f64::from_bits(next()),
            1 => ((next() % (1 << 54)) as f64) * if i % 8 == 1 { -1.0 } else { 1.0 },
            2 => (next() % 1_000_000) as f64 / [1.0, 10.0, 1e3, 1e7][(i / 4 % 4) as usize],
            _ => (next() % (1 << 50)) as f64 + 0.125 * (next() % 8) as f64,
        };
        if value.is_finite() {
            values.push(value);
        }
    }
    let script = "let t='';process.stdin.on('data',d=>t+=d).on('end',()=>{const b=Buffer.from(t,'hex');let o=[];for(let i=0;i<b.length;i+=8)o.push(String(b.readDoubleLE(i)));process.stdout.write(o.join('\\n'))})";
    let mut node = Command::new("node")
        .args(["-e", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs (README: Node 20 is a requirement)");
    let hex: String = values
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut stdin = node.stdin.take().unwrap();
    // Written from a thread: node answers only once stdin ends, and its output could fill
    // the pipe while this thread still writes.
    let writer = std::thread::spawn(move || stdin.write_all(hex.as_bytes()).unwrap());
    let output = node.wait_with_output().unwrap();
    writer.join().unwrap();
    let node_text = String::from_utf8(output.stdout).unwrap();
    let mut mismatches = Vec::new();
    for (value, expected) in values.iter().zip(node_text.lines()) {
        let ours = parcall::json::ecmascript_number(*value);
        if ours != expected {
            mismatches.push(format!("{value:e}: ours {ours}, node {expected}"));
        }
    }
    assert_eq!(node_text.lines().count(), values.len());
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

/// A subject in this process declares its number model as a process does in its hello, and
/// the one judge reads it by that model: the reference running as a float64 runtime conforms
/// on every seed, and the same reference declaring `float64` while it keeps Python's numbers
/// is caught and charged to the number rules.
#[test]
fn an_in_process_subject_is_judged_by_the_number_model_it_declares() {
    use common::subjects;
    use parcall::json::NumberModel;
    use parcall::reference::Execution;
    use parcall::report::Verdict;
    use parcall::subject::in_process::reference;
    for seed in 1..=3 {
        let mut float64 = reference(NumberModel::Float64, Execution::Shuffled { seed });
        let report = subjects::check(&mut float64, seed, 200);
        assert_eq!(report.number_model, NumberModel::Float64);
        assert_eq!(
            report.verdict,
            Verdict::Conforms,
            "seed {seed}: {:#?}",
            report.cases.iter().find(|c| c.outcome.is_failure())
        );
    }
    let mut pretends =
        reference(NumberModel::Python, Execution::Sequential).declaring(NumberModel::Float64);
    let report = subjects::check(&mut pretends, 1, 200);
    assert_eq!(report.verdict, Verdict::DoesNotConform);
    let charged: BTreeSet<String> = report
        .cases
        .iter()
        .flat_map(|c| c.charges.iter().map(|charge| charge.requirement.clone()))
        .collect();
    assert!(
        charged.iter().any(|r| r.starts_with("DEDUP-NUMBER")),
        "{charged:?}"
    );
}

/// What conformance/PROTOCOL.md ("Languages") tells a Rust implementer about serde_json
/// with its default features (this crate builds it with no number feature), checked so the
/// advice stays true: `1e400` is refused, the default float reader can be one ulp off, and
/// lists and objects nested 128 deep are refused (127 are read).
#[test]
fn serde_json_with_default_features_behaves_as_the_protocol_says() {
    use serde_json::Value;
    let overflow = serde_json::from_str::<Value>(r#"{"a": 1e400}"#).unwrap_err();
    assert!(overflow.to_string().contains("out of range"), "{overflow}");
    let literal = "123456789.12345679";
    let read: f64 = serde_json::from_str(literal).unwrap();
    let exact: f64 = literal.parse().unwrap();
    assert_eq!(parcall::json::python_repr(exact), literal);
    assert_eq!(parcall::json::python_repr(read), "123456789.1234568");
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(serde_json::from_str::<Value>(&nested(127)).is_ok());
    let deep = serde_json::from_str::<Value>(&nested(128)).unwrap_err();
    assert!(deep.to_string().contains("recursion limit"), "{deep}");
}
