//! The parcall protocol (version 2, PROTOCOL.md in parcall's repository) around
//! `solution.rs`: the handshake, one `case` at a time, a stub per tool that sends `invoke`
//! and waits for parcall's `answer`, each batch's `returned` or `raised`, the case's
//! `result`, `shutdown`. `json.rs` reads and writes JSON in Python's dialect. Nothing here
//! needs editing.

#[allow(dead_code)] // the value's API and the key helper, for solution.rs to use
mod json;
mod solution;

use json::Json;
use std::collections::{HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// What a tool raised. parcall scripts tools as Python would raise: `message` is Python's
/// `str()` of the exception (`'x'`, quotes included, for `KeyError('x')`; empty for one
/// raised with no argument), and what it displays; `class` and `args` are the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub class: String,
    pub args: Vec<Json>,
    pub message: String,
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl ToolError {
    fn from_answer(answer: &Json) -> ToolError {
        let message = answer.get("message").and_then(Json::as_str).unwrap_or_default().to_owned();
        ToolError {
            class: answer.get("exception").and_then(Json::as_str).unwrap_or("RuntimeError").to_owned(),
            args: match answer.get("args") {
                Some(Json::List(args)) => args.clone(),
                _ => vec![Json::from(message.as_str())],
            },
            message,
        }
    }
}

/// Both directions of the protocol, for every thread. Whoever waits reads (the request loop
/// for its next case, a stub for its answer), one at a time: no thread of the kit's own, so
/// a solution that runs one thing at a time has one thread, as parcall sees it.
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
    answers: HashMap<u64, Json>,
    requests: VecDeque<Json>,
}

impl Channel {
    /// One whole line per message; parcall gone means the run is over.
    fn send(&self, message: &Json) {
        let line = format!("{message}\n");
        if self.output.lock().unwrap().write_all(line.as_bytes()).is_err() {
            std::process::exit(0);
        }
    }

    /// The next message that is not an answer; `None` once parcall closed the channel.
    fn request(&self) -> Option<Json> {
        self.wait(|incoming| incoming.requests.pop_front())
    }

    /// The answer to invocation `call`; `None` once parcall closed the channel.
    fn answer(&self, call: u64) -> Option<Json> {
        self.wait(|incoming| incoming.answers.remove(&call))
    }

    fn wait(&self, take: impl Fn(&mut Incoming) -> Option<Json>) -> Option<Json> {
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
            // A line that is not JSON ends the run as the end of the channel does.
            let message = match read {
                Ok(n) if n > 0 => json::parse(line.trim_end()).ok(),
                _ => None,
            };
            let mut incoming = self.state.lock().unwrap();
            incoming.reading = false;
            match message {
                None => incoming.closed = true,
                Some(message) if message.get("type").and_then(Json::as_str) == Some("answer") => {
                    let call = message.get("call").and_then(Json::as_u64).unwrap_or_default();
                    incoming.answers.insert(call, message.get("answer").cloned().unwrap_or(Json::Null));
                }
                Some(message) => incoming.requests.push_back(message),
            }
            self.turn.notify_all();
        }
    }
}

static CALLS: AtomicU64 = AtomicU64::new(1);

/// Sends an invocation to parcall and waits for its answer.
fn ask(channel: &Channel, case: &Json, tool: &Json, args: &Json) -> Json {
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    channel.send(&Json::object([
        ("type", Json::from("invoke")),
        ("id", case.clone()),
        ("call", Json::Int(call.to_string())),
        ("tool", tool.clone()),
        ("args", args.clone()),
    ]));
    // parcall gone: the run is over, and nothing reads what follows.
    channel.answer(call).unwrap_or_else(|| std::process::exit(0))
}

