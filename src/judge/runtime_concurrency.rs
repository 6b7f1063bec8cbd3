//! Concurrency in the runtime profile (RULES F2, F3): observed, not reported. parcall answers
//! every invocation, so it counts the invocations a framework has outstanding at once in
//! each turn (holding the first answer of a turn briefly, so that overlap shows); the
//! framework declares how many it runs at once at most. More than declared is a MUST failure.
//! A framework that declares more than one and never shows it misses a SHOULD, which is
//! charged without failing the case: a SHOULD is scored apart from the MUSTs.

use super::blame::{Blame, Charge};
use super::Outcome;
use crate::protocol::RuntimePolicies;

/// MUST: no more tool invocations outstanding at once than the declared concurrency.
pub const RUNTIME_CONCURRENCY_DECLARED: &str = "RUNTIME-CONCURRENCY-DECLARED";
/// SHOULD: a framework that declares concurrency above 1 runs a turn's tools concurrently.
pub const RUNTIME_CONCURRENCY_SHOWN: &str = "RUNTIME-CONCURRENCY-SHOWN";

/// What parcall counted during one batch (one model turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    /// 1-based.
    pub batch: usize,
    /// The most invocations outstanding at once.
    pub most: usize,
    /// The different invocations made during the batch ([`distinct`]).
    pub invocations: usize,
}

/// The batches of a case as parcall measured them: `outstanding` per batch (as the runner
/// counted), `invocations` per batch (as it recorded). Batches nothing counted are left out.
pub fn measured(outstanding: &[usize], invocations: &[usize]) -> Vec<Measured> {
    outstanding
        .iter()
        .zip(invocations)
        .enumerate()
        .map(|(index, (&most, &invocations))| Measured {
            batch: index + 1,
            most,
            invocations,
        })
        .collect()
}

/// How many different invocations a batch made: the same tool with the same arguments twice
/// (a retry, or identical calls) is one, so a turn that ran one call twice shows no
/// concurrency a framework should have shown.
pub fn distinct(invocations: &[crate::json::Value]) -> usize {
    let mut seen: Vec<&crate::json::Value> = Vec::new();
    for invocation in invocations {
        if !seen.contains(&invocation) {
            seen.push(invocation);
        }
    }
    seen.len()
}

/// Batches of `invocations` each, run one tool at a time (as the reference runtime does).
pub fn one_at_a_time(invocations: &[usize]) -> Vec<Measured> {
    let most: Vec<usize> = invocations.iter().map(|&n| n.min(1)).collect();
    measured(&most, invocations)
}

/// The MUST: the first batch with more invocations outstanding at once than declared. A
/// declared `max_parallel` of `null` is no limit.
pub fn concurrency(policies: &RuntimePolicies, measured: &[Measured]) -> Option<Charge> {
    let declared = usize::try_from(policies.max_parallel?).unwrap_or(usize::MAX);
    let over = measured.iter().find(|m| m.most > declared)?;
    Some(Charge {
        requirement: RUNTIME_CONCURRENCY_DECLARED.into(),
        batch: over.batch,
        diagnosis: format!(
            "{} tool invocations were outstanding at once; the adapter declares at most {declared}",
            over.most
        ),
        explained: true,
    })
}

/// The SHOULD: a framework that declares more than one at once (or no limit) and, in a turn
/// that invoked several tools, never had two outstanding at once while parcall held the
/// first answer.
pub fn concurrency_shown(policies: &RuntimePolicies, measured: &[Measured]) -> Option<Charge> {
    if policies.max_parallel.is_some_and(|limit| limit <= 1) {
        return None;
    }
    let sequential = measured.iter().find(|m| m.invocations > 1 && m.most == 1)?;
    Some(Charge {
        requirement: RUNTIME_CONCURRENCY_SHOWN.into(),
        batch: sequential.batch,
        diagnosis: format!(
            "{} tools ran one at a time (parcall held the first answer and no second invocation arrived); the adapter declares {}",
            sequential.invocations,
            declared_words(policies)
        ),
        explained: true,
    })
}

