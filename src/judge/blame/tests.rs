use super::*;
use crate::json::{parse, Value};
use crate::judge::{expectations, BatchRun};
use crate::spec::Spec;

fn expected_runs(case: &Case) -> Vec<BatchRun> {
    expectations(case)
        .into_iter()
        .map(|(output, invocations)| BatchRun {
            output,
            invocations,
        })
        .collect()
}

#[test]
fn the_expected_output_of_every_spec_case_breaks_no_rule() {
    let spec = Spec::embedded().unwrap();
    for case in &spec.cases {
        let blame = blame(&case.case, &expected_runs(&case.case), &Outcome::Pass);
        assert!(
            blame.charges.is_empty(),
            "{}: {:?}",
            case.id(),
            blame.charges
        );
        assert!(!blame.shown.is_empty(), "{}", case.id());
    }
}

#[test]
fn every_checked_requirement_is_in_the_spec_and_shown_by_some_case() {
    let spec = Spec::embedded().unwrap();
    let mut shown = BTreeSet::new();
    for case in &spec.cases {
        shown.extend(blame(&case.case, &expected_runs(&case.case), &Outcome::Pass).shown);
    }
    for id in ids::CHECKED {
        assert!(spec.requirement(id).is_some(), "{id} is not in the spec");
        assert!(shown.contains(*id), "no spec case shows {id}");
    }
    for requirement in &spec.requirements {
        if requirement.earns_points_by_default() {
            assert!(
                ids::CHECKED.contains(&requirement.id.as_str()),
                "{} has no check",
                requirement.id
            );
        }
    }
}

/// Blames an output given as JSON text against the first batch of a spec case.
fn blame_output(case_id: &str, output: &str, invocations: Option<&str>) -> Blame {
    let spec = Spec::embedded().unwrap();
    let case = spec.cases.iter().find(|c| c.id() == case_id).unwrap();
    let mut runs = expected_runs(&case.case);
    runs[0].output = parse(output).unwrap();
    if let Some(invocations) = invocations {
        runs[0].invocations = parse(invocations).unwrap().as_list().unwrap().to_vec();
    }
    let outcome = crate::judge::judge(&case.case, &runs);
    blame(&case.case, &runs, &outcome)
}

#[test]
fn a_zero_based_id_is_charged_to_the_generated_id_rule_alone() {
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "exec-seed-002")
        .unwrap();
    let mut runs = expected_runs(&case.case);
    let text = runs[0]
        .output
        .to_string()
        .replace("call_1", "call_0")
        .replace("call_2", "call_1");
    runs[0].output = parse(&text).unwrap();
    let outcome = crate::judge::judge(&case.case, &runs);
    let blame = blame(&case.case, &runs, &outcome);
    assert_eq!(blame.charged(), vec![ids::EXEC_ID_GENERATED], "{blame:?}");
    assert!(
        blame.charges[0]
            .diagnosis
            .contains("expected tool_call_id `call_1` (its position in the batch), got \"call_0\""),
        "{}",
        blame.charges[0].diagnosis
    );
}

#[test]
fn a_wrong_type_is_charged_once_and_shows_nothing_else() {
    let blame = blame_output("exec-seed-002", "null", None);
    assert_eq!(blame.charged(), vec![ids::EXEC_OUTPUT_COUNT]);
    assert!(!blame.shown.contains(ids::EXEC_ID_GENERATED));
}

#[test]
fn an_empty_answer_counts_against_every_rule_it_leaves_unshown() {
    let blame = blame_output("exec-seed-002", "[]", None);
    let charged = blame.charged();
    for id in [
        ids::EXEC_OUTPUT_COUNT,
        ids::EXEC_ID_GENERATED,
        ids::EXEC_CONTENT_UNCHANGED,
    ] {
        assert!(charged.contains(&id), "{id} not in {charged:?}");
    }
}

#[test]
fn unexplained_failures_are_charged_to_the_named_requirement() {
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "dedup-seed-001")
        .unwrap();
    let outcome = Outcome::Fail(Failure::Timeout { seconds: 5.0 });
    let blame = blame(&case.case, &[], &outcome);
    assert_eq!(blame.charged(), vec![ids::DEDUP_RESULT_ENTRIES]);
    assert!(!blame.charges[0].explained);
    assert!(blame.charges[0].diagnosis.contains("no answer within 5 s"));
}

/// The checks never fire on what the reference expects, over thousands of generated cases
/// of every shape the generator draws (a check that did would charge correct code).
#[test]
fn the_expected_output_of_generated_cases_breaks_no_rule() {
    let spec = Spec::embedded().unwrap();
    for function in Function::ALL {
        for seed in 0..4 {
            for case in crate::fuzz::generated_cases(function, &spec.cases, 400, seed) {
                let blame = blame(&case.case, &expected_runs(&case.case), &Outcome::Pass);
                assert!(
                    blame.charges.is_empty(),
                    "seed {seed}, {}: {:?}\n{:?}",
                    case.id(),
                    blame.charges,
                    case.case
                );
            }
        }
    }
}

#[test]
fn messages_out_of_call_order_are_charged_to_the_order_rule_alone() {
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "exec-seed-001")
        .unwrap();
    let mut runs = expected_runs(&case.case);
    let mut messages = runs[0].output.as_list().unwrap().to_vec();
    messages.reverse();
    runs[0].output = Value::List(messages);
    let outcome = crate::judge::judge(&case.case, &runs);
    let blame = blame(&case.case, &runs, &outcome);
    assert_eq!(blame.charged(), vec![ids::EXEC_OUTPUT_ORDER], "{blame:?}");
}
