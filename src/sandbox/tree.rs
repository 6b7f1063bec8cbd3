//! The files a sandbox gets a copy of, read by the helper before it gives up the caller's
//! rights (a root-only folder stays readable to it, never to the implementation), and written
//! into the new root once it runs as the implementation's uid. Regular files and folders only,
//! each opened as data ([`crate::process::data`]: a link, FIFO or device is never opened for
//! reading, folders are walked from their opened descriptors), within fixed bounds.

use crate::process::data::{self, Dir, Entry as Opened};
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What one copy may hold: as much as a submission may bring.
pub(super) const MAX_BYTES: u64 = 16 << 20;
pub(super) const MAX_ENTRIES: usize = 1000;
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

/// Reads `source` (a file: one entry named like it; a folder: its contents). `source` is
/// the caller's to name (links leading to it are followed); it and every entry below it are
/// opened as data ([`crate::process::data`]): a link, FIFO, socket or device is left out unopened.
pub(super) fn read(source: &Path, skip_hidden: bool) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let mut budget = (MAX_BYTES, MAX_ENTRIES);
    let fail = |e: data::Refused| format!("cannot read {}: {e}", source.display());
    match data::open(source).map_err(fail)? {
        Opened::Dir(dir) => walk(
            &dir,
            source,
            Path::new(""),
            0,
            skip_hidden,
            &mut budget,
            &mut entries,
        )?,
        Opened::File(file) => {
            let name = source.file_name().unwrap_or(OsStr::new("file"));
            self::file(file, source, Path::new(name), &mut budget, &mut entries)?;
        }
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
    dir: &Dir,
    path: &Path,
    relative: &Path,
    depth: usize,
    skip_hidden: bool,
    budget: &mut (u64, usize),
    entries: &mut Vec<Entry>,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{}: folders nest deeper than {MAX_DEPTH}",
            path.display()
        ));
    }
    let names = dir
        .names()
        .map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    for name in names.into_iter().filter(|n| !skipped(n, skip_hidden)) {
        let path = path.join(&name);
        let inside = relative.join(&name);
        match dir.entry(&name) {
            Ok(Opened::Dir(child)) => {
                count(budget, 0, &path)?;
                entries.push(Entry::Dir(inside.clone()));
                walk(
                    &child,
                    &path,
                    &inside,
                    depth + 1,
                    skip_hidden,
                    budget,
                    entries,
                )?;
            }
            Ok(Opened::File(opened)) => file(opened, &path, &inside, budget, entries)?,
            // Links, FIFOs, sockets and devices are left out unopened: the copy holds data
            // only.
            Err(data::Refused::Special(_)) => {}
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        }
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
    opened: data::DataFile,
    path: &Path,
    inside: &Path,
    budget: &mut (u64, usize),
    entries: &mut Vec<Entry>,
) -> Result<(), String> {
    if own_binary() == Some((opened.dev, opened.ino)) {
        return Ok(());
    }
    count(budget, opened.size, path)?;
    let mut contents = Vec::with_capacity(usize::try_from(opened.size).unwrap_or(0));
    // No more than was counted, whatever the file grows to meanwhile.
    opened
        .file
        .take(opened.size)
        .read_to_end(&mut contents)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    entries.push(Entry::File {
        path: inside.to_owned(),
        contents,
        executable: opened.mode & 0o111 != 0,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    fn names(entries: &[Entry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| match e {
                Entry::Dir(path) | Entry::File { path, .. } => path.display().to_string(),
            })
            .collect()
    }

    /// Links, FIFOs and devices are left out of the copy unopened: a FIFO with no writer
    /// would block an open for reading, a device no driver owns would fail it with ENXIO.
    #[test]
    fn only_regular_files_and_folders_are_copied_and_nothing_else_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("pkg")).unwrap();
        std::fs::write(d.join("pkg/main.py"), "x = 1\n").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", d.join("link.py")).unwrap();
        let mut nodes = vec![("fifo.py", libc::S_IFIFO, 0)];
        // SAFETY: geteuid(2) takes no argument and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            // Major 240 is for local, experimental use: no driver claims it here.
            nodes.push(("device.py", libc::S_IFCHR, libc::makedev(240, 77)));
        }
        for (name, kind, device) in nodes {
            let c = CString::new(d.join(name).as_os_str().as_bytes()).unwrap();
            // SAFETY: mknod(2) reads `c` up to its NUL: a `CString` alive until after the call.
            assert_eq!(unsafe { libc::mknod(c.as_ptr(), kind | 0o644, device) }, 0);
        }
        let entries = read(d, false).unwrap();
        assert_eq!(names(&entries), ["pkg", "pkg/main.py"]);
        let Err(refused) = read(&d.join("link.py"), false) else {
            panic!("a link was read")
        };
        assert!(refused.contains("symbolic link"), "{refused}");
    }
}
