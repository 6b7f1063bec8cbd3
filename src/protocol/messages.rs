//! The messages of the parcall protocol, version 2 (conformance/PROTOCOL.md). One JSON object
//! per line, in Python's JSON dialect (`NaN` and `Infinity` allowed), tagged by `type`.
//!
//! parcall holds the tools: the implementation gets only their names, asks parcall for each
//! invocation's answer (`invoke` / `answer`), and never reports what it invoked. The record
//! of invocations is parcall's own.

use crate::json::{NumberModel, Value};
use crate::spec::{Answer, Function};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u32 = 2;

/// Runner to implementation.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// First message: who is asking.
    Hello { protocol: u32, suite: String },
    /// Run one case: call `function` once per batch, in order.
    Case(CaseRequest),
    /// The answer to invocation `call` of case `id`.
    Answer(InvocationAnswer),
    /// Finish: reply `bye` and exit.
    Shutdown,
}

/// One case to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseRequest {
    /// Correlation id: echoed in every message about the case.
    pub id: u64,
    /// An opaque label of the request, unique in the run (for messages only). Never the
    /// case's id, name or description: an implementation must not learn which case it runs.
    pub case: String,
    pub function: Function,
    /// For `run_parallel_calls`: the names of the `tools` mapping to build, each a stub
    /// that asks parcall (`invoke`). Empty for `execute_tool_calls`, whose `dispatch` is
    /// one such stub.
    pub tools: Vec<String>,
    /// For `run_tool_calls`: each tool's JSON Schema of its arguments (every argument name
    /// the case's calls give it, any value), for runtimes that build a tool from a schema.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub parameters: IndexMap<String, Value>,
    pub batches: Vec<BatchRequest>,
}

/// The arguments of one call of the function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    pub calls: Value,
    /// Absent: the function is called without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_parallel: Option<u64>,
}

/// What an invoked tool (or `dispatch`) gives back: it returns `value`, or raises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InvocationAnswer {
    /// The case message's id.
    pub id: u64,
    /// The invocation's own number, as the implementation sent it.
    pub call: u64,
    pub answer: Answer,
}

/// Implementation to runner.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Reply {
    Hello(HelloReply),
    /// The implementation invoked a tool (or `dispatch`): parcall records it and answers.
    Invoke(Invocation),
    /// A batch returned.
    Returned {
        id: u64,
        output: Value,
    },
    /// A batch raised (or returned something that is not JSON); `message` says what,
    /// `traceback` is trimmed to the implementation's own frames. The case stops there.
    Raised {
        id: u64,
        message: String,
        #[serde(default)]
        traceback: String,
    },
    /// The case is over.
    Result(CaseReply),
    Bye,
}

/// One invocation, as the stub saw it, at the moment it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Invocation {
    /// The case message's id.
    pub id: u64,
    /// A number the implementation picks, unique among the case's invocations still
    /// waiting for their answer: the answer echoes it.
    pub call: u64,
    /// `run_parallel_calls`: the tool's name. `execute_tool_calls`: `request["tool"]`.
    pub tool: Value,
    /// `run_parallel_calls`: the args object. `execute_tool_calls`: `request["arguments"]`.
    pub args: Value,
}

/// The handshake answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HelloReply {
    pub protocol: u32,
    pub implementation: ImplementationInfo,
    /// The functions the implementation defines.
    pub functions: Vec<Function>,
    /// Set when the implementation could not be loaded (syntax error, exception at import):
    /// the message says what and where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_error: Option<String>,
    /// Problems with the functions it defines (wrong signatures), one message each.
    #[serde(default)]
    pub problems: Vec<String>,
    /// What the implementation printed while loading.
    #[serde(default)]
    pub output: String,
    /// How the implementation's runtime holds JSON numbers (RULES E): `python` (the
    /// default: integers exact and apart from floats) or `float64` (every number a double,
    /// so `1` and `1.0` are one value and one key). Expectations are computed, and results
    /// judged, by this model.
    #[serde(default)]
    pub number_model: NumberModel,
    /// For a runtime adapter (`run_tool_calls`): the framework it drives and the policies
    /// it declares for what the runtime profile leaves to the framework.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Box<RuntimeDeclaration>>,
}

