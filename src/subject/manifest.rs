//! `parcall.json`: the manifest of an implementation that is a program of its own, run in
//! its folder. `grade` reads it from a submission's folder, `compare` from a folder named
//! on its command line; both launch it with [`super::launch::program`].

use std::path::Path;

/// The manifest's file name.
pub const MANIFEST: &str = "parcall.json";

/// A manifest larger than this is refused unread.
const MANIFEST_BYTES: u64 = 4096;

/// `parcall.json`: the command that starts the implementation, program first, as a list of
/// words (no shell reads it). A program named with a `/` is found from the manifest's
/// folder (`./run.sh`), a bare name on PATH (`node`, `python3`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub cmd: Vec<String>,
}

/// The manifest at `path`, strictly: a regular file (no link), small, exactly the fields
/// of [`Manifest`], a command with a program. The error is the reason, without the path.
pub fn read(path: &Path) -> Result<Manifest, String> {
    let metadata = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !metadata.is_file() {
        return Err("not a regular file: name the manifest itself".into());
    }
    if metadata.len() > MANIFEST_BYTES {
        return Err(format!("larger than {MANIFEST_BYTES} bytes"));
    }
    let text = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| {
        format!("{e}; expected {{\"cmd\": [\"PROGRAM\", \"ARG\", ...]}} and nothing else")
    })?;
    match manifest.cmd.first() {
        None => Err("`cmd` is empty: name the program that speaks the protocol".into()),
        Some(program) if program.is_empty() => Err("`cmd` names an empty program".into()),
        Some(_) if manifest.cmd.iter().any(|w| w.contains('\0')) => {
            Err("`cmd` holds a NUL character".into())
        }
        Some(_) => Ok(manifest),
    }
}
