//! One case, from the oldest in flight to its end: the implementation's `invoke` messages
//! answered (a race probe's answer held back for its latency), its `returned` and `raised`
//! messages paired with what parcall saw invoked during each batch, until `result`. In the
//! runtime profile it also counts the invocations outstanding at once (RULES F3), holding the
//! first answer of a turn briefly so that a framework that runs tools concurrently shows it.

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
        /// The most invocations outstanding at once during each batch.
        outstanding: Vec<usize>,
    },
    /// A crash or a protocol error: the process is stopped and restarted.
    Failed(Answer),
}

/// The case's deadline passed first.
pub(super) struct Timeout;

/// How long the first answer of a runtime turn of several calls is held for a second
/// invocation to arrive: long enough for a thread pool or an event loop to start the turn's
/// other tools, short enough that a sequential framework pays little (it pays this once per
/// turn of several calls; a framework that starts every call at once pays nothing, the hold
/// ending as soon as every call of the turn is outstanding).
pub(super) const OVERLAP_GRACE: Duration = Duration::from_millis(25);

/// An answer parcall holds back: a race probe, or an answer held for overlap to show.
struct Held {
    due: Instant,
    /// When a race probe's own hold ends, for an answer also held for overlap: the overlap
    /// hold may end early, the probe's may not.
    probe_due: Option<Instant>,
    call: u64,
    answer: crate::spec::Answer,
}

/// What parcall counts of a runtime's concurrency (RULES F3): the invocations it has not
/// answered yet are the ones the framework has outstanding.
struct Overlap {
    /// The calls of each batch of a runtime-profile case; empty for an exercise's case,
    /// whose answers are never held for overlap.
    calls: Vec<usize>,
    /// Invocations received and not yet answered.
    outstanding: usize,
    /// The most outstanding at once, per batch.
    most: Vec<usize>,
    /// Invocations received during each batch.
    received: Vec<usize>,
    /// While the first answer of the current turn is held: when that hold ends.
    window: Option<Instant>,
}

impl Overlap {
    fn new(case: &Case) -> Overlap {
        let calls = match case {
            Case::Runtime(runtime) => runtime
                .batches
                .iter()
                .map(|b| b.calls.as_list().map_or(0, <[_]>::len))
                .collect(),
            _ => Vec::new(),
        };
        let batches = case.batch_count().max(1);
        Overlap {
            calls,
            outstanding: 0,
            most: vec![0; batches],
            received: vec![0; batches],
            window: None,
        }
    }

    /// Counts an invocation made during `batch`; returns until when its answer is held for
    /// overlap to show, if it is: the first invocation of a runtime turn of several calls
    /// opens the hold, and every invocation arriving while it lasts joins it.
    fn invoked(&mut self, batch: usize, now: Instant) -> Option<Instant> {
        let batch = batch.min(self.most.len() - 1);
        self.outstanding += 1;
        self.most[batch] = self.most[batch].max(self.outstanding);
        self.received[batch] += 1;
        let several = self.calls.get(batch).is_some_and(|&calls| calls > 1);
        match self.window {
            Some(until) if until > now => Some(until),
            _ if several && self.received[batch] == 1 => {
                self.window = Some(now + OVERLAP_GRACE);
                self.window
            }
            _ => None,
        }
    }

    /// Whether every call of `batch` is outstanding: no further invocation can show more
    /// overlap, so the hold ends now.
    fn all_outstanding(&self, batch: usize) -> bool {
        self.calls
            .get(batch)
            .is_some_and(|&calls| self.outstanding >= calls)
    }
}

pub(super) struct Conversation {
    id: u64,
    /// The memory limit the implementation runs under, named when it dies of it.
    memory_mib: Option<u64>,
    batches_sent: usize,
    tools: CaseTools,
    batches: Vec<BatchReply>,
    held: Vec<Held>,
    overlap: Overlap,
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
            overlap: Overlap::new(case),
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
                    outstanding: std::mem::take(&mut self.overlap.most),
                })
            }
            Reply::Hello(_) | Reply::Bye => None,
        }
    }

    /// Records and answers an invocation, holding the answer back when it is a race probe
    /// and a race could happen (some process of the implementation runs more than one thread,
    /// or another invocation of the case is waiting for its answer already), or while the
    /// first answer of a runtime turn is held for overlap to show.
    fn invoked(&mut self, invocation: &Invocation, child: &Child) -> Option<Awaited> {
        let batch = self.batches.len();
        let answered = match self.tools.invoke(invocation, batch) {
            Ok(answered) => answered,
            Err(excess) => return Some(past_a_bound(&excess)),
        };
        let now = Instant::now();
        let probe = answered.probe_ms > 0 && (!self.held.is_empty() || child.runs_threads());
        let probe_due = probe.then(|| now + Duration::from_millis(answered.probe_ms));
        let overlap_due = self.overlap.invoked(batch, now);
        let due = match (probe_due, overlap_due) {
            (Some(probe), Some(overlap)) => Some(probe.max(overlap)),
            (probe, overlap) => probe.or(overlap),
        };
        match due {
            Some(due) => self.held.push(Held {
                due,
                probe_due,
                call: invocation.call,
                answer: answered.answer,
            }),
            None => self.answer(child, invocation.call, answered.answer),
        }
        if self.overlap.window.is_some() && self.overlap.all_outstanding(batch) {
            self.end_overlap_hold(now);
            self.release_due(child);
        }
        None
    }

    /// Ends the hold for overlap: what is held for it alone is due now; a race probe keeps
    /// its own time.
    fn end_overlap_hold(&mut self, now: Instant) {
        self.overlap.window = None;
        for held in &mut self.held {
            held.due = held.probe_due.unwrap_or(now);
        }
    }

    /// Sends every held answer whose time has come.
    fn release_due(&mut self, child: &Child) {
        let now = Instant::now();
        let (due, waiting): (Vec<Held>, Vec<Held>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|h| h.due <= now);
        self.held = waiting;
        for held in due {
            self.answer(child, held.call, held.answer);
        }
    }

    fn answer(&mut self, child: &Child, call: u64, answer: crate::spec::Answer) {
        self.overlap.outstanding = self.overlap.outstanding.saturating_sub(1);
        send(child, self.id, call, answer);
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
