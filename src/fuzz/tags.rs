//! Which requirements a case exercises, read off its content. A generated case that fails
//! counts against these; after shrinking, the counterexample exercises few, so the blame is
//! precise.

use crate::json::Value;
use crate::reference::{input, plan, DispatchRequest, Dispatcher, Sandbox, Verdict};
use crate::spec::{Case, DedupCase, Dispatch, ExecCase};
use std::collections::BTreeSet;

pub fn requirements_exercised(case: &Case) -> Vec<String> {
    let tags = match case {
        Case::Exec(c) => exec_tags(c),
        Case::Dedup(c) => dedup_tags(c),
    };
    tags.into_iter().map(str::to_owned).collect()
}

fn exec_tags(case: &ExecCase) -> BTreeSet<&'static str> {
    let mut tags = BTreeSet::from(["EXEC-OUTPUT-COUNT", "EXEC-OUTPUT-SHAPE"]);
    if case.batches.len() > 1 {
        tags.insert("EXEC-NO-STATE");
    }
    for batch in &case.batches {
        let calls = input::tool_calls(&batch.calls).unwrap_or_default();
        if calls.len() > 1 {
            tags.insert("EXEC-OUTPUT-ORDER");
        }
        let limit = batch
            .max_parallel
            .unwrap_or(crate::reference::DEFAULT_MAX_PARALLEL);
        match batch.max_parallel {
            None => tags.insert("EXEC-LIMIT-DEFAULT"),
            Some(0) => tags.insert("EXEC-LIMIT-ZERO"),
            Some(_) => false,
        };
        for (index, (call, decision)) in calls.iter().zip(plan(&calls, limit)).enumerate() {
            let given = call.id.as_deref().is_some_and(|id| !id.is_empty());
            tags.insert(if given {
                "EXEC-ID-GIVEN"
            } else {
                "EXEC-ID-GENERATED"
            });
            match decision.verdict {
                Verdict::Duplicate => {
                    tags.extend([
                        "EXEC-DUP-REJECTED",
                        "EXEC-DUP-ANY-EARLIER",
                        "EXEC-DUP-VERBATIM",
                    ]);
                    if index as u64 >= limit {
                        tags.insert("EXEC-DUP-BEFORE-LIMIT");
                    }
                }
                Verdict::OverLimit => {
                    tags.insert("EXEC-LIMIT-POSITION");
                }
                Verdict::Dispatch => {
                    tags.extend(["EXEC-DISPATCH-ONCE", "EXEC-CONTENT-UNCHANGED"]);
                    if call.arguments.is_none() {
                        tags.insert("EXEC-DISPATCH-ARGS-DEFAULT");
                    }
                    if matches!(case.dispatch, Dispatch::Sandbox) {
                        tags.extend(sandbox_tags(
                            &call.tool,
                            call.arguments.clone().unwrap_or_default(),
                        ));
                    }
                }
            }
        }
    }
    tags
}

/// The sandbox requirement a dispatched call's content shows.
fn sandbox_tags(tool: &str, arguments: crate::json::Object) -> Vec<&'static str> {
    let content = Sandbox.dispatch(DispatchRequest {
        tool,
        arguments: &arguments,
    });
    let mut tags = vec![if content.starts_with("error: unknown tool") {
        "SANDBOX-UNKNOWN-TOOL"
    } else if content.contains(" missing required argument ") {
        "SANDBOX-ARG-MISSING"
    } else if content.contains(" got unexpected argument ") {
        "SANDBOX-ARG-UNEXPECTED"
    } else if content.contains(" must be a ") {
        "SANDBOX-ARG-TYPE"
    } else if content.contains(" raised ") {
        "SANDBOX-RAISE"
    } else {
        "SANDBOX-RESULT-STR"
    }];
    if content.starts_with("error: ") && content.contains(" argument") && arguments.len() > 1 {
        tags.push("SANDBOX-ARG-ORDER");
    }
    match tool {
        "add" | "divide" if !content.starts_with("error: ") => tags.push("SANDBOX-ARITHMETIC"),
        "get_weather" if !content.starts_with("error: ") => tags.push("SANDBOX-LOOKUP-NORMALISED"),
        _ => {}
    }
    tags
}