/// The verdict and blame of a runtime case with the concurrency rules added: a MUST charge
/// fails a passing case, a SHOULD charge is only recorded; a turn of several invocations
/// within the bound shows the MUST kept, one that overlapped shows the SHOULD kept.
pub fn judged(
    policies: &RuntimePolicies,
    measured: &[Measured],
    outcome: Outcome,
    mut blame: Blame,
) -> (Outcome, Blame) {
    let must = concurrency(policies, measured);
    let should = concurrency_shown(policies, measured);
    let several = measured.iter().any(|m| m.invocations > 1);
    if must.is_none() && several {
        blame.shown.insert(RUNTIME_CONCURRENCY_DECLARED.into());
    }
    // A framework that declares one at a time has no concurrency to show: the SHOULD holds
    // wherever the MUST was seen kept.
    let may_overlap = policies.max_parallel.is_none_or(|limit| limit > 1);
    let overlapped = measured.iter().any(|m| m.most > 1);
    if should.is_none() && several && (overlapped || !may_overlap) {
        blame.shown.insert(RUNTIME_CONCURRENCY_SHOWN.into());
    }
    let outcome = match (&must, outcome) {
        (Some(charge), outcome) if outcome.is_pass() => Outcome::Fail(super::Failure::Exception {
            batch: charge.batch,
            message: format!("concurrency: {}", charge.diagnosis),
            traceback: String::new(),
        }),
        (_, outcome) => outcome,
    };
    blame.charges.extend(must.into_iter().chain(should));
    (outcome, blame)
}

/// The declared concurrency, in words: `at most N at once` or `no limit`.
pub fn declared_words(policies: &RuntimePolicies) -> String {
    match policies.max_parallel {
        Some(limit) => format!("at most {limit} at once"),
        None => "no limit".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declaring(max_parallel: Option<u64>) -> RuntimePolicies {
        RuntimePolicies {
            max_parallel,
            ..RuntimePolicies::default()
        }
    }

    fn five_at_once() -> Vec<Measured> {
        vec![Measured {
            batch: 1,
            most: 5,
            invocations: 5,
        }]
    }

    fn one_at_a_time() -> Vec<Measured> {
        vec![Measured {
            batch: 1,
            most: 1,
            invocations: 5,
        }]
    }

    #[test]
    fn five_at_once_breaks_a_declared_limit_of_one_and_not_no_limit() {
        let charge = concurrency(&declaring(Some(1)), &five_at_once()).unwrap();
        assert_eq!(charge.requirement, RUNTIME_CONCURRENCY_DECLARED);
        assert!(
            charge.diagnosis.contains("5 tool invocations"),
            "{charge:?}"
        );
        assert!(concurrency(&declaring(None), &five_at_once()).is_none());
        assert!(concurrency(&declaring(Some(5)), &five_at_once()).is_none());
        assert!(concurrency(&declaring(Some(1)), &one_at_a_time()).is_none());
    }

    #[test]
    fn declared_concurrency_that_never_shows_misses_the_should_alone() {
        let charge = concurrency_shown(&declaring(None), &one_at_a_time()).unwrap();
        assert_eq!(charge.requirement, RUNTIME_CONCURRENCY_SHOWN);
        assert!(concurrency_shown(&declaring(Some(1)), &one_at_a_time()).is_none());
        assert!(concurrency_shown(&declaring(Some(4)), &five_at_once()).is_none());
        // A turn of one invocation cannot show overlap.
        let single = [Measured {
            batch: 1,
            most: 1,
            invocations: 1,
        }];
        assert!(concurrency_shown(&declaring(None), &single).is_none());
    }

    #[test]
    fn the_must_fails_a_passing_case_and_the_should_does_not() {
        let (outcome, blame) = judged(
            &declaring(Some(1)),
            &five_at_once(),
            Outcome::Pass,
            Blame::default(),
        );
        assert!(!outcome.is_pass());
        assert_eq!(blame.charged(), [RUNTIME_CONCURRENCY_DECLARED]);

        let (outcome, blame) = judged(
            &declaring(None),
            &one_at_a_time(),
            Outcome::Pass,
            Blame::default(),
        );
        assert!(outcome.is_pass());
        assert_eq!(blame.charged(), [RUNTIME_CONCURRENCY_SHOWN]);
        assert!(blame.shown.contains(RUNTIME_CONCURRENCY_DECLARED));

        let (outcome, blame) = judged(
            &declaring(None),
            &five_at_once(),
            Outcome::Pass,
            Blame::default(),
        );
        assert!(outcome.is_pass());
        assert!(blame.charges.is_empty());
        assert!(blame.shown.contains(RUNTIME_CONCURRENCY_SHOWN));
    }
}
