//! The checks of `run_parallel_calls` (RULINGS B).
//!
//! Each call is first matched with the key the implementation gave it (see [`super::keys`]);
//! the key checks judge how that key was written, and every other check takes the
//! implementation's keys as its premise: one entry and one invocation per distinct key it
//! made, each entry holding what that invocation gave.

use super::ids::*;
use super::keys::{keys_given, plausible_keys, read_back, Departure, Features};
use super::{quote, quote_str, Tally};
use crate::json::{dumps_object, Key, NumberModel, Object, Style, Value};
use crate::judge::BatchRun;
use crate::reference::{
    canonical_args, canonical_args_in, canonical_key_in, input, key_of, DedupCall,
};
use crate::spec::{held_scripts, tool_answer, DedupCase, Scripts};
use std::collections::{HashMap, HashSet};

/// What carries over from one batch of a case to the next.
#[derive(Default)]
struct History {
    /// Keys, canonical and as the implementation wrote them, of earlier batches.
    keys: HashSet<String>,
    /// Scripted answers given so far per (tool, canonical args).
    answered: HashMap<(String, String), usize>,
}

/// `runs` are as `model` holds them, and so are the case's tool scripts once read; the
/// calls are read twice:
/// as written, for how their keys are written, and as the model holds them, for everything
/// else.
pub(super) fn diagnose(model: NumberModel, case: &DedupCase, runs: &[BatchRun], tally: &mut Tally) {
    let held;
    let case = match model {
        NumberModel::Python => case,
        _ => {
            held = DedupCase {
                tools: held_scripts(model, &case.tools),
                ..case.clone()
            };
            &held
        }
    };
    let scripts = Scripts::new(&case.tools);
    let mut history = History::default();
    for (index, run) in runs.iter().enumerate() {
        let Some(batch) = case.batches.get(index) else {
            break;
        };
        let written = input::dedup_calls(&batch.calls).unwrap_or_default();
        // Python holds the calls as written; only another model needs a copy of its own.
        let held_calls: Vec<DedupCall>;
        let calls: &[DedupCall] = match model {
            NumberModel::Python => &written,
            _ => {
                held_calls = written
                    .iter()
                    .map(|call| DedupCall {
                        name: call.name.clone(),
                        args: call.args.as_ref().map(|a| model.normalise_object(a)),
                    })
                    .collect();
                &held_calls
            }
        };
        let answers = replay(model, &scripts, &run.invocations, &mut history.answered);
        let keys = Batch {
            number: index + 1,
            model,
            case,
            calls,
            written: &written,
            run,
            answers,
            history: &history,
        }
        .check(tally);
        history.keys.extend(keys);
    }
}

type Answer = Result<Value, String>;

/// What each invocation the implementation made was given, per canonical request.
fn replay(
    model: NumberModel,
    scripts: &Scripts<'_>,
    invocations: &[Value],
    answered: &mut HashMap<(String, String), usize>,
) -> HashMap<String, Vec<Answer>> {
    let mut answers: HashMap<String, Vec<Answer>> = HashMap::new();
    for invocation in invocations {
        let Some((name, args)) = invocation_parts(invocation) else {
            continue;
        };
        let Some(script) = scripts.get(name) else {
            continue;
        };
        let key = canonical_args(args);
        // Under Python the model's key holds the same args text: written once.
        let model_key = match model {
            NumberModel::Python => key_of(name, &key),
            _ => canonical_key_in(model, name, Some(args)),
        };
        let count = answered.entry((name.to_owned(), key.clone())).or_default();
        *count += 1;
        let answer = tool_answer(name, script, &key, *count - 1);
        answers.entry(model_key).or_default().push(answer);
    }
    answers
}

fn invocation_parts(invocation: &Value) -> Option<(&str, &Object)> {
    let object = invocation.as_object()?;
    let name = object.get("name")?.as_str()?;
    let args = object.get("args")?.as_object()?;
    Some((name, args))
}

/// The value an answer puts in the result: the return value, or `error: <str(e)>`.
fn entry_value(answer: &Answer) -> Value {
    match answer {
        Ok(value) => value.clone(),
        Err(message) => Value::Str(format!("error: {message}").into()),
    }
}

