//! Playing a case's tool behaviour in-process, recording every invocation: the reference's
//! tests run through these, and so does the runner when it answers for an implementation.

use super::model::{Answer, DedupInvocation, Dispatch, ExecInvocation, Response, ToolScript};
use crate::json::{NumberModel, Object, Value};
use crate::reference::{
    canonical_args, canonical_args_in, DispatchRequest, Dispatcher, Execution, Raised, Sandbox,
    Tools,
};
use indexmap::IndexMap;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// The `tools` mapping of a `run_parallel_calls` case. Answer counters live as long as the
/// value, so create one per case: successive batches of a case see successive answers.
#[derive(Debug)]
pub struct CaseTools<'a> {
    scripts: Scripts<'a>,
    probes: Probes,
    state: Mutex<ScriptState<DedupInvocation>>,
}

/// Whether the race probes' waits are played. A wait shows a race only to a call that runs
/// during it, so where calls run one after another on the caller's thread it is skipped, as
/// the adapters skip it when their process has no other thread (PROTOCOL.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probes {
    Wait,
    Skip,
}

impl Probes {
    fn for_execution(execution: Execution) -> Probes {
        if execution.overlaps() {
            Probes::Wait
        } else {
            Probes::Skip
        }
    }

    /// The race probe: the first invocation of each args (`nth` 0) waits its response's
    /// latency ([`ToolScript::latency_of`]), which keeps it in flight while a racy
    /// implementation starts the same call again. Later invocations answer at once: the race
    /// has either shown by then or cannot, and a sequential implementation pays the wait once
    /// per key, not once per call.
    fn wait_if_first(self, script: Script<'_>, key: &str, nth: usize) {
        let latency = self.wait_ms(script, key, nth);
        if latency > 0 {
            std::thread::sleep(Duration::from_millis(latency));
        }
    }

    /// How long the `nth` invocation with canonical args `key` waits.
    fn wait_ms(self, script: Script<'_>, key: &str, nth: usize) -> u64 {
        match script.response(key) {
            Some(response) if nth == 0 && self == Probes::Wait => {
                script.script.latency_of(response)
            }
            _ => 0,
        }
    }
}

/// A case's tool scripts, each response found by its canonical args in constant time (as
/// the Python adapter finds them). Finding it by writing every response's args until one
/// matched made a batch of hundreds of calls, with a response each, quadratic.
#[derive(Debug)]
pub struct Scripts<'s> {
    tools: Cow<'s, IndexMap<String, ToolScript>>,
    /// Per tool, in `tools`' order: the first response with each canonical args, and the
    /// first response without args.
    first: Vec<(HashMap<String, usize>, Option<usize>)>,
}

/// One tool's script, with its responses indexed.
#[derive(Clone, Copy)]
pub struct Script<'s> {
    script: &'s ToolScript,
    first: &'s (HashMap<String, usize>, Option<usize>),
}

impl<'s> Scripts<'s> {
    pub fn new(tools: &'s IndexMap<String, ToolScript>) -> Scripts<'s> {
        Scripts::indexing(NumberModel::Python, Cow::Borrowed(tools))
    }

    /// Scripts that own their tools (the runner's, built for each case it answers), looked
    /// up by args as number model `model` writes them: under `float64`, `{"a": 1}` finds the
    /// response for `{"a": 1.0}`, and `-0.0` the one for `0`.
    pub fn owning(model: NumberModel, tools: IndexMap<String, ToolScript>) -> Scripts<'static> {
        Scripts::indexing(model, Cow::Owned(tools))
    }

    fn indexing(model: NumberModel, tools: Cow<'s, IndexMap<String, ToolScript>>) -> Scripts<'s> {
        let first = tools
            .values()
            .map(|script| {
                let mut by_args = HashMap::new();
                let mut any_args = None;
                for (index, response) in script.responses.iter().enumerate() {
                    match &response.args {
                        Some(args) => {
                            by_args
                                .entry(canonical_args_in(model, args))
                                .or_insert(index);
                        }
                        None => {
                            any_args.get_or_insert(index);
                        }
                    }
                }
                (by_args, any_args)
            })
            .collect();
        Scripts { tools, first }
    }

    /// The names of the tools, in the case's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The script of tool `name`, if the case has one.
    pub fn get(&self, name: &str) -> Option<Script<'_>> {
        let (index, _, script) = self.tools.get_full(name)?;
        Some(Script {
            script,
            first: &self.first[index],
        })
    }
}

