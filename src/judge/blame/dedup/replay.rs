//! Replays what each invocation the implementation made was given.

use crate::json::{NumberModel, Object, Value};
use crate::reference::{canonical_args, canonical_key_in, key_of, Raised};
use crate::spec::{tool_answer, Scripts};
use std::collections::HashMap;

/// What one invocation of a tool gave: its return value, or the message of what it raised.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Answer {
    Returned(Value),
    Raised(String),
}

impl From<Result<Value, Raised>> for Answer {
    fn from(result: Result<Value, Raised>) -> Self {
        match result {
            Ok(value) => Answer::Returned(value),
            Err(Raised(message)) => Answer::Raised(message),
        }
    }
}

impl Answer {
    /// The value an answer puts in the result: the return value, or `error: <str(e)>`.
    pub(super) fn entry_value(&self) -> Value {
        match self {
            Answer::Returned(value) => value.clone(),
            Answer::Raised(message) => Value::Str(format!("error: {message}").into()),
        }
    }
}

/// What each invocation the implementation made was given, per canonical request.
pub(super) fn replay(
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
        let answer = Answer::from(tool_answer(name, script, &key, *count - 1));
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