fn dedup_tags(case: &DedupCase) -> BTreeSet<&'static str> {
    let mut tags = BTreeSet::from(["DEDUP-KEY-FORMAT", "DEDUP-RESULT-ENTRIES"]);
    if case.batches.len() > 1 {
        tags.insert("DEDUP-NO-STATE");
    }
    for batch in &case.batches {
        let calls = input::dedup_calls(&batch.calls).unwrap_or_default();
        let mut keys = std::collections::HashSet::new();
        for call in &calls {
            let known = case.tools.contains_key(&call.name);
            let key = crate::reference::canonical_key(&call.name, call.args.as_ref());
            let repeated = !keys.insert(key);
            tags.insert(if known {
                "DEDUP-INVOKE-ONCE"
            } else {
                "DEDUP-UNKNOWN-TOOL"
            });
            if repeated && known {
                tags.insert("DEDUP-CACHE-HIT");
            }
            if !call
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                tags.insert("DEDUP-NAME-VERBATIM");
            }
            match &call.args {
                None => {
                    tags.insert("DEDUP-KEY-ARGS-DEFAULT");
                }
                Some(args) => value_tags(&Value::from(args.clone()), &mut tags),
            }
        }
        for result in batch.expected.values() {
            match result {
                Value::Str(s) if s.starts_with("error: ") => {}
                _ => {
                    tags.insert("DEDUP-RESULT-UNCHANGED");
                }
            }
        }
    }
    let raises = case
        .tools
        .values()
        .flat_map(|t| &t.responses)
        .flat_map(|r| &r.answers);
    if raises
        .into_iter()
        .any(|a| matches!(a, crate::spec::Answer::Raise { .. }))
    {
        tags.insert("DEDUP-RAISE");
    }
    tags
}

fn value_tags(value: &Value, tags: &mut BTreeSet<&'static str>) {
    match value {
        Value::Null | Value::Bool(_) => {
            tags.insert("DEDUP-KEY-LITERALS");
        }
        Value::Int(_) => {
            tags.insert("DEDUP-NUMBER-INT");
        }
        Value::Float(f) => {
            tags.insert(if f.is_finite() {
                "DEDUP-NUMBER-FLOAT"
            } else {
                "DEDUP-NUMBER-OVERFLOW"
            });
        }
        Value::Str(s) => {
            if !s.chars().all(|c| (' '..='~').contains(&c)) {
                tags.insert("DEDUP-KEY-ASCII");
            }
        }
        Value::List(items) => {
            if items.len() > 1 {
                tags.insert("DEDUP-KEY-LIST-ORDER");
            }
            items.iter().for_each(|v| value_tags(v, tags));
        }
        Value::Object(object) => {
            if object.len() > 1 {
                tags.insert("DEDUP-KEY-ORDER");
            }
            for (key, item) in object.iter() {
                value_tags(&Value::Str(key.to_string().into()), tags);
                value_tags(item, tags);
            }
        }
    }
}

