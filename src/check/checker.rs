//! A subject and its judge: every case put to the subject comes back judged, and whoever
//! watches the run (a progress line) hears of each result as it is judged.

use super::plan::Undefined;
use crate::fuzz::CaseRunner;
use crate::judge::{CaseResult, Judge};
use crate::process::cpu;
use crate::protocol::{Answer, CaseAnswer};
use crate::spec::{Function, SpecCase};
use crate::subject::Subject;
use std::cell::Cell;
use std::sync::mpsc;

/// Answers waiting for the judging thread before the conversation waits for it: enough
/// that a slow case's judging never stops the implementation, few enough that memory does
/// not grow with a judge that falls behind.
const JUDGING_QUEUE: usize = 64;

/// Hears of each case once it is judged (a progress display): in the order the cases were
/// answered, a few answers behind the conversation, as judging runs beside it.
pub trait Observer {
    fn case_judged(&mut self, result: &CaseResult);
}

impl<F: FnMut(&CaseResult)> Observer for F {
    fn case_judged(&mut self, result: &CaseResult) {
        self(result);
    }
}

/// A subject with the judge of its answers.
pub struct Checker<'s, 'o> {
    subject: &'s mut dyn Subject,
    judge: Judge,
    observer: Option<&'o mut dyn Observer>,
}

impl<'s, 'o> Checker<'s, 'o> {
    /// `subject`, judged by `judge` under the number model the subject declared.
    pub fn new(subject: &'s mut dyn Subject, judge: &Judge) -> Checker<'s, 'o> {
        let judge = judge
            .under(subject.number_model())
            .declaring(subject.runtime().cloned());
        Checker {
            subject,
            judge,
            observer: None,
        }
    }

    /// The same checker, telling `observer` of every result.
    pub fn observed(self, observer: Option<&'o mut dyn Observer>) -> Checker<'s, 'o> {
        Checker { observer, ..self }
    }

    /// Why the run is incomplete (a time budget was spent), if it is.
    pub fn incomplete(&self) -> Option<String> {
        self.subject.incomplete()
    }

    /// Runs `cases` and returns their results, grouped by function in the order of
    /// [`Function::EVERY`]. Cases of a function the subject does not define fail as not
    /// implemented, or are left out, as `undefined` says.
    /// Each case is copied once, as it is put to the subject.
    pub fn run_cases<'c, I>(&mut self, cases: I, undefined: Undefined) -> Vec<CaseResult>
    where
        I: IntoIterator<Item = &'c SpecCase> + Clone,
    {
        let mut results = Vec::with_capacity(cases.clone().into_iter().size_hint().0);
        for function in Function::EVERY {
            let mut of_function = cases
                .clone()
                .into_iter()
                .filter(|c| c.function() == function)
                .cloned();
            if self.subject.functions().contains(&function) {
                self.run_stream(&mut of_function, &mut |result| results.push(result));
            } else if undefined == Undefined::Fail {
                for case in of_function {
                    let result = self.judged(case, CaseAnswer::bare(Answer::NotImplemented));
                    results.push(result);
                }
            }
        }
        results
    }

    /// The result of `answer`, told to the observer.
    fn judged(&mut self, case: SpecCase, answer: CaseAnswer) -> CaseResult {
        let result = self.judge.judge(case, answer);
        if let Some(observer) = &mut self.observer {
            observer.case_judged(&result);
        }
        result
    }
}

impl CaseRunner for Checker<'_, '_> {
    fn functions(&self) -> &[Function] {
        self.subject.functions()
    }

    fn judge(&self) -> &Judge {
        &self.judge
    }

    /// Each case gets its expectations under the judge's number model before it is put to
    /// the subject; one whose expectations cannot be computed is not put to it. Answers are
    /// judged on a thread of their own, so the thread talking to the implementation (which
    /// shares its CPU, `process::cpu`) judges nothing: judging takes the CPUs the
    /// conversation leaves idle. Results come back in the order the answers did. The other
    /// CPUs are those of when the stream starts: a restart that moves the implementation to
    /// another CPU leaves the judge where it was (slower, never wrong).
    fn run_stream(
        &mut self,
        source: &mut dyn Iterator<Item = SpecCase>,
        sink: &mut dyn FnMut(CaseResult),
    ) {
        let Checker {
            subject,
            judge,
            observer,
        } = self;
        let judge: &Judge = judge;
        let mut tell = |result: CaseResult, sink: &mut dyn FnMut(CaseResult)| {
            if let Some(observer) = observer {
                observer.case_judged(&result);
            }
            sink(result);
        };
        let mut refused = Vec::new();
        let mut expected = source.filter_map(|case| match judge.expect(case) {
            Ok(case) => Some(case),
            Err(result) => {
                refused.push(*result);
                None
            }
        });
        // Away from the implementation's CPU, which this thread shares (pinned as the
        // runner started the implementation, before any case): a new thread inherits it.
        let elsewhere = cpu::Others::of_caller();
        std::thread::scope(|scope| {
            let (answered, answers) = mpsc::sync_channel::<(SpecCase, CaseAnswer)>(JUDGING_QUEUE);
            let (judged, results) = mpsc::channel::<CaseResult>();
            let judging = std::thread::Builder::new()
                .name("judge".into())
                .spawn_scoped(scope, move || {
                    if let Some(elsewhere) = elsewhere {
                        elsewhere.enter();
                    }
                    for (case, answer) in answers {
                        if judged.send(judge.judge(case, answer)).is_err() {
                            break;
                        }
                    }
                });
            match judging {
                Ok(judging) => {
                    // A judging thread that panicked takes no more answers: no more cases
                    // are put to the subject, and its panic is raised here with its message.
                    let judge_gone = Cell::new(false);
                    let mut until_gone = expected.by_ref().take_while(|_| !judge_gone.get());
                    subject.answer(&mut until_gone, &mut |case, answer| {
                        if answered.send((case, answer)).is_err() {
                            judge_gone.set(true);
                        }
                        for result in results.try_iter() {
                            tell(result, sink);
                        }
                    });
                    drop(answered);
                    for result in results {
                        tell(result, sink);
                    }
                    if let Err(panic) = judging.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
                // No thread to be had (a process limit): judged here, as they come.
                Err(_) => subject.answer(&mut expected, &mut |case, answer| {
                    tell(judge.judge(case, answer), sink);
                }),
            }
        });
        drop(expected);
        for result in refused {
            tell(result, sink);
        }
    }

    fn run_one(&mut self, case: SpecCase) -> CaseResult {
        if !self.subject.functions().contains(&case.function()) {
            return self.judged(case, CaseAnswer::bare(Answer::NotImplemented));
        }
        let mut result = None;
        let reason = format!("not run: the subject gave no answer to case {}", case.id());
        let asked = case.clone();
        self.run_stream(&mut std::iter::once(case), &mut |r| result = Some(r));
        match result {
            Some(result) => result,
            None => self.judged(asked, CaseAnswer::not_run(reason)),
        }
    }
}