/// What a runtime adapter says of the framework it drives (spec/SPEC.md, "The runtime
/// profile"): shown in every report, and the policies checked against what it does.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeDeclaration {
    /// The framework's package name, as its registry spells it.
    pub framework: String,
    /// The framework's installed version.
    pub version: String,
    /// The tool-execution path the adapter drives (`langgraph.prebuilt.ToolNode`).
    pub entry: String,
    /// The framework's own result objects each tool message is read from
    /// (`module.QualName`, or the part types a JavaScript framework tags its results with).
    pub message_types: Vec<String>,
    pub policies: RuntimePolicies,
}

/// What the runtime profile leaves to the framework, as the adapter declares it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimePolicies {
    /// What the framework does with a call that has no id; `null`: it has no policy.
    #[serde(default)]
    pub missing_id: Option<MissingIdPolicy>,
    /// What the framework does with calls that share an id; `null`: it has no policy.
    #[serde(default)]
    pub duplicate_ids: Option<DuplicateIdsPolicy>,
    /// How many tools run at once at most; `null`: no limit.
    #[serde(default)]
    pub max_parallel: Option<u64>,
    /// The content of a result whose tool raised, as a template over the exception:
    /// `{message}` is `str(e)`, `{type}` its class name, `{repr}` `repr(e)`. `null`: the
    /// framework does not catch tool exceptions.
    #[serde(default)]
    pub error_content: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MissingIdPolicy {
    /// The framework gives the call an id of its own.
    Generated,
    /// The call is answered with no id (null or empty).
    Kept,
    /// The turn is refused before any tool runs.
    Refused,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DuplicateIdsPolicy {
    /// Every call runs and is answered under the shared id.
    Each,
    /// The turn is refused before any tool runs.
    Refused,
    /// Only one of the calls runs.
    Collapsed,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImplementationInfo {
    pub name: String,
    pub language: String,
    pub version: String,
}

/// The end of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseReply {
    pub id: u64,
    /// What the implementation printed during the case (capped by the adapter).
    #[serde(default)]
    pub output: String,
}

/// What one call of the function did, with what parcall saw it invoke meanwhile. Made by
/// parcall from a `returned` or `raised` message and its own record, never read off the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchReply {
    /// The function returned a JSON value.
    Returned {
        output: Value,
        invocations: Vec<Value>,
    },
    /// The function raised (or returned something that is not JSON).
    Raised {
        message: String,
        traceback: String,
        invocations: Vec<Value>,
    },
}

/// The tagged messages above, read as [`Tagged`]: serde's derive would buffer every reply
/// (outputs included) before reading it. The mirrors follow each variant's fields; building
/// a variant names them all, so the two cannot drift apart unnoticed.
mod tagged {
    use super::*;
    use crate::json::{NoFields, Tagged};
    use serde::Deserializer;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct HelloFields {
        protocol: u32,
        suite: String,
    }

    impl Tagged for Request {
        const TAG: &'static str = "type";
        const VARIANTS: &'static [&'static str] = &["hello", "case", "answer", "shutdown"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(match index {
                0 => {
                    let f = HelloFields::deserialize(d)?;
                    Request::Hello {
                        protocol: f.protocol,
                        suite: f.suite,
                    }
                }
                1 => Request::Case(CaseRequest::deserialize(d)?),
                2 => Request::Answer(InvocationAnswer::deserialize(d)?),
                _ => {
                    NoFields::deserialize(d)?;
                    Request::Shutdown
                }
            })
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ReturnedFields {
        id: u64,
        output: Value,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RaisedFields {
        id: u64,
        message: String,
        #[serde(default)]
        traceback: String,
    }

    impl Tagged for Reply {
        const TAG: &'static str = "type";
        const VARIANTS: &'static [&'static str] =
            &["hello", "invoke", "returned", "raised", "result", "bye"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(match index {
                0 => Reply::Hello(HelloReply::deserialize(d)?),
                1 => Reply::Invoke(Invocation::deserialize(d)?),
                2 => {
                    let f = ReturnedFields::deserialize(d)?;
                    Reply::Returned {
                        id: f.id,
                        output: f.output,
                    }
                }
                3 => {
                    let f = RaisedFields::deserialize(d)?;
                    Reply::Raised {
                        id: f.id,
                        message: f.message,
                        traceback: f.traceback,
                    }
                }
                4 => Reply::Result(CaseReply::deserialize(d)?),
                _ => {
                    NoFields::deserialize(d)?;
                    Reply::Bye
                }
            })
        }
    }

    crate::json::deserialize_tagged!(Request, Reply);
}
