//! `parcall reference`: the Rust reference served over the protocol, as any implementation
//! would serve itself. The runner's own end-to-end test checks it, and it is a worked
//! example of the implementation side of the protocol.

use crate::json::NumberModel;
use crate::judge::runs::{run_dedup, run_exec};
use crate::judge::BatchRun;
use crate::protocol::{
    self, BatchReply, CaseReply, CaseRequest, HelloReply, ImplementationInfo, Reply, Request,
    PROTOCOL_VERSION,
};
use crate::reference::Execution;
use crate::spec::{Dispatch, Function};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::FromRawFd;

/// Serves requests from the fds named by `PARCALL_PROTOCOL_FDS` until `shutdown` or EOF, as a
/// runtime of number model `model` would (RULINGS E).
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
    // SAFETY: `File::from_raw_fd` needs an open fd that nothing else owns. The runner opens
    // both for this process and hands them over for the protocol alone; nothing else in
    // this process wraps or closes them, and this function is the only one that takes
    // them, so each `File` is their one owner and closes them once.
    let (read, write) = unsafe { (File::from_raw_fd(read), File::from_raw_fd(write)) };
    serve(BufReader::new(read), write, model)
}

/// The request loop. Under `float64`, every number of a request is read as a double, as a
/// runtime with one number type reads it, and the model is declared in the handshake.
pub fn serve(input: impl BufRead, mut output: impl Write, model: NumberModel) -> io::Result<()> {
    for line in input.lines() {
        let reply = match protocol::decode_as::<Request>(&line?) {
            Ok(Request::Hello { .. }) => Reply::Hello(hello(model)),
            Ok(Request::Case(request)) => Reply::Result(answer(&held_as(model, request), model)),
            Ok(Request::Shutdown) => {
                output.write_all(protocol::encode_message(&Reply::Bye).as_bytes())?;
                return output.flush();
            }
            Err(error) => return Err(io::Error::other(format!("bad request: {error}"))),
        };
        output.write_all(protocol::encode_message(&reply).as_bytes())?;
        output.flush()?;
    }
    Ok(())
}

fn hello(number_model: NumberModel) -> HelloReply {
    HelloReply {
        protocol: PROTOCOL_VERSION,
        implementation: ImplementationInfo {
            name: "parcall reference".into(),
            language: "rust".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        functions: Function::ALL.to_vec(),
        load_error: None,
        problems: Vec::new(),
        output: String::new(),
        number_model,
    }
}

/// The request as a runtime of number model `model` holds it once read.
fn held_as(model: NumberModel, mut request: CaseRequest) -> CaseRequest {
    if model != NumberModel::Python {
        request.tools = crate::spec::held_scripts(model, &request.tools);
        for batch in &mut request.batches {
            batch.calls = model.normalise(&batch.calls);
        }
    }
    request
}

fn answer(request: &CaseRequest, model: NumberModel) -> CaseReply {
    let runs = match request.function {
        Function::ExecuteToolCalls => {
            let dispatch = Dispatch::Scripted {
                tools: request.tools.clone(),
            };
            let batches = request.batches.iter().map(|b| (&b.calls, b.max_parallel));
            run_exec(&dispatch, batches, Execution::CONCURRENT)
        }
        Function::RunParallelCalls => {
            let batches = request.batches.iter().map(|b| &b.calls);
            run_dedup(&request.tools, batches, Execution::CONCURRENT, model)
        }
    };
    let batches = match runs {
        Ok(runs) => runs.into_iter().map(returned).collect(),
        Err(error) => vec![BatchReply::Raised {
            message: format!("ValueError: {error}"),
            traceback: String::new(),
            invocations: Vec::new(),
        }],
    };
    CaseReply {
        id: request.id,
        batches,
        output: String::new(),
    }
}

fn returned(run: BatchRun) -> BatchReply {
    BatchReply::Returned {
        output: run.output,
        invocations: run.invocations,
    }
}
