//! Where a case comes from: the one answer to "is this case generated?" and "how is it run
//! again?", which reports, tallies and rerun commands all ask.

use super::Function;

/// Where a case comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A case file of the spec, relative to the spec folder, with `/` separators.
    Spec { file: String },
    /// A counterexample recorded earlier and replayed first: the file it was read from.
    Regression { file: String },
    /// Drawn from the generators for `function` with `seed`, one of `count` (what a draw
    /// gives depends on how many are drawn): `--function`, `--seed` and `--fuzz` draw it
    /// again.
    Generated {
        function: Function,
        seed: u64,
        count: usize,
    },
}

impl Origin {
    /// The file a report names for the case: the case file, the regressions file, or
    /// `generated (seed N)` for a generated case, which has no file.
    pub fn file(&self) -> String {
        match self {
            Origin::Spec { file } | Origin::Regression { file } => file.clone(),
            Origin::Generated { seed, .. } => format!("generated (seed {seed})"),
        }
    }

    /// Whether the case was drawn by the generators (its id names no case in any file).
    pub fn is_generated(&self) -> bool {
        matches!(self, Origin::Generated { .. })
    }

    /// The arguments that run the case again when `--case ID` would not: a generated case
    /// is drawn again from its function, seed and count.
    pub fn rerun_args(&self) -> Option<String> {
        match self {
            Origin::Generated {
                function,
                seed,
                count,
            } => Some(format!(
                "--function {function} --seed {seed} --fuzz {count}"
            )),
            Origin::Spec { .. } | Origin::Regression { .. } => None,
        }
    }
}
