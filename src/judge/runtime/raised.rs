//! A turn the framework raised on: refused before any tool ran, or crashed after some did.

use super::*;

/// A batch the framework raised on: refused before any tool ran, or crashed after some did.
pub(super) fn raised(
    calls: &[Call],
    ran: usize,
    message: &str,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    // The arguments rule already has a call that never reached its tool: the crash is it.
    if found
        .charges
        .iter()
        .any(|c| c.requirement == ids::RUNTIME_ARGS_UNCHANGED)
    {
        return;
    }
    let how = ended_how(ran, calls.len());
    let missing_id = calls.iter().any(|c| c.id.is_none());
    let shared = shared_ids(calls).next().is_some();
    if ran == 0 {
        let refuses_missing = policies.missing_id == MissingIdPolicy::Refused;
        let refuses_shared = policies.duplicate_ids == DuplicateIdsPolicy::Refused;
        let unknown = calls.iter().any(|c| !c.known());
        // A refusal the framework declares, of a turn it declares it for, is its policy.
        if (missing_id && refuses_missing) || (shared && refuses_shared) {
            found.held(ids::RUNTIME_POLICY_DECLARED);
            return;
        }
        // A call without id the adapter declares answered: refusing the turn breaks that.
        let answers_missing = policies.missing_id != MissingIdPolicy::Refused;
        if missing_id && answers_missing {
            let which = calls
                .iter()
                .find(|c| c.id.is_none())
                .expect("a call without id");
            found.charge(
                ids::RUNTIME_POLICY_DECLARED,
                format!(
                    "{how} {} refused the whole turn, though the adapter declares calls without id answered",
                    which.label()
                ),
            );
            return;
        }
        // A turn holding a call the framework cannot run (no id, a tool it was not given) may
        // be refused whole before anything runs (RULES R7): nothing ran, nothing is lost.
        if unknown || missing_id {
            found.held(ids::RUNTIME_MALFORMED_ANSWERED);
            return;
        }
        if let Some(id) = shared_ids(calls).next() {
            let (requirement, why) = (
                ids::RUNTIME_POLICY_DECLARED,
                ", though the adapter does not declare such calls refused",
            );
            found.charge(
                requirement,
                format!(
                    "{how} the calls sharing id {} left every call unanswered{why}",
                    quoted(id)
                ),
            );
        } else if calls.iter().any(|c| c.id.as_deref() == Some("")) {
            found.charge(
                ids::RUNTIME_ID_ECHOED,
                format!("{how} a call with the empty id refused the whole turn"),
            );
        } else if let Some(call) = calls.iter().find(|c| c.special_argument().is_some()) {
            let name = call.special_argument().unwrap_or_default();
            found.charge(
                ids::RUNTIME_ARGS_UNCHANGED,
                format!(
                    "{how} {} with its argument {} refused the whole turn",
                    call.label(),
                    quoted(name)
                ),
            );
        } else {
            found.charge(
                ids::RUNTIME_RESULT_PER_CALL,
                format!("{how} no call was answered"),
            );
        }
        return;
    }
    // The exception that escaped is the raising tool's when it names the tool's error; one
    // of the framework's own beside a malformed call is the malformed call's crash.
    // (A message of a few characters could be in any text: then its class must be too.)
    // An exception's message is told stripped, as its report strips it, and one without
    // message escapes as its class
    // alone: a framework's own `ValueError: call has no id` is not a tool's bare `ValueError`.
    let escaped_from = |call: &&Call| match &call.expected {
        Expected::Raises {
            message: own,
            class,
            repr,
        } => {
            // Reports strip it, of what Python counts as space (U+001C to U+001F too).
            let own =
                own.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
            if own.is_empty() {
                let rest = message.trim().strip_prefix(*class).map(|rest| {
                    rest.trim_start()
                        .trim_start_matches(':')
                        .trim_start_matches("()")
                        .trim()
                });
                rest == Some("") || (!repr.is_empty() && message.contains(repr.as_str()))
            } else {
                names_error(message, own, class, repr)
                    && (own.chars().count() >= 4 || message.contains(class))
            }
        }
        _ => false,
    };
    let raising = calls.iter().find(escaped_from).or_else(|| {
        calls
            .iter()
            .find(|c| c.raises())
            .filter(|_| !calls.iter().any(Call::malformed))
    });
    if let Some(call) = raising {
        found.charge(
            ids::RUNTIME_ERROR_ISOLATED,
            format!(
                "{how} {}'s tool raised and the whole turn failed with it",
                call.label()
            ),
        );
    } else if let Some(call) = calls.iter().find(|c| c.malformed()) {
        found.charge(
            ids::RUNTIME_MALFORMED_ANSWERED,
            format!("{how} {} crashed the turn", call.label()),
        );
    } else {
        found.charge(
            ids::RUNTIME_RESULT_PER_CALL,
            format!("{how} no call was answered"),
        );
    }
}