struct Batch<'a> {
    number: usize,
    model: NumberModel,
    case: &'a DedupCase,
    /// The calls as the model holds them.
    calls: &'a [DedupCall],
    /// The calls as written, which tell how each number of a key should be written.
    written: &'a [DedupCall],
    run: &'a BatchRun,
    answers: HashMap<String, Vec<Answer>>,
    history: &'a History,
}

impl Batch<'_> {
    /// Runs every check on this batch; returns the keys it saw (for the next batch).
    fn check(&self, tally: &mut Tally) -> Vec<String> {
        let number = self.number;
        let canonical: Vec<String> = self
            .calls
            .iter()
            .map(|c| canonical_key_in(self.model, &c.name, c.args.as_ref()))
            .collect();
        if number > 1 {
            tally.applies(DEDUP_NO_STATE);
        }
        tally.applies(DEDUP_RESULT_ENTRIES);
        let Some(output) = self.run.output.as_object() else {
            tally.breaks(
                DEDUP_RESULT_ENTRIES,
                number,
                format!(
                    "returned {} instead of a dict from keys to results",
                    self.run.output.type_name()
                ),
            );
            return canonical;
        };

        // Match every call with the key the implementation gave it.
        let features: Vec<Features> = self
            .written
            .iter()
            .map(|c| Features::of(self.model, c.args.as_ref()))
            .collect();
        let entries: HashSet<&str> = output.keys().map(Key::as_str).collect();
        // The canonical keys explain every call and every entry (a correct batch, nearly
        // every batch judged): no other way of writing keys can explain more, so the ones
        // with departures, which cost most of the diagnosis, are not written out.
        let canonical_explains_all = canonical.iter().all(|k| entries.contains(k.as_str()))
            && entries.len() == canonical.iter().collect::<HashSet<_>>().len();
        let mut given = if canonical_explains_all {
            canonical
                .iter()
                .map(|k| Some((k.clone(), Vec::new())))
                .collect()
        } else {
            // Calls written alike (same name, args written the same, member order included)
            // have the same plausible keys, about a hundred each: written once per such
            // call, as dedup batches repeat calls by design.
            let mut sets: Vec<Vec<(Vec<Departure>, String)>> = Vec::new();
            let mut set_of: HashMap<(&str, Option<String>), usize> = HashMap::new();
            let which: Vec<usize> = self
                .written
                .iter()
                .zip(&features)
                .map(|(call, features)| {
                    let written = call
                        .args
                        .as_ref()
                        .map(|args| dumps_object(args, Style::PYTHON));
                    *set_of
                        .entry((call.name.as_str(), written))
                        .or_insert_with(|| {
                            sets.push(plausible_keys(self.model, call, features));
                            sets.len() - 1
                        })
                })
                .collect();
            let plausible: Vec<&[(Vec<Departure>, String)]> =
                which.iter().map(|&set| sets[set].as_slice()).collect();
            keys_given(&plausible, &entries)
        };
        // A key no way of writing explains may still hold the call's args, read back.
        let taken: HashSet<String> = given.iter().flatten().map(|(k, _)| k.clone()).collect();
        let unread: Vec<&Key> = output
            .keys()
            .filter(|k| !taken.contains(k.as_str()))
            .take(MOST_ENTRIES_READ)
            .collect();
        for (i, call) in self.written.iter().enumerate() {
            if given[i].is_some() {
                continue;
            }
            given[i] = unread
                .iter()
                .find_map(|k| read_back(self.model, call, k).map(|d| (k.to_string(), vec![d])));
        }
        // A later call that shares an earlier call's key while an entry nobody explains
        // holds its args, read back, was given that entry (the keying departs somewhere no
        // way of writing above names, such as sorting only so deep).
        for entry in &unread {
            if given.iter().flatten().any(|(k, _)| k == *entry) {
                continue;
            }
            // Only where the earlier call is the same call (same canonical key): calls
            // the implementation merged against a rule stay merged, as it keyed them.
            let shared = (0..self.calls.len()).find(|&i| {
                given[i].as_ref().is_some_and(|(k, _)| {
                    (0..i).any(|j| {
                        canonical[j] == canonical[i]
                            && given[j].as_ref().is_some_and(|(e, _)| e == k)
                    })
                }) && read_back(self.model, &self.written[i], entry).is_some()
            });
            if let Some(i) = shared {
                let departure = read_back(self.model, &self.written[i], entry).expect("just read");
                given[i] = Some((entry.to_string(), vec![departure]));
            }
        }

        self.check_keys(&canonical, &features, &given, tally);

        let mine: HashSet<&str> = given.iter().flatten().map(|(k, _)| k.as_str()).collect();
        let unexplained: Vec<&Key> = output
            .keys()
            .filter(|k| !mine.contains(k.as_str()))
            .collect();
        // Entries that belong to no call of this batch.
        let mut strangers = Vec::new();
        // A cache kept across calls can hold thousands of entries: reading a sample says
        // as much as reading them all, and keeps blame linear in the batch.
        for key in unexplained.iter().take(MOST_ENTRIES_READ) {
            if self.history.keys.contains(key.as_str()) || is_canonical_key(self.model, key) {
                tally.breaks(
                    DEDUP_NO_STATE,
                    number,
                    format!(
                        "the entry {} belongs to no call of this batch: a cache kept from an earlier call",
                        quote_str(key)
                    ),
                );
            } else {
                strangers.push(*key);
            }
        }

        // Calls without an entry.
        let mut reported_strangers = false;
        for (i, call) in self.calls.iter().enumerate() {
            if given[i].is_some() {
                continue;
            }
            let position = i + 1;
            let known = self.case.tools.contains_key(&call.name);
            let first_answer = self.answers.get(&canonical[i]).and_then(|a| a.first());
            if !known {
                tally.breaks(
                    DEDUP_UNKNOWN_TOOL,
                    number,
                    format!(
                        "call {position} names {}, which is not in tools: it must have the entry {} = {}; there is none",
                        quote_str(&call.name),
                        quote_str(&canonical[i]),
                        quote_str(&unknown_tool(&call.name))
                    ),
                );
            } else if let Some(Err(message)) = first_answer {
                tally.breaks(
                    DEDUP_RAISE,
                    number,
                    format!(
                        "call {position}'s tool raised: it must have the entry {} = {}; there is none",
                        quote_str(&canonical[i]),
                        quote_str(&format!("error: {message}"))
                    ),
                );
            } else if !strangers.is_empty() {
                if !reported_strangers {
                    reported_strangers = true;
                    tally.breaks(
                        DEDUP_KEY_FORMAT,
                        number,
                        format!(
                            "call {position} must be keyed {}; no entry has that key, and no rule explains the key {}",
                            quote_str(&canonical[i]),
                            quote_str(strangers[0])
                        ),
                    );
                } else {
                    tally.breaks(DEDUP_KEY_FORMAT, number, String::new());
                }
            } else {
                tally.breaks(
                    DEDUP_RESULT_ENTRIES,
                    number,
                    format!(
                        "call {position} (key {}) has no entry",
                        quote_str(&canonical[i])
                    ),
                );
            }
        }
        if !strangers.is_empty() && !reported_strangers {
            tally.breaks(
                DEDUP_RESULT_ENTRIES,
                number,
                format!("the entry {} belongs to no call", quote_str(strangers[0])),
            );
        }

        self.check_values(output, &canonical, &given, tally);
        self.check_invocations(&canonical, &given, tally);

        let mut seen = canonical;
        seen.extend(mine.into_iter().map(str::to_owned));
        seen
    }

    /// How each call's key is written.
    fn check_keys(
        &self,
        canonical: &[String],
        features: &[Features],
        given: &[Option<(String, Vec<Departure>)>],
        tally: &mut Tally,
    ) {
        for (i, call) in self.written.iter().enumerate() {
            let Some((key, departures)) = &given[i] else {
                continue;
            };
            let applies = features[i].requirements(call.args.is_none(), &call.name);
            let mut broken: Vec<&'static str> = Vec::new();
            for departure in departures {
                for requirement in departure.requirements(self.model, call.args.as_ref()) {
                    broken.push(requirement);
                    tally.breaks(
                        requirement,
                        self.number,
                        format!(
                            "call {}'s key is {}, expected {}: {}",
                            i + 1,
                            quote_str(key),
                            quote_str(&canonical[i]),
                            departure.describe(self.model)
                        ),
                    );
                }
            }
            for requirement in applies {
                if !broken.contains(&requirement) {
                    tally.applies(requirement);
                }
            }
        }
        // 1, 1.0 and true are different calls: two calls with different keys must not
        // share an entry. Calls meet only the earlier calls of their name and loose form:
        // comparing every pair was quadratic in the batch, and batches have hundreds of
        // calls.
        let mut alike: HashMap<(&str, Vec<u8>), Vec<usize>> = HashMap::new();
        for (i, call) in self.calls.iter().enumerate() {
            let Some(form) = loose_form(call) else {
                continue;
            };
            let earlier = alike.entry((call.name.as_str(), form)).or_default();
            for &j in earlier.iter() {
                if canonical[i] == canonical[j] {
                    continue;
                }
                tally.applies(DEDUP_NUMBER_DISTINCT);
                let (Some((a, _)), Some((b, _))) = (&given[i], &given[j]) else {
                    continue;
                };
                if a == b {
                    tally.breaks(
                        DEDUP_NUMBER_DISTINCT,
                        self.number,
                        format!(
                            "calls {} and {} are different calls ({} and {}) but share the key {}",
                            j + 1,
                            i + 1,
                            quote_str(&canonical[j]),
                            quote_str(&canonical[i]),
                            quote_str(a)
                        ),
                    );
                }
            }
            earlier.push(i);
        }
    }

    /// Each entry holds what its tool gave: the return value unchanged, `error: <str(e)>`,
    /// or the unknown-tool error.
    fn check_values(
        &self,
        output: &Object,
        canonical: &[String],
        given: &[Option<(String, Vec<Departure>)>],
        tally: &mut Tally,
    ) {
        let mut judged = HashSet::new();
        let output = output.lookup();
        for (i, call) in self.calls.iter().enumerate() {
            let Some((key, _)) = &given[i] else {
                continue;
            };
            if !judged.insert(key.clone()) {
                continue;
            }
            let position = i + 1;
            let Some(actual) = output.get(key.as_str()) else {
                continue;
            };
            if !self.case.tools.contains_key(&call.name) {
                tally.applies(DEDUP_UNKNOWN_TOOL);
                let expected = unknown_tool(&call.name);
                let stale = !actual.as_str().is_some_and(|a| a.starts_with("error"));
                if actual.as_str() != Some(expected.as_str()) && stale {
                    tally.breaks(
                        DEDUP_NO_STATE,
                        self.number,
                        format!(
                            "call {position} names {}, which is not in tools, but its entry holds {}, a result from an earlier call: the cache survived it",
                            quote_str(&call.name),
                            quote(actual)
                        ),
                    );
                } else if actual.as_str() != Some(expected.as_str()) {
                    tally.breaks(
                        DEDUP_UNKNOWN_TOOL,
                        self.number,
                        format!(
                            "call {position} names {}, which is not in tools: expected {}, got {}",
                            quote_str(&call.name),
                            quote_str(&expected),
                            quote(actual)
                        ),
                    );
                }
                continue;
            }
            let Some(answers) = self.answers.get(&canonical[i]) else {
                // Never invoked: the invocation check says so.
                continue;
            };
            let raised = answers[0].is_err();
            let requirement = if raised {
                DEDUP_RAISE
            } else {
                DEDUP_RESULT_UNCHANGED
            };
            tally.applies(requirement);
            if !answers.iter().any(|a| entry_value(a) == *actual) {
                let expected = entry_value(&answers[0]);
                let what = if raised {
                    "its tool raised, so the entry must be"
                } else {
                    "the entry must be the tool's return value unchanged,"
                };
                tally.breaks(
                    requirement,
                    self.number,
                    format!(
                        "call {position} (key {}): {what} {}; got {}",
                        quote_str(key),
                        quote(&expected),
                        quote(actual)
                    ),
                );
            }
        }
    }

    /// One invocation per distinct key the implementation made, with the args (`{}` when
    /// absent); none for unknown tools.
    fn check_invocations(
        &self,
        canonical: &[String],
        given: &[Option<(String, Vec<Departure>)>],
        tally: &mut Tally,
    ) {
        let number = self.number;
        let empty = Object::new();
        // The invocations a correct implementation makes, and the call each is for.
        let mut expected: Vec<Value> = Vec::new();
        let mut wanted_for: Vec<usize> = Vec::new();
        let mut keys_seen: HashMap<&str, usize> = HashMap::new();
        for (i, call) in self.calls.iter().enumerate() {
            if !self.case.tools.contains_key(&call.name) {
                continue;
            }
            tally.applies(DEDUP_INVOKE_ONCE);
            let key = given[i]
                .as_ref()
                .map_or(canonical[i].as_str(), |(k, _)| k.as_str());
            if let Some(first) = keys_seen.get(key) {
                if canonical[*first] == canonical[i] {
                    tally.applies(DEDUP_CACHE_HIT);
                }
                continue;
            }
            keys_seen.insert(key, i);
            if self.number > 1 && self.history.keys.contains(&canonical[i]) {
                tally.applies(DEDUP_NO_STATE);
            }
            let mut invocation = Object::new();
            invocation.insert("name".into(), call.name.as_str().into());
            invocation.insert(
                "args".into(),
                Value::from(call.args.clone().unwrap_or_else(|| empty.clone())),
            );
            expected.push(Value::from(invocation));
            wanted_for.push(i);
        }
        let mut diff = crate::judge::multiset_difference(&expected, &self.run.invocations);
        let wanted = || wanted_for.iter().zip(&expected);
        // A call without args invoked with something other than {}.
        for (i, request) in wanted() {
            let call = &self.calls[*i];
            if call.args.is_some() {
                continue;
            }
            let Some(missing) = diff.missing.iter().position(|m| m == request) else {
                continue;
            };
            let same_name = diff.unexpected.iter().position(|u| {
                u.as_object()
                    .and_then(|o| o.get("name"))
                    .and_then(Value::as_str)
                    == Some(call.name.as_str())
            });
            if let Some(unexpected) = same_name {
                let got = diff.unexpected.remove(unexpected);
                diff.missing.remove(missing);
                tally.breaks(
                    DEDUP_KEY_ARGS_DEFAULT,
                    number,
                    format!(
                        "call {} has no args: its tool must be invoked with {{}}, got the invocation {}",
                        i + 1,
                        quote(&got)
                    ),
                );
            }
        }
        for unexpected in &diff.unexpected {
            let repeat = wanted().find(|(_, w)| *w == unexpected);
            match repeat {
                Some((i, _)) => {
                    let key = &canonical[*i];
                    let raised = self
                        .answers
                        .get(key)
                        .and_then(|a| a.first())
                        .is_some_and(|a| a.is_err());
                    let times = self.answers.get(key).map_or(0, Vec::len);
                    if raised {
                        tally.breaks(
                            DEDUP_RAISE,
                            number,
                            format!(
                                "the key {} was invoked {times} times: its tool raised, and the error is cached like any result",
                                quote_str(key)
                            ),
                        );
                    } else {
                        tally.breaks(
                            DEDUP_CACHE_HIT,
                            number,
                            format!(
                                "the key {} was invoked {times} times: every later call with it must be served from the cache",
                                quote_str(key)
                            ),
                        );
                    }
                }
                None => tally.breaks(
                    DEDUP_INVOKE_ONCE,
                    number,
                    format!("{} was invoked, but no call asks for it", quote(unexpected)),
                ),
            }
        }
        for missing in &diff.missing {
            let Some((i, _)) = wanted().find(|(_, w)| *w == missing) else {
                continue;
            };
            let position = i + 1;
            let served = given[*i].is_some();
            if served || (self.number > 1 && self.history.keys.contains(&canonical[*i])) {
                tally.breaks(
                    DEDUP_NO_STATE,
                    number,
                    format!(
                        "call {position}'s key {} has an entry but its tool was not invoked: a cache from an earlier call answered; every call starts with an empty cache",
                        quote_str(&canonical[*i])
                    ),
                );
            } else {
                tally.breaks(
                    DEDUP_INVOKE_ONCE,
                    number,
                    format!(
                        "call {position}'s tool was never invoked for its key {}",
                        quote_str(&canonical[*i])
                    ),
                );
            }
        }
    }
}

