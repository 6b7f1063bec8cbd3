//! Putting cases to an implementation process: handshake, pipelined case messages, a
//! deadline per case, restart after a timeout or crash, and giving up on a function after
//! repeated failures so a hanging implementation costs seconds, not minutes. Transport
//! only: what comes back is an answer per case, which the judge (not the runner) reads.

pub mod bounds;
mod conversation;
mod session;
mod tools;

pub use session::{clip, Session, StartError};

use conversation::{Awaited, Conversation, Timeout};

use crate::json::NumberModel;
use crate::process::Launch;
use crate::protocol::RuntimeDeclaration;
use crate::protocol::{self, Answer, CaseAnswer, ImplementationInfo, Request};
use crate::spec::{Function, SpecCase};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How a run treats the implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Deadline for one case, counted from when the implementation could start on it.
    pub timeout: Duration,
    /// Deadline for start-up and handshake (import time included).
    pub startup: Duration,
    /// Cases sent ahead of their turn, so the pipe never sits idle between cases. Wide
    /// enough that neither side waits for the other's slow cases: with fewer, the Python
    /// adapter sat idle or blocked on its reply while parcall judged
    /// (BENCHMARKS.md section 3).
    pub window: usize,
    /// Consecutive timeouts, crashes or protocol errors in one function before its other
    /// cases are not run.
    pub give_up_after: usize,
    /// When the whole run must end (`parcall grade`'s budget per submission): cases not
    /// answered by then are not run.
    pub deadline: Option<Instant>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            timeout: Duration::from_secs(5),
            startup: Duration::from_secs(10),
            window: 32,
            give_up_after: 3,
            deadline: None,
        }
    }
}

/// A live connection to an implementation: runs batches of cases on demand, restarting
/// the process after failures. Shrinking drives it one case at a time.
pub struct Runner<'a> {
    launch: &'a Launch,
    suite: &'a str,
    settings: Settings,
    implementation: ImplementationInfo,
    functions: Vec<Function>,
    /// Declared in the first handshake; a restarted process cannot change it.
    number_model: NumberModel,
    /// A runtime adapter's framework and policies, from the first handshake.
    runtime: Option<RuntimeDeclaration>,
    session: Option<Session>,
    next_id: u64,
    /// Set once the run's budget is spent.
    budget_spent: bool,
    /// The functions given up on, with why: their later cases (generated ones, shrinking)
    /// are not run either.
    given_up: Vec<(Function, String)>,
}

impl<'a> Runner<'a> {
    /// Starts the implementation and runs the handshake.
    pub fn start(
        launch: &'a Launch,
        suite: &'a str,
        settings: Settings,
    ) -> Result<Runner<'a>, StartError> {
        let session = Session::start(launch, suite, settings.startup)?;
        Ok(Runner {
            launch,
            suite,
            settings,
            implementation: session.hello.implementation.clone(),
            functions: session.hello.functions.clone(),
            number_model: session.hello.number_model,
            runtime: session.hello.runtime.as_deref().cloned(),
            session: Some(session),
            next_id: opaque_start(),
            budget_spent: false,
            given_up: Vec::new(),
        })
    }

    /// The functions the implementation defines.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The number model the implementation declared (RULES E).
    pub fn number_model(&self) -> NumberModel {
        self.number_model
    }

    /// The framework a runtime adapter drives and the policies it declared.
    pub fn runtime(&self) -> Option<&RuntimeDeclaration> {
        self.runtime.as_ref()
    }

    /// Why the run is incomplete: its deadline (`--budget`) passed before every case ran.
    pub fn incomplete(&self) -> Option<String> {
        self.budget_spent
            .then(|| "the run's time budget (--budget) was spent before every case ran".to_owned())
    }

    /// How the implementation announced itself.
    pub fn implementation(&self) -> &ImplementationInfo {
        &self.implementation
    }

    /// Puts the cases `source` yields, all of one function the implementation defines, to
    /// it, pipelined, handing each answer to `sink` as soon as it arrives: cases are drawn
    /// only as the window has room and nothing is kept, so memory stays flat however many
    /// cases run (`check --fuzz 50000`).
    pub fn answer(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) {
        self.run_function(source, sink);
    }

    /// Asks the implementation to exit, then makes sure it has.
    pub fn shutdown(mut self) {
        if let Some(mut session) = self.session.take() {
            session.child.send(protocol::encode(&Request::Shutdown));
            session
                .child
                .finish(Instant::now() + Duration::from_millis(500));
        }
    }
}

