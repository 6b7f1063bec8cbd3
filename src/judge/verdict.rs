//! The one judge: a case and a subject's answer to it become the case's result. Every
//! result of every run (`check`, `grade`, `mutate`, the spec tests, the property tests) is
//! made here and nowhere else.

use super::blame::{blame_in, blame_without_runs, with_unexplained, Blame, PassMemo};
use super::expected::expected_under;
use super::runtime;
use super::runtime_concurrency;
use super::{judge_in, judge_prefix_in, BatchRun, Failure, Outcome};
use crate::json::{NumberModel, Value};
use crate::protocol::{Answer, BatchReply, CaseAnswer, RuntimeDeclaration};
use crate::spec::{Case, Function, RuntimeCase, SpecCase};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// The verdict on one case and what came with it.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    pub case: SpecCase,
    pub outcome: Outcome,
    /// What the implementation printed during the case (captured by the adapter).
    pub printed: String,
    /// The process's last stderr/stdout bytes, for crashes and timeouts.
    pub process_output: String,
    pub duration: Duration,
    /// The requirements the case shows broken, and the ones it shows kept.
    pub blame: Blame,
    /// The most tool invocations parcall saw outstanding at once during the case (RULES
    /// F3); `None` where nothing was counted.
    pub concurrency: Option<usize>,
}

/// Judges the answers of one implementation, by the number model it declared (RULES E).
#[derive(Debug, Clone)]
pub struct Judge {
    model: NumberModel,
    memo: Arc<PassMemo>,
    /// A runtime adapter's declared policies, which the runtime profile holds it to.
    runtime: Option<Arc<RuntimeDeclaration>>,
}

impl Judge {
    pub fn new(model: NumberModel) -> Judge {
        Judge {
            model,
            memo: Arc::default(),
            runtime: None,
        }
    }

    /// A judge for an implementation of number model `model` that shares what this one
    /// worked out: the submissions of a class and the mutants of a run meet the same cases.
    pub fn under(&self, model: NumberModel) -> Judge {
        Judge {
            model,
            memo: Arc::clone(&self.memo),
            runtime: self.runtime.clone(),
        }
    }

    /// The same judge, holding a runtime adapter to the policies it declared.
    pub fn declaring(self, runtime: Option<RuntimeDeclaration>) -> Judge {
        Judge {
            runtime: runtime.map(Arc::new),
            ..self
        }
    }

    /// The number model answers are read by.
    pub fn model(&self) -> NumberModel {
        self.model
    }

    /// `case` with the expectations of this judge's number model, ready to be put to the
    /// implementation (its inputs stay as written); or, when those cannot be computed, the
    /// result that says the case is not run and why.
    pub fn expect(&self, case: SpecCase) -> Result<SpecCase, Box<CaseResult>> {
        match expected_under(self.model, &case) {
            Ok(expected) => Ok(expected),
            Err(error) => {
                let reason = format!(
                    "not run: its expectations under the {} number model cannot be computed: {error}",
                    self.model
                );
                Err(Box::new(self.judge(case, CaseAnswer::not_run(reason))))
            }
        }
    }

    /// The result of `case` (holding this judge's expectations, see [`Judge::expect`]) given
    /// `answer`. Replies are taken, not copied: a reply's values are used once, and copying
    /// them (and freeing the copies) was a visible share of judging
    /// (BENCHMARKS.md section 3).
    pub fn judge(&self, case: SpecCase, answer: CaseAnswer) -> CaseResult {
        let CaseAnswer {
            answer,
            printed,
            process_output,
            duration,
            outstanding,
        } = answer;
        let concurrency = outstanding.iter().copied().max();
        let (outcome, blame) = match answer {
            Answer::Batches(batches) => self.judge_batches(&case.case, batches, &outstanding),
            Answer::Timeout { seconds } => without_runs(&case, Failure::Timeout { seconds }),
            Answer::Crash { message } => without_runs(&case, Failure::Crash { message }),
            Answer::Protocol { message } => without_runs(&case, Failure::Protocol { message }),
            Answer::NotImplemented => without_runs(&case, Failure::NotImplemented),
            Answer::NotRun { reason } => {
                let outcome = Outcome::Skipped { reason };
                let blame = blame_without_runs(&case.case, &outcome);
                (outcome, blame)
            }
        };
        CaseResult {
            case,
            // Judged and blamed on the whole reply; kept (and reported) as an excerpt.
            outcome: super::excerpt::outcome(outcome),
            printed,
            process_output,
            duration,
            blame,
            concurrency,
        }
    }

    /// The requirements whose checks apply to `case` under this judge's model (what a
    /// failing generated case exercises), worked out once per case.
    pub fn applicable_to(&self, case: &Arc<Case>) -> BTreeSet<String> {
        self.memo.applicable_to(self.model, case)
    }

