//! The command line: clap definitions (their doc comments are the help) and one function per
//! subcommand. Results go to stdout, diagnostics to stderr.

pub mod exit;
mod spec_cmd;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// parcall: the conformance suite for parallel tool calling.
///
/// Checks implementations of `execute_tool_calls(calls, max_parallel=4)` and
/// `run_parallel_calls(tools, calls)` against a property-tested specification.
#[derive(Debug, Parser)]
#[command(name = "parcall", version, after_help = exit::HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read the specification without running anything.
    #[command(subcommand)]
    Spec(SpecCommand),
}

#[derive(Debug, Subcommand)]
pub enum SpecCommand {
    /// List every case: id, function, requirements, description.
    List {
        #[command(flatten)]
        spec: SpecArg,
    },
    /// Show one case or requirement as JSON.
    Show {
        /// A case id (`exec-seed-001`) or a requirement id (`EXEC-ID-GIVEN`).
        id: String,
        #[command(flatten)]
        spec: SpecArg,
    },
    /// Load and check a specification folder; print a summary.
    Check {
        #[command(flatten)]
        spec: SpecArg,
    },
    /// Print the JSON Schema of case files or of requirements.json.
    Schema {
        #[arg(value_enum, default_value = "case")]
        which: SchemaKind,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SchemaKind {
    Case,
    Requirements,
}

/// Where the specification is read from.
#[derive(Debug, Clone, clap::Args)]
pub struct SpecArg {
    /// A specification folder laid out like `spec/` (default: the one built in).
    #[arg(long, value_name = "DIR")]
    pub spec: Option<PathBuf>,
}

impl SpecArg {
    pub fn load(&self) -> Result<parcall_spec::Spec, parcall_spec::SpecError> {
        let root = self
            .spec
            .clone()
            .unwrap_or_else(parcall_spec::Spec::bundled_root);
        parcall_spec::Spec::load(&root)
    }
}

use crate::spec as parcall_spec;

/// Runs a parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Spec(command) => spec_cmd::run(command),
    }
}
