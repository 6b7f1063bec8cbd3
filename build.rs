//! Embeds the specification (`spec/`: version, requirements, schemas, case files) in the
//! binary, so a verdict never depends on the checkout parcall was built from still being
//! there, or unchanged. `--spec DIR` still reads another folder at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("spec");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut code =
        String::from("/// Every file of `spec/`, by path relative to it, with `/` separators.\n");
    code.push_str("pub(crate) static FILES: &[(&str, &str)] = &[\n");
    for (relative, path) in &files {
        writeln!(
            code,
            "    ({relative:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String cannot fail");
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded_spec.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}

/// The spec's text files below `dir` (JSON, Markdown and VERSION).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable spec folder").path();
        if path.is_dir() {
            collect(root, &path, files);
            continue;
        }
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name == "VERSION" || name.ends_with(".json") || name.ends_with(".md") {
            let relative = path
                .strip_prefix(root)
                .expect("below the root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            println!("cargo:rerun-if-changed={}", path.display());
            files.push((relative, path));
        }
    }
}
