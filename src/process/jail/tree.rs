//! The files a sandbox gets a copy of, read by the helper before it gives up the caller's
//! rights (a root-only folder stays readable to it, never to the implementation), and written
//! into the new root once it runs as the implementation's uid. Regular files and folders only,
//! opened without following links or blocking, within fixed bounds.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What one copy may hold: as much as a submission may bring.
const MAX_BYTES: u64 = 16 << 20;
const MAX_ENTRIES: usize = 1000;
const MAX_DEPTH: usize = 8;

/// One entry of a copied tree, relative to its top.
pub(super) enum Entry {
    Dir(PathBuf),
    File {
        path: PathBuf,
        contents: Vec<u8>,
        executable: bool,
    },
}

/// Reads `source` (a file: one entry named like it; a folder: its contents).
pub(super) fn read(source: &Path, skip_hidden: bool) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let mut budget = (MAX_BYTES, MAX_ENTRIES);
    let meta = std::fs::symlink_metadata(source)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    if meta.is_dir() {
        walk(
            source,
            Path::new(""),
            0,
            skip_hidden,
            &mut budget,
            &mut entries,
        )?;
    } else {
        let name = source.file_name().unwrap_or(OsStr::new("file"));
        file(source, Path::new(name), &mut budget, &mut entries)?;
    }
    Ok(entries)
}

/// Dependency and build folders: what a checkout holds besides its sources.
const BUILD_FOLDERS: [&str; 3] = ["node_modules", "target", "venv"];

pub(super) fn skipped(name: &OsStr, skip_hidden: bool) -> bool {
    name == "__pycache__"
        || (skip_hidden
            && (name.as_encoded_bytes().starts_with(b".")
                || BUILD_FOLDERS.iter().any(|b| name == *b)))
}

/// The parcall binary running this code (the sandbox's helper): never copied, wherever it
/// is, so an implementation cannot run it as an oracle.
fn own_binary() -> Option<(u64, u64)> {
    std::fs::metadata("/proc/self/exe")
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

fn walk(
    dir: &Path,
    relative: &Path,
    depth: usize,
    skip_hidden: bool,
    budget: &mut (u64, usize),
    entries: &mut Vec<Entry>,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{}: folders nest deeper than {MAX_DEPTH}",
            dir.display()
        ));
    }
    let listing =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut names: Vec<_> = listing.flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in names.into_iter().filter(|n| !skipped(n, skip_hidden)) {
        let path = dir.join(&name);
        let inside = relative.join(&name);
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if meta.is_dir() {
            count(budget, 0, &path)?;
            entries.push(Entry::Dir(inside.clone()));
            walk(&path, &inside, depth + 1, skip_hidden, budget, entries)?;
        } else if meta.is_file() {
            file(&path, &inside, budget, entries)?;
        }
        // Links, FIFOs, sockets and devices are left out: the copy holds data only.
    }
    Ok(())
}

fn count(budget: &mut (u64, usize), bytes: u64, path: &Path) -> Result<(), String> {
    if budget.1 == 0 {
        return Err(format!(
            "{}: more than {MAX_ENTRIES} files and folders to copy",
            path.display()
        ));
    }
    if bytes > budget.0 {
        return Err(format!(
            "{}: more than {} MiB to copy",
            path.display(),
            MAX_BYTES >> 20
        ));
    }
    budget.1 -= 1;
    budget.0 -= bytes;
    Ok(())
}

fn file(
    path: &Path,
    inside: &Path,
    budget: &mut (u64, usize),
    entries: &mut Vec<Entry>,
) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if !meta.is_file() || own_binary() == Some((meta.dev(), meta.ino())) {
        return Ok(());
    }
    count(budget, meta.len(), path)?;
    let mut contents = Vec::with_capacity(meta.len() as usize);
    // No more than was counted, whatever the file grows to meanwhile.
    file.take(meta.len())
        .read_to_end(&mut contents)
        .map_err(fail)?;
    entries.push(Entry::File {
        path: inside.to_owned(),
        contents,
        executable: meta.mode() & 0o111 != 0,
    });
    Ok(())
}
