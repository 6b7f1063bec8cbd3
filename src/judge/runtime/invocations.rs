//! What ran: the invocations parcall saw against the calls that must run (RULES R5).

use super::*;

/// The calls (by position) with a result under their own id that shows their answer. Calls
/// sharing an id with fewer such results than calls are none of them known answered: which
/// went without, nothing tells.
pub(super) fn answered_under_own_id(calls: &[Call], messages: &[Message]) -> BTreeSet<usize> {
    let shows_own = |call: &Call, m: &Message| {
        m.id == call.id
            && m.content
                .as_deref()
                .is_some_and(|text| shows(&call.expected, text))
    };
    calls
        .iter()
        .filter(|call| {
            // A call without id: a result without one that shows its answer.
            let Some(id) = &call.id else {
                return messages.iter().any(|m| shows_own(call, m));
            };
            let sharing: Vec<&Call> = calls.iter().filter(|c| c.id.as_ref() == Some(id)).collect();
            let answers = messages
                .iter()
                .filter(|m| sharing.iter().any(|c| shows_own(c, m)))
                .count();
            answers >= sharing.len() && messages.iter().any(|m| shows_own(call, m))
        })
        .map(|call| call.position)
        .collect()
}

/// Execution: every call of a given tool runs once with its arguments as given. Returns
/// the calls that never ran as called (their missing results are charged here, not again),
/// and of those, the ones whose tool ran with other arguments (see [`Ran`]). Of
/// identical calls (one tool, equal arguments) fewer of which ran, the ones that never ran
/// are taken among those without a result under their own id showing their answer
/// (`answered`) first: the results tell which ran where the invocations cannot.
pub(super) fn check_invocations(
    calls: &[Call],
    invocations: &[Value],
    raised: bool,
    answered: &BTreeSet<usize>,
    found: &mut BatchCharges,
) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let expected: Vec<Value> = calls
        .iter()
        .filter(|c| c.runs())
        .map(Call::invocation)
        .collect();
    let diff = multiset_difference(&expected, invocations);
    let key = |v: &Value| dumps(v, Style::CANONICAL);
    let mut unexpected: Vec<&Value> = diff.unexpected.iter().collect();
    let mut never_ran = BTreeSet::new();
    let mut changed = BTreeSet::new();
    let mut missing_keys: Vec<String> = diff.missing.iter().map(key).collect();
    let raising_ran = calls
        .iter()
        .filter(|c| c.raises())
        .any(|c| invocations.iter().any(|i| key(i) == key(&c.invocation())));
    let mut known: Vec<&Call> = calls.iter().filter(|c| c.runs()).collect();
    // Among calls alike in that, the later ones are taken as not run, as a limit or a
    // framework skipping repeats leaves them.
    known.sort_by_key(|c| {
        (
            answered.contains(&c.position),
            std::cmp::Reverse(c.position),
        )
    });
    for call in known {
        let own = key(&call.invocation());
        let Some(at) = missing_keys.iter().position(|k| *k == own) else {
            continue;
        };
        missing_keys.remove(at);
        never_ran.insert(call.position);
        let name_of = |v: &Value| {
            v.as_object()
                .and_then(|o| o.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        // Its tool ran with other arguments: they were changed on the way.
        if let Some(other) = unexpected
            .iter()
            .position(|v| name_of(v).as_deref() == Some(&call.name))
        {
            let got = unexpected.remove(other);
            changed.insert(call.position);
            let args = got.as_object().and_then(|o| o.get("args")).cloned();
            found.charge(
                ids::RUNTIME_ARGS_UNCHANGED,
                format!(
                    "{}: {} was given {} instead of {}",
                    call.label(),
                    call.name,
                    args.map_or("no arguments".into(), |a| dumps(&a, Style::PYTHON)),
                    dumps(&Value::from(call.arguments.clone()), Style::PYTHON)
                ),
            );
        }
    }
    // Before any tool ran, a refusal is the turn's, judged as one (see `raised`); after a
    // raising tool ran, the calls that never did are that crash's (see `raised`).
    let crash_explains = raised && (invocations.is_empty() || raising_ran);
    for call in calls.iter().filter(|c| never_ran.contains(&c.position)) {
        if changed.contains(&call.position) || crash_explains {
            continue;
        }
        let own = key(&call.invocation());
        let key_ran = invocations.iter().any(|i| key(i) == own);
        found
            .pending
            .extend(never_ran_charge(calls, call, key_ran, raised, &never_ran));
    }
    for extra in unexpected {
        found.charge(
            ids::RUNTIME_EXECUTE_ONCE,
            format!(
                "{} ran once more than the calls ask for",
                dumps(extra, Style::PYTHON)
            ),
        );
    }
    // What ran, ran as asked: shown only by a turn that ended, and by the calls that ran.
    if !raised && calls.iter().any(Call::known) {
        found.held(ids::RUNTIME_EXECUTE_ONCE);
    }
    let ran_with_arguments = calls
        .iter()
        .any(|c| c.known() && !c.arguments.is_empty() && !never_ran.contains(&c.position));
    if ran_with_arguments {
        found.held(ids::RUNTIME_ARGS_UNCHANGED);
    }
    (never_ran, changed)
}

/// The charge of a call whose tool never ran, held until its result is read. A call
/// carrying a name a framework keeps for itself is the arguments rule's only where that
/// name is what kept it from running (RULES D): its tool did not run with those
/// arguments for another call either, and a later call of the turn ran, or its result names
/// the argument (a framework that stops at a limit, or skips a duplicate, skips calls
/// whatever their arguments, and says so without naming them).
pub(super) fn never_ran_charge(
    calls: &[Call],
    call: &Call,
    key_ran: bool,
    raised: bool,
    never_ran: &BTreeSet<usize>,
) -> Option<Pending> {
    // A call sharing its id with another that ran was dropped for the id, whatever its
    // arguments are called.
    let shares = call.id.is_some() && calls.iter().filter(|c| c.id == call.id).count() > 1;
    let later_ran = calls
        .iter()
        .any(|c| c.position > call.position && c.runs() && !never_ran.contains(&c.position));
    let pending = |requirement, diagnosis| Pending {
        position: call.position,
        key_ran,
        requirement,
        diagnosis,
        reserved: None,
    };
    match call.special_argument() {
        Some(name) if !shares && !key_ran && (later_ran || raised) => Some(pending(
            ids::RUNTIME_ARGS_UNCHANGED,
            format!(
                "{}: the tool never ran with its argument {}",
                call.label(),
                quoted(name)
            ),
        )),
        // A turn that raised: the crash is charged as one (see `raised`).
        _ if raised => None,
        _ => {
            let why = if shares {
                " (it shares its id with another call)"
            } else {
                ""
            };
            let mut charge = pending(
                ids::RUNTIME_EXECUTE_ONCE,
                format!("{}: {} never ran{why}", call.label(), call.name),
            );
            // The last calls of a turn not run may be a limit's: the result says which.
            if !shares && !key_ran {
                charge.reserved = call.special_argument().map(str::to_owned);
            }
            Some(charge)
        }
    }
}
