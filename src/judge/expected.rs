//! Expectations under a number model (RULES E). A case file holds what Python's model
//! expects; for an implementation that declared `float64`, the reference runs the case's
//! inputs as a float64 runtime holds them and its results become the case's expectations.

use super::runs::{run_dedup_case, run_exec_case};
use super::BatchRun;
use crate::json::{self, NumberModel, Value};
use crate::reference::{DomainError, Execution};
use crate::spec::{Case, DedupBatch, DedupCase, ExecBatch, ExecCase, SpecCase};
use std::borrow::Cow;

/// `case` as an implementation of number model `model` is judged on it. Under `python`, the
/// case itself. Under `float64`, its inputs as written (the implementation is given them
/// so, and a number's text is its to ignore) with every batch's expected output and
/// invocations as the reference computes them from the inputs held as doubles, keys
/// written as ECMAScript writes numbers. Fails only for input outside the domain, which the
/// spec loader and the generator never let through.
pub fn expected_under(model: NumberModel, case: &SpecCase) -> Result<SpecCase, DomainError> {
    if model == NumberModel::Python {
        return Ok(case.clone());
    }
    recomputed_under(model, case)
}

/// `case` with the expectations the reference computes for number model `model`, whatever
/// its own: under `python`, a case judged under `float64` gets the case file's back.
pub fn recomputed_under(model: NumberModel, case: &SpecCase) -> Result<SpecCase, DomainError> {
    let judged = match &*case.case {
        Case::Exec(exec) => Case::Exec(exec_under(model, exec)?),
        Case::Dedup(dedup) => Case::Dedup(dedup_under(model, dedup)?),
        // A runtime case states no expectations: its calls and scripts are read as the
        // model holds them when it is judged.
        Case::Runtime(_) => return Ok(case.clone()),
    };
    Ok(SpecCase {
        origin: case.origin.clone(),
        case: judged.into(),
    })
}

/// [`expected_under`] of every case, in order (the cases themselves under `python`). A case
/// whose expectations cannot be computed is left out and returned apart, with why.
pub fn all_expected_under(
    model: NumberModel,
    cases: &[SpecCase],
) -> (Cow<'_, [SpecCase]>, Vec<(SpecCase, String)>) {
    if model == NumberModel::Python {
        return (Cow::Borrowed(cases), Vec::new());
    }
    let mut judged = Vec::with_capacity(cases.len());
    let mut refused = Vec::new();
    for case in cases {
        match expected_under(model, case) {
            Ok(case) => judged.push(case),
            Err(error) => refused.push((
                case.clone(),
                format!("not run: its expectations under the {model} number model cannot be computed: {error}"),
            )),
        }
    }
    (Cow::Owned(judged), refused)
}

fn exec_under(model: NumberModel, case: &ExecCase) -> Result<ExecCase, DomainError> {
    let runs = run_exec_case(model, case, Execution::Sequential)?;
    let batches = case
        .batches
        .iter()
        .zip(runs)
        .map(|(batch, run)| ExecBatch {
            calls: batch.calls.clone(),
            max_parallel: batch.max_parallel,
            invocations: typed(&run),
            expected: run.output,
        })
        .collect();
    Ok(ExecCase {
        batches,
        ..case.clone()
    })
}

fn dedup_under(model: NumberModel, case: &DedupCase) -> Result<DedupCase, DomainError> {
    let runs = run_dedup_case(model, case, Execution::Sequential)?;
    let batches = case
        .batches
        .iter()
        .zip(runs)
        .map(|(batch, run)| DedupBatch {
            calls: batch.calls.clone(),
            expected: match &run.output {
                Value::Object(results) => results.clone(),
                _ => unreachable!("run_parallel_calls returns a mapping"),
            },
            invocations: typed(&run),
        })
        .collect();
    Ok(DedupCase {
        batches,
        ..case.clone()
    })
}

