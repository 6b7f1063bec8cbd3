//! A complete minimal parcall adapter (protocol version 1, conformance/PROTOCOL.md) for an
//! implementation written in Rust: `src/implementation.rs` holds the two functions; this
//! file speaks the protocol on the fds named by `PARCALL_PROTOCOL_FDS`, answers every tool
//! invocation from the case's scripts and reports each one.
//!
//! Check it with: `parcall check --cmd "path/to/parcall-rust-adapter"`.

mod implementation;

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::sync::Mutex;

/// What a scripted tool raises: Rust has no exceptions, so a `raise` answer is an `Err` of
/// this type, carrying the Python class it names, its args and `str()` of it (`message`,
/// which is also what it displays: `KeyError('x')` displays `'x'`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub class: String,
    pub args: Vec<Value>,
    pub message: String,
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl ToolError {
    fn from_answer(answer: &Value) -> ToolError {
        let message = answer["message"].as_str().unwrap_or_default().to_owned();
        ToolError {
            class: answer["exception"].as_str().unwrap_or("RuntimeError").to_owned(),
            args: answer["args"].as_array().cloned().unwrap_or_else(|| vec![json!(message)]),
            message,
        }
    }
}

/// The case's tool scripts, with invocation counters and the log of invocations.
struct Scripts {
    tools: Map<String, Value>,
    counts: Mutex<HashMap<(String, String), usize>>,
    log: Mutex<Vec<Value>>,
}

/// Object keys sorted at every depth: the same args always give the same text.
fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(o) => {
                let mut entries: Vec<_> = o.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

impl Scripts {
    /// The scripted answer to invocation `name(args)`, recording `record` first.
    fn answer(&self, name: &str, args: &Value, record: Value) -> Option<Value> {
        self.log.lock().unwrap().push(record);
        let key = canonical(args);
        let n = {
            let mut counts = self.counts.lock().unwrap();
            let count = counts.entry((name.to_owned(), key.clone())).or_default();
            *count += 1;
            *count - 1
        };
        let script = self.tools.get(name)?;
        let response = script["responses"].as_array()?.iter().find(|r| r.get("args").is_none_or(|a| canonical(a) == key))?;
        // Only the first invocation of each args waits (the race probe): as long as its
        // response says, else its script; and only if another thread could run meanwhile.
        let own = response.get("latency_ms").filter(|ms| !ms.is_null());
        let latency = own.or(script.get("latency_ms")).and_then(Value::as_u64);
        if let Some(ms) = latency.filter(|_| n == 0 && !alone_in_process()) {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        let answers = response["answers"].as_array()?;
        answers.get(n).or(answers.last()).cloned()
    }

    fn dispatch(&self, request: &Value) -> Value {
        let (tool, args) = (request["tool"].as_str().unwrap_or_default(), &request["arguments"]);
        let record = json!({"tool": request["tool"], "arguments": args});
        match self.answer(tool, args, record) {
            Some(answer) if answer["type"] == "return" => answer["value"].clone(),
            Some(answer) => json!(format!("error: {}", answer["message"].as_str().unwrap_or_default())),
            None => json!(format!("error: parcall: no scripted answer for {tool}({})", canonical(args))),
        }
    }

    fn invoke(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        match self.answer(name, args, json!({"name": name, "args": args})) {
            Some(answer) if answer["type"] == "return" => Ok(answer["value"].clone()),
            Some(answer) => Err(ToolError::from_answer(&answer)),
            None => {
                let message = format!("parcall: no scripted answer for {name}({})", canonical(args));
                Err(ToolError { class: "RuntimeError".to_owned(), args: vec![json!(message)], message })
            }
        }
    }
}

fn run_case(request: &Value) -> Value {
    // request["case"] is an opaque label (never the case id, PROTOCOL.md): nothing uses it.
    let tools = request["tools"].as_object().cloned().unwrap_or_default();
    let scripts = Scripts { tools, counts: Mutex::default(), log: Mutex::default() };
    let mut batches = Vec::new();
    for batch in request["batches"].as_array().into_iter().flatten() {
        let calls = batch["calls"].as_array().cloned().unwrap_or_default();
        let output = if request["function"] == "execute_tool_calls" {
            let max_parallel = batch.get("max_parallel").and_then(Value::as_u64).unwrap_or(4);
            implementation::execute_tool_calls(&calls, max_parallel, &|r: &Value| scripts.dispatch(r))
        } else {
            let known = |name: &str| scripts.tools.contains_key(name);
            implementation::run_parallel_calls(&known, &|name: &str, args: &Value| scripts.invoke(name, args), &calls)
        };
        let invocations = std::mem::take(&mut *scripts.log.lock().unwrap());
        batches.push(json!({"status": "returned", "output": output, "invocations": invocations}));
    }
    json!({"type": "result", "id": request["id"], "batches": batches, "output": ""})
}

/// The protocol's JSON is Python's dialect; serde_json reads strict JSON. Infinities become
/// `1e400` literals (which the runner reads back as infinities); NaN, which has no literal,
/// becomes null.
fn strict(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_string = true;
        } else {
            let words = [("-Infinity", "-1e400"), ("Infinity", "1e400"), ("NaN", "null")];
            if let Some((word, literal)) = words.iter().find(|(w, _)| rest.starts_with(w)) {
                out.push_str(literal);
                rest = &rest[word.len()..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Whether the calling thread is the only thread of this process. A probe's wait shows a race
/// only to code that runs while it waits (another thread starting the same call again, or
/// finishing another call first); with no other thread nothing runs meanwhile, so a
/// sequential implementation does not pay it. Counted from /proc, which lists every thread;
/// where /proc cannot be read, the probe waits.
fn alone_in_process() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|threads| threads.count() == 1)
}

fn main() {
    let fds = std::env::var("PARCALL_PROTOCOL_FDS").unwrap_or_else(|_| "3,4".into());
    let (read, write) = fds.split_once(',').expect("PARCALL_PROTOCOL_FDS is READ,WRITE");
    // SAFETY: the runner hands these two fds to this process for the protocol alone.
    let (input, mut output) = unsafe { (File::from_raw_fd(read.parse().unwrap()), File::from_raw_fd(write.parse().unwrap())) };
    for line in BufReader::new(input).lines() {
        let Ok(line) = line else { break };
                let Ok(request) = serde_json::from_str::<Value>(&strict(&line)) else { break };
        let reply = match request["type"].as_str() {
            Some("hello") => json!({
                "type": "hello", "protocol": 1,
                "implementation": {"name": "rust example", "language": "rust", "version": env!("CARGO_PKG_VERSION")},
                "functions": ["execute_tool_calls", "run_parallel_calls"],
            }),
            Some("case") => run_case(&request),
            _ => {
                let _ = writeln!(output, "{}", json!({"type": "bye"}));
                break;
            }
        };
        if writeln!(output, "{reply}").is_err() {
            break;
        }
    }
}
