//! One live implementation process after a successful handshake, and how to start one.

use crate::process::{build, Child, Event, Launch, Received};
use crate::protocol::{self, HelloReply, Reply, Request, PROTOCOL_VERSION};
use std::time::{Duration, Instant};

/// Why an implementation could not be started. Each is a verdict on the implementation
/// (exit 1), except `Spawn`, which is the runner's own failure to launch it.
#[derive(Debug, Clone, PartialEq)]
pub enum StartError {
    Spawn {
        program: String,
        message: String,
    },
    Timeout {
        seconds: f64,
        output: String,
        /// Whether what it wrote to stdout looks like a protocol message: it talks on the
        /// wrong descriptor.
        hello_on_stdout: bool,
    },
    Exited {
        output: String,
        hello_on_stdout: bool,
        /// How it ended ("it exited with status 2"), when that is known.
        status: Option<String>,
        /// The memory limit it ran under, when there was one: a runtime whose start-up
        /// needs more (a JVM told a larger `-Xms`, say) dies before the handshake.
        memory_limit_mib: Option<u64>,
    },
    Protocol {
        message: String,
    },
    Version {
        found: u32,
    },
    /// The adapter could not load the module: `message` is its error (a traceback, say),
    /// `printed` what the module printed while loading.
    Load {
        message: String,
        printed: String,
    },
    NoFunction,
    Signature {
        problems: Vec<String>,
    },
    /// It wrote a protocol message to stdout, where the runner never reads: told as soon
    /// as it is seen, not at the deadline.
    HelloOnStdout {
        output: String,
    },
    /// Its manifest's build step failed (`build` in `parcall.json`): the compiler's output
    /// is what it printed.
    Build {
        reason: String,
        output: String,
    },
    /// A runtime adapter declares a policy parcall does not know (RULES R9): the
    /// caller's set-up error, found before any case runs.
    Policies {
        problems: Vec<String>,
    },
}

impl StartError {
    /// Whether the runner, rather than the implementation, is at fault.
    pub fn is_runner_failure(&self) -> bool {
        matches!(self, StartError::Spawn { .. })
    }

    /// The caller's to fix before anything can be judged (exit 2), not a verdict.
    pub fn is_setup_error(&self) -> bool {
        matches!(self, StartError::Policies { .. })
    }

    /// The error as one line, for a summary row: the cause, never what the implementation
    /// printed (a module's `print` is not why it failed).
    pub fn headline(&self) -> String {
        crate::text::headline(&self.cause())
    }

    /// What went wrong, without what the implementation printed.
    fn cause(&self) -> String {
        match self {
            StartError::Spawn { program, message } => {
                format!("cannot start `{program}`: {message}")
            }
            StartError::Timeout {
                seconds,
                hello_on_stdout,
                ..
            } => format!(
                "the implementation did not answer the handshake within {seconds:.1}s{}",
                if *hello_on_stdout {
                    STDOUT_NOTE
                } else {
                    "; nothing arrived on its reply descriptor before the deadline: a hang at \
                     import, or output it buffers (flush after each message)"
                }
            ),
            StartError::Exited {
                output,
                hello_on_stdout,
                status,
                memory_limit_mib,
            } => format!(
                "the implementation ended before the handshake{}{}",
                status_note(status.as_deref()),
                if *hello_on_stdout {
                    STDOUT_NOTE.to_owned()
                } else {
                    end_note(output, status.as_deref(), *memory_limit_mib)
                }
            ),
            StartError::Protocol { message } => {
                format!("the implementation broke the protocol during the handshake: {message}")
            }
            StartError::Version { found } => format!(
                "the implementation speaks protocol {found}; this runner speaks {PROTOCOL_VERSION}"
            ),
            StartError::Load { message, .. } => {
                format!("the implementation cannot be loaded:\n{message}")
            }
            StartError::NoFunction => {
                "the implementation defines neither `execute_tool_calls` nor `run_parallel_calls`"
                    .into()
            }
            StartError::Signature { problems } => problems.join("\n"),
            StartError::Build { reason, .. } => reason.clone(),
            StartError::Policies { problems } => format!(
                "the runtime adapter's RUNTIME declares what parcall cannot read \
                 (docs/runtime-adapters.md): {}",
                problems.join("; ")
            ),
            StartError::HelloOnStdout { .. } => {
                format!("the implementation did not answer the handshake{STDOUT_NOTE}")
            }
        }
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let printed = match self {
            StartError::Timeout { output, .. }
            | StartError::Exited { output, .. }
            | StartError::Build { output, .. }
            | StartError::HelloOnStdout { output } => output,
            StartError::Load { printed, .. } => printed,
            _ => "",
        };
        write!(f, "{}{}", self.cause(), printed_note(printed))
    }
}

