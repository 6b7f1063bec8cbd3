//! The closed set of verdicts a case can get, and their kinds: the one type every report
//! matches on, so a new kind of outcome does not compile until every renderer handles it.

use super::invocations::InvocationDiff;
use crate::json::Value;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Pass,
    Fail(Failure),
    /// Not run: filtered out, or given up on after repeated timeouts or crashes.
    Skipped {
        reason: String,
    },
}

/// The kind of an outcome, serialised as its stable lowercase label (`wrong output`,
/// `skipped`, ...): what reports print and what expectations files pin.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum OutcomeKind {
    #[serde(rename = "pass")]
    Pass,
    #[serde(rename = "wrong output")]
    WrongOutput,
    #[serde(rename = "wrong invocations")]
    WrongInvocations,
    #[serde(rename = "exception")]
    Exception,
    #[serde(rename = "timeout")]
    Timeout,
    #[serde(rename = "crash")]
    Crash,
    #[serde(rename = "protocol error")]
    Protocol,
    #[serde(rename = "not implemented")]
    NotImplemented,
    #[serde(rename = "skipped")]
    Skipped,
}

impl OutcomeKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [OutcomeKind; 9] = [
        OutcomeKind::Pass,
        OutcomeKind::WrongOutput,
        OutcomeKind::WrongInvocations,
        OutcomeKind::Exception,
        OutcomeKind::Timeout,
        OutcomeKind::Crash,
        OutcomeKind::Protocol,
        OutcomeKind::NotImplemented,
        OutcomeKind::Skipped,
    ];

    /// The kinds of failure, in the order reports list them.
    pub const FAILURES: [OutcomeKind; 7] = [
        OutcomeKind::WrongOutput,
        OutcomeKind::WrongInvocations,
        OutcomeKind::Exception,
        OutcomeKind::Timeout,
        OutcomeKind::Crash,
        OutcomeKind::Protocol,
        OutcomeKind::NotImplemented,
    ];

    /// A short lowercase label, stable across versions.
    pub fn label(self) -> &'static str {
        match self {
            OutcomeKind::Pass => "pass",
            OutcomeKind::WrongOutput => "wrong output",
            OutcomeKind::WrongInvocations => "wrong invocations",
            OutcomeKind::Exception => "exception",
            OutcomeKind::Timeout => "timeout",
            OutcomeKind::Crash => "crash",
            OutcomeKind::Protocol => "protocol error",
            OutcomeKind::NotImplemented => "not implemented",
            OutcomeKind::Skipped => "skipped",
        }
    }

    /// Whether the case failed (as opposed to passed or not run).
    pub fn is_failure(self) -> bool {
        match self {
            OutcomeKind::Pass | OutcomeKind::Skipped => false,
            OutcomeKind::WrongOutput
            | OutcomeKind::WrongInvocations
            | OutcomeKind::Exception
            | OutcomeKind::Timeout
            | OutcomeKind::Crash
            | OutcomeKind::Protocol
            | OutcomeKind::NotImplemented => true,
        }
    }

    /// Whether the implementation never returned an answer to judge (JUnit's `error`,
    /// as opposed to a `failure` on what it returned).
    pub fn is_error(self) -> bool {
        match self {
            OutcomeKind::Exception | OutcomeKind::Timeout | OutcomeKind::Crash => true,
            OutcomeKind::Pass
            | OutcomeKind::WrongOutput
            | OutcomeKind::WrongInvocations
            | OutcomeKind::Protocol
            | OutcomeKind::NotImplemented
            | OutcomeKind::Skipped => false,
        }
    }
}

impl std::fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// How a case failed. `batch` is 1-based.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The function returned something else.
    WrongOutput {
        batch: usize,
        expected: Value,
        actual: Value,
    },
    /// The output was right but tools ran too often, too rarely or with other arguments.
    WrongInvocations { batch: usize, diff: InvocationDiff },
    /// The function raised, or returned something that is not JSON.
    Exception {
        batch: usize,
        message: String,
        /// Trimmed to the implementation's own frames.
        traceback: String,
    },
    /// No answer within the deadline.
    Timeout { seconds: f64 },
    /// The implementation's process died.
    Crash { message: String },
    /// The implementation broke the protocol (garbage, wrong correlation id, ...).
    Protocol { message: String },
    /// The implementation does not define the function.
    NotImplemented,
}

impl Outcome {
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    pub fn kind(&self) -> OutcomeKind {
        match self {
            Outcome::Pass => OutcomeKind::Pass,
            Outcome::Skipped { .. } => OutcomeKind::Skipped,
            Outcome::Fail(failure) => failure.kind(),
        }
    }

    /// A short lowercase label, stable across versions (used by every report format).
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
}

impl Failure {
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Failure::WrongOutput { .. } => OutcomeKind::WrongOutput,
            Failure::WrongInvocations { .. } => OutcomeKind::WrongInvocations,
            Failure::Exception { .. } => OutcomeKind::Exception,
            Failure::Timeout { .. } => OutcomeKind::Timeout,
            Failure::Crash { .. } => OutcomeKind::Crash,
            Failure::Protocol { .. } => OutcomeKind::Protocol,
            Failure::NotImplemented => OutcomeKind::NotImplemented,
        }
    }

    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
}

#[cfg(test)]
mod tests {
    use super::{Failure, OutcomeKind};

    #[test]
    fn every_failure_kind_is_listed() {
        let failures = [
            Failure::WrongOutput {
                batch: 1,
                expected: crate::json::Value::Null,
                actual: crate::json::Value::Null,
            },
            Failure::WrongInvocations {
                batch: 1,
                diff: Default::default(),
            },
            Failure::Exception {
                batch: 1,
                message: String::new(),
                traceback: String::new(),
            },
            Failure::Timeout { seconds: 1.0 },
            Failure::Crash {
                message: String::new(),
            },
            Failure::Protocol {
                message: String::new(),
            },
            Failure::NotImplemented,
        ];
        let kinds: Vec<OutcomeKind> = failures.iter().map(Failure::kind).collect();
        assert_eq!(kinds, OutcomeKind::FAILURES);
        assert!(kinds.iter().all(|k| k.is_failure()));
    }

    #[test]
    fn labels_round_trip_through_serde() {
        for kind in OutcomeKind::ALL {
            let text = serde_json::to_string(&kind).unwrap();
            assert_eq!(text, format!("\"{}\"", kind.label()));
            assert_eq!(serde_json::from_str::<OutcomeKind>(&text).unwrap(), kind);
        }
        assert!(serde_json::from_str::<OutcomeKind>("\"wrong-output\"").is_err());
    }
}
