//! One case, from the oldest in flight to its end: the implementation's `invoke` messages
//! answered (a race probe's answer held back for its latency), its `returned` and `raised`
//! messages paired with what parcall saw invoked during each batch, until `result`.

use super::bounds;
use super::session::may_be_memory;
use super::tools::CaseTools;
use super::{clip, describe_exit};
use crate::json::NumberModel;
use crate::process::{Child, Event, Received};
use crate::protocol::{self, Answer, BatchReply, Invocation, Reply};
use crate::spec::Case;
use std::time::{Duration, Instant};

/// How a case ended.
pub(super) enum Awaited {
    /// Its batches, each with what was invoked during it, and what it printed.
    Reply {
        batches: Vec<BatchReply>,
        printed: String,
    },
    /// A crash or a protocol error: the process is stopped and restarted.
    Failed(Answer),
}

/// The case's deadline passed first.
pub(super) struct Timeout;

/// An answer parcall holds back: the race probe.
struct Held {
    due: Instant,
    call: u64,
    answer: crate::spec::Answer,
}

pub(super) struct Conversation {
    id: u64,
    /// The memory limit the implementation runs under, named when it dies of it.
    memory_mib: Option<u64>,
    batches_sent: usize,
    tools: CaseTools,
    batches: Vec<BatchReply>,
    held: Vec<Held>,
}

impl Conversation {
    pub(super) fn new(
        id: u64,
        case: &Case,
        model: NumberModel,
        memory_mib: Option<u64>,
    ) -> Conversation {
        Conversation {
            id,
            memory_mib,
            batches_sent: case.batch_count(),
            tools: CaseTools::new(case, model),
            batches: Vec::new(),
            held: Vec::new(),
        }
    }

    /// Reads the child's messages until the case ends or `deadline` passes.
    pub(super) fn run(&mut self, child: &mut Child, deadline: Instant) -> Result<Awaited, Timeout> {
        loop {
            let wake = self
                .held
                .iter()
                .map(|h| h.due)
                .min()
                .map_or(deadline, |due| due.min(deadline));
            let line = match child.receive(wake) {
                Received::Timeout if Instant::now() >= deadline => return Err(Timeout),
                Received::Timeout => {
                    self.release_due(child);
                    continue;
                }
                Received::Event(Event::Closed) => {
                    let status = child.finish(Instant::now() + Duration::from_millis(200));
                    let how = status.map(describe_exit);
                    let memory = match self.memory_mib {
                        Some(mib) if may_be_memory(&child.output_tail(), how.as_deref()) => {
                            format!("; most likely stopped by the memory limit of {mib} MiB")
                        }
                        _ => String::new(),
                    };
                    let how = how.unwrap_or_else(|| "it closed the protocol channel".into());
                    return Ok(failed(Answer::Crash {
                        message: format!("the implementation died during the case: {how}{memory}"),
                    }));
                }
                Received::Event(Event::LineTooLong) => {
                    return Ok(protocol_error("a reply line longer than the limit".into()))
                }
                Received::Event(Event::Line(line)) => line,
            };
            let reply = match protocol::decode(&line) {
                Ok(reply) => reply,
                Err(error) => return Ok(protocol_error(format!("{error}: {}", clip(&line)))),
            };
            if let Some(ended) = self.take(reply, child) {
                return Ok(ended);
            }
        }
    }

