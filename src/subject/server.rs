//! `parcall reference`: the Rust reference served over the protocol, as any implementation
//! would serve itself. The runner's own end-to-end test checks it, and it is a worked
//! example of the implementation side of protocol version 2: every tool (and `dispatch`) is
//! a stub that asks parcall for its answer, from whichever thread calls it, while one
//! reader thread routes the answers back.

use crate::json::{dumps, NumberModel, Object, Style, Value};
use crate::protocol::{
    self, CaseReply, CaseRequest, HelloReply, ImplementationInfo, Invocation, Reply, Request,
    RuntimeDeclaration, RuntimePolicies, PROTOCOL_VERSION,
};
use crate::reference::{
    execute_tool_calls, input, run_parallel_calls_in, DispatchRequest, Dispatcher, Execution,
    Raised, Tools, DEFAULT_MAX_PARALLEL,
};
use crate::spec::{Answer, Function};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};

/// Serves requests from the fds named by `PARCALL_PROTOCOL_FDS` until `shutdown` or EOF, as a
/// runtime of number model `model` would (RULES E).
pub fn serve_from_environment(model: NumberModel) -> io::Result<()> {
    let spec =
        std::env::var(crate::process::PROTOCOL_FDS_VARIABLE).unwrap_or_else(|_| "3,4".into());
    let fds: Vec<i32> = spec
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let [read, write] = fds[..] else {
        return Err(io::Error::other(format!(
            "PARCALL_PROTOCOL_FDS must be `READ,WRITE`, got `{spec}`"
        )));
    };
    // Taken over as files below: each must be open, and neither stdin, stdout nor stderr
    // (which the standard library holds too) nor the other.
    // SAFETY: fcntl(F_GETFD) takes integers and only reads the descriptor's flags.
    let open = |fd: i32| fd > 2 && unsafe { libc::fcntl(fd, libc::F_GETFD) } >= 0;
    if read == write || !open(read) || !open(write) {
        return Err(io::Error::other(format!(
            "`parcall reference` speaks the protocol on descriptors {read} and {write} \
             (PARCALL_PROTOCOL_FDS), which are not two open descriptors of its own: it is \
             started by parcall, as in `parcall check --cmd \"parcall reference\"`"
        )));
    }
    // SAFETY: `File::from_raw_fd` needs an open fd that nothing else owns. The runner opens
    // both for this process and hands them over for the protocol alone; nothing else in
    // this process wraps or closes them, and this function is the only one that takes
    // them, so each `File` is their one owner and closes them once.
    let (read, write) = unsafe { (File::from_raw_fd(read), File::from_raw_fd(write)) };
    serve(BufReader::new(read), write, model)
}

/// The writing end, shared by the stubs of every thread and the request loop.
type Writer = Arc<Mutex<Box<dyn Write + Send>>>;

/// The stubs waiting for their answers, by invocation number.
type Waiting = Arc<Mutex<HashMap<u64, Sender<Answer>>>>;

fn write_line(writer: &Writer, message: &Reply) -> io::Result<()> {
    let mut out = writer.lock().unwrap_or_else(PoisonError::into_inner);
    out.write_all(protocol::encode_message(message).as_bytes())?;
    out.flush()
}

/// The request loop. A reader thread takes every line: answers go to the stub waiting for
/// them, everything else to this loop. Under `float64`, every number of a request is read
/// as a double, as a runtime with one number type reads it, and the model is declared in
/// the handshake.
pub fn serve(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
    model: NumberModel,
) -> io::Result<()> {
    let writer: Writer = Arc::new(Mutex::new(Box::new(output)));
    let waiting: Waiting = Arc::default();
    let requests = route(input, Arc::clone(&waiting));
    let calls = Arc::new(AtomicU64::new(0));
    for request in requests {
        let request = match request {
            Ok(request) => request,
            Err(error) => return Err(io::Error::other(format!("bad request: {error}"))),
        };
        match request {
            Request::Hello { .. } => write_line(&writer, &Reply::Hello(hello(model)))?,
            Request::Case(request) => {
                let stub = Stub {
                    case: request.id,
                    writer: Arc::clone(&writer),
                    waiting: Arc::clone(&waiting),
                    calls: Arc::clone(&calls),
                    tools: request.tools.clone(),
                };
                run_case(&held_as(model, request), model, &stub)?;
            }
            Request::Shutdown => return write_line(&writer, &Reply::Bye),
            // An answer no stub waits for (the reader hands them over): nothing to do.
            Request::Answer(_) => {}
        }
    }
    Ok(())
}

