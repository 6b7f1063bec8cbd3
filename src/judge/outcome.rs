//! The closed set of verdicts a case can get.

use super::invocations::InvocationDiff;
use crate::json::Value;

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

    /// A short lowercase label, stable across versions (used by every report format).
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Skipped { .. } => "skipped",
            Outcome::Fail(failure) => failure.label(),
        }
    }
}

impl Failure {
    /// Every failure's label, in the order reports list them.
    pub const LABELS: [&'static str; 7] = [
        "wrong output",
        "wrong invocations",
        "exception",
        "timeout",
        "crash",
        "protocol error",
        "not implemented",
    ];

    pub fn label(&self) -> &'static str {
        match self {
            Failure::WrongOutput { .. } => "wrong output",
            Failure::WrongInvocations { .. } => "wrong invocations",
            Failure::Exception { .. } => "exception",
            Failure::Timeout { .. } => "timeout",
            Failure::Crash { .. } => "crash",
            Failure::Protocol { .. } => "protocol error",
            Failure::NotImplemented => "not implemented",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Failure;

    #[test]
    fn every_label_is_listed() {
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
        let labels: Vec<&str> = failures.iter().map(Failure::label).collect();
        assert_eq!(labels, Failure::LABELS);
    }
}