    /// Takes one message; `Some` when the case is over.
    fn take(&mut self, reply: Reply, child: &Child) -> Option<Awaited> {
        let about = match &reply {
            Reply::Invoke(Invocation { id, .. })
            | Reply::Returned { id, .. }
            | Reply::Raised { id, .. } => *id,
            Reply::Result(result) => result.id,
            Reply::Hello(_) | Reply::Bye => {
                return Some(protocol_error(format!(
                    "expected a message about case message {}, got {}",
                    self.id,
                    clip(&format!("{reply:?}"))
                )))
            }
        };
        if about != self.id {
            return Some(protocol_error(format!(
                "a message about case message {about} while {} runs",
                self.id
            )));
        }
        match reply {
            Reply::Invoke(invocation) => self.invoked(&invocation, child),
            Reply::Returned { output, .. } => {
                let batch = self.batches.len();
                if let Some(ended) = self.room_for_a_batch() {
                    return Some(ended);
                }
                if let Err(excess) = bounds::check_output(batch, &output) {
                    return Some(past_a_bound(&excess));
                }
                let invocations = self.tools.take(batch);
                self.batches.push(BatchReply::Returned {
                    output,
                    invocations,
                });
                None
            }
            Reply::Raised {
                message, traceback, ..
            } => {
                let batch = self.batches.len();
                if let Some(ended) = self.room_for_a_batch() {
                    return Some(ended);
                }
                if let Err(excess) = bounds::check_raised(batch, &message, &traceback) {
                    return Some(past_a_bound(&excess));
                }
                // A batch that raised because memory ran out (Python's `MemoryError`, raised
                // when an allocation fails under the memory limit) is a crash: the
                // process is restarted, and it counts toward giving up.
                if message.starts_with("MemoryError") {
                    let limit = self
                        .memory_mib
                        .map_or_else(String::new, |mib| format!(" of {mib} MiB"));
                    return Some(failed(Answer::Crash {
                        message: format!(
                            "the implementation was stopped by the memory limit{limit} ({})",
                            clip(&message)
                        ),
                    }));
                }
                let invocations = self.tools.take(batch);
                self.batches.push(BatchReply::Raised {
                    message,
                    traceback,
                    invocations,
                });
                None
            }
            Reply::Result(result) => {
                if let Err(excess) = bounds::check_printed(&result.output) {
                    return Some(past_a_bound(&excess));
                }
                // What was invoked after the last batch ended (a thread the function left
                // running) still happened during the case: it counts with the last batch.
                if let Some(last) = self.batches.len().checked_sub(1) {
                    let late = self.tools.take(last);
                    match &mut self.batches[last] {
                        BatchReply::Returned { invocations, .. }
                        | BatchReply::Raised { invocations, .. } => invocations.extend(late),
                    }
                }
                Some(Awaited::Reply {
                    batches: std::mem::take(&mut self.batches),
                    printed: result.output,
                })
            }
            Reply::Hello(_) | Reply::Bye => None,
        }
    }

    /// Records and answers an invocation, holding the answer back when it is a race probe
    /// and a race could happen: some process of the implementation runs more than one thread,
    /// or another invocation of the case is waiting for its answer already.
    fn invoked(&mut self, invocation: &Invocation, child: &Child) -> Option<Awaited> {
        let batch = self.batches.len();
        let answered = match self.tools.invoke(invocation, batch) {
            Ok(answered) => answered,
            Err(excess) => return Some(past_a_bound(&excess)),
        };
        let hold = answered.probe_ms > 0 && (!self.held.is_empty() || child.runs_threads());
        if hold {
            self.held.push(Held {
                due: Instant::now() + Duration::from_millis(answered.probe_ms),
                call: invocation.call,
                answer: answered.answer,
            });
        } else {
            send(child, self.id, invocation.call, answered.answer);
        }
        None
    }

    /// Sends every held answer whose time has come.
    fn release_due(&mut self, child: &Child) {
        let now = Instant::now();
        let (due, waiting): (Vec<Held>, Vec<Held>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.due <= now);
        self.held = waiting;
        for held in due {
            send(child, self.id, held.call, held.answer);
        }
    }

    /// A protocol error when the case already has all its batches, or one raised.
    fn room_for_a_batch(&self) -> Option<Awaited> {
        let raised = matches!(self.batches.last(), Some(BatchReply::Raised { .. }));
        if self.batches.len() >= self.batches_sent || raised {
            let found = self.batches.len() + 1;
            return Some(past_a_bound(&bounds::Excess::Batches {
                found,
                sent: self.batches_sent,
            }));
        }
        None
    }
}

fn send(child: &Child, id: u64, call: u64, answer: crate::spec::Answer) {
    child.send(protocol::answer_line(id, call, &answer));
}

fn failed(answer: Answer) -> Awaited {
    Awaited::Failed(answer)
}

fn protocol_error(message: String) -> Awaited {
    Awaited::Failed(Answer::Protocol { message })
}

fn past_a_bound(excess: &bounds::Excess) -> Awaited {
    protocol_error(format!(
        "the reply is past a bound, so it was not kept: {excess}"
    ))
}