/// How many entries that belong to no call are read to tell leftovers from strangers.
const MOST_ENTRIES_READ: usize = 64;

/// Whether a key reads as `name(args)` with args written canonically: an entry a correct
/// implementation could have made for some call, if not for one of this batch.
fn is_canonical_key(model: NumberModel, key: &str) -> bool {
    let Some(open) = key.find("({") else {
        return false;
    };
    let Some(args) = key[open + 1..].strip_suffix(')') else {
        return false;
    };
    crate::json::parse(args)
        .ok()
        .and_then(|v| v.as_object().map(|args| canonical_args_in(model, args)))
        .is_some_and(|canonical| canonical == args)
}

fn unknown_tool(name: &str) -> String {
    format!("error: unknown tool '{name}'")
}

/// A call's args with numbers and booleans as a runtime with one number type compares them
/// (1 == 1.0 == true), written so that two calls' forms are equal exactly when their args
/// are: object members in key order, every string and list with its length. `None` for args
/// holding a NaN, which equals nothing.
fn loose_form(call: &DedupCall) -> Option<Vec<u8>> {
    fn text(out: &mut Vec<u8>, tag: u8, text: &str) {
        out.push(tag);
        out.extend_from_slice(&text.len().to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    fn object(out: &mut Vec<u8>, object: &Object) -> Option<()> {
        let mut members: Vec<(&Key, &Value)> = object.iter().collect();
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out.push(b'{');
        out.extend_from_slice(&members.len().to_le_bytes());
        for (key, value) in members {
            text(out, b'k', key);
            form(out, value)?;
        }
        Some(())
    }
    fn form(out: &mut Vec<u8>, value: &Value) -> Option<()> {
        if let Some(double) = loose_double(value) {
            if double.is_nan() {
                return None;
            }
            // -0.0 == 0.0: one form for both.
            let double = if double == 0.0 { 0.0 } else { double };
            out.push(b'n');
            out.extend_from_slice(&double.to_bits().to_le_bytes());
            return Some(());
        }
        match value {
            Value::Null => out.push(b'z'),
            Value::Str(s) => text(out, b's', s),
            Value::Int(i) => text(out, b'i', i.as_str()),
            Value::List(items) => {
                out.push(b'[');
                out.extend_from_slice(&items.len().to_le_bytes());
                for item in items {
                    form(out, item)?;
                }
            }
            Value::Object(members) => object(out, members)?,
            Value::Bool(_) | Value::Float(_) => unreachable!("read as a double above"),
        }
        Some(())
    }
    let mut out = Vec::new();
    object(&mut out, call.args.as_ref().unwrap_or(&Object::new()))?;
    Some(out)
}

/// A number as a double, if it is one a runtime could confuse with another: booleans,
/// floats, and integers a double holds exactly (longer ones stay themselves: their rule is
/// DEDUP-NUMBER-INT).
fn loose_double(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Int(i) if i.as_str().trim_start_matches('-').len() <= 15 => Some(i.to_f64()),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn call(args: &str) -> DedupCall {
        DedupCall {
            name: "t".into(),
            args: Some(
                crate::json::parse(args)
                    .unwrap()
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        }
    }

    fn loosely_equal(a: &DedupCall, b: &DedupCall) -> bool {
        matches!((loose_form(a), loose_form(b)), (Some(a), Some(b)) if a == b)
    }

    /// Loose equality as the definition reads, pair by pair: what the forms must agree with.
    fn loose_eq(a: &Value, b: &Value) -> bool {
        match (loose_double(a), loose_double(b)) {
            (Some(x), Some(y)) => return x == y,
            (Some(_), None) | (None, Some(_)) => return false,
            (None, None) => {}
        }
        match (a, b) {
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| loose_eq(a, b))
            }
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len() && {
                    let b = b.lookup();
                    a.iter()
                        .all(|(k, v)| b.get(k).is_some_and(|w| loose_eq(v, w)))
                }
            }
            (a, b) => a == b,
        }
    }

    /// The same value as another runtime might hold it: some numbers as floats or booleans,
    /// keys in another order.
    fn loosen(value: &Value, seed: u64) -> Value {
        let value = crate::generate::values::permute_keys(value, seed);
        fn walk(value: &Value, seed: &mut u64) -> Value {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let flip = *seed >> 63 == 1;
            match value {
                Value::Int(i) if flip && i.as_str().len() <= 15 => Value::Float(i.to_f64()),
                Value::Float(f) if *f == 0.0 && flip => Value::Bool(false),
                Value::Float(f) if *f == 0.0 => Value::Float(-0.0),
                Value::Float(f) if *f == 1.0 && flip => Value::Bool(true),
                Value::List(items) => Value::List(items.iter().map(|v| walk(v, seed)).collect()),
                Value::Object(object) => Value::from(
                    object
                        .iter()
                        .map(|(k, v)| (k.clone(), walk(v, seed)))
                        .collect::<Object>(),
                ),
                other => other.clone(),
            }
        }
        let mut seed = seed;
        walk(&value, &mut seed)
    }

    proptest! {
        #[test]
        fn loose_forms_are_equal_exactly_when_the_args_are_loosely_equal(
            a in crate::generate::values::args(3),
            b in crate::generate::values::args(3),
            seed in any::<u64>(),
        ) {
            let of = |args: &Object| DedupCall { name: "t".into(), args: Some(args.clone()) };
            let loosened = loosen(&Value::from(a.clone()), seed);
            let loosened = loosened.as_object().unwrap();
            for (x, y) in [(&a, loosened), (&a, &b)] {
                let expected = loose_eq(&Value::from(x.clone()), &Value::from(y.clone()));
                prop_assert_eq!(loosely_equal(&of(x), &of(y)), expected, "{:?} {:?}", x, y);
            }
        }
    }

    #[test]
    fn loosely_equal_compares_numbers_as_one_number_type_would() {
        let equal = [
            (r#"{"a": 1}"#, r#"{"a": 1.0}"#),
            (r#"{"a": true}"#, r#"{"a": 1}"#),
            (r#"{"a": [0, {"b": false}]}"#, r#"{"a": [0.0, {"b": 0}]}"#),
            (r#"{"a": 1, "b": "x"}"#, r#"{"b": "x", "a": 1.0}"#),
            (r#"{"a": -0.0}"#, r#"{"a": 0}"#),
            (r#"{"a": 1e400}"#, r#"{"a": 1e999}"#),
        ];
        for (a, b) in equal {
            assert!(loosely_equal(&call(a), &call(b)), "{a} {b}");
        }
        let different = [
            (r#"{"a": 1}"#, r#"{"a": 2}"#),
            (r#"{"a": 1}"#, r#"{"a": "1"}"#),
            (r#"{"a": 1}"#, r#"{"a": 1, "b": 1}"#),
            (r#"{"a": [1]}"#, r#"{"a": [1, 1]}"#),
            (r#"{"a": ["x", "y"]}"#, r#"{"a": ["xy"]}"#),
            (r#"{"a": null}"#, r#"{"a": 0}"#),
            // Past 15 digits an integer keeps its own rule (DEDUP-NUMBER-INT).
            (
                r#"{"a": 1152921504606846976}"#,
                r#"{"a": 1.152921504606846976e18}"#,
            ),
        ];
        for (a, b) in different {
            assert!(!loosely_equal(&call(a), &call(b)), "{a} {b}");
        }
        assert!(loosely_equal(
            &DedupCall {
                name: "t".into(),
                args: None
            },
            &call("{}")
        ));
        // A NaN equals nothing, not even itself.
        let nan = DedupCall {
            name: "t".into(),
            args: Some([("a".into(), Value::Float(f64::NAN))].into_iter().collect()),
        };
        assert!(!loosely_equal(&nan, &nan));
    }
}
