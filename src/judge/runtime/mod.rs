//! Judging the runtime profile (spec/SPEC.md, "The runtime profile"): what an agent
//! framework did with one model turn's tool calls. A framework's own conventions (the ids it
//! makes up, its error wording, what it does with shared ids, identical calls and calls past
//! a limit) are its declared policies (RULES R9), so a turn is read by properties, not
//! against one expected output: the calls are read as the declaration says, results are
//! matched to calls by id before any other check reads them, and each check charges its own
//! requirement. One bug, one charge (RULES D): a result lost beside a raising tool is the
//! isolation rule's, not the one-result rule's; a call that never ran is the execution
//! rule's, not also the result rule's.
//!
//! The parts: [`calls`] reads a turn's calls under the policies, [`invocations`] checks what
//! ran, [`raised`] judges a turn that raised, [`results`] matches results to calls and runs
//! the registry of result checks, [`content`] reads one result's content.

mod calls;
mod content;
mod invocations;
mod raised;
mod results;
#[cfg(test)]
mod tests;

use super::blame::{ids, Blame, Charge};
use super::{multiset_difference, BatchRun, Failure, Outcome};
use crate::generate::cases::SPECIAL_ARGUMENT_NAMES;
use crate::json::{dumps, NumberModel, Object, Style, Value};
use crate::protocol::{
    DuplicateIdsPolicy, EmptyIdPolicy, IdenticalCallsPolicy, MissingIdPolicy, RuntimePolicies,
};
use crate::reference::canonical_args;
use crate::reference::python::repr_value;
use crate::spec::{held_scripts, Answer, ExceptionClass, RuntimeBatch, RuntimeCase};
use calls::{calls_of, collapsed_as_run, filled, messages};
use content::{check_content, declared_error, missing_id_policy, names_error, shows};
use invocations::{answered_under_own_id, check_invocations};
use raised::raised;
use results::check_results;
use std::collections::{BTreeSet, HashMap};

/// How one batch ended: it returned its results, or the framework raised.
pub enum Ended<'r> {
    Returned(&'r BatchRun),
    Raised {
        message: &'r str,
        traceback: &'r str,
        invocations: &'r [Value],
    },
}

/// What the tool answers one call, had each call run once in call order.
#[derive(Debug, Clone)]
enum Expected {
    Returns(Value),
    Raises {
        message: String,
        class: &'static str,
        repr: String,
    },
    /// The call names a tool the runtime was not given, `name`.
    Unknown {
        name: String,
    },
}

#[derive(Debug, Clone)]
struct Call {
    /// 1-based, as diagnoses name calls.
    position: usize,
    /// `None`: the call has no id (the field is absent or null).
    id: Option<String>,
    name: String,
    arguments: Object,
    expected: Expected,
    /// Why a declared policy keeps the call from running, if one does.
    skip: Option<Skip>,
}

/// A call a declared policy keeps from running (RULES R9): not charged for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Answered with an error result under its id: a later call of a shared id under
    /// `first`, or a call past the declared `call_limit`.
    Refused,
    /// Answered by the one result of its shared id, run for another call (`collapsed`).
    Collapsed,
    /// Answered with the result of the identical call before it, which ran (`once`).
    Served,
}

impl Call {
    fn invocation(&self) -> Value {
        let mut object = Object::new();
        object.insert("name".into(), self.name.as_str().into());
        object.insert("args".into(), Value::from(self.arguments.clone()));
        Value::from(object)
    }

    /// Its tool and the canonical text of its arguments: identical calls share it.
    fn key(&self) -> (String, String) {
        (self.name.clone(), canonical_args(&self.arguments))
    }

    fn known(&self) -> bool {
        !matches!(self.expected, Expected::Unknown { .. })
    }

    /// A call whose tool must run in the turn: a tool it was given, no policy skipping it.
    fn runs(&self) -> bool {
        self.known() && self.skip.is_none()
    }

    /// A call that gets a result of its own (every call but one collapsed into another).
    fn answered(&self) -> bool {
        self.skip != Some(Skip::Collapsed)
    }

    /// A call whose result must hold its tool's answer: it ran, or was served another's.
    fn shows_answer(&self) -> bool {
        self.skip.is_none() || self.skip == Some(Skip::Served)
    }

    fn raises(&self) -> bool {
        matches!(self.expected, Expected::Raises { .. })
    }

    /// A call the runtime may find malformed: no id, or a tool it was not given.
    fn malformed(&self) -> bool {
        self.id.is_none() || !self.known()
    }

