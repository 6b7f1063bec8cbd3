//! What a case's checks show when it passes, worked out once per case and number model.
//!
//! A passing case returned what the case expects, up to what the judge lets differ (the
//! order of identical requests' answers, the order of invocations and of a result's keys),
//! and no check reads those: its blame is no charge and every check that applies to its
//! expected output shown, which is [`applicable_in`]. Grading runs every student on the same
//! cases and `parcall mutate` every mutant, and most of their cases pass, so the checks ran
//! again and again on the same expected output (grading a class of 12: 11.1-13.7 CPU-seconds
//! before, 9.9-10.4 after, BENCHMARKS.md section 4). A test holds the blame of passing runs
//! to this (`passing_runs_are_blamed_as_their_case_applies`).

use super::applicable_in;
use crate::json::NumberModel;
use crate::spec::Case;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};

/// Entries beyond this are pruned of dead cases; if the live ones still fill half of it,
/// the table starts over. A `check` streams each generated case once, so without a bound the
/// table would grow with the run (issue #15 item 1 keeps memory flat).
const KEPT: usize = 4096;

/// Applicable requirements by case allocation and number model. The `Weak` keeps the case's
/// allocation from being freed or reused while its entry lives, and `Arc::get_mut` and
/// `Arc::make_mut` never change a value that has a `Weak` (the first refuses, the second
/// copies it): so an entry whose key is the address of a live `Arc<Case>` was computed from
/// that very value.
type Table = HashMap<(usize, NumberModel), (Weak<Case>, BTreeSet<String>)>;

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// [`applicable_in`] for a case behind an `Arc`, computed once while the case lives.
pub fn applicable_to(model: NumberModel, case: &Arc<Case>) -> BTreeSet<String> {
    let key = (Arc::as_ptr(case) as usize, model);
    if let Some((_, shown)) = lock().as_ref().and_then(|table| table.get(&key)) {
        return shown.clone();
    }
    // Worked out without the lock: other threads judge meanwhile.
    let shown = applicable_in(model, case);
    let mut guard = lock();
    let table = guard.get_or_insert_with(HashMap::new);
    if table.len() >= KEPT {
        table.retain(|_, (case, _)| case.strong_count() > 0);
        if table.len() >= KEPT / 2 {
            table.clear();
        }
    }
    table.insert(key, (Arc::downgrade(case), shown.clone()));
    shown
}

/// The table, even after a thread panicked holding it: every entry is complete when
/// inserted, so a poisoned table is still a correct one.
fn lock() -> std::sync::MutexGuard<'static, Option<Table>> {
    TABLE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        for round in 0..3 {
            for case in &spec.cases {
                let fresh = Arc::new(Case::clone(&case.case));
                for model in [NumberModel::Python, NumberModel::Float64] {
                    assert_eq!(
                        applicable_to(model, &fresh),
                        applicable_in(model, &fresh),
                        "{} round {round}",
                        case.id()
                    );
                }
            }
        }
    }
}
