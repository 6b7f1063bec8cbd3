//! Taking a submission in: copying it out of the class folder as root without following a
//! link, without blocking on a FIFO or a device, and without letting its size (apparent, so
//! a sparse file counts in full) or its number of files exceed a bound. Everything is opened
//! relative to an already opened folder (`openat`), so swapping a folder for a link midway
//! gains nothing. A submission that breaks a rule is refused with the reason, in its results.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What one submission may bring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Total apparent size of its files.
    pub bytes: u64,
    pub files: usize,
    /// Folders below the submission's own.
    pub depth: usize,
}

/// The default bounds: generous for a course exercise, small for a disk.
pub const BOUNDS: Bounds = Bounds {
    bytes: 16 << 20,
    files: 1000,
    depth: 8,
};

/// Why a submission was not graded: the student's to fix, shown in their results.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("{0} is a symbolic link, not a regular file: submit the file itself")]
    Link(String),
    #[error("{path} is not a regular file (a {kind}): submit regular files and folders only")]
    Special { path: String, kind: &'static str },
    #[error("the submission is larger than {limit} MiB (counting the apparent size of every file)", limit = .0 >> 20)]
    TooLarge(u64),
    #[error("the submission holds more than {0} files")]
    TooMany(usize),
    #[error("the submission's folders nest deeper than {0} levels")]
    TooDeep(usize),
    #[error("{0} is the name of the file parcall adds to a submission: rename it")]
    Reserved(String),
    #[error("{path}: cannot read: {source}")]
    Unreadable { path: String, source: io::Error },
}

