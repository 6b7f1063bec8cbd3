//! The blame of a passing case, worked out once per case and number model.
//!
//! A passing case returned what the case expects, up to what the judge lets differ: the
//! order in which identical requests got their answers, the order of the invocations, the
//! order of an object's members, and numbers the judge holds equal (`-0.0` and `0.0`; under
//! `float64`, `1` and `1.0`). No check reads those differences, so the blame of any passing
//! runs is the blame of the case's expected runs: every check that applies shown, and no
//! charge unless the case's own expectations break a rule (a `--spec` folder's cases are not
//! checked against the reference). Grading runs every student on the same cases and
//! `parcall mutate` every mutant, and most of their cases pass, so the checks ran again and
//! again on the same expected output (BENCHMARKS.md section 4). A test holds passing runs'
//! blame to this (`fuzz::passing_runs_are_blamed_as_their_case_applies`).

use super::{blame_in, Blame};
use crate::json::NumberModel;
use crate::judge::{expected_runs, Outcome};
use crate::spec::Case;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};

/// Entries beyond this are pruned of dead cases; if the live ones still fill three quarters
/// of it, the table starts over. A `check` streams each generated case once, so without a
/// bound the table would grow with the run, and memory must stay flat however many cases run.
const KEPT: usize = 4096;

/// Blames by case allocation and number model. The `Weak` keeps the case's allocation from
/// being freed or reused while its entry lives, and `Arc::get_mut` and `Arc::make_mut` never
/// change a value that has a `Weak` (the first refuses, the second copies it): so an entry
/// whose key is the address of a live `Arc<Case>` was computed from that very value.
type Table = HashMap<(usize, NumberModel), (Weak<Case>, Arc<Blame>)>;

/// The blames of passing cases worked out so far. A [`crate::judge::Judge`] holds one, and
/// the judges of one class share it (`Judge::under`): every submission runs the same cases.
#[derive(Debug, Default)]
pub struct PassMemo {
    table: Mutex<Table>,
}

impl PassMemo {
    /// The blame of any runs of `case` that pass under `model`: the blame of its expected
    /// runs.
    pub fn blame_of_a_pass(&self, model: NumberModel, case: &Arc<Case>) -> Blame {
        Blame::clone(&self.shared(model, case))
    }

    /// The requirements whose checks apply to a case behind an `Arc`:
    /// [`super::applicable_in`], worked out once while the case lives.
    pub fn applicable_to(&self, model: NumberModel, case: &Arc<Case>) -> BTreeSet<String> {
        self.shared(model, case).shown.clone()
    }

    fn shared(&self, model: NumberModel, case: &Arc<Case>) -> Arc<Blame> {
        let key = (Arc::as_ptr(case) as usize, model);
        if let Some((_, blame)) = self.lock().get(&key) {
            return Arc::clone(blame);
        }
        // Worked out without the lock: other threads judge meanwhile.
        let blame = Arc::new(blame_of_expected_runs(model, case));
        let mut table = self.lock();
        if table.len() >= KEPT {
            table.retain(|_, (case, _)| case.strong_count() > 0);
            if table.len() >= KEPT * 3 / 4 {
                table.clear();
            }
        }
        table.insert(key, (Arc::downgrade(case), Arc::clone(&blame)));
        blame
    }

    /// The table, even after a thread panicked holding it: every entry is complete when
    /// inserted, so a poisoned table is still a correct one.
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What the checks find on the runs a case expects, judged a pass.
pub fn blame_of_expected_runs(model: NumberModel, case: &Case) -> Blame {
    blame_in(model, case, &expected_runs(case), &Outcome::Pass)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;

    /// Cases made and dropped one after another are the pattern where a table keyed by
    /// address alone would hand one case's requirements to the next case allocated there.
    #[test]
    fn each_case_gets_its_own_requirements_though_cases_come_and_go() {
        let spec = Spec::embedded().unwrap();
        let memo = PassMemo::default();
        for round in 0..3 {
            for case in &spec.cases {
                let fresh = Arc::new(Case::clone(&case.case));
                for model in [NumberModel::Python, NumberModel::Float64] {
                    assert_eq!(
                        memo.blame_of_a_pass(model, &fresh),
                        blame_of_expected_runs(model, &fresh),
                        "{} round {round}",
                        case.id()
                    );
                }
            }
        }
    }

    /// A `--spec` folder's case whose expected output itself breaks a rule (here a message
    /// content other than what the dispatcher answered) charges that rule even when the run
    /// returns exactly what it expects: the blame of a pass keeps its charges.
    #[test]
    fn a_pass_of_a_case_whose_expectations_break_a_rule_keeps_the_charge() {
        let spec = Spec::embedded().unwrap();
        let mut case = Case::clone(
            &spec
                .cases
                .iter()
                .find(|c| c.id() == "exec-dispatch-001")
                .unwrap()
                .case,
        );
        let Case::Exec(exec) = &mut case else {
            panic!("exec-dispatch-001 is an execute_tool_calls case")
        };
        let crate::json::Value::List(messages) = &mut exec.batches[0].expected else {
            panic!("exec-dispatch-001 expects a list")
        };
        let Some(crate::json::Value::Object(message)) = messages.first_mut() else {
            panic!("exec-dispatch-001 expects a tool message first")
        };
        message.insert("content".into(), "not what the dispatcher said".into());
        let case = Arc::new(case);
        let runs = expected_runs(&case);
        let (outcome, blame) = crate::judge::Judge::new(NumberModel::Python).verdict(&case, &runs);
        assert!(outcome.is_pass());
        assert_eq!(blame, blame_in(NumberModel::Python, &case, &runs, &outcome));
        assert!(
            blame.charges(super::super::ids::EXEC_CONTENT_UNCHANGED),
            "{blame:?}"
        );
    }
}
