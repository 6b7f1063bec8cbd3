//! The Go kit: a protocol adapter, standard library only, around one file of two functions.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "go",
    needs: "Go 1.19 or later (standard library only)",
    files: &[
        (
            "solution.go",
            include_str!("../../../conformance/kits/go/solution.go"),
        ),
        (
            "adapter.go",
            include_str!("../../../conformance/kits/go/adapter.go"),
        ),
        (
            "json.go",
            include_str!("../../../conformance/kits/go/json.go"),
        ),
        (
            "key.go",
            include_str!("../../../conformance/kits/go/key.go"),
        ),
        (
            "go.mod",
            include_str!("../../../conformance/kits/go/go.mod"),
        ),
        (
            "parcall.json",
            include_str!("../../../conformance/kits/go/parcall.json"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/go/README.md"),
        ),
    ],
    functions: "solution.go",
    next: &["parcall check . --runtime go=go"],
};