/// Starts the reader thread: answers are handed to their stubs, every other request (or
/// the reason a line could not be read) comes out of the returned channel.
fn route(
    input: impl BufRead + Send + 'static,
    waiting: Waiting,
) -> Receiver<Result<Request, String>> {
    let (requests, received) = channel();
    std::thread::spawn(move || {
        for line in input.lines() {
            let request = match line {
                Ok(line) => protocol::decode_as::<Request>(&line).map_err(|e| e.to_string()),
                Err(error) => Err(error.to_string()),
            };
            match request {
                Ok(Request::Answer(answer)) => {
                    let stub = waiting
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .remove(&answer.call);
                    if let Some(stub) = stub {
                        let _ = stub.send(answer.answer);
                    }
                }
                other => {
                    if requests.send(other).is_err() {
                        return;
                    }
                }
            }
        }
    });
    received
}

fn hello(number_model: NumberModel) -> HelloReply {
    HelloReply {
        protocol: PROTOCOL_VERSION,
        implementation: ImplementationInfo {
            name: "parcall reference".into(),
            language: "rust".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        functions: Function::EVERY.to_vec(),
        load_error: None,
        problems: Vec::new(),
        output: String::new(),
        number_model,
        runtime: Some(Box::new(RuntimeDeclaration {
            framework: "parcall-reference".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            entry: "parcall::reference::runtime::run_tool_calls".into(),
            message_types: Vec::new(),
            policies: RuntimePolicies {
                max_parallel: Some(1),
                ..RuntimePolicies::default()
            },
        })),
    }
}

/// The request as a runtime of number model `model` holds it once read.
fn held_as(model: NumberModel, mut request: CaseRequest) -> CaseRequest {
    if model != NumberModel::Python {
        for batch in &mut request.batches {
            batch.calls = model.normalise(&batch.calls);
        }
    }
    request
}

/// Runs every batch, reporting each as it ends, then the end of the case.
fn run_case(request: &CaseRequest, model: NumberModel, stub: &Stub) -> io::Result<()> {
    for batch in &request.batches {
        let returned = match request.function {
            Function::ExecuteToolCalls => input::tool_calls(&batch.calls).map(|calls| {
                let limit = batch.max_parallel.unwrap_or(DEFAULT_MAX_PARALLEL);
                let messages = execute_tool_calls(&calls, limit, stub, Execution::CONCURRENT);
                Value::List(messages.iter().map(|m| m.to_value()).collect())
            }),
            Function::RunToolCalls => Ok(crate::reference::runtime::run_tool_calls(
                batch.calls.as_list().unwrap_or_default(),
                |name| stub.has_tool(name),
                |name, args| stub.ask(name, args).into_invoked(),
            )),
            Function::RunParallelCalls => input::dedup_calls(&batch.calls).map(|calls| {
                let results = run_parallel_calls_in(model, stub, &calls, Execution::CONCURRENT);
                Value::from(
                    results
                        .into_iter()
                        .map(|(k, v)| (k.into(), v))
                        .collect::<Object>(),
                )
            }),
        };
        match returned {
            Ok(output) => write_line(
                &stub.writer,
                &Reply::Returned {
                    id: request.id,
                    output,
                },
            )?,
            Err(error) => {
                write_line(
                    &stub.writer,
                    &Reply::Raised {
                        id: request.id,
                        message: format!("ValueError: {error}"),
                        traceback: String::new(),
                    },
                )?;
                break;
            }
        }
    }
    write_line(
        &stub.writer,
        &Reply::Result(CaseReply {
            id: request.id,
            output: String::new(),
        }),
    )
}

/// The tools of one case: each invocation is a question to parcall.
struct Stub {
    case: u64,
    writer: Writer,
    waiting: Waiting,
    calls: Arc<AtomicU64>,
    tools: Vec<String>,
}

impl Stub {
    /// Asks parcall what invoking `tool` with `args` gives, and waits for the answer.
    fn ask(&self, tool: &str, args: &Object) -> Answer {
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let (answered, answer) = channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(call, answered);
        let invocation = Invocation {
            id: self.case,
            call,
            tool: Value::Str(tool.into()),
            args: Value::from(args.clone()),
        };
        if write_line(&self.writer, &Reply::Invoke(invocation)).is_err() {
            return closed();
        }
        answer.recv().unwrap_or_else(|_| closed())
    }
}

/// The answer when parcall is gone: the run is over, and nothing reads what follows.
fn closed() -> Answer {
    Answer::Raise {
        message: "parcall closed the protocol".into(),
        exception: None,
        args: None,
    }
}

impl Dispatcher for Stub {
    fn dispatch(&self, request: DispatchRequest<'_>) -> String {
        match self.ask(request.tool, request.arguments) {
            Answer::Return {
                value: Value::Str(text),
            } => text.to_string(),
            Answer::Return { value } => dumps(&value, Style::PYTHON),
            Answer::Raise { message, .. } => format!("error: {message}"),
        }
    }
}

impl Tools for Stub {
    fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|tool| tool == name)
    }

    fn invoke(&self, name: &str, args: &Object) -> Result<Value, Raised> {
        match self.ask(name, args) {
            Answer::Return { value } => Ok(value),
            Answer::Raise { message, .. } => Err(Raised(message)),
        }
    }
}
