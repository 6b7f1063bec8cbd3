//! The case format: what `spec/cases/**/*.json` holds, read strictly (unknown fields are
//! errors). `spec/schema/case.schema.json` describes the same shapes; a test keeps the two
//! in sync.

use crate::json::{Object, Value};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One case file: several cases of one function on one topic.
// Not `Deserialize` by derive: see `tagged` below.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "function", rename_all = "snake_case", deny_unknown_fields)]
pub enum CaseFile {
    ExecuteToolCalls {
        #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
        schema: Option<String>,
        topic: String,
        cases: Vec<ExecCase>,
    },
    RunParallelCalls {
        #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
        schema: Option<String>,
        topic: String,
        cases: Vec<DedupCase>,
    },
    RunToolCalls {
        #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
        schema: Option<String>,
        topic: String,
        cases: Vec<RuntimeCase>,
    },
}

/// A case of `execute_tool_calls`: one or more batches run in a row against one dispatcher.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecCase {
    /// Permanent: never reused, never renumbered.
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub id: String,
    pub description: String,
    /// Ids of the requirements (spec/requirements.json) this case checks.
    pub requirements: Vec<String>,
    /// The sandbox unless the case scripts `dispatch` itself.
    #[serde(default, skip_serializing_if = "Dispatch::is_sandbox")]
    pub dispatch: Dispatch,
    pub batches: Vec<ExecBatch>,
}

/// What answers `dispatch` in an `execute_tool_calls` case.
#[derive(Debug, Clone, PartialEq, Default, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dispatch {
    /// The exercise's sandbox (RULES sandbox).
    #[default]
    Sandbox,
    /// Scripted tools whose answers are strings; any other tool is unknown.
    Scripted { tools: IndexMap<String, ToolScript> },
}

impl Dispatch {
    pub fn is_sandbox(&self) -> bool {
        matches!(self, Dispatch::Sandbox)
    }
}

/// One call of `execute_tool_calls` and what it must do.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecBatch {
    /// Passed as given; must be inside the domain (RULES A).
    #[schemars(schema_with = "schemas::exec_calls")]
    pub calls: Value,
    /// Omitted or `null`: the function is called without it, testing the default of 4.
    /// Any integer from 0 to 2^64 - 1 (the loader reads it as an unsigned 64-bit integer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("maximum" = 18_446_744_073_709_551_615_u64))]
    pub max_parallel: Option<u64>,
    /// The list of tool messages.
    #[schemars(schema_with = "schemas::exec_messages")]
    pub expected: Value,
    /// Every dispatch request, in any order (a multiset).
    pub invocations: Vec<ExecInvocation>,
}

/// One `dispatch` request: `{"tool": ..., "arguments": ...}`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecInvocation {
    pub tool: String,
    pub arguments: Object,
}

/// A case of `run_parallel_calls`: scripted tools and one or more batches run in a row.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DedupCase {
    /// Permanent: never reused, never renumbered.
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub id: String,
    pub description: String,
    pub requirements: Vec<String>,
    /// The `tools` mapping handed to the function; names not here are unknown tools.
    pub tools: IndexMap<String, ToolScript>,
    pub batches: Vec<DedupBatch>,
}

/// One call of `run_parallel_calls` and what it must do.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DedupBatch {
    /// Passed as given; must be inside the domain (RULES B).
    #[schemars(schema_with = "schemas::dedup_calls")]
    pub calls: Value,
    /// The result mapping: canonical key to result (entry order carries no meaning).
    pub expected: Object,
    /// Every tool invocation, in any order (a multiset).
    pub invocations: Vec<DedupInvocation>,
}

/// One tool invocation: the tool's name and the args object it was called with.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DedupInvocation {
    pub name: String,
    pub args: Object,
}

/// A case of the runtime profile: scripted tools that really return or raise, and one or
/// more model turns, each a batch of tool calls the runtime executes. What the runtime must
/// do follows from the calls and the scripts (spec/SPEC.md, "The runtime profile"), so a
/// case states no expected messages: the runtime's own policies (generated ids, error
/// wording) are declared in its hello and checked against what it does.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeCase {
    /// Permanent: never reused, never renumbered.
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub id: String,
    pub description: String,
    pub requirements: Vec<String>,
    /// The tools the runtime is given; a call naming another is a malformed call.
    pub tools: IndexMap<String, ToolScript>,
    pub batches: Vec<RuntimeBatch>,
}