impl std::error::Error for StartError {}

fn status_note(status: Option<&str>) -> String {
    status.map_or_else(String::new, |status| format!(": {status}"))
}

/// A program that writes the protocol on stdout: the runner never reads it there.
const STDOUT_NOTE: &str = "; it wrote a protocol message to stdout, where the runner never \
    reads it: read requests from fd 3 and write replies to fd 4 (PARCALL_PROTOCOL_FDS, \
    conformance/PROTOCOL.md)";

/// Whether a program's stdout holds what looks like a protocol message (a hello, say).
pub(crate) fn looks_like_protocol(stdout: &str) -> bool {
    stdout
        .lines()
        .any(|line| line.trim_start().starts_with('{') && line.contains("\"type\""))
}

/// Why a program may have ended before the handshake. One that ended by itself with status
/// 0 and printed nothing most likely read the hello from stdin, found its end (stdin is
/// /dev/null) and stopped: that, not memory, is the likely cause.
fn end_note(output: &str, status: Option<&str>, limit_mib: Option<u64>) -> String {
    let clean_exit = status.is_some_and(|s| s.ends_with("exited with status 0"));
    if clean_exit && output.trim().is_empty() {
        return "; it wrote nothing on its reply descriptor: a program that waits for the \
                hello on stdin finds its end there (stdin is /dev/null); read requests from fd \
                3 and write replies to fd 4 (PARCALL_PROTOCOL_FDS, conformance/PROTOCOL.md)"
            .into();
    }
    memory_note(output, status, limit_mib)
}

/// The memory limit, named only where it may be the cause: the implementation died
/// silently (not by a clean exit) or by a signal, or what it printed speaks of memory. Named
/// always, it sent users after memory for a `bad option` or a file Node could not find.
fn memory_note(output: &str, status: Option<&str>, limit_mib: Option<u64>) -> String {
    match limit_mib {
        Some(mib) if may_be_memory(output, status) => format!(
            "; it ran under a memory limit of {mib} MiB (of private writable memory, \
             RLIMIT_DATA): if that is the cause, raise it with --memory-mib (0 for no limit)"
        ),
        _ => String::new(),
    }
}

/// Whether a process that ended as `status` (in words), having printed `output`, may have
/// been stopped by its memory limit: it died silently (not by a clean exit) or by a signal,
/// or what it printed speaks of memory, or of a signal that `unshare` could not pass on.
pub(super) fn may_be_memory(output: &str, status: Option<&str>) -> bool {
    let printed = output.to_lowercase();
    let clean_exit = status.is_some_and(|s| s.ends_with("exited with status 0"));
    (output.trim().is_empty() && !clean_exit)
        || status.is_some_and(|s| s.contains("killed by signal"))
        || ["memory", "alloc", "heap", "reserve", UNSHARE_SIGNALLED]
            .iter()
            .any(|word| printed.contains(word))
}

/// What util-linux `unshare --fork` (the containment of a PID namespace) prints, exiting 1,
/// when the program it started was killed by a signal: the signal itself is lost.
const UNSHARE_SIGNALLED: &str = "sigprocmask unblock failed";