impl<'s> Script<'s> {
    /// The response that answers invocations with canonical args `key`: the first whose
    /// args match, or that has none.
    fn response(self, key: &str) -> Option<&'s Response> {
        let (by_args, any_args) = self.first;
        let index = match (by_args.get(key), any_args) {
            (Some(a), Some(b)) => (*a).min(*b),
            (Some(a), None) | (None, Some(a)) => *a,
            (None, None) => return None,
        };
        Some(&self.script.responses[index])
    }

    /// How long the first invocation with canonical args `key` is held in flight (the race
    /// probe, [`ToolScript::latency_of`]); 0 when nothing answers it.
    pub fn probe_ms(self, key: &str) -> u64 {
        self.response(key)
            .map_or(0, |response| self.script.latency_of(response))
    }

    /// The answer to the `nth` (0-based) invocation with canonical args `key`: from the
    /// first response whose args match (or that has none); the last answer repeats.
    pub fn answer(self, key: &str, nth: usize) -> Option<&'s Answer> {
        let response = self.response(key)?;
        response.answers.get(nth).or(response.answers.last())
    }
}

#[derive(Debug)]
struct ScriptState<I> {
    /// Invocations so far per (tool, canonical args).
    counts: HashMap<(String, String), usize>,
    log: Vec<I>,
}

impl<I> Default for ScriptState<I> {
    fn default() -> Self {
        ScriptState {
            counts: HashMap::new(),
            log: Vec::new(),
        }
    }
}

impl<'a> CaseTools<'a> {
    /// The tools for an implementation that runs its calls as `execution` says: their race
    /// probes wait only if its calls can overlap.
    pub fn new(scripts: &'a IndexMap<String, ToolScript>, execution: Execution) -> Self {
        CaseTools {
            scripts: Scripts::new(scripts),
            probes: Probes::for_execution(execution),
            state: Mutex::default(),
        }
    }

    /// The invocations since the last call, in the order they happened.
    pub fn take_invocations(&self) -> Vec<DedupInvocation> {
        std::mem::take(&mut lock(&self.state).log)
    }
}

/// A poisoned lock only means another invocation panicked; the counters stay consistent
/// because each update is a single insert.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl CaseTools<'_> {
    /// Invokes tool `name` (one of the scripts) as [`Tools::invoke`] does, with the answer
    /// whole: what a raise raises is kept, its class included.
    pub fn answer(&self, name: &str, args: &Object) -> Answer {
        let key = canonical_args(args);
        let nth = self.record(name, args, &key);
        match self.scripts.get(name) {
            Some(script) => {
                self.probes.wait_if_first(script, &key, nth);
                match script.answer(&key, nth) {
                    Some(answer) => answer.clone(),
                    None => unscripted(name, &key),
                }
            }
            None => unscripted(name, &key),
        }
    }

    /// Records an invocation; how many with these args came before it over the case.
    fn record(&self, name: &str, args: &Object, key: &str) -> usize {
        let mut state = lock(&self.state);
        state.log.push(DedupInvocation {
            name: name.to_owned(),
            args: args.clone(),
        });
        let count = state
            .counts
            .entry((name.to_owned(), key.to_owned()))
            .or_default();
        *count += 1;
        *count - 1
    }
}

/// What parcall answers an invocation no script answers (PROTOCOL.md).
fn unscripted(name: &str, key: &str) -> Answer {
    Answer::Raise {
        message: format!("parcall: no scripted answer for {name}({key})"),
        exception: None,
        args: None,
    }
}

impl Tools for CaseTools<'_> {
    fn has_tool(&self, name: &str) -> bool {
        self.scripts.get(name).is_some()
    }

    fn invoke(&self, name: &str, args: &Object) -> Result<Value, Raised> {
        let Some(script) = self.scripts.get(name) else {
            return Err(Raised(format!("KeyError: '{name}'")));
        };
        let key = canonical_args(args);
        let nth = self.record(name, args, &key);
        // Sleep outside the lock, so concurrent invocations really overlap.
        self.probes.wait_if_first(script, &key, nth);
        tool_answer(name, script, &key, nth)
    }
}

/// What the `nth` (0-based) invocation of a scripted `run_parallel_calls` tool with
/// canonical args `key` gives: its return value, or the `str()` of what it raises.
pub fn tool_answer(name: &str, script: Script<'_>, key: &str, nth: usize) -> Result<Value, Raised> {
    match script.answer(key, nth) {
        Some(Answer::Return { value }) => Ok(value.clone()),
        Some(Answer::Raise { message, .. }) => Err(Raised(message.clone())),
        None => Err(Raised(format!(
            "parcall: no scripted answer for {name}({key})"
        ))),
    }
}

/// The `dispatch` of an `execute_tool_calls` case: the sandbox, or scripted string answers.
#[derive(Debug)]
pub struct CaseDispatch<'a> {
    /// `None`: the sandbox answers.
    scripts: Option<Scripts<'a>>,
    probes: Probes,
    state: Mutex<ScriptState<ExecInvocation>>,
}

impl<'a> CaseDispatch<'a> {
    /// The dispatch for an implementation that runs its calls as `execution` says: its race
    /// probes wait only if its calls can overlap.
    pub fn new(dispatch: &'a Dispatch, execution: Execution) -> Self {
        CaseDispatch {
            scripts: match dispatch {
                Dispatch::Sandbox => None,
                Dispatch::Scripted { tools } => Some(Scripts::new(tools)),
            },
            probes: Probes::for_execution(execution),
            state: Mutex::default(),
        }
    }

