//! One result's content against its call's answer, and the id a call without one got.

use super::*;

/// Whether `content` is what `expected` gives: the returned string, or a text naming the
/// exception.
pub(super) fn shows(expected: &Expected, content: &str) -> bool {
    match expected {
        Expected::Returns(Value::Str(text)) => **text == *content,
        Expected::Returns(other) => dumps(other, Style::PYTHON) == content,
        Expected::Raises {
            message,
            class,
            repr,
        } => names_error(content, message, class, repr),
        // A call of a tool the runtime was not given is answered with an error naming it.
        Expected::Unknown { name } => content.contains(name.as_str()),
    }
}

/// The message, class and repr of what `call`'s tool raises (empty for any other call).
pub(super) fn message_of(call: &Call) -> (&str, &str, &str) {
    match &call.expected {
        Expected::Raises {
            message,
            class,
            repr,
        } => (message, class, repr),
        _ => ("", "", ""),
    }
}

/// Whether a result's content names the exception a tool raised: its message, or its
/// repr, or for an empty message its class.
/// A raising call's error in the declared text, when a text is declared.
pub(super) fn declared_error(call: &Call, policies: &RuntimePolicies) -> Option<String> {
    match (&call.expected, policies.error_content.as_deref()) {
        (
            Expected::Raises {
                message,
                class,
                repr,
            },
            Some(template),
        ) => Some(filled(template, message, class, repr)),
        _ => None,
    }
}

pub(super) fn names_error(content: &str, message: &str, class: &str, repr: &str) -> bool {
    if message.is_empty() {
        content.contains(class)
    } else {
        content.contains(message) || (!repr.is_empty() && content.contains(repr))
    }
}

/// The id a call without one was answered with, against the declared `missing_id`: none
/// under `kept`, one of its own under `generated`, distinct from every other id of the turn
/// (RULES R9). (Under `position` the call was given its `call_<i>` before any of this.)
pub(super) fn missing_id_policy(
    calls: &[Call],
    call: &Call,
    message: &Message,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    found.held(ids::RUNTIME_POLICY_DECLARED);
    let given = message.id.as_deref().filter(|id| !id.is_empty());
    let wrong = match policies.missing_id {
        MissingIdPolicy::Generated => match given {
            None => Some("no id".to_owned()),
            Some(id) if calls.iter().any(|c| c.id.as_deref() == Some(id)) => Some(format!(
                "the id {}, which another call of the turn gives",
                quoted(id)
            )),
            Some(_) => None,
        },
        MissingIdPolicy::Kept | MissingIdPolicy::Position => {
            given.map(|id| format!("the id {}", quoted(id)))
        }
        MissingIdPolicy::Refused => Some("an answer".to_owned()),
    };
    if let Some(wrong) = wrong {
        found.charge(
            ids::RUNTIME_POLICY_DECLARED,
            format!(
                "{}: the adapter declares missing ids {}, but the call got {wrong}",
                call.label(),
                policies.missing_id.name()
            ),
        );
    }
}

pub(super) fn check_content(
    calls: &[Call],
    call: &Call,
    result: &Message,
    all: &[Message],
    never_ran: &BTreeSet<usize>,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    // Another call's result is only one that call's tool gave in this turn (RULES D).
    let gave = |other: &Call| {
        other.position != call.position
            && other.shows_answer()
            && !never_ran.contains(&other.position)
    };
    let Some(content) = &result.content else {
        found.charge(
            ids::RUNTIME_CONTENT_UNCHANGED,
            format!("{}: its result's content is not a string", call.label()),
        );
        return;
    };
    match &call.expected {
        Expected::Returns(value) => {
            found.held(ids::RUNTIME_CONTENT_UNCHANGED);
            let want = match value {
                Value::Str(text) => text.to_string(),
                other => dumps(other, Style::PYTHON),
            };
            if *content != want {
                let whose = calls.iter().find(|other| {
                    gave(other)
                        && matches!(&other.expected, Expected::Returns(Value::Str(t)) if **t == **content)
                });
                let diagnosis = match whose {
                    Some(other) => format!(
                        "{}: holds the result of {} ({})",
                        call.label(),
                        other.label(),
                        quoted(content)
                    ),
                    None => format!(
                        "{}: the tool returned {}, the result holds {}",
                        call.label(),
                        quoted(&want),
                        quoted(content)
                    ),
                };
                found.charge(ids::RUNTIME_CONTENT_UNCHANGED, diagnosis);
            }
        }
        Expected::Raises {
            message,
            class,
            repr,
        } => {
            // Another call's returned result in its place, or exactly another call's error in
            // the declared text and not its own: the results were swapped.
            let declared = declared_error(call, policies);
            let whose = calls.iter().find(|other| {
                gave(other)
                    && (matches!(&other.expected, Expected::Returns(Value::Str(t)) if **t == **content)
                        || (declared.as_deref() != Some(content.as_str())
                            && declared_error(other, policies).as_deref()
                                == Some(content.as_str())))
            });
            if let Some(other) = whose {
                found.charge(
                    ids::RUNTIME_CONTENT_UNCHANGED,
                    format!(
                        "{}: holds the result of {} ({})",
                        call.label(),
                        other.label(),
                        quoted(content)
                    ),
                );
                return;
            }
            // Its error reported in another call's result, and a result of another call
            // here: the two results were swapped.
            let own = message_of(call);
            let swapped = !names_error(content, own.0, own.1, own.2)
                && all.iter().any(|other| {
                    !std::ptr::eq(other, result)
                        && other
                            .content
                            .as_deref()
                            .is_some_and(|text| names_error(text, own.0, own.1, own.2))
                });
            if swapped {
                found.charge(
                    ids::RUNTIME_CONTENT_UNCHANGED,
                    format!(
                        "{}: holds another call's result ({}), its own error is in another's",
                        call.label(),
                        quoted(content)
                    ),
                );
                return;
            }
            found.held(ids::RUNTIME_ERROR_REPORTED);
            found.held(ids::RUNTIME_POLICY_DECLARED);
            let named = names_error(content, message, class, repr);
            if !named {
                found.charge(
                    ids::RUNTIME_ERROR_REPORTED,
                    format!(
                        "{}: its tool raised {class}({}), the result says {}",
                        call.label(),
                        quoted(message),
                        quoted(content)
                    ),
                );
            }
            match &policies.error_content {
                Some(template) => {
                    let want = filled(template, message, class, repr);
                    if *content != want && named {
                        found.charge(
                            ids::RUNTIME_POLICY_DECLARED,
                            format!(
                                "{}: the declared error text is {}, the result holds {}",
                                call.label(),
                                quoted(&want),
                                quoted(content)
                            ),
                        );
                    }
                }
                None => found.charge(
                    ids::RUNTIME_POLICY_DECLARED,
                    format!(
                        "{}: the adapter declares tool exceptions are not caught, but the call's result reports one",
                        call.label()
                    ),
                ),
            }
        }
        Expected::Unknown { .. } => {}
    }
}