    /// The verdict on a case whose every batch returned: the outcome, then the blame
    /// (which requirements the batches show broken or kept).
    pub fn verdict(&self, case: &Arc<Case>, runs: &[BatchRun]) -> (Outcome, Blame) {
        let outcome = judge_in(self.model, case, runs);
        let blame = if outcome.is_pass() {
            // What the checks would find on any passing runs of this case, worked out once.
            self.memo.blame_of_a_pass(self.model, case)
        } else {
            blame_in(self.model, case, runs, &outcome)
        };
        (outcome, blame)
    }

    /// Batches that returned are judged in order; a batch that raised is an exception,
    /// unless an earlier batch already failed.
    fn judge_batches(
        &self,
        case: &Arc<Case>,
        batches: Vec<BatchReply>,
        outstanding: &[usize],
    ) -> (Outcome, Blame) {
        let (runs, raised) = split(batches);
        match (&**case, raised) {
            (Case::Runtime(runtime), raised) => {
                self.runtime_verdict(runtime, &runs, raised, outstanding)
            }
            (_, Some(raised)) => self.raised(case, &runs, raised.message, raised.traceback),
            (_, None) => self.verdict(case, &runs),
        }
    }

    /// The verdict on a runtime-profile case: every batch that ended, the last perhaps
    /// raised, read with the invocations parcall saw before it.
    fn runtime_verdict(
        &self,
        case: &RuntimeCase,
        runs: &[BatchRun],
        raised: Option<Raised>,
        outstanding: &[usize],
    ) -> (Outcome, Blame) {
        // Distinct invocations: a call run twice (a retry) is one call, which shows no
        // concurrency to show.
        let invocations: Vec<usize> = runs
            .iter()
            .map(|r| runtime_concurrency::distinct(&r.invocations))
            .chain(
                raised
                    .iter()
                    .map(|r| runtime_concurrency::distinct(&r.invocations)),
            )
            .collect();
        let measured = runtime_concurrency::measured(outstanding, &invocations);
        let raised = raised.map(|r| Raised {
            invocations: r
                .invocations
                .iter()
                .map(|i| self.model.normalise(i))
                .collect(),
            ..r
        });
        let runs = super::held_in(self.model, runs);
        let mut ended: Vec<runtime::Ended<'_>> =
            runs.iter().map(runtime::Ended::Returned).collect();
        if let Some(raised) = &raised {
            ended.push(runtime::Ended::Raised {
                message: &raised.message,
                traceback: &raised.traceback,
                invocations: &raised.invocations,
            });
        }
        let declared = self.runtime.as_deref().map(|r| &r.policies);
        let (outcome, blame) = runtime::verdict_in(self.model, case, &ended, declared);
        let reference = runtime::reference_policies();
        let policies = declared.unwrap_or(&reference);
        let (outcome, blame) = runtime_concurrency::judged(policies, &measured, outcome, blame);
        let blame = with_unexplained(blame, Function::RunToolCalls, runs.len(), &outcome);
        (outcome, blame)
    }

    /// The verdict on a case whose batch `runs.len() + 1` raised.
    fn raised(
        &self,
        case: &Case,
        runs: &[BatchRun],
        message: String,
        traceback: String,
    ) -> (Outcome, Blame) {
        let earlier = judge_prefix_in(self.model, case, runs);
        let outcome = if earlier.is_pass() {
            Outcome::Fail(Failure::Exception {
                batch: runs.len() + 1,
                message,
                traceback,
            })
        } else {
            earlier
        };
        let blame = blame_in(self.model, case, runs, &outcome);
        (outcome, blame)
    }
}

/// The batch that raised, and what it invoked first.
struct Raised {
    message: String,
    traceback: String,
    invocations: Vec<Value>,
}

/// The batches that returned, and the one that raised after them, if one did (no batch
/// runs after it).
fn split(batches: Vec<BatchReply>) -> (Vec<BatchRun>, Option<Raised>) {
    let mut runs = Vec::with_capacity(batches.len());
    for batch in batches {
        match batch {
            BatchReply::Returned {
                output,
                invocations,
            } => runs.push(BatchRun {
                output,
                invocations,
            }),
            BatchReply::Raised {
                message,
                traceback,
                invocations,
            } => {
                let raised = Raised {
                    message,
                    traceback,
                    invocations,
                };
                return (runs, Some(raised));
            }
        }
    }
    (runs, None)
}

/// A failure with no batch to read: blamed on what its case exercises.
fn without_runs(case: &SpecCase, failure: Failure) -> (Outcome, Blame) {
    let outcome = Outcome::Fail(failure);
    let blame = blame_without_runs(&case.case, &outcome);
    (outcome, blame)
}
