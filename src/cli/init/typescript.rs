//! The TypeScript kit: a protocol adapter for Node 20, compiled by `tsc`, around `src/solution.ts`.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "typescript",
    needs: "Node 20 or later and npm (typescript, installed by npm install)",
    files: &[
        (
            "src/solution.ts",
            include_str!("../../../conformance/kits/typescript/src/solution.ts"),
        ),
        (
            "src/main.ts",
            include_str!("../../../conformance/kits/typescript/src/main.ts"),
        ),
        (
            "src/json.ts",
            include_str!("../../../conformance/kits/typescript/src/json.ts"),
        ),
        (
            "src/tool_error.ts",
            include_str!("../../../conformance/kits/typescript/src/tool_error.ts"),
        ),
        (
            "src/node.d.ts",
            include_str!("../../../conformance/kits/typescript/src/node.d.ts"),
        ),
        (
            "package.json",
            include_str!("../../../conformance/kits/typescript/package.json"),
        ),
        (
            "tsconfig.json",
            include_str!("../../../conformance/kits/typescript/tsconfig.json"),
        ),
        (
            ".gitignore",
            include_str!("../../../conformance/kits/typescript/.gitignore"),
        ),
        (
            "parcall.json",
            include_str!("../../../conformance/kits/typescript/parcall.json"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/typescript/README.md"),
        ),
    ],
    functions: "src/solution.ts",
    next: &[
        "npm install",
        "npx tsc",
        "parcall check --cmd \"node dist/main.js\"",
    ],
};
