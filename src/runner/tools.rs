//! The tools of the case in flight, held by parcall (RULES C): every invocation the
//! implementation makes arrives as an `invoke` message, is recorded here, in the batch it
//! arrived during, and answered from the case's scripts. The implementation's process never
//! holds the record, nor an answer it has not asked for.

use super::bounds::{self, Excess};
use crate::json::{dumps, NumberModel, Object, Style, Value};
use crate::protocol::{answer_tables, Invocation};
use crate::reference::canonical_args_in;
use crate::spec::{Answer, Case, Function, Scripts};
use std::collections::HashMap;

/// The answering side of one case.
pub(super) struct CaseTools {
    function: Function,
    model: NumberModel,
    scripts: Scripts<'static>,
    /// Invocations so far per (tool, canonical args), over the whole case.
    counts: HashMap<(String, String), usize>,
    /// What was invoked, per batch, in the order the invocations arrived.
    record: Vec<Vec<Value>>,
}

/// What parcall answers one invocation, and how long it holds the answer first.
pub(super) struct Answered {
    pub(super) answer: Answer,
    /// The race probe: the first invocation with these args is held this long, so a racy
    /// cache has the time to start the same call again.
    pub(super) probe_ms: u64,
}

impl CaseTools {
    pub(super) fn new(case: &Case, model: NumberModel) -> CaseTools {
        let batches = case.batch_count().max(1);
        CaseTools {
            function: case.function(),
            model,
            scripts: Scripts::owning(model, answer_tables(case, model)),
            counts: HashMap::new(),
            record: vec![Vec::new(); batches],
        }
    }

    /// Records `invocation`, made while batch `batch` (0-based) ran, and answers it. An
    /// invocation past the bounds is refused: the case is a protocol error.
    pub(super) fn invoke(
        &mut self,
        invocation: &Invocation,
        batch: usize,
    ) -> Result<Answered, Excess> {
        let batch = batch.min(self.record.len() - 1);
        bounds::check_invocation(invocation, self.record[batch].len(), batch)?;
        let recorded = self.recorded(invocation);
        self.record[batch].push(recorded);
        let (name, key) = self.key(invocation);
        let nth = {
            let count = self.counts.entry((name.clone(), key.clone())).or_default();
            *count += 1;
            *count - 1
        };
        let script = self.scripts.get(&name);
        let scripted = script.and_then(|script| script.answer(&key, nth)).cloned();
        let probe_ms = match script {
            Some(script) if nth == 0 => script.probe_ms(&key),
            _ => 0,
        };
        let answer = match self.function {
            // `dispatch` never raises: a scripted exception is its `error: ` message.
            Function::ExecuteToolCalls => Answer::Return {
                value: Value::Str(
                    match scripted {
                        Some(Answer::Return { value }) => return Ok(returned(value, probe_ms)),
                        Some(Answer::Raise { message, .. }) => format!("error: {message}"),
                        None => format!("error: {}", unscripted(&name, &key)),
                    }
                    .into(),
                ),
            },
            // Tools raise for real: the runtime profile's tools as the exercise's.
            Function::RunParallelCalls | Function::RunToolCalls => {
                scripted.unwrap_or_else(|| Answer::Raise {
                    message: unscripted(&name, &key),
                    exception: None,
                    args: None,
                })
            }
        };
        Ok(Answered { answer, probe_ms })
    }

