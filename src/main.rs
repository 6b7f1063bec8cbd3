//! The `parcall` binary: parse the command line, run, map the result to an exit code.

use clap::Parser;
use parcall::cli::{self, exit, Cli};
use std::io::Write;

fn main() {
    // The sandbox helper (`sandbox`) is this binary started with a plan, before any
    // command line parsing or thread.
    if let Some(code) = parcall::sandbox::entered() {
        std::process::exit(code);
    }
    // The build driver likewise: a build step where no sandbox runs it, then the program.
    if let Some(code) = parcall::process::build::entered() {
        std::process::exit(code);
    }
    // Before any thread starts (see process::interrupt): SIGINT, SIGTERM and SIGHUP end the
    // run with its implementation's processes killed and its temporary folders removed.
    parcall::process::interrupt::install();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            };
            let _ = error.print();
            std::process::exit(code);
        }
    };
    let code = match cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            // Not eprintln!, which panics when stderr is a closed pipe.
            let _ = writeln!(std::io::stderr(), "error: {error:#}");
            exit::USAGE
        }
    };
    std::process::exit(code);
}
