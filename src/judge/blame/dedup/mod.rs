//! The checks of `run_parallel_calls` (RULES B).
//!
//! Each call is first matched with the key the implementation gave it (see [`super::keys`]);
//! the key checks judge how that key was written, and every other check takes the
//! implementation's keys as its premise: one entry and one invocation per distinct key it
//! made, each entry holding what that invocation gave.

mod entries;
mod invocations;
mod key_format;
mod loose;
mod matching;
mod replay;
mod values;

use super::ids::*;
use super::keys::Features;
use super::Tally;
use crate::json::{NumberModel, Object};
use crate::judge::BatchRun;
use crate::reference::{canonical_args_in, canonical_key_in, input, DedupCall};
use crate::spec::{held_scripts, DedupCase, Scripts};
use replay::{replay, Answer};
use std::collections::{HashMap, HashSet};

/// The key each call was matched with, and how it departs from the canonical key; `None`
/// for a call no entry explains.
type Given = Option<(String, Vec<super::keys::Departure>)>;

/// What carries over from one batch of a case to the next.
#[derive(Default)]
struct History {
    /// Keys, canonical and as the implementation wrote them, of earlier batches.
    keys: HashSet<String>,
    /// The answers each key invoked in earlier batches was given (keys as the model
    /// writes them): what a cache that outlived its batch would serve.
    invoked: HashMap<String, Vec<Answer>>,
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
        let invoked = answers.clone();
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
        for (key, answers) in invoked {
            history.invoked.entry(key).or_default().extend(answers);
        }
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
        let canonical: Vec<String> = self
            .calls
            .iter()
            .map(|c| canonical_key_in(self.model, &c.name, c.args.as_ref()))
            .collect();
        let Some(output) = self.check_result_is_dict(tally) else {
            return canonical;
        };
        let features: Vec<Features> = self
            .written
            .iter()
            .map(|c| Features::of(self.model, c.args.as_ref()))
            .collect();
        let given = self.keys_given(output, &canonical, &features);
        self.check_keys(&canonical, &features, &given, tally);
        let mine: HashSet<&str> = given.iter().flatten().map(|(k, _)| k.as_str()).collect();
        let strangers = self.check_leftover_entries(output, &mine, tally);
        self.check_missing_entries(&canonical, &given, &strangers, tally);
        self.check_values(output, &canonical, &given, tally);
        self.check_invocations(&canonical, &given, tally);
        let mut seen = canonical;
        seen.extend(mine.into_iter().map(str::to_owned));
        seen
    }

    /// The result is a dict from keys to results.
    fn check_result_is_dict(&self, tally: &mut Tally) -> Option<&Object> {
        let output = self.run.output.as_object();
        // An empty batch's empty dict is every entry it must have; elsewhere the entries
        // show the rule where they hold what their invocations gave.
        if self.calls.is_empty() && output.is_some_and(Object::is_empty) {
            tally.applies(DEDUP_RESULT_ENTRIES);
        }
        if output.is_none() {
            tally.breaks(
                DEDUP_RESULT_ENTRIES,
                self.number,
                format!(
                    "returned {} instead of a dict from keys to results",
                    self.run.output.type_name()
                ),
            );
        }
        output
    }
}

/// How many entries that belong to no call are read to tell leftovers from strangers.
pub(super) const MOST_ENTRIES_READ: usize = 64;

/// Whether a key reads as `name(args)` with args written canonically: an entry a correct
/// implementation could have made for some call, if not for one of this batch.
pub(super) fn is_canonical_key(model: NumberModel, key: &str) -> bool {
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

pub(super) fn unknown_tool(name: &str) -> String {
    format!("error: unknown tool '{name}'")
}
