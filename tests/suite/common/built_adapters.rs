//! The repository's adapters in compiled languages, built once per run of the suite and
//! shared by every test that runs them: a build is the slow part of each, and two tests
//! building the same sources would pay it twice on CI's two cores.

use super::{root, temp_dir, TempPath};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The Rust example (conformance/adapters/rust), built `--release` as PROTOCOL.md's worked
/// example builds it: a debug build conforms too, but its check took 13.5 s against 3.9 s
/// (for 2.7 s less of building), and a case of it near the 5 s timeout under a loaded
/// machine is a failure that says nothing. The path of its program.
pub(crate) fn rust_program() -> PathBuf {
    static BUILT: OnceLock<TempPath> = OnceLock::new();
    let target = BUILT.get_or_init(|| {
        let target = temp_dir("rust-adapter");
        let manifest = root().join("conformance/adapters/rust/Cargo.toml");
        // Built as a user builds it: a compiler wrapper set for parcall's own workspace (a
        // clippy driver) must not be inherited by the build of another workspace.
        let build = Command::new(env!("CARGO"))
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&*target)
            .status()
            .expect("cargo runs");
        assert!(build.success(), "building {} failed", manifest.display());
        target
    });
    target.join("release/parcall-rust-adapter")
}

/// The Java starter kit (`parcall init java`, standard library only) filled with the
/// correct implementation the kits' tests keep, compiled with the system's `javac`: the
/// command line that starts it, or `None` on a machine without a JDK. CI sets
/// `PARCALL_REQUIRE_CONSUMERS`, and there a missing JDK fails instead of skipping.
pub(crate) fn java_command() -> Option<String> {
    static COMPILED: OnceLock<Option<TempPath>> = OnceLock::new();
    let classes = COMPILED.get_or_init(|| {
        let have_jdk = Command::new("javac").arg("-version").output().is_ok()
            && Command::new("java").arg("-version").output().is_ok();
        if !have_jdk {
            assert!(
                std::env::var_os("PARCALL_REQUIRE_CONSUMERS").is_none(),
                "`java` and `javac` (17 or later) are required to check the Java kit"
            );
            eprintln!("skipped: no java or javac on this machine");
            return None;
        }
        let kit = temp_dir("java-kit");
        let written = Command::new(env!("CARGO_BIN_EXE_parcall"))
            .args(["init", "java"])
            .arg(kit.join("kit"))
            .output()
            .expect("parcall runs");
        assert!(written.status.success(), "{written:?}");
        std::fs::copy(
            root().join("tests/fixtures/kits/java/Solution.java"),
            kit.join("kit/Solution.java"),
        )
        .expect("the kit's functions file is written");
        let sources: Vec<PathBuf> = std::fs::read_dir(kit.join("kit"))
            .expect("the kit is written")
            .map(|entry| entry.expect("a kit entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "java"))
            .collect();
        // javac compiles a few small files: its quick compiler and serial collector start
        // it in a fraction of the time.
        let compiled = Command::new("javac")
            .args(["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-d"])
            .arg(kit.join("classes"))
            .args(sources)
            .output()
            .expect("javac runs");
        assert!(compiled.status.success(), "{compiled:?}");
        Some(kit)
    });
    classes
        .as_ref()
        .map(|kit| format!("java -cp {} Main", kit.join("classes").display()))
}
