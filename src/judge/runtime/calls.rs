//! A turn's calls as the declared policies read them, each with the answer its tool gives.

use super::*;

/// The calls of every batch of `case` as the declared `policies` read them, each with its
/// answer: the n-th run of the same tool and arguments over the whole case gets the n-th
/// scripted answer (the last repeats).
pub(super) fn calls_of(case: &RuntimeCase, policies: &RuntimePolicies) -> Vec<Vec<Call>> {
    let mut counts: HashMap<(String, String), usize> = HashMap::new();
    case.batches
        .iter()
        .map(|batch| {
            let calls = batch.calls.as_list().unwrap_or_default();
            let mut calls: Vec<Call> = calls
                .iter()
                .enumerate()
                .map(|(index, call)| read_call(case, index + 1, call, policies))
                .collect();
            skipped_by_policy(&mut calls, policies);
            let mut served: HashMap<(String, String), Expected> = HashMap::new();
            for call in &mut calls {
                let key = call.key();
                if call.skip == Some(Skip::Served) {
                    if let Some(answer) = served.get(&key) {
                        call.expected = answer.clone();
                    }
                    continue;
                }
                let nth = counts.entry(key.clone()).or_default();
                call.expected = expected(case, &call.name, &key.1, *nth);
                if call.skip.is_none() {
                    *nth += 1;
                    served.entry(key).or_insert_with(|| call.expected.clone());
                }
            }
            calls
        })
        .collect()
}

/// One call as the declared id policies read it (its answer is set later).
pub(super) fn read_call(
    case: &RuntimeCase,
    position: usize,
    call: &Value,
    policies: &RuntimePolicies,
) -> Call {
    let call = call.as_object().cloned().unwrap_or_default();
    let mut id = call.get("id").and_then(Value::as_str).map(str::to_owned);
    if id.as_deref() == Some("") && policies.empty_id == EmptyIdPolicy::Missing {
        id = None;
    }
    // Seed 000's rule: a made-up id that may meet a given one (RULES R9).
    if id.is_none() && policies.missing_id == MissingIdPolicy::Position {
        id = Some(format!("call_{position}"));
    }
    let name = call
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let arguments = call
        .get("arguments")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    // Its first answer for now: which answer it gets depends on the calls run before it.
    let expected = expected(case, &name, &canonical_args(&arguments), 0);
    Call {
        position,
        id,
        name,
        arguments,
        expected,
        skip: None,
    }
}

/// Marks the calls a declared policy keeps from running: later calls of a shared id
/// (`first`, `collapsed`), calls past the limit, identical calls after the first (`once`).
pub(super) fn skipped_by_policy(calls: &mut [Call], policies: &RuntimePolicies) {
    let ids: Vec<Option<String>> = calls.iter().map(|c| c.id.clone()).collect();
    for (index, call) in calls.iter_mut().enumerate() {
        let Some(id) = &call.id else { continue };
        let sharing: Vec<usize> = (0..ids.len())
            .filter(|&i| ids[i].as_ref() == Some(id))
            .collect();
        if sharing.len() < 2 {
            continue;
        }
        call.skip = match policies.duplicate_ids {
            DuplicateIdsPolicy::First if sharing[0] != index => Some(Skip::Refused),
            // The one that runs is the last, as a framework keying calls by id keeps it.
            DuplicateIdsPolicy::Collapsed if sharing.last() != Some(&index) => {
                Some(Skip::Collapsed)
            }
            _ => None,
        };
    }
    if let Some(limit) = policies.call_limit {
        for call in calls
            .iter_mut()
            .skip(usize::try_from(limit).unwrap_or(usize::MAX))
        {
            call.skip = call.skip.or(Some(Skip::Refused));
        }
    }
    if policies.identical_calls == IdenticalCallsPolicy::Once {
        let mut seen = BTreeSet::new();
        for call in calls.iter_mut().filter(|c| c.skip.is_none() && c.known()) {
            if !seen.insert(call.key()) {
                call.skip = Some(Skip::Served);
            }
        }
    }
}

pub(super) fn expected(case: &RuntimeCase, name: &str, key: &str, nth: usize) -> Expected {
    let Some(script) = case.tools.get(name) else {
        return Expected::Unknown {
            name: name.to_owned(),
        };
    };
    let response = script.responses.iter().find(|r| match &r.args {
        Some(args) => canonical_args(args) == key,
        None => true,
    });
    let answer = response.and_then(|r| r.answers.get(nth).or(r.answers.last()));
    match answer {
        Some(Answer::Return { value }) => Expected::Returns(value.clone()),
        Some(Answer::Raise {
            message,
            exception,
            args,
        }) => {
            let class = exception.unwrap_or(ExceptionClass::RuntimeError);
            let args = args
                .clone()
                .unwrap_or_else(|| vec![Value::from(message.as_str())]);
            let items: Vec<String> = args.iter().map(repr_value).collect();
            Expected::Raises {
                message: message.clone(),
                class: class.name(),
                repr: format!("{}({})", class.name(), items.join(", ")),
            }
        }
        // parcall answers an invocation no script answers by raising (PROTOCOL.md).
        None => Expected::Raises {
            message: format!("parcall: no scripted answer for {name}({key})"),
            class: "RuntimeError",
            repr: String::new(),
        },
    }
}

/// `template` filled in for the exception `expected` raises.
pub(super) fn filled(template: &str, message: &str, class: &str, repr: &str) -> String {
    template
        .replace("{message}", message)
        .replace("{type}", class)
        .replace("{repr}", repr)
}

/// The messages of an output, or why it is not a list of tool messages.
pub(super) fn messages(output: &Value) -> Result<Vec<Message>, String> {
    let Some(items) = output.as_list() else {
        return Err("the result is not a list of tool messages".into());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Some(fields) = item.as_object() else {
                return Err(format!("result {} is not an object", i + 1));
            };
            let id = match fields.get("tool_call_id") {
                Some(Value::Str(id)) => Some(id.to_string()),
                Some(Value::Null) | None => None,
                Some(_) => return Err(format!("result {}'s tool_call_id is not a string", i + 1)),
            };
            let content = fields
                .get("content")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Ok(Message { id, content })
        })
        .collect()
}

/// Under `collapsed`, the call of a shared id that runs is any one of them: the one whose
/// invocation parcall saw, when it is not the one assumed (the last).
pub(super) fn collapsed_as_run(calls: &[Call], invocations: &[Value]) -> Vec<Call> {
    let mut calls = calls.to_vec();
    let ran = |call: &Call| {
        let own = call.invocation();
        invocations.contains(&own)
    };
    for index in 0..calls.len() {
        let chosen = &calls[index];
        let group = |c: &Call| c.id.is_some() && c.id == chosen.id;
        // A tool it was not given never runs: that call is answered, not run.
        let collapsed_into = calls
            .iter()
            .any(|c| c.skip == Some(Skip::Collapsed) && group(c));
        if chosen.skip.is_some() || !chosen.known() || !collapsed_into || ran(chosen) {
            continue;
        }
        let other = calls
            .iter()
            .position(|c| c.skip == Some(Skip::Collapsed) && group(c) && ran(c));
        if let Some(other) = other {
            calls[other].skip = None;
            calls[index].skip = Some(Skip::Collapsed);
        }
    }
    calls
}
