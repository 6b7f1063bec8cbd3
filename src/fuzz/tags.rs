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
                Some(args) => value_tags(&Value::Object(args.clone()), &mut tags),
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
            for (key, item) in object {
                value_tags(&Value::Str(key.clone()), tags);
                value_tags(item, tags);
            }
        }
    }
}
