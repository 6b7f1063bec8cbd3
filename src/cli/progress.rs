//! The progress line `parcall check` draws on a terminal while cases run.

use crate::check;
use crate::judge::CaseResult;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A progress line on stderr, redrawn at most every 100 ms.
pub(super) struct Progress {
    total: usize,
    done: usize,
    last: Instant,
}

impl Progress {
    /// A progress line for `total` cases, when stderr is a terminal.
    pub(super) fn on_terminal(total: usize) -> Option<Progress> {
        std::io::stderr().is_terminal().then(|| Progress {
            total,
            done: 0,
            last: Instant::now() - Duration::from_secs(1),
        })
    }
}

impl check::Observer for Progress {
    fn case_judged(&mut self, _: &CaseResult) {
        self.done += 1;
        if self.last.elapsed() >= Duration::from_millis(100) {
            self.last = Instant::now();
            let width = 30;
            let filled = (self.done * width / self.total.max(1)).min(width);
            say_partly!(
                "\r[{}{}] {}/{} cases",
                "=".repeat(filled),
                " ".repeat(width - filled),
                self.done,
                self.total
            );
        }
    }
}

pub(super) fn clear() {
    if std::io::stderr().is_terminal() {
        say_partly!("\r{}\r", " ".repeat(60));
    }
}