/// The requirements a failure points at: the case's own requirements narrowed by what went
/// wrong (a wrong id, a wrong rejection, a wrong key, a missing invocation, ...). Failures
/// that say nothing specific (an exception, a timeout) keep them all.
pub fn blame(case: &Case, outcome: &crate::judge::Outcome) -> Vec<String> {
    use crate::judge::{Failure, Outcome};
    let all = requirements_exercised(case);
    let narrowed: Vec<&str> = match (case, outcome) {
        (
            Case::Exec(_),
            Outcome::Fail(Failure::WrongOutput {
                expected, actual, ..
            }),
        ) => exec_output_blame(expected, actual),
        (Case::Exec(_), Outcome::Fail(Failure::WrongInvocations { .. })) => {
            vec![
                "EXEC-DISPATCH-ONCE",
                "EXEC-DISPATCH-ARGS-DEFAULT",
                "EXEC-DUP-REJECTED",
                "EXEC-LIMIT-POSITION",
                "EXEC-LIMIT-ZERO",
            ]
        }
        (
            Case::Dedup(_),
            Outcome::Fail(Failure::WrongOutput {
                expected, actual, ..
            }),
        ) => {
            let keys = |v: &Value| {
                v.as_object()
                    .map(|o| o.keys().cloned().collect::<BTreeSet<_>>())
            };
            if keys(expected) != keys(actual) {
                vec![
                    "DEDUP-KEY-FORMAT",
                    "DEDUP-KEY-ORDER",
                    "DEDUP-KEY-LIST-ORDER",
                    "DEDUP-KEY-ASCII",
                    "DEDUP-KEY-LITERALS",
                    "DEDUP-KEY-ARGS-DEFAULT",
                    "DEDUP-NUMBER-FLOAT",
                    "DEDUP-NUMBER-INT",
                    "DEDUP-NUMBER-OVERFLOW",
                    "DEDUP-NAME-VERBATIM",
                    "DEDUP-RESULT-ENTRIES",
                ]
            } else {
                vec![
                    "DEDUP-RESULT-UNCHANGED",
                    "DEDUP-RAISE",
                    "DEDUP-UNKNOWN-TOOL",
                    "DEDUP-CACHE-HIT",
                    "DEDUP-NO-STATE",
                ]
            }
        }
        (Case::Dedup(_), Outcome::Fail(Failure::WrongInvocations { .. })) => {
            vec![
                "DEDUP-INVOKE-ONCE",
                "DEDUP-CACHE-HIT",
                "DEDUP-NO-STATE",
                "DEDUP-UNKNOWN-TOOL",
                "DEDUP-RAISE",
            ]
        }
        _ => return all,
    };
    let mut blamed: Vec<String> = all
        .iter()
        .filter(|r| narrowed.contains(&r.as_str()))
        .cloned()
        .collect();
    if let Outcome::Fail(
        Failure::WrongOutput { batch, .. } | Failure::WrongInvocations { batch, .. },
    ) = outcome
    {
        let state = if matches!(case, Case::Exec(_)) {
            "EXEC-NO-STATE"
        } else {
            "DEDUP-NO-STATE"
        };
        if *batch > 1 && all.iter().any(|r| r == state) && !blamed.iter().any(|r| r == state) {
            blamed.push(state.to_owned());
        }
    }
    if blamed.is_empty() {
        all
    } else {
        blamed
    }
}

/// For a wrong list of tool messages: the first message that differs says which rule broke.
fn exec_output_blame(expected: &Value, actual: &Value) -> Vec<&'static str> {
    let (Some(expected), Some(actual)) = (expected.as_list(), actual.as_list()) else {
        return vec!["EXEC-OUTPUT-COUNT", "EXEC-OUTPUT-SHAPE"];
    };
    if expected.len() != actual.len() {
        return vec!["EXEC-OUTPUT-COUNT", "EXEC-FAILURE-ISOLATED"];
    }
    let Some((e, a)) = expected.iter().zip(actual).find(|(e, a)| e != a) else {
        return Vec::new();
    };
    let field = |v: &Value, k: &str| {
        v.as_object()
            .and_then(|o| o.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if e.as_object().map(|o| o.len()) != a.as_object().map(|o| o.len())
        || field(a, "content").is_none()
    {
        return vec!["EXEC-OUTPUT-SHAPE"];
    }
    if field(e, "tool_call_id") != field(a, "tool_call_id") {
        return vec!["EXEC-ID-GIVEN", "EXEC-ID-GENERATED"];
    }
    let rejection =
        |c: &Option<String>, prefix: &str| c.as_deref().is_some_and(|c| c.starts_with(prefix));
    let (ec, ac) = (field(e, "content"), field(a, "content"));
    if rejection(&ec, "error: duplicate tool_call_id")
        || rejection(&ac, "error: duplicate tool_call_id")
    {
        return vec![
            "EXEC-DUP-REJECTED",
            "EXEC-DUP-ANY-EARLIER",
            "EXEC-DUP-VERBATIM",
            "EXEC-DUP-BEFORE-LIMIT",
        ];
    }
    if rejection(&ec, "error: too many parallel tool calls")
        || rejection(&ac, "error: too many parallel tool calls")
    {
        return vec![
            "EXEC-LIMIT-POSITION",
            "EXEC-LIMIT-ZERO",
            "EXEC-LIMIT-DEFAULT",
            "EXEC-DUP-BEFORE-LIMIT",
        ];
    }
    vec![
        "EXEC-CONTENT-UNCHANGED",
        "EXEC-DISPATCH-ARGS-DEFAULT",
        "SANDBOX-RESULT-STR",
        "SANDBOX-UNKNOWN-TOOL",
        "SANDBOX-ARG-MISSING",
        "SANDBOX-ARG-UNEXPECTED",
        "SANDBOX-ARG-TYPE",
        "SANDBOX-ARG-ORDER",
        "SANDBOX-ARITHMETIC",
        "SANDBOX-RAISE",
        "SANDBOX-LOOKUP-NORMALISED",
    ]
}
