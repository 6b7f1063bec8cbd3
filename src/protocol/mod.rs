//! The wire protocol between the runner and an implementation under test: message types,
//! line encoding, and the tables the runner answers invocations from.

mod answer;
mod messages;
mod round_trip;
mod tables;

pub use crate::spec::dispatch_table_for;
pub use answer::{Answer, CaseAnswer};
pub use messages::{
    BatchReply, BatchRequest, CaseReply, CaseRequest, DuplicateIdsPolicy, EmptyIdPolicy,
    HelloReply, IdenticalCallsPolicy, ImplementationInfo, Invocation, InvocationAnswer,
    MissingIdPolicy, PolicyName, Reply, Request, RuntimeDeclaration, RuntimePolicies,
    DEFAULT_ERROR_CONTENT, PROTOCOL_VERSION,
};
pub use round_trip::answer_line;
pub use tables::{answer_tables, case_line, case_request};

use crate::json::{self, Style};
use thiserror::Error;

/// A line from the implementation that is not a valid reply.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("not JSON: {0}")]
    Json(#[from] json::ParseError),
    #[error("not a protocol reply: {0}")]
    Shape(#[from] json::ShapeError),
}

/// Encodes a request as one line (newline included), in Python's JSON dialect so floats,
/// integers of any size, infinities and NaN reach the implementation exactly.
pub fn encode(request: &Request) -> String {
    encode_message(request)
}

/// Decodes one reply line. An `invoke`, one per round trip, is taken apart by hand.
pub fn decode(line: &str) -> Result<Reply, DecodeError> {
    match round_trip::invocation(json::parse(line)?) {
        Ok(invocation) => Ok(Reply::Invoke(invocation)),
        Err(value) => Ok(json::from_value_owned(value)?),
    }
}

/// Decodes one line as any protocol message (`Request` on the implementation's side).
pub fn decode_as<T: serde::de::DeserializeOwned>(line: &str) -> Result<T, DecodeError> {
    let value = json::parse(line)?;
    Ok(json::from_value_owned(value)?)
}

/// Encodes any protocol message as one line, newline included. The message goes straight
/// to a [`json::Value`] (a trip through `serde_json` would turn NaN into `null`).
pub fn encode_message<T: serde::Serialize>(message: &T) -> String {
    let value = json::to_value(message);
    let mut line = json::dumps(
        &value,
        Style {
            ensure_ascii: false,
            ..Style::PYTHON
        },
    );
    line.push('\n');
    line
}

/// The JSON Schema of every protocol message (`conformance/protocol.schema.json`):
/// `request` is what the runner sends, `reply` what an implementation answers.
pub fn protocol_schema() -> String {
    let mut generator = schemars::SchemaGenerator::default();
    let request = generator.subschema_for::<Request>();
    let reply = generator.subschema_for::<Reply>();
    let mut schema = schemars::json_schema!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "parcall protocol, version 2",
        "description": "One JSON object per line. `request`: runner to implementation; `reply`: implementation to runner.",
        "oneOf": [request, reply],
    });
    let definitions = generator.take_definitions(true);
    schema.insert("$defs".into(), serde_json::Value::Object(definitions));
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is plain JSON");
    text.push('\n');
    text
}