/// Runs one batch: its output, or what it raised (an `Err` or a panic).
fn run_batch(channel: &Channel, request: &Json, batch: &Json) -> Result<Json, String> {
    let case = request.get("id").cloned().unwrap_or(Json::Null);
    let calls = match batch.get("calls") {
        Some(Json::List(calls)) => calls.as_slice(),
        _ => &[],
    };
    let run = || {
        if request.get("function").and_then(Json::as_str) == Some("execute_tool_calls") {
            // Past a u64, no position reaches the limit anyway.
            let max_parallel = batch.get("max_parallel").map_or(4, |n| n.as_u64().unwrap_or(u64::MAX));
            let dispatch = |r: &Json| {
                let none = Json::Null;
                let answer = ask(channel, &case, r.get("tool").unwrap_or(&none), r.get("arguments").unwrap_or(&none));
                answer.get("value").cloned().unwrap_or(Json::Null)
            };
            return solution::execute_tool_calls(calls, max_parallel, &dispatch);
        }
        let mut tools: HashMap<String, solution::Tool> = HashMap::new();
        for name in names(request.get("tools")) {
            let (case, tool) = (&case, Json::from(name.as_str()));
            let stub = move |args: &Json| {
                let answer = ask(channel, case, &tool, args);
                if answer.get("type").and_then(Json::as_str) == Some("raise") {
                    return Err(ToolError::from_answer(&answer));
                }
                Ok(answer.get("value").cloned().unwrap_or(Json::Null))
            };
            tools.insert(name, Box::new(stub));
        }
        solution::run_parallel_calls(&tools, calls)
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(output)) => Ok(output),
        Ok(Err(message)) => Err(format!("Error: {message}")),
        Err(panic) => {
            let text = panic.downcast_ref::<&str>().map(|s| s.to_string());
            let text = text.or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            Err(format!("panic: {text}"))
        }
    }
}

fn names(tools: Option<&Json>) -> Vec<String> {
    match tools {
        Some(Json::List(names)) => names.iter().filter_map(Json::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// Runs every batch, sending each one's end as it comes, then the case's.
fn run_case(channel: &Channel, request: &Json) {
    let id = request.get("id").cloned().unwrap_or(Json::Null);
    let batches = match request.get("batches") {
        Some(Json::List(batches)) => batches.as_slice(),
        _ => &[],
    };
    for batch in batches {
        let reply = match run_batch(channel, request, batch) {
            Ok(output) => Json::object([("type", "returned".into()), ("id", id.clone()), ("output", output)]),
            Err(message) => Json::object([
                ("type", "raised".into()),
                ("id", id.clone()),
                ("message", message.into()),
                ("traceback", "".into()),
            ]),
        };
        let raised = reply.get("type") == Some(&Json::from("raised"));
        channel.send(&reply);
        if raised {
            break;
        }
    }
    // What the solution prints goes to the inherited stdout and stderr, which parcall keeps
    // the end of for crash reports.
    channel.send(&Json::object([("type", "result".into()), ("id", id), ("output", "".into())]));
}

fn main() {
    let fds = std::env::var("PARCALL_PROTOCOL_FDS").unwrap_or_else(|_| "3,4".into());
    let (read, write) = fds.split_once(',').expect("PARCALL_PROTOCOL_FDS is READ,WRITE");
    let input = File::open(format!("/dev/fd/{}", read.trim())).expect("the protocol's requests");
    let output = OpenOptions::new().write(true).open(format!("/dev/fd/{}", write.trim())).expect("the protocol's replies");
    let channel = Channel {
        input: Mutex::new(BufReader::new(input)),
        output: Mutex::new(output),
        state: Mutex::default(),
        turn: Condvar::new(),
    };
    while let Some(request) = channel.request() {
        match request.get("type").and_then(Json::as_str) {
            Some("hello") => channel.send(&json::parse(HELLO).unwrap()),
            Some("case") => run_case(&channel, &request),
            Some("shutdown") => {
                channel.send(&Json::object([("type", "bye".into())]));
                break;
            }
            _ => {}
        }
    }
}

const HELLO: &str = concat!(
    r#"{"type": "hello", "protocol": 2, "implementation": {"name": "src/solution.rs", "language": "rust", "version": ""#,
    env!("CARGO_PKG_VERSION"),
    r#""}, "functions": ["execute_tool_calls", "run_parallel_calls"], "number_model": "python"}"#
);