    fn special_argument(&self) -> Option<&str> {
        self.arguments
            .keys()
            .map(|k| &**k)
            .find(|k| SPECIAL_ARGUMENT_NAMES.contains(k) || k.starts_with("__"))
    }

    fn label(&self) -> String {
        match &self.id {
            Some(id) => format!("call {} (id {})", self.position, quoted(id)),
            None => format!("call {} (no id)", self.position),
        }
    }
}

fn quoted(text: &str) -> String {
    dumps(&Value::from(text), Style::PYTHON)
}

/// One tool message as the adapter gave it.
struct Message {
    id: Option<String>,
    /// `None`: not a string.
    content: Option<String>,
}

/// A charge of a call whose tool never ran, waiting for its result to be read.
struct Pending {
    position: usize,
    /// Whether its tool ran with its arguments at all in this turn (for another call with
    /// the same ones): then its answer is no sign of memory.
    key_ran: bool,
    requirement: &'static str,
    diagnosis: String,
    /// A name a framework keeps for itself that the call carries, where nothing else tells
    /// whether it kept the call from running: its result, naming it, will.
    reserved: Option<String>,
}

/// What the checks found in one batch: the rules they saw broken, and the ones whose
/// behaviour happened and held (RULES D: shown means it happened).
struct BatchCharges {
    batch: usize,
    charges: Vec<Charge>,
    held: BTreeSet<&'static str>,
    /// Charges of calls whose tool never ran, by call position, settled once the results
    /// are read: a call answered with its tool's answer all the same was answered from
    /// memory (state kept across turns), not dropped.
    pending: Vec<Pending>,
}

impl BatchCharges {
    /// Charges what is pending as it is.
    fn settle_pending(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            self.charge(pending.requirement, pending.diagnosis);
        }
    }

    /// A check read behaviour of its rule in this batch.
    fn held(&mut self, requirement: &'static str) {
        self.held.insert(requirement);
    }

    /// A rule broken; one diagnosis per rule and batch is kept, the others counted.
    fn charge(&mut self, requirement: &str, diagnosis: String) {
        if let Some(first) = self
            .charges
            .iter_mut()
            .find(|c| c.requirement == requirement)
        {
            if !first.diagnosis.ends_with("more in this turn)") {
                first.diagnosis.push_str(" (and more in this turn)");
            }
            return;
        }
        self.charges.push(Charge {
            requirement: requirement.to_owned(),
            batch: self.batch,
            diagnosis,
            explained: true,
        });
    }
}

/// Which calls' own invocations never happened (`never`): of those, the ones whose tool ran
/// with other arguments (`changed`), which ran all the same and gave a result.
#[derive(Clone, Copy)]
struct Ran<'r> {
    never: &'r BTreeSet<usize>,
    changed: &'r BTreeSet<usize>,
}

impl Ran<'_> {
    /// Whether the call's tool ran at all, with its arguments or others.
    fn at_all(&self, call: &Call) -> bool {
        !self.never.contains(&call.position) || self.changed.contains(&call.position)
    }
}

/// The requirements whose checks apply to `case` (what it can show kept).
pub fn applicable(case: &RuntimeCase) -> BTreeSet<String> {
    let mut shown = BTreeSet::new();
    for (index, calls) in calls_of(case, &RuntimePolicies::default())
        .iter()
        .enumerate()
    {
        shown.extend(applicable_to_batch(calls, index));
    }
    shown
}

fn applicable_to_batch(calls: &[Call], index: usize) -> BTreeSet<String> {
    let mut shown = BTreeSet::new();
    let mut add = |id: &str| {
        shown.insert(id.to_owned());
    };
    if calls.is_empty() {
        return shown;
    }
    add(ids::RUNTIME_RESULT_PER_CALL);
    if calls.iter().any(|c| c.id.is_some()) {
        add(ids::RUNTIME_ID_ECHOED);
    }
    if calls.len() >= 2 {
        add(ids::RUNTIME_RESULT_ORDER);
    }
    if calls
        .iter()
        .any(|c| matches!(c.expected, Expected::Returns(_)))
    {
        add(ids::RUNTIME_CONTENT_UNCHANGED);
    }
    if calls.iter().any(Call::known) {
        add(ids::RUNTIME_EXECUTE_ONCE);
    }
    if calls.iter().any(|c| c.known() && !c.arguments.is_empty()) {
        add(ids::RUNTIME_ARGS_UNCHANGED);
    }
    if calls.iter().any(Call::raises) {
        add(ids::RUNTIME_ERROR_ISOLATED);
        add(ids::RUNTIME_ERROR_REPORTED);
        add(ids::RUNTIME_POLICY_DECLARED);
    }
    if calls.iter().any(Call::malformed) {
        add(ids::RUNTIME_MALFORMED_ANSWERED);
    }
    if calls.iter().any(|c| c.id.is_none()) || shared_ids(calls).next().is_some() {
        add(ids::RUNTIME_POLICY_DECLARED);
    }
    if index > 0 {
        add(ids::RUNTIME_NO_STATE);
    }
    shown
}