    /// What batch `batch` (0-based) invoked, taken.
    pub(super) fn take(&mut self, batch: usize) -> Vec<Value> {
        self.record
            .get_mut(batch)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The invocation as the function's record has it: `{"tool", "arguments"}` for a
    /// dispatch request, `{"name", "args"}` for a tool, each as the stub saw it.
    fn recorded(&self, invocation: &Invocation) -> Value {
        let mut object = Object::new();
        let (tool, args) = match self.function {
            Function::ExecuteToolCalls => ("tool", "arguments"),
            Function::RunParallelCalls | Function::RunToolCalls => ("name", "args"),
        };
        object.insert(tool.into(), invocation.tool.clone());
        object.insert(args.into(), invocation.args.clone());
        Value::from(object)
    }

    /// The tool's name and the canonical text of its args as the number model writes them:
    /// how the scripts are looked up.
    fn key(&self, invocation: &Invocation) -> (String, String) {
        let name = match &invocation.tool {
            Value::Str(name) => name.to_string(),
            other => dumps(other, Style::PYTHON),
        };
        let key = match &invocation.args {
            Value::Object(object) => canonical_args_in(self.model, object),
            other => dumps(other, Style::canonical(self.model)),
        };
        (name, key)
    }
}

fn returned(value: Value, probe_ms: u64) -> Answered {
    Answered {
        answer: Answer::Return { value },
        probe_ms,
    }
}

/// What an invocation no script answers gets: `parcall: no scripted answer for TOOL(ARGS)`.
fn unscripted(name: &str, key: &str) -> String {
    format!("parcall: no scripted answer for {name}({key})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::spec::CaseFile;

    fn dedup_case(tools: &str) -> Case {
        let text = format!(
            r#"{{"function": "run_parallel_calls", "topic": "t", "cases": [{{"id": "c", "description": "", "requirements": [],
                "tools": {tools}, "batches": [{{"calls": [], "expected": {{}}, "invocations": []}},
                                              {{"calls": [], "expected": {{}}, "invocations": []}}]}}]}}"#
        );
        let file: CaseFile = crate::json::from_value(&parse(&text).unwrap()).unwrap();
        let CaseFile::RunParallelCalls { cases, .. } = file else {
            unreachable!()
        };
        Case::Dedup(cases.into_iter().next().unwrap())
    }

    fn invocation(call: u64, tool: &str, args: &str) -> Invocation {
        Invocation {
            id: 1,
            call,
            tool: Value::Str(tool.into()),
            args: parse(args).unwrap(),
        }
    }

    /// Probes as the case format says: a response's own `latency_ms` (0 included) outranks
    /// its script's, a missing or null one falls back to it, and only the first invocation
    /// with each args is held.
    #[test]
    fn only_the_first_invocation_of_each_args_is_a_probe_as_long_as_its_response_says() {
        let case = dedup_case(
            r#"{"t": {"latency_ms": 5, "responses": [
                {"args": {"k": 1}, "latency_ms": 2, "answers": [{"type": "return", "value": "ok"}]},
                {"args": {"k": 2}, "latency_ms": 0, "answers": [{"type": "return", "value": "ok"}]},
                {"args": {"k": 3}, "latency_ms": null, "answers": [{"type": "return", "value": "ok"}]},
                {"answers": [{"type": "return", "value": "ok"}]}]}}"#,
        );
        let mut tools = CaseTools::new(&case, NumberModel::Python);
        let probes: Vec<u64> = [1, 1, 2, 3, 4, 4]
            .iter()
            .enumerate()
            .map(|(call, k)| {
                let args = format!(r#"{{"k": {k}}}"#);
                tools
                    .invoke(&invocation(call as u64, "t", &args), 0)
                    .unwrap()
                    .probe_ms
            })
            .collect();
        assert_eq!(probes, [2, 0, 0, 5, 5, 0]);
    }

    /// Successive invocations with the same args get successive answers across batches, the
    /// last repeating; an invocation no script answers raises parcall's own message; every
    /// one is recorded in the batch it arrived during, as the stub sent it.
    #[test]
    fn answers_follow_the_script_and_every_invocation_is_recorded_in_its_batch() {
        let case = dedup_case(
            r#"{"t": {"responses": [{"args": {"a": 1}, "answers": [
                {"type": "return", "value": "first"}, {"type": "raise", "message": "second"}]}]}}"#,
        );
        let mut tools = CaseTools::new(&case, NumberModel::Python);
        let answer = |tools: &mut CaseTools, call, args: &str, batch| {
            tools
                .invoke(&invocation(call, "t", args), batch)
                .unwrap()
                .answer
        };
        assert_eq!(
            answer(&mut tools, 1, r#"{"a": 1}"#, 0),
            Answer::Return {
                value: "first".into()
            }
        );
        assert!(
            matches!(answer(&mut tools, 2, r#"{"a": 1}"#, 1), Answer::Raise { message, .. } if message == "second")
        );
        assert!(
            matches!(answer(&mut tools, 3, r#"{"a": 1}"#, 1), Answer::Raise { message, .. } if message == "second")
        );
        assert!(
            matches!(answer(&mut tools, 4, r#"{"a": 1.0}"#, 1), Answer::Raise { message, .. } if message == "parcall: no scripted answer for t({\"a\": 1.0})")
        );
        assert_eq!(tools.take(0).len(), 1);
        let second = tools.take(1);
        assert_eq!(second.len(), 3);
        assert_eq!(
            second[2],
            parse(r#"{"name": "t", "args": {"a": 1.0}}"#).unwrap()
        );
        // Under float64, `1.0` is the args `1`: the scripted response answers it.
        let mut float64 = CaseTools::new(&case, NumberModel::Float64);
        assert_eq!(
            answer(&mut float64, 1, r#"{"a": 1.0}"#, 0),
            Answer::Return {
                value: "first".into()
            }
        );
    }
}