/// The most digits an integer of a runtime case's arguments has: any double holds it finitely
/// (a float64 runtime reads a longer one as an infinity, which its JSON cannot write back).
pub const RUNTIME_MAX_DIGITS: usize = 300;

/// One model turn: the tool calls the runtime is asked to execute at once.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeBatch {
    /// `[{"id": ID, "name": TOOL, "arguments": {...}}]`: passed as given. An id may be any
    /// string (empty, repeated) or absent (`null`).
    #[schemars(schema_with = "schemas::runtime_calls")]
    pub calls: Value,
}

/// How a scripted tool behaves: data, not code, so any language can replay it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolScript {
    /// Milliseconds the first invocation with each args waits before answering, so it is
    /// still in flight when a racy implementation starts the same call again: the default
    /// of every response that does not set its own.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub latency_ms: u64,
    /// The first response whose `args` equal the invocation's (as canonical keys) answers;
    /// a response without `args` answers any args.
    pub responses: Vec<Response>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ToolScript {
    /// How long the first invocation answered by `response` (one of this script's) waits.
    pub fn latency_of(&self, response: &Response) -> u64 {
        response.latency_ms.unwrap_or(self.latency_ms)
    }

    /// Whether any invocation of this tool waits.
    pub fn has_latency(&self) -> bool {
        self.responses.iter().any(|r| self.latency_of(r) > 0)
    }

    /// The same script with no invocation waiting.
    pub fn clear_latency(&mut self) {
        self.latency_ms = 0;
        self.responses.iter_mut().for_each(|r| r.latency_ms = None);
    }
}

/// The answers to invocations with given args.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Response {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Object>,
    /// Milliseconds the first invocation answered by this response waits (per args, over
    /// the case), instead of the script's `latency_ms`: so a case can hold in flight only
    /// the calls a race can show on, and a sequential implementation waits for nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// The n-th invocation with these args (counted over the whole case, across batches)
    /// gets the n-th answer; the last answer repeats.
    pub answers: Vec<Answer>,
}

/// What one invocation does.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Answer {
    /// Returns the value.
    Return { value: Value },
    /// Raises an exception whose `str()` is `message` (RULES B7a): by default
    /// `RuntimeError(message)`; with `exception` and `args`, that class called with those
    /// args, and then `message` must be what CPython's `str()` gives for it.
    Raise {
        /// `str(exception)`: what a `run_parallel_calls` result shows after `error: `, and
        /// what a scripted `dispatch` returns after `error: `.
        message: String,
        /// The exception's class; `RuntimeError` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exception: Option<ExceptionClass>,
        /// The arguments the exception is raised with (`e.args`); `[message]` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        args: Option<Vec<Value>>,
    },
}

impl Answer {
    /// What invoking the tool gives: its value, or the class name and `str()` of what it
    /// raises (the reference runtime reports both).
    pub fn into_invoked(self) -> Result<Value, (String, String)> {
        match self {
            Answer::Return { value } => Ok(value),
            Answer::Raise {
                message, exception, ..
            } => {
                let class = exception.unwrap_or(ExceptionClass::RuntimeError);
                Err((class.name().to_owned(), message))
            }
        }
    }
}

/// The exception classes a scripted tool can raise: each is a subclass of `Exception`, so
/// inside the suite's domain (RULES B7a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum ExceptionClass {
    /// `str()` is `''` with no args, `str(args[0])` with one, the tuple's repr with more.
    RuntimeError,
    /// Like `RuntimeError`.
    ValueError,
    /// Like `RuntimeError`, except that with one arg `str()` is `repr(args[0])`: `KeyError('x')`
    /// shows `'x'` with its quotes.
    KeyError,
    /// A subclass of `Exception` with its own `__str__`, which returns `message` whatever the
    /// args are (so `str(e)` and `e.args[0]` differ).
    ToolError,
}

