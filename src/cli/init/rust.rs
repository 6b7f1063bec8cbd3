//! The Rust kit: a protocol adapter with no crates (it builds offline) around `src/solution.rs`.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "rust",
    needs: "Rust 1.70 or later (cargo), no crates",
    files: &[
        (
            "src/solution.rs",
            include_str!("../../../conformance/kits/rust/src/solution.rs"),
        ),
        (
            "src/main.rs",
            include_str!("../../../conformance/kits/rust/src/main.rs"),
        ),
        (
            "src/json.rs",
            include_str!("../../../conformance/kits/rust/src/json.rs"),
        ),
        (
            "Cargo.toml",
            include_str!("../../../conformance/kits/rust/Cargo.toml"),
        ),
        (
            ".gitignore",
            include_str!("../../../conformance/kits/rust/.gitignore"),
        ),
        (
            "parcall.json",
            include_str!("../../../conformance/kits/rust/parcall.json"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/rust/README.md"),
        ),
    ],
    functions: "src/solution.rs",
    next: &[
        "cargo build --release --offline",
        "parcall check --cmd ./target/release/parcall-kit",
    ],
};
