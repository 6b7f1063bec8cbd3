//! The JavaScript kit: an ES module with the two functions; the adapter is parcall's own.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "javascript",
    needs: "Node 20 or later (the adapter is built into parcall)",
    files: &[
        (
            "solution.mjs",
            include_str!("../../../conformance/kits/javascript/solution.mjs"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/javascript/README.md"),
        ),
    ],
    functions: "solution.mjs",
    next: &["parcall check solution.mjs"],
};