/// What the implementation printed, last in a message, so the cause reads first.
fn printed_note(output: &str) -> String {
    if output.trim().is_empty() {
        String::new()
    } else {
        format!("; it printed:\n{}", output.trim_end())
    }
}

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
        // A build step runs first, under a deadline of its own.
        let startup = startup + Duration::from_secs(launch.limits.build_seconds);
        let hello = match receive_hello(&child, Instant::now() + startup) {
            Received::Timeout if looks_like_protocol(&child.stdout_tail()) => {
                child.kill();
                return Err(StartError::HelloOnStdout {
                    output: child.output_tail(),
                });
            }
            Received::Timeout => {
                child.kill();
                return Err(StartError::Timeout {
                    seconds: startup.as_secs_f64(),
                    output: child.output_tail(),
                    hello_on_stdout: looks_like_protocol(&child.stdout_tail()),
                });
            }
            Received::Event(Event::Closed) => {
                // It closed its end: it is exiting, or has. A moment to see how.
                let status = child.finish(Instant::now() + Duration::from_millis(500));
                if let Some(error) = build_failure(status.as_ref(), &child.output_tail()) {
                    return Err(error);
                }
                return Err(StartError::Exited {
                    status: status.map(super::describe_exit),
                    output: child.output_tail(),
                    hello_on_stdout: looks_like_protocol(&child.stdout_tail()),
                    memory_limit_mib: launch.limits.memory_mib(),
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

/// How often stdout is looked at while the handshake is awaited.
const STDOUT_LOOK: Duration = Duration::from_millis(100);

/// Waits for the handshake's first event until `deadline`, or until the implementation has
/// written what looks like a protocol message to stdout (then a timeout is returned early):
/// a program that speaks on the wrong descriptor is told at once, not after the deadline.
fn receive_hello(child: &Child, deadline: Instant) -> Received {
    loop {
        let now = Instant::now();
        let slice = deadline.min(now + STDOUT_LOOK);
        match child.receive(slice) {
            Received::Timeout if slice < deadline => {
                if looks_like_protocol(&child.stdout_tail()) {
                    return Received::Timeout;
                }
            }
            other => return other,
        }
    }
}

/// The build step's failure, when the launch ended as a failed build does: with
/// [`build::BUILD_FAILED`] and a last line saying so. What it printed before that line is the
/// compiler's.
fn build_failure(status: Option<&std::process::ExitStatus>, output: &str) -> Option<StartError> {
    if status.and_then(std::process::ExitStatus::code) != Some(build::BUILD_FAILED) {
        return None;
    }
    let at = output.rfind(build::MESSAGE_PREFIX)?;
    let reason = output[at + build::MESSAGE_PREFIX.len()..].trim().to_owned();
    Some(StartError::Build {
        reason,
        output: output[..at].trim_end().to_owned(),
    })
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
        return Err(StartError::Load {
            message: message.trim_end().to_owned(),
            printed: hello.output.clone(),
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
    if let Some(runtime) = hello.runtime.as_deref() {
        if !runtime.policies.problems.is_empty() {
            return Err(StartError::Policies {
                problems: runtime.policies.problems.clone(),
            });
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `unshare --fork` exits 1 saying `sigprocmask unblock failed` when the program it
    /// started was killed by a signal: the memory limit may be why, as for the signal itself.
    #[test]
    fn a_signal_unshare_could_not_pass_on_may_be_memory() {
        let status = Some("it exited with status 1");
        assert!(may_be_memory(
            "unshare: sigprocmask unblock failed\n",
            status
        ));
        assert!(may_be_memory("", Some("it was killed by signal 9")));
        assert!(!may_be_memory("bad option: -I", status));
    }

    /// A summary row names the cause; what the module printed (a `print` at import, Node's
    /// version banner) is never taken for it, even when it reads like an exception.
    #[test]
    fn a_start_error_headline_names_the_cause_not_what_was_printed() {
        let load = StartError::Load {
            message: "Traceback (most recent call last):\n  File \"m.py\", line 1\nModuleNotFoundError: numpyy".into(),
            printed: "loading\nValueError: looks like a cause".into(),
        };
        assert_eq!(
            load.headline(),
            "the implementation cannot be loaded: ModuleNotFoundError: numpyy"
        );
        assert!(load
            .to_string()
            .ends_with("; it printed:\nloading\nValueError: looks like a cause"));
        let exited = StartError::Exited {
            output: "Node.js v20.1.0".into(),
            hello_on_stdout: false,
            status: Some("it exited with status 1".into()),
            memory_limit_mib: None,
        };
        assert_eq!(
            exited.headline(),
            "the implementation ended before the handshake: it exited with status 1"
        );
        let silent = StartError::Exited {
            output: String::new(),
            hello_on_stdout: false,
            status: Some("it was killed by signal 9".into()),
            memory_limit_mib: Some(512),
        };
        assert!(silent.headline().contains("memory limit of 512 MiB"));
        let timeout = StartError::Timeout {
            seconds: 10.0,
            output: "a line; it printed: with the old marker in it".into(),
            hello_on_stdout: false,
        };
        assert_eq!(
            timeout.headline(),
            "the implementation did not answer the handshake within 10.0s; nothing arrived on \
             its reply descriptor before the deadline: a hang at import, or output it buffers \
             (flush after each message)"
        );
    }
}
