//! The reference against CPython itself (`python3`, which every machine and CI have):
//! canonical keys on 10,000 generated JSON texts, the sandbox on 5,000 generated requests,
//! and the Unicode tables the sandbox's `repr` and `strip` use.

use parcall::generate::{calls, values};
use parcall::json::{self, Style, Value};
use parcall::reference::{input, DispatchRequest, Dispatcher, Sandbox};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/python_oracle.py");

/// Runs `python3 ARGS` with `lines` on its standard input, one per line.
fn python3_filter(args: &[&str], lines: &[String]) -> std::process::Output {
    let mut child = Command::new("python3")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = lines.join("\n") + "\n";
    // Write on a thread: python answers while it reads, and a full stdout pipe would
    // otherwise block it while we block on a full stdin pipe.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Sends one JSON text per line to the Python oracle and returns its answers, one per line.
fn ask_python(mode: &str, lines: &[String]) -> Vec<String> {
    let output = python3_filter(&[ORACLE, mode], lines);
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| match json::parse(line) {
            Ok(Value::Str(answer)) => answer.into(),
            other => panic!("oracle answered {other:?}"),
        })
        .collect()
}

fn generate<S: Strategy>(strategy: S, count: usize) -> Vec<S::Value> {
    let mut runner = TestRunner::deterministic();
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

#[test]
fn canonical_json_matches_cpython_on_10000_texts() {
    let texts = generate(values::json_text(4), 10_000);
    let python = ask_python("dumps", &texts);
    assert_eq!(python.len(), texts.len());
    let mut mismatches = Vec::new();
    for (text, expected) in texts.iter().zip(&python) {
        let ours = match json::parse(text) {
            Ok(value) => json::dumps(&value, Style::CANONICAL),
            Err(error) => format!("!parse error: {error}"),
        };
        if &ours != expected {
            mismatches.push(format!(
                "input:  {text}\ncpython: {expected}\nparcall: {ours}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of 10000 differ; first:\n{}",
        mismatches.len(),
        mismatches[0]
    );
}

#[test]
fn canonical_keys_of_generated_args_match_cpython() {
    let args = generate(values::args(3), 3_000);
    let texts: Vec<String> = args
        .iter()
        .map(|a| json::dumps(&Value::from(a.clone()), Style::PYTHON))
        .collect();
    let python = ask_python("dumps", &texts);
    for ((args, expected), text) in args.iter().zip(&python).zip(&texts) {
        let key = parcall::reference::canonical_key("f", Some(args));
        assert_eq!(key, format!("f({expected})"), "args {text}");
    }
}

/// The Python adapter keys invocations by `json.dumps(args, sort_keys=True)` (scripted
/// responses are found by it, and "no scripted answer" messages show it), written with one
/// C encoder made at import instead of `JSONEncoder.encode`, which makes a new one on every
/// call. Held to `json.dumps` itself on the differential tests' adversarial args, and on
/// what `json.dumps` refuses: those keys say "not json" instead of raising.
#[test]
fn the_python_adapters_keys_are_json_dumps_with_sorted_keys() {
    const CHECK: &str = r#"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("adapter", sys.argv[1])
adapter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(adapter)
assert getattr(adapter._sorted_encode, "__self__", None) is None, "the fast encoder is not in use"
checked = 0
for line in sys.stdin:
    value = json.loads(line)
    expected = json.dumps(value, sort_keys=True)
    assert adapter.canonical(value) == expected, (line, adapter.canonical(value), expected)
    checked += 1
circular = {"a": 1}
circular["self"] = circular
deep = []
deep.append(deep)
for refused in ({1: "a", "b": 2}, {"a": object()}, [float, 1], circular, {"a": {1j}}, (deep,)):
    key = adapter.canonical(refused)
    assert key.startswith("<not json: "), (refused, key)
# A value that contains itself is refused at once, not followed until a small thread stack
# runs out (musl's default is 128 KiB), and the encoder is whole again afterwards.
import threading
threading.stack_size(128 * 1024)
keys = []
worker = threading.Thread(target=lambda: keys.extend(
    [adapter.canonical((deep,)), adapter.canonical({"b": 1, "a": [deep]}), adapter.canonical({"b": 1, "a": 2})]))
worker.start()
worker.join()
assert [k[:11] for k in keys[:2]] == ["<not json: "] * 2 and keys[2] == '{"a": 2, "b": 1}', keys
print(checked)
"#;
    let args = generate(values::args(3), 2_000);
    let texts: Vec<String> = args
        .iter()
        .map(|a| json::dumps(&Value::from(a.clone()), Style::PYTHON))
        .collect();
    let adapter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/conformance/adapters/python/parcall_adapter.py"
    );
    let output = python3_filter(&["-c", CHECK, adapter], &texts);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        texts.len().to_string()
    );
}

#[test]
fn sandbox_matches_cpython_on_5000_requests() {
    let requests = generate(calls::sandbox_request(), 5_000);
    let mut lines = Vec::new();
    let mut ours = Vec::new();
    for (tool, arguments) in &requests {
        let arguments = arguments.clone().unwrap_or_default();
        let request = DispatchRequest {
            tool,
            arguments: &arguments,
        };
        lines.push(json::dumps(&request.to_value(), Style::PYTHON));
        ours.push(Sandbox.dispatch(request));
    }
    let python = ask_python("dispatch", &lines);
    for ((line, expected), ours) in lines.iter().zip(&python).zip(&ours) {
        assert_eq!(ours, expected, "request {line}");
    }
}

#[test]
fn sandbox_domain_check_refuses_integers_beyond_2_pow_53() {
    let calls = input::tool_calls(
        &json::parse(r#"[{"tool": "add", "arguments": {"a": 9007199254740993, "b": 1}}]"#).unwrap(),
    )
    .unwrap();
    let error = Sandbox::check_domain(&calls).unwrap_err().to_string();
    assert!(
        error.contains("call 1") && error.contains("arguments.a"),
        "{error}"
    );
}

#[test]
fn unicode_tables_match_the_cpython_that_generated_them() {
    let output = Command::new("python3")
        .args([concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/gen_python_unicode.py"
        )])
        .output()
        .expect("python3 runs");
    let generated = String::from_utf8(output.stdout).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/reference/python_unicode.rs");
    let committed = std::fs::read_to_string(path).unwrap();
    let version = |text: &str| text.lines().next().unwrap_or_default().to_owned();
    if version(&generated) != version(&committed) {
        // Another CPython (other Unicode version): the tables are for the one named in the file.
        eprintln!(
            "skipping: tables are {}, this python3 is {}",
            version(&committed),
            version(&generated)
        );
        return;
    }
    assert!(
        generated == committed,
        "src/reference/python_unicode.rs is stale: rerun scripts/gen_python_unicode.py"
    );
}

#[test]
fn float_repr_matches_cpython_on_100000_bit_patterns() {
    let floats = generate(
        proptest::num::f64::ANY.prop_filter("finite", |f| f.is_finite()),
        100_000,
    );
    let lines: Vec<String> = floats.iter().map(|f| format!("{}", f.to_bits())).collect();
    // The oracle reads JSON: an integer per line, the bits of the float, decoded in Python.
    let python = ask_python("repr_bits", &lines);
    for ((f, bits), expected) in floats.iter().zip(&lines).zip(&python) {
        assert_eq!(&json::python_repr(*f), expected, "bits {bits}");
    }
}

#[test]
fn float_repr_matches_cpython_on_100000_short_decimals() {
    // The fast path's territory: n / 10^d for d up to 7, around every magnitude it covers.
    let strategy = (0u64..2_000_000_000, 0u32..8, proptest::bool::ANY).prop_map(|(n, d, scale)| {
        let value = n as f64 / 10f64.powi(d as i32);
        if scale {
            value / 1000.0
        } else {
            value
        }
    });
    let floats = generate(strategy, 100_000);
    let lines: Vec<String> = floats.iter().map(|f| format!("{}", f.to_bits())).collect();
    let python = ask_python("repr_bits", &lines);
    for ((f, bits), expected) in floats.iter().zip(&lines).zip(&python) {
        assert_eq!(&json::python_repr(*f), expected, "bits {bits}");
    }
}
