//! A complete minimal parcall adapter (protocol version 2, conformance/PROTOCOL.md) for an
//! implementation written in Rust: `src/implementation.rs` holds the two functions; this
//! file speaks the protocol on the fds named by `PARCALL_PROTOCOL_FDS`. parcall holds the
//! tools: every invocation is an `invoke` message, answered by parcall; this process never
//! holds the record of invocations nor an answer it has not asked for.
//!
//! Check it with: `parcall check --cmd "path/to/parcall-rust-adapter"`.

mod implementation;

use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

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

/// Both directions of the protocol, for every thread. Whoever waits reads (the request loop
/// for its next case, a stub for its answer), one at a time: no thread of the adapter's own,
/// so an implementation that runs one thing at a time has one thread, as parcall can see.
struct Channel {
    input: Mutex<BufReader<File>>,
    output: Mutex<File>,
    state: Mutex<Incoming>,
    turn: Condvar,
}

#[derive(Default)]
struct Incoming {
    reading: bool,
    closed: bool,
    answers: HashMap<u64, Value>,
    requests: VecDeque<Value>,
}

impl Channel {
    fn send(&self, message: &Value) {
        let mut output = self.output.lock().unwrap();
        let _ = writeln!(output, "{message}");
    }

    /// The next message that is not an answer; `None` once parcall closed the channel.
    fn request(&self) -> Option<Value> {
        self.wait(|incoming| incoming.requests.pop_front())
    }

    /// The answer to invocation `call`; `None` once parcall closed the channel.
    fn answer(&self, call: u64) -> Option<Value> {
        self.wait(|incoming| incoming.answers.remove(&call))
    }

    fn wait(&self, take: impl Fn(&mut Incoming) -> Option<Value>) -> Option<Value> {
        loop {
            {
                let mut incoming = self.state.lock().unwrap();
                loop {
                    if let Some(found) = take(&mut incoming) {
                        return Some(found);
                    }
                    if incoming.closed {
                        return None;
                    }
                    if !incoming.reading {
                        incoming.reading = true;
                        break;
                    }
                    incoming = self.turn.wait(incoming).unwrap();
                }
            }
            let mut line = String::new();
            let read = self.input.lock().unwrap().read_line(&mut line);
            // A line serde_json cannot read (nested past its recursion limit, say) is kept
            // for the request loop as `null`: the case it holds ends the process when its
            // turn comes, and the cases before it run.
            let message = match read {
                Ok(n) if n > 0 => Some(serde_json::from_str::<Value>(&strict(&line)).unwrap_or(Value::Null)),
                _ => None,
            };
            let mut incoming = self.state.lock().unwrap();
            incoming.reading = false;
            match message {
                None => incoming.closed = true,
                Some(message) if message["type"] == "answer" => {
                    let call = message["call"].as_u64().unwrap_or_default();
                    incoming.answers.insert(call, message["answer"].clone());
                }
                Some(message) => incoming.requests.push_back(message),
            }
            self.turn.notify_all();
        }
    }
}

static CALLS: AtomicU64 = AtomicU64::new(1);

/// The tools of one case: each invocation is a question to parcall.
struct Stubs<'c> {
    channel: &'c Channel,
    case: Value,
}

impl Stubs<'_> {
    fn ask(&self, tool: &Value, args: &Value) -> Value {
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        self.channel.send(&json!({"type": "invoke", "id": self.case, "call": call, "tool": tool, "args": args}));
        // parcall gone: the run is over, and nothing reads what follows.
        self.channel.answer(call).unwrap_or_else(|| std::process::exit(0))
    }

    /// parcall answers `dispatch` with what it returns; it never raises.
    fn dispatch(&self, request: &Value) -> Value {
        self.ask(&request["tool"], &request["arguments"])["value"].clone()
    }

    fn invoke(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        let answer = self.ask(&json!(name), args);
        if answer["type"] == "raise" {
            return Err(ToolError::from_answer(&answer));
        }
        Ok(answer["value"].clone())
    }
}

/// Runs every batch, sending each one's end as it comes, then the case's.
fn run_case(channel: &Channel, request: &Value) {
    // request["case"] is an opaque label (never the case id, PROTOCOL.md): nothing uses it.
    let stubs = Stubs { channel, case: request["id"].clone() };
    let tools: Vec<&str> = request["tools"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    for batch in request["batches"].as_array().into_iter().flatten() {
        let calls = batch["calls"].as_array().cloned().unwrap_or_default();
        let output = if request["function"] == "execute_tool_calls" {
            let max_parallel = batch.get("max_parallel").and_then(Value::as_u64).unwrap_or(4);
            implementation::execute_tool_calls(&calls, max_parallel, &|r: &Value| stubs.dispatch(r))
        } else {
            let known = |name: &str| tools.contains(&name);
            implementation::run_parallel_calls(&known, &|name: &str, args: &Value| stubs.invoke(name, args), &calls)
        };
        channel.send(&json!({"type": "returned", "id": request["id"], "output": output}));
    }
    channel.send(&json!({"type": "result", "id": request["id"], "output": ""}));
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

fn main() {
    let fds = std::env::var("PARCALL_PROTOCOL_FDS").unwrap_or_else(|_| "3,4".into());
    let (read, write) = fds.split_once(',').expect("PARCALL_PROTOCOL_FDS is READ,WRITE");
    // SAFETY: the runner hands these two fds to this process for the protocol alone.
    let (input, output) = unsafe { (File::from_raw_fd(read.parse().unwrap()), File::from_raw_fd(write.parse().unwrap())) };
    let channel = Channel {
        input: Mutex::new(BufReader::new(input)),
        output: Mutex::new(output),
        state: Mutex::default(),
        turn: Condvar::new(),
    };
    while let Some(request) = channel.request() {
        match request["type"].as_str() {
            Some("hello") => channel.send(&json!({
                "type": "hello", "protocol": 2,
                "implementation": {"name": "rust example", "language": "rust", "version": env!("CARGO_PKG_VERSION")},
                "functions": ["execute_tool_calls", "run_parallel_calls"],
            })),
            Some("case") => run_case(&channel, &request),
            Some("shutdown") => {
                channel.send(&json!({"type": "bye"}));
                break;
            }
            // A line it could not read: the process ends, and parcall reports the case.
            _ => break,
        }
    }
}
