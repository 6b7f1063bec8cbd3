//! The tool behaviour a case message carries. The runner owns the tools: for
//! `execute_tool_calls` it computes the sandbox's answer to every dispatch request the
//! case's batches could make; for `run_parallel_calls` it sends the case's scripts.

use super::messages::{BatchRequest, CaseRequest};
use crate::json::{JsonText, NumberModel, Style, Value};
use crate::spec::{dispatch_table_for, Answer, Case, ExecCase, Function, ToolScript};
use indexmap::IndexMap;

/// The message that runs `case`, with correlation id `id`, for an implementation of number
/// model `model`: the calls go as written, and under `float64` the sandbox answers each
/// request as the model holds it (`{"a": 1}` and `{"a": 1.0}` are one request then).
pub fn case_request(id: u64, case_id: &str, case: &Case, model: NumberModel) -> CaseRequest {
    match case {
        Case::Exec(exec) => CaseRequest {
            id,
            case: case_id.to_owned(),
            function: crate::spec::Function::ExecuteToolCalls,
            tools: dispatch_table(exec, model),
            batches: exec
                .batches
                .iter()
                .map(|b| BatchRequest {
                    calls: b.calls.clone(),
                    max_parallel: b.max_parallel,
                })
                .collect(),
        },
        Case::Dedup(dedup) => CaseRequest {
            id,
            case: case_id.to_owned(),
            function: crate::spec::Function::RunParallelCalls,
            tools: dedup.tools.clone(),
            batches: dedup
                .batches
                .iter()
                .map(|b| BatchRequest {
                    calls: b.calls.clone(),
                    max_parallel: None,
                })
                .collect(),
        },
    }
}

/// The line (newline included) that runs `case`: the message [`case_request`] builds,
/// encoded as [`super::encode`] would encode it, written straight from the case instead of
/// through a copy of it and a `Value` of the whole message (a tenth of `check`'s time).
/// `tests` hold the two to the same bytes on every case of the spec and generated ones.
pub fn case_line(id: u64, case_id: &str, case: &Case, model: NumberModel) -> String {
    let computed;
    let (function, tools, batches): (_, _, Vec<(&Value, Option<u64>)>) = match case {
        Case::Exec(exec) => {
            computed = dispatch_table(exec, model);
            let batches = exec.batches.iter().map(|b| (&b.calls, b.max_parallel));
            (Function::ExecuteToolCalls, &computed, batches.collect())
        }
        Case::Dedup(dedup) => {
            let batches = dedup.batches.iter().map(|b| (&b.calls, None));
            (Function::RunParallelCalls, &dedup.tools, batches.collect())
        }
    };
    let mut out = JsonText::new(Style {
        ensure_ascii: false,
        ..Style::PYTHON
    });
    out.raw("{\"type\": \"case\", \"id\": ")
        .raw(&id.to_string())
        .raw(", \"case\": ")
        .string(case_id)
        .raw(", \"function\": ")
        .string(function.name())
        .raw(", \"tools\": {");
    for (i, (name, script)) in tools.iter().enumerate() {
        out.raw(if i == 0 { "" } else { ", " })
            .string(name)
            .raw(": {");
        if script.latency_ms != 0 {
            out.raw("\"latency_ms\": ")
                .raw(&script.latency_ms.to_string())
                .raw(", ");
        }
        out.raw("\"responses\": [");
        for (j, response) in script.responses.iter().enumerate() {
            out.raw(if j == 0 { "{" } else { ", {" });
            if let Some(args) = &response.args {
                out.raw("\"args\": ").object(args).raw(", ");
            }
            if let Some(latency) = response.latency_ms {
                out.raw("\"latency_ms\": ")
                    .raw(&latency.to_string())
                    .raw(", ");
            }
            out.raw("\"answers\": [");
            for (k, answer) in response.answers.iter().enumerate() {
                out.raw(if k == 0 { "" } else { ", " });
                write_answer(&mut out, answer);
            }
            out.raw("]}");
        }
        out.raw("]}");
    }
    out.raw("}, \"batches\": [");
    for (i, (calls, max_parallel)) in batches.into_iter().enumerate() {
        out.raw(if i == 0 {
            "{\"calls\": "
        } else {
            ", {\"calls\": "
        })
        .value(calls);
        if let Some(limit) = max_parallel {
            out.raw(", \"max_parallel\": ").raw(&limit.to_string());
        }
        out.raw("}");
    }
    out.raw("]}\n");
    out.into_string()
}

fn write_answer(out: &mut JsonText, answer: &Answer) {
    match answer {
        Answer::Return { value } => {
            out.raw("{\"type\": \"return\", \"value\": ").value(value);
        }
        Answer::Raise {
            message,
            exception,
            args,
        } => {
            out.raw("{\"type\": \"raise\", \"message\": ")
                .string(message);
            if let Some(class) = exception {
                out.raw(", \"exception\": ").string(class.name());
            }
            if let Some(args) = args {
                out.raw(", \"args\": [");
                for (i, arg) in args.iter().enumerate() {
                    out.raw(if i == 0 { "" } else { ", " }).value(arg);
                }
                out.raw("]");
            }
        }
    }
    out.raw("}");
}

/// What `dispatch` answers, as scripts by tool name. Tools the scripts do not know get the
/// sandbox's unknown-tool answer, so every request a batch names has an entry.
fn dispatch_table(case: &ExecCase, model: NumberModel) -> IndexMap<String, ToolScript> {
    if model == NumberModel::Python {
        return dispatch_table_for(&case.dispatch, case.batches.iter().map(|b| &b.calls));
    }
    let held: Vec<Value> = case
        .batches
        .iter()
        .map(|b| model.normalise(&b.calls))
        .collect();
    dispatch_table_for(&case.dispatch, held.iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{encode, Request};
    use crate::spec::Spec;

    #[test]
    fn a_case_line_is_the_encoded_case_request_byte_for_byte() {
        let spec = Spec::embedded().unwrap();
        let mut cases: Vec<_> = spec.cases.clone();
        for function in Function::ALL {
            cases.extend(crate::fuzz::generated_cases(function, &spec.cases, 300, 11));
        }
        let (mut latency, mut classes, mut raise_args, mut limits) = (0, 0, 0, 0);
        for case in &cases {
            if let Case::Dedup(dedup) = &*case.case {
                for script in dedup.tools.values() {
                    latency += usize::from(script.has_latency());
                    for answer in script.responses.iter().flat_map(|r| &r.answers) {
                        if let Answer::Raise {
                            exception, args, ..
                        } = answer
                        {
                            classes += usize::from(exception.is_some());
                            raise_args += usize::from(args.is_some());
                        }
                    }
                }
            }
            if let Case::Exec(exec) = &*case.case {
                limits += exec
                    .batches
                    .iter()
                    .filter(|b| b.max_parallel.is_some())
                    .count();
            }
            for model in [NumberModel::Python, NumberModel::Float64] {
                let request = case_request(42, "c2a", &case.case, model);
                assert_eq!(
                    case_line(42, "c2a", &case.case, model),
                    encode(&Request::Case(request)),
                    "case {}",
                    case.id()
                );
            }
        }
        // The cases cover what the writer handles by hand: latency, raises with a class and
        // args, limits.
        assert!(latency > 0 && classes > 0 && raise_args > 0 && limits > 0);
    }
}
