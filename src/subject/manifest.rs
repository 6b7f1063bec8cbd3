//! `parcall.json`: the manifest of an implementation that is a program of its own, run in
//! its folder. `grade` reads it from a submission's folder, `compare` from a folder named
//! on its command line; both launch it with [`super::launch::program`].

use crate::process::data::{self, Dir, Entry, Refused};
use std::ffi::OsStr;
use std::io::Read;
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
    /// A step that builds the program from source before `cmd` starts (`go build -o impl
    /// .`), run in the folder, inside the sandbox, by the same rules as `cmd`: a declared
    /// runtime by name or a file of the folder ([`crate::process::build`]).
    #[serde(default)]
    pub build: Option<Vec<String>>,
}

/// The manifest at `path`, strictly: a regular file (no link), small, exactly the fields
/// of [`Manifest`], a command with a program. The folders leading to it are the caller's;
/// the manifest is opened as data ([`crate::process::data`]) and checked on its descriptor,
/// so what is read is what was checked. The error is the reason, without the path.
pub fn read(path: &Path) -> Result<Manifest, String> {
    parse(data::open(path))
}

/// The manifest in `folder`, an opened folder (a submission's, walked by discovery).
pub fn read_in(folder: &Dir) -> Result<Manifest, String> {
    parse(folder.entry(OsStr::new(MANIFEST)))
}

fn parse(opened: Result<Entry, Refused>) -> Result<Manifest, String> {
    let file = match opened {
        Ok(Entry::File(file)) => file,
        Ok(Entry::Dir(_)) => {
            return Err("not a regular file (a folder): name the manifest itself".into())
        }
        Err(Refused::Special(kind)) => {
            return Err(format!(
                "not a regular file ({}): name the manifest itself",
                kind.describe()
            ))
        }
        Err(refused) => return Err(refused.to_string()),
    };
    if file.size > MANIFEST_BYTES {
        return Err(format!("larger than {MANIFEST_BYTES} bytes"));
    }
    let mut text = Vec::new();
    // One byte more than allowed tells a file that grew since its fstat.
    file.file
        .take(MANIFEST_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("cannot read: {e}"))?;
    if text.len() as u64 > MANIFEST_BYTES {
        return Err(format!("larger than {MANIFEST_BYTES} bytes"));
    }
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| {
        format!(
            "{e}; expected {{\"cmd\": [\"PROGRAM\", \"ARG\", ...]}}, with \"build\": [\"PROGRAM\", \
             \"ARG\", ...] when the program is built first, and nothing else"
        )
    })?;
    command_words("cmd", &manifest.cmd, "the program that speaks the protocol")?;
    if let Some(build) = &manifest.build {
        command_words("build", build, "the program that builds it")?;
    }
    Ok(manifest)
}

/// Checks the words of a command field: a program first, no empty program, no NUL.
fn command_words(field: &str, words: &[String], what: &str) -> Result<(), String> {
    match words.first() {
        None => Err(format!("`{field}` is empty: name {what}")),
        Some(program) if program.is_empty() => Err(format!("`{field}` names an empty program")),
        Some(_) if words.iter().any(|w| w.contains('\0')) => {
            Err(format!("`{field}` holds a NUL character"))
        }
        Some(_) => Ok(()),
    }
}
