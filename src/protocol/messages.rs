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

/// What the runtime profile leaves to the framework, as the adapter declares it (RULES
/// R9): every policy has a value, the reference runtime's where the adapter names none.
/// Read from the handshake without failing on a value parcall does not know: that is kept in
/// `problems`, a set-up error the runner reports before any case runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(default)]
pub struct RuntimePolicies {
    /// What the framework does with a call that has no id.
    pub missing_id: MissingIdPolicy,
    /// Whether an empty id `""` is an id (`given`) or no id (`missing`).
    pub empty_id: EmptyIdPolicy,
    /// What the framework does with calls that share an id.
    pub duplicate_ids: DuplicateIdsPolicy,
    /// What the framework does with identical calls (one tool, equal arguments) under
    /// different ids.
    pub identical_calls: IdenticalCallsPolicy,
    /// The most calls of a turn that run: calls past this position get an error result and
    /// do not run. `null`: no limit.
    pub call_limit: Option<u64>,
    /// How many tools the framework has running at once at most; `null`: no limit.
    /// Declared as `concurrency` (or, as before, `max_parallel`).
    pub max_parallel: Option<u64>,
    /// The content of a result whose tool raised, as a template over the exception:
    /// `{message}` is `str(e)`, `{type}` its class name, `{repr}` `repr(e)`. `null`: the
    /// framework does not catch tool exceptions.
    pub error_content: Option<String>,
    /// What in the declaration parcall cannot read: a set-up error, one sentence each.
    #[serde(skip)]
    pub problems: Vec<String>,
}

/// The error text of parcall's reference runtime, the default of `error_content`.
pub const DEFAULT_ERROR_CONTENT: &str = crate::reference::runtime::ERROR_CONTENT;

/// The policy names a declaration may give.
const POLICY_NAMES: [&str; 8] = [
    "missing_id",
    "empty_id",
    "duplicate_ids",
    "identical_calls",
    "call_limit",
    "concurrency",
    "max_parallel",
    "error_content",
];

impl Default for RuntimePolicies {
    /// The reference runtime's policies (`parcall reference`).
    fn default() -> Self {
        RuntimePolicies {
            missing_id: MissingIdPolicy::Kept,
            empty_id: EmptyIdPolicy::Given,
            duplicate_ids: DuplicateIdsPolicy::Each,
            identical_calls: IdenticalCallsPolicy::Each,
            call_limit: None,
            max_parallel: None,
            error_content: Some(DEFAULT_ERROR_CONTENT.to_owned()),
            problems: Vec::new(),
        }
    }
}

impl RuntimePolicies {
    /// Every policy in words, as reports and the matrix header print them.
    pub fn describe(&self) -> String {
        let error = match &self.error_content {
            Some(template) => {
                crate::json::dumps(&Value::from(template.as_str()), crate::json::Style::PYTHON)
            }
            None => "none (tool exceptions are not caught)".to_owned(),
        };
        format!(
            "missing id {}; empty id {}; shared ids {}; identical calls {}; call limit {}; \
             at most {} at once; error text {error}",
            self.missing_id.name(),
            self.empty_id.name(),
            self.duplicate_ids.name(),
            self.identical_calls.name(),
            self.call_limit.map_or("none".to_owned(), |n| n.to_string()),
            self.max_parallel
                .map_or("any number".to_owned(), |n| n.to_string()),
        )
    }
}

/// A declaration as the handshake gives it: any JSON object, read policy by policy.
#[derive(Deserialize)]
#[serde(transparent)]
struct DeclaredPolicies(IndexMap<String, Value>);

impl<'de> Deserialize<'de> for RuntimePolicies {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        DeclaredPolicies::deserialize(d).map(RuntimePolicies::from)
    }
}

impl From<DeclaredPolicies> for RuntimePolicies {
    fn from(DeclaredPolicies(declared): DeclaredPolicies) -> Self {
        let mut policies = RuntimePolicies::default();
        let mut problems = Vec::new();
        for (name, value) in &declared {
            if let Err(problem) = policies.read(name, value) {
                problems.push(format!("policies.{name}: {problem}"));
            }
        }
        if declared.contains_key("concurrency") && declared.contains_key("max_parallel") {
            problems.push("policies: declare `concurrency` or `max_parallel`, not both".into());
        }
        policies.problems = problems;
        policies
    }
}

impl RuntimePolicies {
    /// Sets the policy `name` to the declared `value`, or says why it cannot.
    fn read(&mut self, name: &str, value: &Value) -> Result<(), String> {
        match name {
            "missing_id" => self.missing_id = named(value, MissingIdPolicy::ALL)?,
            "empty_id" => self.empty_id = named(value, EmptyIdPolicy::ALL)?,
            "duplicate_ids" => self.duplicate_ids = named(value, DuplicateIdsPolicy::ALL)?,
            "identical_calls" => self.identical_calls = named(value, IdenticalCallsPolicy::ALL)?,
            "call_limit" => self.call_limit = limit(value, 0, "\"none\"")?,
            "concurrency" | "max_parallel" => self.max_parallel = limit(value, 1, "null")?,
            "error_content" => self.error_content = template(value)?,
            _ => {
                return Err(format!(
                    "not a policy (the policies are {})",
                    POLICY_NAMES.join(", ")
                ))
            }
        }
        Ok(())
    }
}

/// A policy value given by name, one of `all`.
fn named<P: Copy + PolicyName>(value: &Value, all: &[P]) -> Result<P, String> {
    let names: Vec<&str> = all.iter().map(|p| p.name()).collect();
    value
        .as_str()
        .and_then(|text| all.iter().copied().find(|p| p.name() == text))
        .ok_or_else(|| format!("{} is not one of {}", shown(value), names.join(", ")))
}

