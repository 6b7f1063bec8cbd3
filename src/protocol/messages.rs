//! The messages of the parcall protocol, version 1 (conformance/PROTOCOL.md). One JSON object
//! per line, in Python's JSON dialect (`NaN` and `Infinity` allowed), tagged by `type`.

use crate::json::{NumberModel, Value};
use crate::spec::{Function, ToolScript};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// Runner to implementation.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// First message: who is asking.
    Hello { protocol: u32, suite: String },
    /// Run one case: call `function` once per batch, in order, with these tools.
    Case(CaseRequest),
    /// Finish: reply `bye` and exit.
    Shutdown,
}

/// One case to run. The implementation answers every tool invocation from `tools`
/// (a case costs one round trip) and reports each invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseRequest {
    /// Correlation id: echoed in the reply.
    pub id: u64,
    /// An opaque label of the request, unique in the run (for messages only). Never the
    /// case's id, name or description: an implementation must not learn which case it runs.
    pub case: String,
    pub function: Function,
    /// For `execute_tool_calls`: what `dispatch` answers, by tool name. For
    /// `run_parallel_calls`: the `tools` mapping to build.
    pub tools: IndexMap<String, ToolScript>,
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

/// Implementation to runner.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Reply {
    Hello(HelloReply),
    Result(CaseReply),
    Bye,
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
    /// How the implementation's runtime holds JSON numbers (RULINGS E): `python` (the
    /// default: integers exact and apart from floats) or `float64` (every number a double,
    /// so `1` and `1.0` are one value and one key). Expectations are computed, and results
    /// judged, by this model.
    #[serde(default)]
    pub number_model: NumberModel,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImplementationInfo {
    pub name: String,
    pub language: String,
    pub version: String,
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseReply {
    pub id: u64,
    /// One per batch, in order; fewer when a batch raised (the case stops there).
    pub batches: Vec<BatchReply>,
    /// What the implementation printed during the case (capped by the adapter).
    #[serde(default)]
    pub output: String,
}

/// What one call of the function did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case", deny_unknown_fields)]
pub enum BatchReply {
    /// The function returned a JSON value.
    Returned {
        output: Value,
        invocations: Vec<Value>,
    },
    /// The function raised (or returned something that is not JSON); `message` says what,
    /// `traceback` is trimmed to the implementation's own frames.
    Raised {
        message: String,
        #[serde(default)]
        traceback: String,
        invocations: Vec<Value>,
    },
}

/// The tagged messages above, read as [`Tagged`]: serde's derive would buffer every reply
/// (outputs and invocations) before reading it. The mirrors follow each variant's fields;
/// building a variant names them all, so the two cannot drift apart unnoticed.
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
        const VARIANTS: &'static [&'static str] = &["hello", "case", "shutdown"];
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
                _ => {
                    NoFields::deserialize(d)?;
                    Request::Shutdown
                }
            })
        }
    }

    impl Tagged for Reply {
        const TAG: &'static str = "type";
        const VARIANTS: &'static [&'static str] = &["hello", "result", "bye"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(match index {
                0 => Reply::Hello(HelloReply::deserialize(d)?),
                1 => Reply::Result(CaseReply::deserialize(d)?),
                _ => {
                    NoFields::deserialize(d)?;
                    Reply::Bye
                }
            })
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ReturnedFields {
        output: Value,
        invocations: Vec<Value>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RaisedFields {
        message: String,
        #[serde(default)]
        traceback: String,
        invocations: Vec<Value>,
    }

    impl Tagged for BatchReply {
        const TAG: &'static str = "status";
        const VARIANTS: &'static [&'static str] = &["returned", "raised"];
        fn read_variant<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
            Ok(if index == 0 {
                let f = ReturnedFields::deserialize(d)?;
                BatchReply::Returned {
                    output: f.output,
                    invocations: f.invocations,
                }
            } else {
                let f = RaisedFields::deserialize(d)?;
                BatchReply::Raised {
                    message: f.message,
                    traceback: f.traceback,
                    invocations: f.invocations,
                }
            })
        }
    }

    crate::json::deserialize_tagged!(Request, Reply, BatchReply);
}