/// Copies `source` (a file or a folder) into the existing folder `dest`. A file keeps its
/// name; a folder's contents go straight into `dest`.
pub fn copy_in(source: &Path, dest: &Path, bounds: Bounds) -> Result<(), Refusal> {
    let parent = source.parent().unwrap_or(Path::new("/"));
    let name = source.file_name().unwrap_or(OsStr::new("."));
    let parent_fd =
        open_at(None, parent.as_os_str(), libc::O_DIRECTORY).map_err(|e| unreadable(parent, e))?;
    let dest_fd = open_at(None, dest.as_os_str(), libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .map_err(|e| unreadable(dest, e))?;
    let mut budget = Budget {
        left: bounds.bytes,
        files: 0,
        bounds,
    };
    let (fd, kind) = open_entry(&parent_fd, name, &display(source))?;
    match kind {
        Kind::File(size) => copy_file(fd, size, &dest_fd, name, &display(source), &mut budget),
        Kind::Dir => copy_dir(fd, &dest_fd, source, 0, &mut budget),
    }
}

struct Budget {
    left: u64,
    files: usize,
    bounds: Bounds,
}

enum Kind {
    File(u64),
    Dir,
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

fn unreadable(path: &Path, source: io::Error) -> Refusal {
    Refusal::Unreadable {
        path: display(path),
        source,
    }
}

/// `openat(dir, name, flags)` with close-on-exec; `None` opens `name` as a path.
fn open_at(dir: Option<&OwnedFd>, name: &OsStr, flags: i32) -> io::Result<OwnedFd> {
    let name = CString::new(name.as_bytes()).map_err(|_| io::ErrorKind::InvalidInput)?;
    let at = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    // SAFETY: openat(2) reads `name` up to its NUL: a `CString` alive until after the call.
    // `at` is AT_FDCWD or an fd held open by `dir` for the call.
    let fd = unsafe { libc::openat(at, name.as_ptr(), flags | libc::O_CLOEXEC, 0o600) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is not negative, so it is an open fd openat just made: nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens one entry without following a link and without blocking (a FIFO with no writer
/// would otherwise hang the whole grade), and says what it is.
fn open_entry(dir: &OwnedFd, name: &OsStr, shown: &str) -> Result<(OwnedFd, Kind), Refusal> {
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY;
    let fd = match open_at(Some(dir), name, flags) {
        Ok(fd) => fd,
        // O_NOFOLLOW on a link fails with ELOOP.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(Refusal::Link(shown.into())),
        Err(source) => {
            return Err(Refusal::Unreadable {
                path: shown.into(),
                source,
            })
        }
    };
    let meta = File::from(fd.try_clone().map_err(|e| Refusal::Unreadable {
        path: shown.into(),
        source: e,
    })?)
    .metadata()
    .map_err(|source| Refusal::Unreadable {
        path: shown.into(),
        source,
    })?;
    let kind = meta.file_type();
    if kind.is_file() {
        Ok((fd, Kind::File(meta.len())))
    } else if kind.is_dir() {
        Ok((fd, Kind::Dir))
    } else {
        use std::os::unix::fs::FileTypeExt;
        let kind = if kind.is_fifo() {
            "FIFO"
        } else if kind.is_socket() {
            "socket"
        } else {
            "device"
        };
        Err(Refusal::Special {
            path: shown.into(),
            kind,
        })
    }
}

fn copy_file(
    fd: OwnedFd,
    size: u64,
    dest: &OwnedFd,
    name: &OsStr,
    shown: &str,
    budget: &mut Budget,
) -> Result<(), Refusal> {
    budget.files += 1;
    if budget.files > budget.bounds.files {
        return Err(Refusal::TooMany(budget.bounds.files));
    }
    // The apparent size: a sparse file costs what copying it would write.
    if size > budget.left {
        return Err(Refusal::TooLarge(budget.bounds.bytes));
    }
    budget.left -= size;
    let fail = |source| Refusal::Unreadable {
        path: shown.into(),
        source,
    };
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let mut target = File::from(open_at(Some(dest), name, flags).map_err(fail)?);
    // Read no more than was accounted for, whatever the file grows to meanwhile.
    let mut reader = File::from(fd).take(size);
    io::copy(&mut reader, &mut target).map_err(fail)?;
    target.flush().map_err(fail)
}

fn copy_dir(
    fd: OwnedFd,
    dest: &OwnedFd,
    shown: &Path,
    depth: usize,
    budget: &mut Budget,
) -> Result<(), Refusal> {
    if depth > budget.bounds.depth {
        return Err(Refusal::TooDeep(budget.bounds.depth));
    }
    // Listing through the fd's /proc link reads the folder that was opened, not whatever
    // the path names now.
    let listing = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
    let mut names: Vec<_> = std::fs::read_dir(&listing)
        .map_err(|e| unreadable(shown, e))?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n != "__pycache__")
        .collect();
    names.sort();
    for name in names {
        if budget.files >= budget.bounds.files {
            return Err(Refusal::TooMany(budget.bounds.files));
        }
        let path = shown.join(&name);
        let (child, kind) = open_entry(&fd, &name, &display(&path))?;
        match kind {
            Kind::File(size) => copy_file(child, size, dest, &name, &display(&path), budget)?,
            Kind::Dir => {
                let mk = CString::new(name.as_bytes())
                    .map_err(|_| unreadable(&path, io::ErrorKind::InvalidInput.into()))?;
                // SAFETY: mkdirat(2) reads `mk` up to its NUL (a `CString` alive until after
                // the call), relative to `dest`, an fd held open by its `OwnedFd`.
                if unsafe { libc::mkdirat(dest.as_raw_fd(), mk.as_ptr(), 0o755) } != 0 {
                    return Err(unreadable(&path, io::Error::last_os_error()));
                }
                let sub = open_at(Some(dest), &name, libc::O_DIRECTORY | libc::O_NOFOLLOW)
                    .map_err(|e| unreadable(&path, e))?;
                budget.files += 1;
                copy_dir(child, &sub, &path, depth + 1, budget)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copied(source: &Path, bounds: Bounds) -> Result<tempfile::TempDir, Refusal> {
        let dest = tempfile::tempdir().unwrap();
        copy_in(source, dest.path(), bounds).map(|()| dest)
    }

    #[test]
    fn regular_files_and_folders_are_copied() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("s/pkg")).unwrap();
        std::fs::write(dir.path().join("s/main.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("s/pkg/util.py"), "y = 2\n").unwrap();
        let dest = copied(&dir.path().join("s"), BOUNDS).unwrap();
        assert_eq!(
            std::fs::read_to_string(dest.path().join("pkg/util.py")).unwrap(),
            "y = 2\n"
        );
        let single = copied(&dir.path().join("s/main.py"), BOUNDS).unwrap();
        assert_eq!(
            std::fs::read_to_string(single.path().join("main.py")).unwrap(),
            "x = 1\n"
        );
    }

    #[test]
    fn links_fifos_and_oversized_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("real.py"), "x = 1\n").unwrap();
        std::os::unix::fs::symlink(d.join("real.py"), d.join("link.py")).unwrap();
        let fifo = CString::new(d.join("fifo.py").as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo(3) reads `fifo` up to its NUL: a `CString` alive until after the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        std::fs::File::create(d.join("sparse.py"))
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        assert!(matches!(
            copied(&d.join("link.py"), BOUNDS),
            Err(Refusal::Link(_))
        ));
        assert!(matches!(
            copied(&d.join("fifo.py"), BOUNDS),
            Err(Refusal::Special { kind: "FIFO", .. })
        ));
        assert!(matches!(
            copied(&d.join("sparse.py"), BOUNDS),
            Err(Refusal::TooLarge(_))
        ));
        let few = Bounds { files: 2, ..BOUNDS };
        assert!(matches!(
            copied(d, few),
            Err(Refusal::Link(_) | Refusal::TooMany(2) | Refusal::Special { .. })
        ));
    }
}
