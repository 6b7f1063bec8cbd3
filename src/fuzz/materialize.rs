//! A generated input becomes a case: the reference runs it to give the expected output and
//! invocations. What it is about is what the checks find when it runs: a generated case
//! names no requirement of its own.

use crate::generate::cases::GeneratedInput;
use crate::json::{self, NumberModel, Value};
use crate::judge::runs::{run_dedup, run_exec};
use crate::reference::{DomainError, Execution};
use crate::spec::{
    Case, DedupBatch, DedupCase, ExecBatch, ExecCase, Origin, RuntimeBatch, RuntimeCase, SpecCase,
};

/// The case of `input`, with expectations from the reference. The input moves into the case:
/// a generated input is drawn to become one case, and copying its calls and scripts was a
/// fifth of this function's time.
pub fn materialize(
    input: GeneratedInput,
    id: &str,
    origin: Origin,
    description: &str,
) -> Result<SpecCase, DomainError> {
    let case = match input {
        GeneratedInput::Exec { dispatch, batches } => {
            let runs = run_exec(
                &dispatch,
                batches.iter().map(|(c, m)| (c, *m)),
                Execution::Sequential,
            )?;
            Case::Exec(ExecCase {
                id: id.to_owned(),
                description: description.to_owned(),
                requirements: Vec::new(),
                dispatch,
                batches: batches
                    .into_iter()
                    .zip(runs)
                    .map(|((calls, max_parallel), run)| ExecBatch {
                        calls,
                        max_parallel,
                        expected: run.output,
                        invocations: typed(&run.invocations),
                    })
                    .collect(),
            })
        }
        GeneratedInput::Dedup { tools, batches } => {
            let runs = run_dedup(
                &tools,
                batches.iter(),
                Execution::Sequential,
                NumberModel::Python,
            )?;
            Case::Dedup(DedupCase {
                id: id.to_owned(),
                description: description.to_owned(),
                requirements: Vec::new(),
                tools,
                batches: batches
                    .into_iter()
                    .zip(runs)
                    .map(|(calls, run)| DedupBatch {
                        calls,
                        expected: match run.output {
                            Value::Object(o) => o,
                            _ => unreachable!("run_parallel_calls returns a mapping"),
                        },
                        invocations: typed(&run.invocations),
                    })
                    .collect(),
            })
        }
        // What a runtime must do follows from its calls and scripts: nothing to compute.
        GeneratedInput::Runtime { tools, batches } => Case::Runtime(RuntimeCase {
            id: id.to_owned(),
            description: description.to_owned(),
            requirements: Vec::new(),
            tools,
            batches: batches
                .into_iter()
                .map(|calls| RuntimeBatch { calls })
                .collect(),
        }),
    };
    Ok(SpecCase {
        origin,
        case: case.into(),
    })
}

/// Invocations recorded as JSON, read back into the case format's types (they were
/// written from those types, so this cannot fail).
fn typed<T: serde::de::DeserializeOwned>(values: &[Value]) -> Vec<T> {
    values
        .iter()
        .filter_map(|v| json::from_value(v).ok())
        .collect()
}
