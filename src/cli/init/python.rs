//! The Python kit: a module with the two functions; the adapter is parcall's own.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "python",
    needs: "Python 3.9 or later (the adapter is built into parcall)",
    files: &[
        (
            "solution.py",
            include_str!("../../../conformance/kits/python/solution.py"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/python/README.md"),
        ),
    ],
    functions: "solution.py",
    next: &["parcall check solution.py"],
};