    /// The dispatch requests since the last call, in the order they happened.
    pub fn take_invocations(&self) -> Vec<ExecInvocation> {
        std::mem::take(&mut lock(&self.state).log)
    }

    fn scripted(&self, scripts: &Scripts<'_>, request: DispatchRequest<'_>) -> String {
        let Some(script) = scripts.get(request.tool) else {
            return format!("error: unknown tool '{}'", request.tool);
        };
        let key = canonical_args(request.arguments);
        let nth = {
            let mut state = lock(&self.state);
            let count = state
                .counts
                .entry((request.tool.to_owned(), key.clone()))
                .or_default();
            *count += 1;
            *count - 1
        };
        self.probes.wait_if_first(script, &key, nth);
        dispatch_answer(request.tool, script, &key, nth)
    }
}

/// What the `nth` (0-based) scripted `dispatch` of `tool` with canonical arguments `key`
/// returns.
pub fn dispatch_answer(tool: &str, script: Script<'_>, key: &str, nth: usize) -> String {
    match script.answer(key, nth) {
        Some(Answer::Return {
            value: Value::Str(text),
        }) => text.to_string(),
        // The loader refuses scripted dispatch answers that are not strings.
        Some(Answer::Return { value }) => value.to_string(),
        Some(Answer::Raise { message, .. }) => format!("error: {message}"),
        None => format!("error: parcall: no scripted answer for {tool}({key})"),
    }
}

impl Dispatcher for CaseDispatch<'_> {
    fn dispatch(&self, request: DispatchRequest<'_>) -> String {
        lock(&self.state).log.push(ExecInvocation {
            tool: request.tool.to_owned(),
            arguments: request.arguments.clone(),
        });
        match &self.scripts {
            None => Sandbox.dispatch(request),
            Some(scripts) => self.scripted(scripts, request),
        }
    }
}

/// Tool scripts as number model `model` holds them (RULES E): the args its responses match
/// and the values they answer. Under `python`, the scripts themselves.
pub fn held_scripts(
    model: NumberModel,
    scripts: &IndexMap<String, ToolScript>,
) -> IndexMap<String, ToolScript> {
    let answer = |answer: &Answer| match answer {
        Answer::Return { value } => Answer::Return {
            value: model.normalise(value),
        },
        Answer::Raise {
            message,
            exception,
            args,
        } => Answer::Raise {
            message: message.clone(),
            exception: *exception,
            args: args
                .as_ref()
                .map(|args| args.iter().map(|a| model.normalise(a)).collect()),
        },
    };
    scripts
        .iter()
        .map(|(name, script)| {
            let responses = script
                .responses
                .iter()
                .map(|response| Response {
                    args: response.args.as_ref().map(|a| model.normalise_object(a)),
                    latency_ms: response.latency_ms,
                    answers: response.answers.iter().map(answer).collect(),
                })
                .collect();
            let script = ToolScript {
                latency_ms: script.latency_ms,
                responses,
            };
            (name.clone(), script)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn a_response_latency_outranks_the_script_latency_on_the_first_invocation_only() {
        let script: ToolScript = crate::json::from_value(
            &parse(
                r#"{"latency_ms": 5, "responses": [
                {"args": {"k": 1}, "latency_ms": 2, "answers": [{"type": "return", "value": 1}]},
                {"args": {"k": 2}, "latency_ms": 0, "answers": [{"type": "return", "value": 2}]},
                {"answers": [{"type": "return", "value": 3}]}
            ]}"#,
            )
            .unwrap(),
        )
        .unwrap();
        let tools: IndexMap<String, ToolScript> = [("t".to_owned(), script.clone())].into();
        let scripts = Scripts::new(&tools);
        let indexed = scripts.get("t").unwrap();
        let wait = Probes::for_execution(Execution::CONCURRENT);
        assert_eq!(wait.wait_ms(indexed, r#"{"k": 1}"#, 0), 2);
        assert_eq!(wait.wait_ms(indexed, r#"{"k": 1}"#, 1), 0);
        assert_eq!(wait.wait_ms(indexed, r#"{"k": 2}"#, 0), 0);
        assert_eq!(wait.wait_ms(indexed, r#"{"k": 3}"#, 0), 5);
        assert_eq!(wait.wait_ms(indexed, r#"{"k": 3}"#, 2), 0);
        // Calls that cannot overlap: a wait could show nothing, and none is played.
        for execution in [
            Execution::Sequential,
            Execution::Shuffled { seed: 1 },
            Execution::Concurrent { threads: 1 },
        ] {
            let skip = Probes::for_execution(execution);
            for k in 1..=3 {
                assert_eq!(skip.wait_ms(indexed, &format!(r#"{{"k": {k}}}"#), 0), 0);
            }
        }
        let mut cleared = script.clone();
        cleared.clear_latency();
        assert!(script.has_latency() && !cleared.has_latency());
    }
}
