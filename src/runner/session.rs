//! One live implementation process after a successful handshake, and how to start one.

use crate::process::{Child, Event, Launch, Received};
use crate::protocol::{self, HelloReply, Reply, Request, PROTOCOL_VERSION};
use std::time::{Duration, Instant};

/// Why an implementation could not be started. Each is a verdict on the implementation
/// (exit 1), except `Spawn`, which is the runner's own failure to launch it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StartError {
    #[error("cannot start `{program}`: {message}")]
    Spawn { program: String, message: String },
    #[error("the implementation did not answer the handshake within {seconds:.1}s (a hang at import?){}", tail_note(.output))]
    Timeout { seconds: f64, output: String },
    #[error("the implementation ended before the handshake{}{}{}", status_note(.status.as_deref()), memory_note(.output, .status.as_deref(), *.memory_limit_mib), tail_note(.output))]
    Exited {
        output: String,
        /// How it ended ("it exited with status 2"), when that is known.
        status: Option<String>,
        /// The address-space limit it ran under, when there was one: runtimes that reserve
        /// memory up front (a JVM) die at start-up under a limit they would never use.
        memory_limit_mib: Option<u64>,
    },
    #[error("the implementation broke the protocol during the handshake: {message}")]
    Protocol { message: String },
    #[error("the implementation speaks protocol {found}; this runner speaks {PROTOCOL_VERSION}")]
    Version { found: u32 },
    #[error("the implementation cannot be loaded:\n{message}")]
    Load { message: String },
    #[error("the implementation defines neither `execute_tool_calls` nor `run_parallel_calls`")]
    NoFunction,
    #[error("{}", .problems.join("\n"))]
    Signature { problems: Vec<String> },
}

impl StartError {
    /// Whether the runner, rather than the implementation, is at fault.
    pub fn is_runner_failure(&self) -> bool {
        matches!(self, StartError::Spawn { .. })
    }
}

fn status_note(status: Option<&str>) -> String {
    status.map_or_else(String::new, |status| format!(": {status}"))
}

/// The address-space limit, named only where it may be the cause: the implementation died
/// silently or by a signal, or what it printed speaks of memory. Named always, it sent
/// users after memory for a `bad option` or a file Node could not find.
fn memory_note(output: &str, status: Option<&str>, limit_mib: Option<u64>) -> String {
    let printed = output.to_lowercase();
    let may_be_memory = output.trim().is_empty()
        || status.is_some_and(|s| s.contains("killed by signal"))
        || ["memory", "alloc", "heap", "reserve"]
            .iter()
            .any(|word| printed.contains(word));
    match limit_mib {
        Some(mib) if may_be_memory => format!(
            "; it ran under an address-space limit of {mib} MiB, which runtimes that reserve \
             memory at start-up (a JVM, say) cannot start under: if that is the cause, raise it \
             with --memory-mib (0 for no limit)"
        ),
        _ => String::new(),
    }
}

/// What the implementation printed, last in a message: `report::escape::headline` ends a
/// message's summary before it, so the module's own output is never taken for the cause.
fn tail_note(output: &str) -> String {
    if output.trim().is_empty() {
        String::new()
    } else {
        format!("{PRINTED}\n{}", output.trim_end())
    }
}

/// Where an error message turns to what the implementation printed.
pub const PRINTED: &str = "; it printed:";

/// A started, handshaken implementation.
pub struct Session {
    pub child: Child,
    pub hello: HelloReply,
}

impl Session {
    /// Spawns the implementation and runs the handshake within `deadline`.
    pub fn start(launch: &Launch, suite: &str, startup: Duration) -> Result<Session, StartError> {
        let mut child = Child::spawn(launch).map_err(|error| StartError::Spawn {
            program: launch.program.to_string_lossy().into_owned(),
            message: error.to_string(),
        })?;
        child.send(protocol::encode(&Request::Hello {
            protocol: PROTOCOL_VERSION,
            suite: suite.to_owned(),
        }));
        let hello = match child.receive(Instant::now() + startup) {
            Received::Timeout => {
                child.kill();
                return Err(StartError::Timeout {
                    seconds: startup.as_secs_f64(),
                    output: child.output_tail(),
                });
            }
            Received::Event(Event::Closed) => {
                // It closed its end: it is exiting, or has. A moment to see how.
                let status = child.finish(Instant::now() + Duration::from_millis(500));
                return Err(StartError::Exited {
                    status: status.map(super::describe_exit),
                    output: child.output_tail(),
                    memory_limit_mib: launch.limits.memory_bytes.map(|bytes| bytes >> 20),
                });
            }
            Received::Event(Event::LineTooLong) => {
                return Err(StartError::Protocol {
                    message: "a line longer than the limit".into(),
                })
            }
            Received::Event(Event::Line(line)) => match protocol::decode(&line) {
                Ok(Reply::Hello(hello)) => hello,
                Ok(other) => {
                    return Err(StartError::Protocol {
                        message: format!("expected a hello, got {other:?}"),
                    })
                }
                Err(error) => {
                    return Err(StartError::Protocol {
                        message: format!("{error}: {}", clip(&line)),
                    })
                }
            },
        };
        check_hello(&hello)?;
        Ok(Session { child, hello })
    }
}

fn check_hello(hello: &HelloReply) -> Result<(), StartError> {
    super::bounds::check_hello(hello).map_err(|excess| StartError::Protocol {
        message: format!("the handshake is past a bound: {excess}"),
    })?;
    if hello.protocol != PROTOCOL_VERSION {
        return Err(StartError::Version {
            found: hello.protocol,
        });
    }
    if let Some(message) = &hello.load_error {
        let printed = tail_note(&hello.output);
        return Err(StartError::Load {
            message: format!("{}{printed}", message.trim_end()),
        });
    }
    if !hello.problems.is_empty() {
        return Err(StartError::Signature {
            problems: hello.problems.clone(),
        });
    }
    if hello.functions.is_empty() {
        return Err(StartError::NoFunction);
    }
    Ok(())
}

/// A line cut to a readable length for messages.
pub fn clip(line: &str) -> String {
    const MAX: usize = 200;
    if line.chars().count() <= MAX {
        line.to_owned()
    } else {
        format!(
            "{}… ({} bytes)",
            line.chars().take(MAX).collect::<String>(),
            line.len()
        )
    }
}