/// A case sent and not yet answered.
struct InFlight {
    id: u64,
    case: SpecCase,
}

/// The cases of a function still to send: the ones a restart sent back first, then the
/// ones the source has not yielded yet.
struct Pending<'s> {
    returned: VecDeque<SpecCase>,
    source: &'s mut dyn Iterator<Item = SpecCase>,
    /// The source has ended: it is not asked again (an iterator need not stay ended).
    exhausted: bool,
}

impl Pending<'_> {
    fn next(&mut self) -> Option<SpecCase> {
        self.returned.pop_front().or_else(|| self.draw())
    }

    fn draw(&mut self) -> Option<SpecCase> {
        if self.exhausted {
            return None;
        }
        let case = self.source.next();
        self.exhausted = case.is_none();
        case
    }

    fn is_empty(&mut self) -> bool {
        if self.returned.is_empty() {
            match self.draw() {
                Some(case) => self.returned.push_back(case),
                None => return true,
            }
        }
        false
    }
}

impl Runner<'_> {
    fn run_function(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) {
        let mut queue = Pending {
            returned: VecDeque::new(),
            source,
            exhausted: false,
        };
        // A function given up on earlier in the run stays given up: "its remaining cases are
        // not run" (docs/checking.md) includes the generated ones and their shrinking: a hang
        // would cost its full timeout again on each.
        if let Some(first) = queue.next() {
            let function = first.function();
            queue.returned.push_front(first);
            if let Some((_, reason)) = self.given_up.iter().find(|(f, _)| *f == function) {
                let reason = reason.clone();
                // One at a time as they are drawn: a stream of generated cases is not
                // collected just to be skipped.
                self.skip_all(std::iter::from_fn(|| queue.next()), &reason, sink);
                return;
            }
        }
        let mut in_flight: VecDeque<InFlight> = VecDeque::new();
        let mut consecutive_failures = 0;
        let mut turn_started = Instant::now();
        while !in_flight.is_empty() || !queue.is_empty() {
            if self.out_of_time(&mut queue, &mut in_flight, sink) {
                return;
            }
            if self.session.is_none() && !self.restart(&mut queue, &mut in_flight, sink) {
                return;
            }
            self.fill_window(&mut queue, &mut in_flight);
            let Some(oldest) = in_flight.pop_front() else {
                break;
            };
            let turn_deadline = turn_started + self.settings.timeout;
            let deadline = self
                .settings
                .deadline
                .map_or(turn_deadline, |d| d.min(turn_deadline));
            let answer = self.await_answer(&oldest, deadline);
            let budget_spent = deadline < turn_deadline && Instant::now() >= deadline;
            self.budget_spent |= budget_spent;
            if budget_spent && matches!(answer, Awaited::Failed(Answer::Timeout { .. })) {
                // The budget, not the case, ran out: the case is not run, not timed out.
                in_flight.push_front(oldest);
                continue;
            }
            let elapsed = turn_started.elapsed();
            turn_started = Instant::now();
            match answer {
                Awaited::Reply {
                    batches,
                    printed,
                    outstanding,
                } => {
                    consecutive_failures = 0;
                    let answer = CaseAnswer {
                        answer: Answer::Batches(batches),
                        printed: bounds::kept_printed(printed),
                        process_output: String::new(),
                        duration: elapsed,
                        outstanding,
                    };
                    sink(oldest.case, answer);
                }
                Awaited::Failed(failure) => {
                    // Every failure costs a restart, a wrong id or a garbled line as much as a
                    // crash: all count, or a module that forges replies costs a restart per case.
                    consecutive_failures += 1;
                    let output = self.stop_session();
                    let function = oldest.case.function();
                    let answer = CaseAnswer {
                        answer: failure,
                        printed: String::new(),
                        process_output: output,
                        duration: elapsed,
                        outstanding: Vec::new(),
                    };
                    sink(oldest.case, answer);
                    // Cases sent behind it go back to the queue, in order, for the restart.
                    while let Some(pending) = in_flight.pop_back() {
                        queue.returned.push_front(pending.case);
                    }
                    if consecutive_failures >= self.settings.give_up_after {
                        let reason = format!(
                            "not run: {consecutive_failures} consecutive timeouts, crashes or protocol errors in {function}"
                        );
                        self.skip_all(std::iter::from_fn(|| queue.next()), &reason, sink);
                        self.given_up.push((function, reason));
                    }
                }
            }
        }
    }

    fn fill_window(&mut self, queue: &mut Pending<'_>, in_flight: &mut VecDeque<InFlight>) {
        let Some(session) = &self.session else { return };
        while in_flight.len() < self.settings.window.max(1) {
            let Some(case) = queue.next() else { break };
            self.next_id += 1;
            // The implementation never learns which case it runs: the label it gets is the
            // correlation id, which starts at a random number every run.
            let label = format!("c{:x}", self.next_id);
            let line = protocol::case_line(self.next_id, &label, &case.case);
            session.child.send(line);
            in_flight.push_back(InFlight {
                id: self.next_id,
                case,
            });
        }
    }

    fn await_answer(&mut self, sent: &InFlight, deadline: Instant) -> Awaited {
        let session = self
            .session
            .as_mut()
            .expect("a session runs while cases are in flight");
        let mut conversation = Conversation::new(
            sent.id,
            &sent.case.case,
            self.number_model,
            self.launch.limits.memory_mib(),
        );
        match conversation.run(&mut session.child, deadline) {
            Ok(ended) => ended,
            Err(Timeout) => Awaited::Failed(Answer::Timeout {
                seconds: self.settings.timeout.as_secs_f64(),
            }),
        }
    }

    /// Once the run's deadline has passed, stops the process and reports every case left as
    /// not run. Returns whether it had.
    fn out_of_time(
        &mut self,
        queue: &mut Pending<'_>,
        in_flight: &mut VecDeque<InFlight>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) -> bool {
        let Some(deadline) = self.settings.deadline else {
            return false;
        };
        if Instant::now() < deadline {
            return false;
        }
        self.budget_spent = true;
        self.stop_session();
        let reason = "not run: the submission's time budget ran out";
        self.skip_left(queue, in_flight, reason, sink);
        true
    }

    /// Kills the current process; returns the tail of what it printed outside the capture.
    fn stop_session(&mut self) -> String {
        match self.session.take() {
            Some(mut session) => {
                session.child.kill();
                session.child.output_tail()
            }
            None => String::new(),
        }
    }

    /// Starts a fresh process after a failure. When that fails, the cases left are not run.
    fn restart(
        &mut self,
        queue: &mut Pending<'_>,
        in_flight: &mut VecDeque<InFlight>,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) -> bool {
        let startup = self.settings.deadline.map_or(self.settings.startup, |d| {
            self.settings
                .startup
                .min(d.saturating_duration_since(Instant::now()))
        });
        match Session::start(self.launch, self.suite, startup) {
            Ok(session) => {
                self.session = Some(session);
                true
            }
            Err(error) => {
                let reason = format!(
                    "not run: the implementation could not be restarted: {}",
                    error.headline()
                );
                self.skip_left(queue, in_flight, &reason, sink);
                false
            }
        }
    }

    /// Every case in flight, then every one still to send, not run for `reason`. The ones
    /// still to send are skipped as they are drawn: a stream of generated cases is never
    /// collected just to be skipped (`check --fuzz 50000` stays in flat memory).
    fn skip_left(
        &mut self,
        queue: &mut Pending<'_>,
        in_flight: &mut VecDeque<InFlight>,
        reason: &str,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) {
        let sent: Vec<SpecCase> = in_flight.drain(..).map(|f| f.case).collect();
        self.skip_all(
            sent.into_iter().chain(std::iter::from_fn(|| queue.next())),
            reason,
            sink,
        );
    }

    fn skip_all(
        &mut self,
        cases: impl Iterator<Item = SpecCase>,
        reason: &str,
        sink: &mut dyn FnMut(SpecCase, CaseAnswer),
    ) {
        for case in cases {
            sink(case, CaseAnswer::not_run(reason));
        }
    }
}

/// How a process ended, in words, with what a signal often means here.
pub(super) fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("it exited with status {code}"),
        (None, Some(signal)) => format!("it was killed by signal {signal}{}", signal_hint(signal)),
        _ => "it ended".into(),
    }
}

fn signal_hint(signal: i32) -> &'static str {
    match signal {
        libc::SIGKILL => " (SIGKILL: out of memory, or killed)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT: often a failed allocation under the memory limit)",
        _ => "",
    }
}

/// A random first correlation id, below 2^40 so every adapter's number type holds it
/// exactly (JavaScript's doubles included).
fn opaque_start() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish() >> 24
}