/// The ids more than one call of the batch gives.
fn shared_ids(calls: &[Call]) -> impl Iterator<Item = &str> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for id in calls.iter().filter_map(|c| c.id.as_deref()) {
        *counts.entry(id).or_default() += 1;
    }
    let mut shared: Vec<&str> = counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, _)| id)
        .collect();
    shared.sort_unstable();
    shared.into_iter()
}

/// What each batch expects of a runtime that gets every rule right: its tool messages in
/// call order, and its invocations.
pub fn expectations(case: &RuntimeCase) -> Vec<(Value, Vec<Value>)> {
    calls_of(case, &RuntimePolicies::default())
        .iter()
        .map(|calls| {
            let invocations = calls.iter().filter(|c| c.known()).map(Call::invocation);
            (ideal(calls, &reference_policies()), invocations.collect())
        })
        .collect()
}

/// The verdict on a runtime case: each batch that ended (the last may have raised), judged
/// with the policies `declared` (none declared: the reference runtime's, [`reference_policies`]).
pub fn verdict(
    case: &RuntimeCase,
    ended: &[Ended<'_>],
    declared: Option<&RuntimePolicies>,
) -> (Outcome, Blame) {
    verdict_in(NumberModel::Python, case, ended, declared)
}

/// The policies of parcall's reference runtime (`parcall reference`), which a runtime that
/// declares none is held to: a call without id answered without one, calls sharing an id
/// each answered under it, identical calls each run, a raising tool's result
/// `Error: <class>: <message>`.
pub fn reference_policies() -> RuntimePolicies {
    RuntimePolicies {
        max_parallel: Some(1),
        ..RuntimePolicies::default()
    }
}

/// [`verdict`] for a runtime of number model `model`, whose results and invocations are
/// held as that model holds them: the calls and scripts are read the same way.
pub fn verdict_in(
    model: NumberModel,
    case: &RuntimeCase,
    ended: &[Ended<'_>],
    declared: Option<&RuntimePolicies>,
) -> (Outcome, Blame) {
    let reference;
    let policies = match declared {
        Some(policies) => policies,
        None => {
            reference = reference_policies();
            &reference
        }
    };
    let held;
    let case = if model == NumberModel::Python {
        case
    } else {
        held = RuntimeCase {
            tools: held_scripts(model, &case.tools),
            batches: case
                .batches
                .iter()
                .map(|b| RuntimeBatch {
                    calls: model.normalise(&b.calls),
                })
                .collect(),
            ..case.clone()
        };
        &held
    };
    let calls = calls_of(case, policies);
    let mut blame = Blame::default();
    let mut outcome = Outcome::Pass;
    let mut clean: Vec<Option<String>> = Vec::new();
    for (index, (end, calls)) in ended.iter().zip(&calls).enumerate() {
        let mut found = BatchCharges {
            batch: index + 1,
            charges: Vec::new(),
            held: BTreeSet::new(),
            pending: Vec::new(),
        };
        judge_batch(calls, end, policies, &mut found);
        let text = dumps(&case.batches[index].calls, Style::CANONICAL);
        // A turn that went well before, given again, skipping its tools or answering what
        // they no longer say: state kept between turns. (Other failures of a repeated turn,
        // results out of order say, are a framework's nondeterminism, charged as they are.)
        let stale = found.charges.iter().any(|c| {
            c.requirement == ids::RUNTIME_EXECUTE_ONCE
                || c.requirement == ids::RUNTIME_CONTENT_UNCHANGED
        });
        if index > 0 && matches!(end, Ended::Returned(_)) && found.charges.is_empty() {
            found.held(ids::RUNTIME_NO_STATE);
        }
        if stale && clean.iter().flatten().any(|t| *t == text) {
            let first = found.charges[0].diagnosis.clone();
            found.charges = vec![Charge {
                requirement: ids::RUNTIME_NO_STATE.into(),
                batch: index + 1,
                diagnosis: format!("the same turn went right before; this time: {first}"),
                explained: true,
            }];
        }
        clean.push(found.charges.is_empty().then_some(text));
        blame
            .shown
            .extend(found.held.iter().map(|r| (*r).to_owned()));
        if outcome.is_pass() && !found.charges.is_empty() {
            outcome = failure(index + 1, calls, end, policies);
        }
        blame.charges.extend(found.charges);
    }
    // A charged requirement is not also shown kept.
    let charged: BTreeSet<String> = blame
        .charges
        .iter()
        .map(|c| c.requirement.clone())
        .collect();
    blame.shown.retain(|r| !charged.contains(r));
    (outcome, blame)
}

/// The outcome a failing batch gives: the exception, or what it returned beside what an
/// ideal runtime would (in call order, each tool's answer or the declared error text).
fn failure(batch: usize, calls: &[Call], end: &Ended<'_>, policies: &RuntimePolicies) -> Outcome {
    match end {
        Ended::Raised {
            message,
            traceback,
            invocations,
        } => Outcome::Fail(Failure::Exception {
            batch,
            message: format!("{} {message}", ended_how(invocations.len(), calls.len())),
            traceback: (*traceback).to_owned(),
        }),
        Ended::Returned(run) => Outcome::Fail(Failure::WrongOutput {
            batch,
            expected: ideal(calls, policies),
            actual: run.output.clone(),
        }),
    }
}

fn ended_how(ran: usize, calls: usize) -> String {
    if ran == 0 {
        "refused before any tool ran:".to_owned()
    } else {
        format!("crashed after {ran} of {calls} tool calls ran:")
    }
}

/// The tool messages of a runtime that gets every rule right, in call order.
fn ideal(calls: &[Call], policies: &RuntimePolicies) -> Value {
    let template = policies.error_content.as_deref();
    Value::List(
        calls
            .iter()
            .filter(|call| call.answered())
            .map(|call| {
                let content = match &call.expected {
                    _ if call.skip == Some(Skip::Refused) => {
                        "<an error: not run, as the adapter declares>".to_owned()
                    }
                    Expected::Returns(Value::Str(text)) => text.to_string(),
                    Expected::Returns(other) => dumps(other, Style::PYTHON),
                    Expected::Raises {
                        message,
                        class,
                        repr,
                    } => match template {
                        Some(template) => filled(template, message, class, repr),
                        None => format!("<an error naming {class}: {message}>"),
                    },
                    Expected::Unknown { .. } => {
                        format!("<an error: no tool {}>", quoted(&call.name))
                    }
                };
                let mut message = Object::new();
                let id = match (&call.id, policies.missing_id) {
                    (Some(id), _) => Value::from(id.as_str()),
                    (None, MissingIdPolicy::Kept) => Value::Null,
                    (None, _) => Value::from("<an id of its own>"),
                };
                message.insert("tool_call_id".into(), id);
                message.insert("content".into(), Value::from(content));
                Value::from(message)
            })
            .collect(),
    )
}

fn judge_batch(
    calls: &[Call],
    end: &Ended<'_>,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    let invocations = match end {
        Ended::Returned(run) => &run.invocations[..],
        Ended::Raised { invocations, .. } => invocations,
    };
    let settled = collapsed_as_run(calls, invocations);
    let calls = &settled[..];
    let parsed = match end {
        Ended::Returned(run) => Some(messages(&run.output)),
        Ended::Raised { .. } => None,
    };
    let answered = match &parsed {
        Some(Ok(messages)) => answered_under_own_id(calls, messages),
        _ => BTreeSet::new(),
    };
    let (never_ran, changed) = check_invocations(
        calls,
        invocations,
        matches!(end, Ended::Raised { .. }),
        &answered,
        found,
    );
    match end {
        Ended::Raised {
            invocations,
            message,
            ..
        } => {
            found.settle_pending();
            raised(calls, invocations.len(), message, policies, found);
        }
        Ended::Returned(_) => match parsed.expect("a returned turn's output was read") {
            Ok(messages) => {
                found.held(ids::RUNTIME_RESULT_PER_CALL);
                let ran = Ran {
                    never: &never_ran,
                    changed: &changed,
                };
                check_results(calls, &messages, ran, policies, found);
            }
            Err(why) => {
                found.settle_pending();
                found.charge(ids::RUNTIME_RESULT_PER_CALL, why);
            }
        },
    }
}