/// A bound of at least `least`, or none (`null`, or the word `none`).
fn limit(value: &Value, least: i64, none: &str) -> Result<Option<u64>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Str(text) if **text == *"none" => Ok(None),
        Value::Int(n) => n
            .as_i64()
            .filter(|n| *n >= least)
            .map(|n| Some(n as u64))
            .ok_or_else(|| {
                format!(
                    "{} is not an integer of at least {least}, nor {none}",
                    shown(value)
                )
            }),
        _ => Err(format!(
            "{} is not an integer of at least {least}, nor {none}",
            shown(value)
        )),
    }
}

/// An error template over `{type}`, `{message}` and `{repr}`, or `null`.
fn template(value: &Value) -> Result<Option<String>, String> {
    let text = match value {
        Value::Null => return Ok(None),
        Value::Str(text) => text.to_string(),
        other => {
            return Err(format!(
                "{} is not a template (a string) nor null",
                shown(other)
            ))
        }
    };
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        let after = &rest[open..];
        let close = after.find('}').map_or(after.len(), |c| c + 1);
        let field = &after[..close];
        if !["{type}", "{message}", "{repr}"].contains(&field) {
            return Err(format!(
                "{} holds {field}: a template fills only {{type}}, {{message}} and {{repr}}",
                shown(value)
            ));
        }
        rest = &after[close..];
    }
    Ok(Some(text))
}

fn shown(value: &Value) -> String {
    crate::json::dumps(value, crate::json::Style::CANONICAL)
}

/// A policy whose values are words.
pub trait PolicyName {
    fn name(&self) -> &'static str;
}

macro_rules! policy {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $word:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            pub fn name(&self) -> &'static str {
                PolicyName::name(self)
            }
        }

        impl PolicyName for $name {
            fn name(&self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }
        }
    };
}

policy! {
    /// A call without an id.
    MissingIdPolicy {
        /// The framework gives it a fresh id, distinct from every other id of the turn.
        Generated = "generated",
        /// The id `call_<position>` (seed 000's rule): equal to another id of the turn, the
        /// two share it, and `duplicate_ids` governs them.
        Position = "position",
        /// The call is answered with no id (null or empty).
        Kept = "kept",
        /// The turn fails before any tool runs, with an error that says why.
        Refused = "refused",
    }
}

policy! {
    /// An empty id `""`.
    EmptyIdPolicy {
        /// Echoed as it is.
        Given = "given",
        /// Treated as a call without an id.
        Missing = "missing",
    }
}

policy! {
    /// Calls sharing one id.
    DuplicateIdsPolicy {
        /// Every call runs and is answered under the shared id, in call order.
        Each = "each",
        /// The first runs; each later one gets an error result and does not run (seed 000).
        First = "first",
        /// One of the calls runs, and one result answers them.
        Collapsed = "collapsed",
        /// The turn fails before any tool runs.
        Refused = "refused",
    }
}

policy! {
    /// Identical calls (one tool, equal arguments by RULES B1's key) under different ids.
    IdenticalCallsPolicy {
        /// Each runs.
        Each = "each",
        /// The tool runs once and every call gets its result (seed 003).
        Once = "once",
    }
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

#[cfg(test)]
mod policy_tests {
    use super::*;

    fn read(text: &str) -> RuntimePolicies {
        serde_json::from_str(text).expect("an object")
    }

    #[test]
    fn every_policy_is_read_and_a_left_out_one_is_the_reference_runtime_s() {
        let declared = read(
            r#"{"missing_id": "position", "empty_id": "missing", "duplicate_ids": "first",
                "identical_calls": "once", "call_limit": 4, "concurrency": 2,
                "error_content": "error: {message}"}"#,
        );
        assert!(declared.problems.is_empty(), "{:?}", declared.problems);
        assert_eq!(declared.missing_id, MissingIdPolicy::Position);
        assert_eq!(declared.empty_id, EmptyIdPolicy::Missing);
        assert_eq!(declared.duplicate_ids, DuplicateIdsPolicy::First);
        assert_eq!(declared.identical_calls, IdenticalCallsPolicy::Once);
        assert_eq!(declared.call_limit, Some(4));
        assert_eq!(declared.max_parallel, Some(2));
        assert_eq!(declared.error_content.as_deref(), Some("error: {message}"));
        assert_eq!(read("{}"), RuntimePolicies::default());
        let none = read(r#"{"call_limit": "none", "max_parallel": null, "error_content": null}"#);
        assert!(none.problems.is_empty());
        assert_eq!((none.call_limit, none.max_parallel), (None, None));
        assert_eq!(none.error_content, None);
    }

    #[test]
    fn what_parcall_cannot_read_is_kept_as_a_problem_naming_it() {
        for (text, named) in [
            (r#"{"missing_id": null}"#, "missing_id"),
            (r#"{"duplicate_ids": "last"}"#, "\"last\""),
            (r#"{"identical_calls": "twice"}"#, "twice"),
            (r#"{"call_limit": 1.5}"#, "call_limit"),
            (r#"{"concurrency": 0}"#, "concurrency"),
            (r#"{"error_content": "{exception}"}"#, "{exception}"),
            (r#"{"error_content": "{type"}"#, "{type"),
            (r#"{"retries": 1}"#, "retries"),
            (r#"{"concurrency": 1, "max_parallel": 1}"#, "not both"),
        ] {
            let problems = read(text).problems;
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            assert!(problems[0].contains(named), "{text}: {problems:?}");
        }
    }

    #[test]
    fn the_reference_policies_survive_the_handshake() {
        let policies = RuntimePolicies {
            call_limit: Some(3),
            max_parallel: Some(1),
            ..RuntimePolicies::default()
        };
        let text = serde_json::to_string(&policies).unwrap();
        assert_eq!(read(&text), policies);
    }
}
