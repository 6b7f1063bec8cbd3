//! The Java kit: a protocol adapter in Java 17, standard library only, around `Solution.java`.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "java",
    needs: "Java 17 or later (javac and java)",
    files: &[
        (
            "Solution.java",
            include_str!("../../../conformance/kits/java/Solution.java"),
        ),
        (
            "Main.java",
            include_str!("../../../conformance/kits/java/Main.java"),
        ),
        (
            "Json.java",
            include_str!("../../../conformance/kits/java/Json.java"),
        ),
        (
            "ToolError.java",
            include_str!("../../../conformance/kits/java/ToolError.java"),
        ),
        (
            "parcall.json",
            include_str!("../../../conformance/kits/java/parcall.json"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/java/README.md"),
        ),
    ],
    functions: "Solution.java",
    next: &["parcall check . --runtime java=java --runtime javac=javac"],
};
