//! Whether a language's interpreter starts at all under a memory limit: an empty module,
//! launched as an implementation of that language is (the same builder, adapter and
//! containment). An implementation that ends before the handshake under a limit where even
//! that cannot start was never run: the limit is the user's set-up error, not its verdict.
//! `grade`'s canary asks the same of its sandbox with a correct submission.

use super::adapters;
use super::environment::EnvPolicy;
use super::launch::Language;
use crate::process::{interrupt, Limits};
use crate::runner::{Session, StartError};
use std::ffi::OsString;
use std::time::Duration;

/// How an empty module is started: the interpreter, the environment and what the
/// handshake may take. Only the memory limit varies between probes.
pub struct Probe<'a> {
    pub language: Language,
    pub interpreter: &'a OsString,
    pub env: &'a EnvPolicy,
    pub suite: &'a str,
    pub startup: Duration,
}

impl Probe<'_> {
    /// Whether an empty module reaches the handshake under a limit of `mib` MiB. It then
    /// says it defines no function, which is the adapter answering: the interpreter ran.
    pub fn starts(&self, mib: u64) -> Result<bool, adapters::PrepareError> {
        let extension = match self.language {
            Language::Python => "py",
            Language::JavaScript => "mjs",
        };
        let name = format!("empty.{extension}");
        // Removed on SIGINT, SIGTERM and SIGHUP too.
        let folder = interrupt::TempDir::create(&tempfile::Builder::new(), None, |dir| {
            std::fs::write(dir.join(&name), "")
        })?;
        let module = folder.path().join(&name);
        let limits = Limits {
            memory_bytes: Some(mib << 20),
            ..Limits::default()
        };
        let prepared = adapters::module(&module, self.interpreter, self.interpreter, limits)?
            .contained(self.env);
        Ok(
            match Session::start(&prepared.launch, self.suite, self.startup) {
                Ok(_) => true,
                Err(error) => !ended_before_the_handshake(&error),
            },
        )
    }

    /// The least limit, doubling from `limit_mib`, under which an empty module starts,
    /// when one up to `up_to_mib` does; `None` when even that limit fails, so memory is not
    /// what stops it.
    pub fn least_limit_that_starts(
        &self,
        limit_mib: u64,
        up_to_mib: u64,
    ) -> Result<Option<u64>, adapters::PrepareError> {
        let mut mib = limit_mib.max(1);
        while mib < up_to_mib {
            mib = (mib * 2).min(up_to_mib);
            if self.starts(mib)? {
                return Ok(Some(mib));
            }
        }
        Ok(None)
    }
}

/// Whether a start failed before the interpreter could answer: it ended, or said nothing in
/// time (a runtime that cannot allocate may hang as it dies).
pub fn ended_before_the_handshake(error: &StartError) -> bool {
    matches!(
        error,
        StartError::Exited { .. } | StartError::Timeout { .. }
    )
}
