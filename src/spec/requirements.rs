//! The requirements: `spec/requirements.json`, the numbered statements SPEC.md presents.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The requirements file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequirementsFile {
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    pub requirements: Vec<Requirement>,
}

/// One normative statement with a stable id.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// Stable: `EXEC-…`, `SANDBOX-…`, `DEDUP-…` or `RUNTIME-…`, never reused.
    #[schemars(regex(pattern = r"^(EXEC|SANDBOX|DEDUP|RUNTIME)(-[A-Z0-9]+)+$"))]
    pub id: String,
    pub function: Function,
    pub level: Level,
    /// The rule of spec/RULES.md it comes from (`A3`, `B1`, `sandbox`).
    pub ruling: String,
    pub statement: String,
    pub rationale: String,
}

/// Which function a requirement or case is about: one of the two exercises, or the tool
/// execution of an agent runtime (the runtime profile).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Deserialize,
    Serialize,
    JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum Function {
    ExecuteToolCalls,
    RunParallelCalls,
    /// An agent runtime's tool execution: one model turn's calls, run by the runtime's own
    /// machinery, answered with one tool message per call.
    RunToolCalls,
}

impl Function {
    /// The two exercises: what the exercise profile checks.
    pub const EXERCISES: [Function; 2] = [Function::ExecuteToolCalls, Function::RunParallelCalls];

    /// Every function the specification describes, in the order its cases are listed.
    pub const EVERY: [Function; 3] = [
        Function::ExecuteToolCalls,
        Function::RunParallelCalls,
        Function::RunToolCalls,
    ];

    /// The Python name, also the folder name under `spec/cases/`.
    pub fn name(self) -> &'static str {
        match self {
            Function::ExecuteToolCalls => "execute_tool_calls",
            Function::RunParallelCalls => "run_parallel_calls",
            Function::RunToolCalls => "run_tool_calls",
        }
    }

    /// The profile whose checks cover it.
    pub fn profile(self) -> Profile {
        match self {
            Function::ExecuteToolCalls | Function::RunParallelCalls => Profile::Exercise,
            Function::RunToolCalls => Profile::Runtime,
        }
    }
}

/// Which part of the specification a run checks: the two exercises (the default), or the
/// tool execution of an agent runtime, where the exercises' own conventions (generated
/// `call_<i>` ids, duplicate and limit errors, exact error texts) are the runtime's declared
/// policies instead of rules (spec/SPEC.md, "The runtime profile").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum Profile {
    #[default]
    Exercise,
    Runtime,
}

impl Profile {
    /// The functions it checks.
    pub fn functions(self) -> &'static [Function] {
        match self {
            Profile::Exercise => &Function::EXERCISES,
            Profile::Runtime => &[Function::RunToolCalls],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Exercise => "exercise",
            Profile::Runtime => "runtime",
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Requirement {
    /// Whether it describes the sandbox the exercise provides (RULES sandbox), which parcall
    /// replaces with its own answers: checked against the reference, but nothing an
    /// implementation of the function decides (RULES D).
    pub fn describes_the_sandbox(&self) -> bool {
        self.ruling == "sandbox"
    }

    /// Whether the default rubric gives it points: a rule the implementation must keep,
    /// not a freedom (MAY) and not a property of the provided sandbox.
    pub fn earns_points_by_default(&self) -> bool {
        self.level != Level::May && !self.describes_the_sandbox()
    }
}

/// RFC 2119 strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Level {
    #[serde(rename = "MUST")]
    Must,
    #[serde(rename = "SHOULD")]
    Should,
    /// A freedom the implementation has: its cases check that the suite does not fail an
    /// implementation for using it.
    #[serde(rename = "MAY")]
    May,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}