impl ExceptionClass {
    /// The class name, as `type(e).__name__` gives it.
    pub fn name(self) -> &'static str {
        match self {
            ExceptionClass::RuntimeError => "RuntimeError",
            ExceptionClass::ValueError => "ValueError",
            ExceptionClass::KeyError => "KeyError",
            ExceptionClass::ToolError => "ToolError",
        }
    }

    /// CPython's `str()` of this class raised with `args`; `None` for `ToolError`, whose
    /// `__str__` is its own.
    pub fn python_str(self, args: &[Value]) -> Option<String> {
        use crate::reference::python::{repr_value, str_value};
        Some(match (self, args) {
            (ExceptionClass::ToolError, _) => return None,
            (_, []) => String::new(),
            (ExceptionClass::KeyError, [one]) => repr_value(one),
            (_, [one]) => str_value(one),
            (_, several) => {
                let items: Vec<String> = several.iter().map(repr_value).collect();
                format!("({})", items.join(", "))
            }
        })
    }
}

/// The internally tagged enums above, read as [`Tagged`] (serde's derive would buffer each,
/// and a case file whole) into structs that mirror each variant's fields and their serde
/// attributes. Building the variant names every field, so a field added to or removed from
/// a variant does not compile until its mirror follows; the spec's round-trip tests hold the
/// attributes to the same.
mod tagged {
    use super::*;
    use crate::json::{NoFields, Tagged};
    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct FileFields<C> {
        #[serde(rename = "$schema", default)]
        schema: Option<String>,
        topic: String,
        cases: Vec<C>,
    }

    impl Tagged for CaseFile {
        const TAG: &'static str = "function";
        const VARIANTS: &'static [&'static str] =
            &["execute_tool_calls", "run_parallel_calls", "run_tool_calls"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(match index {
                0 => {
                    let f = FileFields::<ExecCase>::deserialize(d)?;
                    CaseFile::ExecuteToolCalls {
                        schema: f.schema,
                        topic: f.topic,
                        cases: f.cases,
                    }
                }
                1 => {
                    let f = FileFields::<DedupCase>::deserialize(d)?;
                    CaseFile::RunParallelCalls {
                        schema: f.schema,
                        topic: f.topic,
                        cases: f.cases,
                    }
                }
                _ => {
                    let f = FileFields::<RuntimeCase>::deserialize(d)?;
                    CaseFile::RunToolCalls {
                        schema: f.schema,
                        topic: f.topic,
                        cases: f.cases,
                    }
                }
            })
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ScriptedFields {
        tools: IndexMap<String, ToolScript>,
    }

    impl Tagged for Dispatch {
        const TAG: &'static str = "type";
        const VARIANTS: &'static [&'static str] = &["sandbox", "scripted"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(if index == 0 {
                NoFields::deserialize(d)?;
                Dispatch::Sandbox
            } else {
                let f = ScriptedFields::deserialize(d)?;
                Dispatch::Scripted { tools: f.tools }
            })
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ReturnFields {
        value: Value,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RaiseFields {
        message: String,
        #[serde(default)]
        exception: Option<ExceptionClass>,
        #[serde(default)]
        args: Option<Vec<Value>>,
    }

    impl Tagged for Answer {
        const TAG: &'static str = "type";
        const VARIANTS: &'static [&'static str] = &["return", "raise"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(if index == 0 {
                let f = ReturnFields::deserialize(d)?;
                Answer::Return { value: f.value }
            } else {
                let f = RaiseFields::deserialize(d)?;
                Answer::Raise {
                    message: f.message,
                    exception: f.exception,
                    args: f.args,
                }
            })
        }
    }

    crate::json::deserialize_tagged!(CaseFile, Dispatch, Answer);
}

/// Schemas of the fields kept as raw values (so their number literals survive): they state
/// the domain of RULES A and B.
mod schemas {
    use schemars::{json_schema, Schema, SchemaGenerator};

    pub(super) fn exec_calls(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["tool"],
                "properties": {
                    "tool": {"type": "string"},
                    "id": {"type": ["string", "null"]},
                    "arguments": {"type": "object"}
                }
            }
        })
    }

    pub(super) fn exec_messages(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["role", "tool_call_id", "content"],
                "properties": {
                    "role": {"const": "tool"},
                    "tool_call_id": {"type": "string"},
                    "content": {"type": "string"}
                }
            }
        })
    }

    pub(super) fn runtime_calls(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["name", "arguments"],
                "properties": {
                    "id": {"type": ["string", "null"]},
                    "name": {"type": "string"},
                    "arguments": {"type": "object"}
                }
            }
        })
    }

    pub(super) fn dedup_calls(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "args": {"type": "object"}
                }
            }
        })
    }
}
