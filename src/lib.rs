//! parcall: the specification, reference implementation and conformance suite for parallel
//! tool calling (`execute_tool_calls` and `run_parallel_calls`).

/// `say!` that never panics: messages to a closed stderr (`parcall check x 2>&1 |
/// head`) are dropped, since the verdict and its exit code matter more than a message
/// nobody will read.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `say_partly!` that never panics (see `say!`): a line still being written, such as progress.
macro_rules! say_partly {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod check;
pub mod cli;
pub mod compare;
pub mod fuzz;
pub mod generate;
pub mod grade;
pub mod json;
pub mod judge;
pub mod mutate;
pub mod process;
pub mod protocol;
pub mod reference;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod spec;
pub mod subject;
pub mod text;