/// A batch's invocations, read back into the case format's types (they were written from
/// those types, so this cannot fail).
fn typed<T: serde::de::DeserializeOwned>(run: &BatchRun) -> Vec<T> {
    run.invocations
        .iter()
        .filter_map(|v| json::from_value(v).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{dumps, parse, Style};
    use crate::spec::Spec;

    fn case_of(json: &str) -> SpecCase {
        let file: crate::spec::CaseFile = json::from_value(&parse(json).unwrap()).unwrap();
        let case = match file {
            crate::spec::CaseFile::RunParallelCalls { cases, .. } => {
                Case::Dedup(cases.into_iter().next().unwrap())
            }
            crate::spec::CaseFile::ExecuteToolCalls { cases, .. } => {
                Case::Exec(cases.into_iter().next().unwrap())
            }
            crate::spec::CaseFile::RunToolCalls { cases, .. } => {
                Case::Runtime(cases.into_iter().next().unwrap())
            }
        };
        SpecCase {
            origin: crate::spec::Origin::Spec {
                file: "test".into(),
            },
            case: case.into(),
        }
    }

    fn first_batch(case: &SpecCase) -> (String, String) {
        let (output, invocations) = crate::judge::expectations(&case.case).remove(0);
        (
            dumps(&output, Style::PYTHON),
            dumps(&Value::List(invocations), Style::PYTHON),
        )
    }

    #[test]
    fn python_expectations_are_the_case_files_and_the_reference_agrees() {
        let spec = Spec::embedded().unwrap();
        for case in &spec.cases {
            assert_eq!(&expected_under(NumberModel::Python, case).unwrap(), case);
            let recomputed = recomputed_under(NumberModel::Python, case).unwrap();
            assert_eq!(
                crate::judge::expectations(&recomputed.case),
                crate::judge::expectations(&case.case),
                "{}",
                case.id()
            );
        }
    }

    #[test]
    fn under_float64_1_and_1_0_are_one_call_and_true_another() {
        let case = case_of(
            r#"{"function": "run_parallel_calls", "topic": "t", "cases": [{"id": "c", "description": "", "requirements": [],
                "tools": {"f": {"responses": [{"args": {"a": 1.0}, "answers": [{"type": "return", "value": 2.0}]},
                                              {"answers": [{"type": "return", "value": "other"}]}]}},
                "batches": [{"calls": [{"name": "f", "args": {"a": 1}}, {"name": "f", "args": {"a": 1.0}}, {"name": "f", "args": {"a": true}},
                                       {"name": "f", "args": {"b": [1e-7, 9007199254740993, 1e400]}}],
                             "expected": {}, "invocations": []}]}]}"#,
        );
        let judged = expected_under(NumberModel::Float64, &case).unwrap();
        let (output, invocations) = first_batch(&judged);
        assert_eq!(
            output,
            r#"{"f({\"a\": 1})": 2, "f({\"a\": true})": "other", "f({\"b\": [1e-7, 9007199254740992, Infinity]})": "other"}"#
        );
        assert_eq!(
            invocations,
            r#"[{"name": "f", "args": {"a": 1}}, {"name": "f", "args": {"a": true}}, {"name": "f", "args": {"b": [1e-07, 9007199254740992, Infinity]}}]"#
        );
        // What the implementation is given stays as written.
        let Case::Dedup(judged) = &*judged.case else {
            unreachable!()
        };
        let Case::Dedup(given) = &*case.case else {
            unreachable!()
        };
        assert_eq!(judged.batches[0].calls, given.batches[0].calls);
        assert_eq!(judged.tools, given.tools);
    }

    #[test]
    fn under_float64_the_sandbox_answers_the_request_as_the_model_holds_it() {
        let case = case_of(
            r#"{"function": "execute_tool_calls", "topic": "t", "cases": [{"id": "c", "description": "", "requirements": [],
                "batches": [{"calls": [{"tool": "add", "arguments": {"a": 1, "b": 1.0}}, {"tool": "divide", "arguments": {"a": 1.0, "b": -0.0}},
                                       {"tool": "add", "arguments": {"a": 9007199254740993, "b": 0.5}}],
                             "expected": [], "invocations": []}]}]}"#,
        );
        let (output, _) = first_batch(&expected_under(NumberModel::Float64, &case).unwrap());
        assert!(output.contains(r#""content": "2""#), "{output}");
        assert!(
            output.contains("ZeroDivisionError: division by zero"),
            "{output}"
        );
        assert!(
            output.contains(r#""content": "9007199254740992.0""#),
            "{output}"
        );
        let (python, _) = first_batch(&recomputed_under(NumberModel::Python, &case).unwrap());
        assert!(python.contains(r#""content": "2.0""#), "{python}");
    }
}
