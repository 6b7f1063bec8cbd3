//! Judging the runtime profile (spec/SPEC.md, "The runtime profile"): what an agent
//! framework did with one model turn's tool calls. A framework's own conventions (the ids it
//! generates, its error wording) are its declared policies, so a turn is read by properties,
//! not against one expected output: results are matched to calls by id before any other
//! check reads them, and each check charges its own requirement. One bug, one charge: a
//! result lost beside a raising tool is the isolation rule's, not the one-result rule's; a
//! call that never ran is the execution rule's, not also the result rule's.

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

/// A call a declared policy keeps from running (RULINGS F1, F2): not charged for it.
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

/// The calls of every batch of `case` as the declared `policies` read them, each with its
/// answer: the n-th run of the same tool and arguments over the whole case gets the n-th
/// scripted answer (the last repeats).
fn calls_of(case: &RuntimeCase, policies: &RuntimePolicies) -> Vec<Vec<Call>> {
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
fn read_call(case: &RuntimeCase, position: usize, call: &Value, policies: &RuntimePolicies) -> Call {
    let call = call.as_object().cloned().unwrap_or_default();
    let mut id = call.get("id").and_then(Value::as_str).map(str::to_owned);
    if id.as_deref() == Some("") && policies.empty_id == EmptyIdPolicy::Missing {
        id = None;
    }
    // Seed 000's rule: a made-up id that may meet a given one (RULINGS F5).
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
fn skipped_by_policy(calls: &mut [Call], policies: &RuntimePolicies) {
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
        for call in calls.iter_mut().skip(usize::try_from(limit).unwrap_or(usize::MAX)) {
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

fn expected(case: &RuntimeCase, name: &str, key: &str, nth: usize) -> Expected {
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
fn filled(template: &str, message: &str, class: &str, repr: &str) -> String {
    template
        .replace("{message}", message)
        .replace("{type}", class)
        .replace("{repr}", repr)
}

/// The messages of an output, or why it is not a list of tool messages.
fn messages(output: &Value) -> Result<Vec<Message>, String> {
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

/// A charge of a call whose tool never ran, waiting for its result to be read.
struct Pending {
    position: usize,
    /// Whether its tool ran with its arguments at all in this turn (for another call with
    /// the same ones): then its answer is no sign of memory.
    key_ran: bool,
    requirement: &'static str,
    diagnosis: String,
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

/// Under `collapsed`, the call of a shared id that runs is any one of them: the one whose
/// invocation parcall saw, when it is not the one assumed (the last).
fn collapsed_as_run(calls: &[Call], invocations: &[Value]) -> Vec<Call> {
    let mut calls = calls.to_vec();
    let ran = |call: &Call| {
        let own = call.invocation();
        invocations.iter().any(|i| *i == own)
    };
    for index in 0..calls.len() {
        let chosen = &calls[index];
        let group = |c: &Call| c.id.is_some() && c.id == chosen.id;
        if chosen.skip.is_some() || !calls.iter().any(|c| c.skip == Some(Skip::Collapsed) && group(c)) || ran(chosen) {
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

/// The calls (by position) with a result under their own id that shows their answer. Calls
/// sharing an id with fewer such results than calls are none of them known answered: which
/// went without, nothing tells.
fn answered_under_own_id(calls: &[Call], messages: &[Message]) -> BTreeSet<usize> {
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
fn check_invocations(
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
    known.sort_by_key(|c| (answered.contains(&c.position), std::cmp::Reverse(c.position)));
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
/// name is what kept it from running (RULINGS F6): its tool did not run with those
/// arguments for another call either, and a later call of the turn ran (a framework that
/// stops at a limit, or skips a duplicate, skips calls whatever their arguments).
fn never_ran_charge(
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
            Some(pending(
                ids::RUNTIME_EXECUTE_ONCE,
                format!("{}: {} never ran{why}", call.label(), call.name),
            ))
        }
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

/// A batch the framework raised on: refused before any tool ran, or crashed after some did.
fn raised(
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

/// Results: matched to calls by id first, then each matched result read.
fn check_results(
    calls: &[Call],
    messages: &[Message],
    ran: Ran<'_>,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    let never_ran = ran.never;
    let given: BTreeSet<&str> = calls.iter().filter_map(|c| c.id.as_deref()).collect();
    let mut taken = vec![false; messages.len()];
    // For each call, the index of its result.
    let mut matched: Vec<Option<usize>> = vec![None; calls.len()];
    // A result that is exactly a call's answer (its return, or its error in the declared
    // text) is that answer, not another call's error whose short message it happens to hold
    // ("1" in "lookup #1"), or whose class it names.
    let exact = |call: &Call| match &call.expected {
        Expected::Returns(Value::Str(text)) => Some(text.to_string()),
        Expected::Returns(other) => Some(dumps(other, Style::PYTHON)),
        Expected::Raises { .. } => declared_error(call, policies),
        Expected::Unknown { .. } => None,
    };
    let answers: Vec<Option<String>> = calls.iter().map(exact).collect();
    let fits = |call: &Call, m: usize| {
        let content = messages[m].content.as_deref();
        content.is_some_and(|text| {
            let own = answers[call.position - 1].as_deref() == Some(text);
            own || (shows(&call.expected, text)
                && !answers.iter().any(|answer| answer.as_deref() == Some(text)))
        })
    };
    let foreign = |m: usize| {
        messages[m]
            .id
            .as_deref()
            .is_none_or(|id| !given.contains(id))
    };
    // Each stage pairs the calls still unanswered with results still free, a call taking
    // first a result that shows its own answer, then the first left. By id first: calls
    // sharing an id share its results. A call whose tool never ran has no result of its
    // own to take, unless one shows its answer.
    let by_id = |call: &Call, m: usize| call.id.is_some() && messages[m].id == call.id;
    // Under ids several calls share, a result that is exactly a call's answer (its return,
    // or its error in the declared text) is that call's before any other's a short error
    // message happens to be found in ("''" in "KeyError: (2, '')").
    let exactly = |call: &Call, m: usize| {
        let content = messages[m].content.as_deref();
        content.is_some() && answers[call.position - 1].as_deref() == content
    };
    let by_id_exactly = |call: &Call, m: usize| by_id(call, m) && exactly(call, m);
    // A call without id: a result without id, then one of no call's id.
    let missing = |call: &Call, m: usize| call.id.is_none() && messages[m].id.is_none();
    let missing_foreign = |call: &Call, m: usize| call.id.is_none() && foreign(m);
    // A call whose id came back changed: any result its answer shows, then one of no call's id.
    let changed = |call: &Call, m: usize| call.id.is_some() && fits(call, m);
    let changed_foreign = |call: &Call, m: usize| call.id.is_some() && foreign(m);
    // A call without id answered under an id another call gives (a made-up `call_<i>`
    // meeting a given one, so more results carry it than calls): a result that shows its
    // answer, before the call of that id takes whatever is left under it (RULINGS F5).
    let missing_any = |call: &Call, m: usize| {
        let id = &messages[m].id;
        call.id.is_none()
            && messages.iter().filter(|other| other.id == *id).count()
                > calls.iter().filter(|c| c.id == *id).count()
    };
    // (who may take what, only a result that shows the call's answer, calls whose tool
    // never ran too: last, the results of calls refused one by one, which say why).
    type Stage<'s> = (&'s dyn Fn(&Call, usize) -> bool, bool, bool);
    let stages: [Stage<'_>; 12] = [
        (&by_id_exactly, true, false),
        (&by_id, true, false),
        (&missing_any, true, false),
        (&by_id, false, false),
        (&missing, true, false),
        (&missing_foreign, true, false),
        (&missing, false, false),
        (&missing_foreign, false, false),
        (&changed, true, false),
        (&changed_foreign, false, false),
        (&by_id, false, true),
        (&missing_foreign, false, true),
    ];
    // Where a result could be either of two identical calls', the one whose tool ran takes
    // it first: which of them was dropped, nothing else tells, and a result handed to the
    // dropped one would show the one that ran answered out of order.
    let ran_first: Vec<usize> = {
        let (ran, dropped): (Vec<usize>, Vec<usize>) =
            (0..calls.len()).partition(|&c| ran.at_all(&calls[c]));
        ran.into_iter().chain(dropped).collect()
    };
    for (stage, fitting, late) in stages {
        for &c in &ran_first {
            let call = &calls[c];
            let excused = !fitting && !late && !ran.at_all(call);
            if matched[c].is_some() || excused || !call.answered() {
                continue;
            }
            let free = (0..messages.len())
                .find(|&m| !taken[m] && stage(call, m) && (!fitting || fits(call, m)));
            if let Some(m) = free {
                taken[m] = true;
                matched[c] = Some(m);
            }
        }
    }
    // Calls nothing tells apart for a result: each could carry its id (its own, or, when its
    // own came back on no result, one more results carry than calls have), they are alike in
    // whether their
    // tool ran, and they are one tool with equal arguments, or the result could be either's:
    // it shows the answer of both (an unknown tool's error, whatever the arguments), or of
    // one while the other's tool ran with other arguments (whose answer nobody scripted).
    let could_be = |call: &Call, m: usize| ran.changed.contains(&call.position) || fits(call, m);
    let id_lost = |call: &Call| !messages.iter().any(|m| m.id == call.id);
    // More results carry the id than calls have it: one of them is another call's.
    let surplus = |m: usize| {
        let id = &messages[m].id;
        messages.iter().filter(|other| other.id == *id).count()
            > calls.iter().filter(|call| call.id == *id).count()
    };
    let could_carry =
        |call: &Call, m: usize| messages[m].id == call.id || (id_lost(call) && surplus(m));
    let alike = |a: usize, b: usize, m: usize| {
        let (a, b) = (&calls[a], &calls[b]);
        could_carry(a, m)
            && could_carry(b, m)
            && a.answered()
            && b.answered()
            // Of identical calls, which one ran nothing tells either.
            && (a.key() == b.key()
                || (ran.at_all(a) == ran.at_all(b) && could_be(a, m) && could_be(b, m))
                // A result that shows neither's answer (an error a policy or a limit wrote)
                // is either's as much.
                || (!could_be(a, m) && !could_be(b, m)))
    };
    let matched = dealt_in_order(calls.len(), &matched, messages.len(), alike);
    for (c, call) in calls.iter().enumerate() {
        let Some(m) = matched[c] else { continue };
        match &call.id {
            None => missing_id_policy(calls, call, &messages[m], policies, found),
            Some(id) if messages[m].id.as_ref() == Some(id) => found.held(ids::RUNTIME_ID_ECHOED),
            Some(_) => found.charge(
                ids::RUNTIME_ID_ECHOED,
                format!(
                    "{}: answered with id {}",
                    call.label(),
                    messages[m].id.as_deref().map_or("null".into(), quoted)
                ),
            ),
        }
    }
    let raising = calls.iter().find(|c| c.raises());
    let malformed = calls.iter().find(|c| c.malformed());
    // The turn ended with results: a raising tool or a malformed call did not end it.
    if raising.is_some_and(|c| !never_ran.contains(&c.position)) {
        found.held(ids::RUNTIME_ERROR_ISOLATED);
    }
    if malformed.is_some() {
        found.held(ids::RUNTIME_MALFORMED_ANSWERED);
    }
    // A call that never ran has no result to give, charged to execution already. Which of
    // several identical calls did not run, nothing tells: as many of them as did not run
    // are excused, whichever has no result.
    let mut not_run: HashMap<(String, String), usize> = HashMap::new();
    for call in calls.iter().filter(|c| never_ran.contains(&c.position)) {
        *not_run.entry(call.key()).or_default() += 1;
    }
    for (c, call) in calls.iter().enumerate() {
        if matched[c].is_some() || !call.answered() {
            continue;
        }
        if let Some(left) = not_run.get_mut(&call.key()).filter(|n| **n > 0) {
            *left -= 1;
            continue;
        }
        let shares = call.id.is_some() && calls.iter().filter(|c| c.id == call.id).count() > 1;
        if shares {
            found.charge(
                ids::RUNTIME_EXECUTE_ONCE,
                format!(
                    "{}: no result: dropped beside another call with its id",
                    call.label()
                ),
            );
        } else if call.raises() {
            found.charge(
                ids::RUNTIME_ERROR_ISOLATED,
                format!("{}: its tool raised and it got no result", call.label()),
            );
        } else if let Some(culprit) = raising {
            found.charge(
                ids::RUNTIME_ERROR_ISOLATED,
                format!(
                    "{}: no result, lost beside the failure of {}",
                    call.label(),
                    culprit.label()
                ),
            );
        } else if let Some(culprit) = malformed {
            let own = if culprit.position == call.position {
                "it got no result".to_owned()
            } else {
                format!("no result, lost beside {}", culprit.label())
            };
            found.charge(
                ids::RUNTIME_MALFORMED_ANSWERED,
                format!("{}: {own}", call.label()),
            );
        } else {
            found.charge(
                ids::RUNTIME_RESULT_PER_CALL,
                format!("{}: no result", call.label()),
            );
        }
    }
    let extra = taken.iter().filter(|t| !**t).count();
    if extra > 0 {
        found.charge(
            ids::RUNTIME_RESULT_PER_CALL,
            format!("{extra} result(s) answer no call of the turn"),
        );
    }
    // Order: the results of the calls, in the order the runtime gave them.
    let mut order: Vec<(usize, usize)> = matched
        .iter()
        .enumerate()
        .filter_map(|(c, m)| m.map(|m| (m, calls[c].position)))
        .collect();
    order.sort_unstable();
    let positions: Vec<usize> = order.iter().map(|(_, p)| *p).collect();
    if positions.len() >= 2 {
        found.held(ids::RUNTIME_RESULT_ORDER);
    }
    if positions.windows(2).any(|w| w[0] > w[1]) {
        found.charge(
            ids::RUNTIME_RESULT_ORDER,
            format!("results came back for calls {positions:?}, not in call order"),
        );
    }
    // A call whose tool never ran, answered with its tool's answer all the same, was
    // answered from memory: state kept from an earlier turn, not a dropped call.
    for pending in std::mem::take(&mut found.pending) {
        let c = pending.position - 1;
        // Identical calls may take each other's answers (see `answers_in_any_order`).
        let own_key = calls[c].key();
        // Or an answer no invocation of this turn gave that reports no error: a framework
        // that refuses a call says why; one that remembers answers.
        // Memory shows as the tool's own answer, which only running it gives (an earlier
        // case's run, in a case of one turn); any other text that reports no error is
        // taken for memory only where an earlier turn could have left it (RULINGS F6: a
        // call skipped in a case of one turn is not a no-state charge).
        let remembered = !pending.key_ran
            && matched[c].is_some_and(|m| {
                let content = messages[m].content.as_deref().unwrap_or_default();
                let identical = |other: &&Call| other.key() == own_key;
                calls.iter().filter(identical).any(|other| fits(other, m))
                    || (found.batch > 1
                        && !content.is_empty()
                        && !content.to_lowercase().contains("error"))
            });
        match remembered {
            true => found.charge(
                ids::RUNTIME_NO_STATE,
                format!(
                    "{}: answered with its tool's answer though the tool never ran in this turn: remembered from an earlier one",
                    calls[c].label()
                ),
            ),
            false => found.charge(pending.requirement, pending.diagnosis),
        }
    }
    let calls = &answers_in_any_order(calls, &matched, messages);
    for (c, call) in calls.iter().enumerate() {
        // The result of a call whose tool never ran says why; that is execution's charge.
        if never_ran.contains(&call.position) || !call.shows_answer() {
            continue;
        }
        if let Some(m) = matched[c] {
            check_content(calls, call, &messages[m], messages, never_ran, policies, found);
        }
    }
}

/// The results matched to calls, dealt again among the calls nothing tells apart
/// (`alike(call, other, result)`): which of two such calls a result belongs to, neither
/// its id nor its content can say, so each result goes, in the order given, to the first
/// such call after the one answered before it. Two calls sharing an id of which one was
/// dropped are then not also answered out of order.
fn dealt_in_order(
    calls: usize,
    matched: &[Option<usize>],
    results: usize,
    alike: impl Fn(usize, usize, usize) -> bool,
) -> Vec<Option<usize>> {
    let mut answering = vec![None; results];
    for (c, m) in matched.iter().enumerate() {
        if let Some(m) = m {
            answering[*m] = Some(c);
        }
    }
    let mut dealt: Vec<Option<usize>> = vec![None; calls];
    let mut last: Option<usize> = None;
    for (m, c) in answering.into_iter().enumerate() {
        let Some(c) = c else { continue };
        let free = |d: &usize| dealt[*d].is_none() && (*d == c || alike(c, *d, m));
        let after = (0..calls).find(|d| last.is_none_or(|l| *d > l) && free(d));
        // A result left without a call: this deal took one a later result needed, and the
        // deal as matched stands.
        let Some(d) = after.or_else(|| (0..calls).find(free)) else {
            return matched.to_vec();
        };
        dealt[d] = Some(m);
        last = Some(d);
    }
    dealt
}

/// The calls with their answers dealt as the runtime may have dealt them: identical calls
/// (one tool, equal arguments) may run in any order, and the n-th to run gets the n-th
/// answer, so within such a group each call takes the answer its result shows, while one
/// is left; the others take what remains, in call order.
fn answers_in_any_order(
    calls: &[Call],
    matched: &[Option<usize>],
    messages: &[Message],
) -> Vec<Call> {
    let mut dealt = calls.to_vec();
    let mut groups: Vec<((String, String), Vec<usize>)> = Vec::new();
    for (index, call) in calls.iter().enumerate().filter(|(_, c)| c.known()) {
        let own = call.key();
        match groups.iter_mut().find(|(k, _)| *k == own) {
            Some((_, members)) => members.push(index),
            None => groups.push((own, vec![index])),
        }
    }
    for (_, members) in groups.iter().filter(|(_, m)| m.len() > 1) {
        let mut pool: Vec<Expected> = members.iter().map(|&i| calls[i].expected.clone()).collect();
        let mut unfit = Vec::new();
        for &index in members {
            let content = matched[index].and_then(|m| messages[m].content.as_deref());
            match pool
                .iter()
                .position(|e| content.is_some_and(|c| shows(e, c)))
            {
                Some(at) => dealt[index].expected = pool.remove(at),
                None => unfit.push(index),
            }
        }
        for (index, expected) in unfit.into_iter().zip(pool) {
            dealt[index].expected = expected;
        }
    }
    dealt
}

/// Whether `content` is what `expected` gives: the returned string, or a text naming the
/// exception.
fn shows(expected: &Expected, content: &str) -> bool {
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
fn message_of(call: &Call) -> (&str, &str, &str) {
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
fn declared_error(call: &Call, policies: &RuntimePolicies) -> Option<String> {
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

fn names_error(content: &str, message: &str, class: &str, repr: &str) -> bool {
    if message.is_empty() {
        content.contains(class)
    } else {
        content.contains(message) || (!repr.is_empty() && content.contains(repr))
    }
}

/// The id a call without one was answered with, against the declared `missing_id`: none
/// under `kept`, one of its own under `generated`, distinct from every other id of the turn
/// (RULINGS F5). (Under `position` the call was given its `call_<i>` before any of this.)
fn missing_id_policy(
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

fn check_content(
    calls: &[Call],
    call: &Call,
    result: &Message,
    all: &[Message],
    never_ran: &BTreeSet<usize>,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    // Another call's result is only one that call's tool gave in this turn (RULINGS F6).
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
