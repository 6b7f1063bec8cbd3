//! Taking a submission in: copying it out of the class folder as root, every entry opened
//! as data only ([`crate::process::data`]: looked at through an `O_PATH` descriptor, so a
//! link, FIFO, socket or device is refused without ever being opened for reading, and walked
//! from opened folders, so swapping a folder for a link midway gains nothing), within bounds
//! on its size (apparent, so a sparse file counts in full), its files and its depth. A
//! submission that breaks a rule is refused with the reason, in its results, naming the
//! entry relative to the submission: the student reads it, the class folder's path is not
//! theirs to see.

use crate::process::data::{self, Dir, Entry, Refused, Special};
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
    // Room left for the adapter parcall adds to the copy (one file of at most 64 KiB), so a
    // submission intake takes always fits the copy the sandbox's helper makes of it: a
    // copy refused there would fail a correct submission as its own fault.
    bytes: super::tree::MAX_BYTES - (64 << 10),
    files: super::tree::MAX_ENTRIES - 1,
    depth: 8,
};

// What intake takes always fits the copy the helper makes, with the adapter added: checked
// when parcall is built.
const _: () = assert!(
    BOUNDS.files < super::tree::MAX_ENTRIES && BOUNDS.bytes + (64 << 10) <= super::tree::MAX_BYTES
);

/// Why a submission was not graded: the student's to fix, shown in their results. Every
/// path in it is relative to the submission (its own name for the submission itself).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("{0} is a symbolic link, not a regular file: submit the file itself")]
    Link(String),
    #[error("{path} is {}, not a regular file: submit regular files and folders only", .kind.describe())]
    Special { path: String, kind: Special },
    #[error("{0} changed while parcall copied it: submit it again, unchanged")]
    Changed(String),
    #[error("{0} is a hard link (the file has other names on this machine): submit a copy of the file itself")]
    HardLink(String),
    #[error("the submission is larger than {limit:.1} MiB (counting the apparent size of every file)", limit = *.0 as f64 / f64::from(1 << 20))]
    TooLarge(u64),
    #[error("the submission holds more than {0} files")]
    TooMany(usize),
    #[error("the submission's folders nest deeper than {0} levels")]
    TooDeep(usize),
    #[error("{0} is the name of the file parcall adds to a submission: rename it")]
    Reserved(String),
    #[error("{path}: cannot read: {source}")]
    Unreadable { path: String, source: io::Error },
    /// The copy's side failed (a full disk): no path, the copy is parcall's.
    #[error("{path}: cannot copy into the sandbox: {source}")]
    Copy { path: String, source: io::Error },
}

/// Copies `source` (a file or a folder) into the existing folder `dest`. A file keeps its
/// name; a folder's contents go straight into `dest`. The folders leading to `source` are
/// the teacher's (discovery canonicalised them); `source` itself and all below it are
/// the student's.
pub fn copy_in(source: &Path, dest: &Path, bounds: Bounds) -> Result<(), Refusal> {
    let name = source.file_name().unwrap_or(OsStr::new("."));
    let top = PathBuf::from(name);
    let dest_fd = open_at(
        None,
        dest.as_os_str(),
        libc::O_DIRECTORY | libc::O_NOFOLLOW,
        0,
    )
    .map_err(|source| Refusal::Copy {
        path: display(&top),
        source,
    })?;
    let mut budget = Budget {
        left: bounds.bytes,
        files: 0,
        bounds,
    };
    match data::open(source).map_err(|e| refusal(&top, e))? {
        Entry::File(file) => copy_file(file, &dest_fd, name, &top, &mut budget),
        // The folder's own entries are named from it: `main.py`, not `alice/main.py`.
        Entry::Dir(dir) => copy_dir(&dir, &dest_fd, Path::new(""), 0, &mut budget),
    }
}

struct Budget {
    left: u64,
    files: usize,
    bounds: Bounds,
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The refusal for an entry `data` would not open, named `shown`.
fn refusal(shown: &Path, refused: Refused) -> Refusal {
    let path = display(shown);
    match refused {
        Refused::Special(Special::Link) => Refusal::Link(path),
        Refused::Special(kind) => Refusal::Special { path, kind },
        Refused::Changed => Refusal::Changed(path),
        Refused::Io(source) => Refusal::Unreadable { path, source },
    }
}

/// `openat(dir, name, flags)` with close-on-exec, for the copy's side; `None` opens `name`
/// as a path. A file it creates has `mode`.
fn open_at(dir: Option<&OwnedFd>, name: &OsStr, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let name = CString::new(name.as_bytes()).map_err(|_| io::ErrorKind::InvalidInput)?;
    let at = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    // SAFETY: openat(2) reads `name` up to its NUL: a `CString` alive until after the call.
    // `at` is AT_FDCWD or an fd held open by `dir` for the call.
    let fd = unsafe { libc::openat(at, name.as_ptr(), flags | libc::O_CLOEXEC, mode) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is not negative, so it is an open fd openat just made: nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn copy_file(
    file: data::DataFile,
    dest: &OwnedFd,
    name: &OsStr,
    shown: &Path,
    budget: &mut Budget,
) -> Result<(), Refusal> {
    // A second name of a file is the file wherever it lives: copied as root, a hard link
    // planted in a submission (where the machine allows making one to a file one cannot
    // read) would hand its contents to the submission.
    if file.links > 1 {
        return Err(Refusal::HardLink(display(shown)));
    }
    budget.files += 1;
    if budget.files > budget.bounds.files {
        return Err(Refusal::TooMany(budget.bounds.files));
    }
    // The apparent size: a sparse file costs what copying it would write.
    if file.size > budget.left {
        return Err(Refusal::TooLarge(budget.bounds.bytes));
    }
    budget.left -= file.size;
    let copying = |source| Refusal::Copy {
        path: display(shown),
        source,
    };
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    // The owner's execute bit is kept: a submission's own script or program (`./run.sh`,
    // named by its manifest) starts inside the sandbox as it does in `check`. The copy is
    // parcall's until it is enclosed, and runs only there.
    let mode = if file.mode & 0o100 != 0 { 0o700 } else { 0o600 };
    let mut target = File::from(open_at(Some(dest), name, flags, mode).map_err(copying)?);
    // Read no more than was accounted for, whatever the file grows to meanwhile.
    let mut contents = Vec::new();
    file.file
        .take(file.size)
        .read_to_end(&mut contents)
        .map_err(|source| Refusal::Unreadable {
            path: display(shown),
            source,
        })?;
    target.write_all(&contents).map_err(copying)?;
    target.flush().map_err(copying)
}

fn copy_dir(
    dir: &Dir,
    dest: &OwnedFd,
    shown: &Path,
    depth: usize,
    budget: &mut Budget,
) -> Result<(), Refusal> {
    if depth > budget.bounds.depth {
        return Err(Refusal::TooDeep(budget.bounds.depth));
    }
    let names = dir.names().map_err(|source| Refusal::Unreadable {
        path: display(if shown.as_os_str().is_empty() {
            Path::new(".")
        } else {
            shown
        }),
        source,
    })?;
    for name in names.into_iter().filter(|n| n != "__pycache__") {
        if budget.files >= budget.bounds.files {
            return Err(Refusal::TooMany(budget.bounds.files));
        }
        let path = shown.join(&name);
        match dir.entry(&name).map_err(|e| refusal(&path, e))? {
            Entry::File(file) => copy_file(file, dest, &name, &path, budget)?,
            Entry::Dir(child) => {
                let copying = |source| Refusal::Copy {
                    path: display(&path),
                    source,
                };
                let mk = CString::new(name.as_bytes())
                    .map_err(|_| copying(io::ErrorKind::InvalidInput.into()))?;
                // SAFETY: mkdirat(2) reads `mk` up to its NUL (a `CString` alive until after
                // the call), relative to `dest`, an fd held open by its `OwnedFd`.
                if unsafe { libc::mkdirat(dest.as_raw_fd(), mk.as_ptr(), 0o755) } != 0 {
                    return Err(copying(io::Error::last_os_error()));
                }
                let sub = open_at(Some(dest), &name, libc::O_DIRECTORY | libc::O_NOFOLLOW, 0)
                    .map_err(copying)?;
                budget.files += 1;
                copy_dir(&child, &sub, &path, depth + 1, budget)?;
            }
        }
    }
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::*;

    /// A hard link is a name for a file that may live anywhere on the machine (one the
    /// student could not read): refused, never copied.
    #[test]
    fn a_hard_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("s")).unwrap();
        std::fs::write(dir.path().join("elsewhere"), "secret").unwrap();
        std::fs::hard_link(
            dir.path().join("elsewhere"),
            dir.path().join("s/stolen.txt"),
        )
        .unwrap();
        match copied(&dir.path().join("s"), BOUNDS) {
            Err(Refusal::HardLink(name)) => assert_eq!(name, "stolen.txt"),
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("copied"),
        }
    }

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
            Err(Refusal::Special {
                kind: Special::Fifo,
                ..
            })
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

    /// What a student reads names their own files, never the class folder's path; and a
    /// device or FIFO is refused for its type, without an open (a device no driver owns
    /// would fail any open with ENXIO, a FIFO with no writer would block it).
    #[test]
    fn refusals_name_entries_relative_to_the_submission() {
        let class = tempfile::tempdir().unwrap();
        let alice = class.path().join("alice");
        std::fs::create_dir_all(alice.join("pkg")).unwrap();
        std::fs::write(alice.join("main.py"), "").unwrap();
        std::os::unix::fs::symlink("/etc/shadow", alice.join("pkg/notes.py")).unwrap();
        let reason = copied(&alice, BOUNDS).unwrap_err().to_string();
        assert!(
            reason.starts_with("pkg/notes.py is a symbolic link"),
            "{reason}"
        );
        let host = class.path().display().to_string();
        assert!(!reason.contains(&host), "{reason}");
        std::fs::remove_file(alice.join("pkg/notes.py")).unwrap();
        let fifo = CString::new(alice.join("pkg/fifo.py").as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo(3) reads `fifo` up to its NUL: a `CString` alive until after the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let reason = copied(&alice, BOUNDS).unwrap_err().to_string();
        assert_eq!(
            reason,
            "pkg/fifo.py is a FIFO, not a regular file: submit regular files and folders only"
        );
        let link = class.path().join("bob.py");
        std::os::unix::fs::symlink(alice.join("main.py"), &link).unwrap();
        let reason = copied(&link, BOUNDS).unwrap_err().to_string();
        assert!(reason.starts_with("bob.py is a symbolic link"), "{reason}");
    }

    #[test]
    fn a_device_is_refused_for_its_type_not_by_an_open_error() {
        // SAFETY: geteuid(2) takes no argument and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: making device nodes needs root");
            return;
        }
        let class = tempfile::tempdir().unwrap();
        let null = std::os::unix::fs::MetadataExt::rdev(&std::fs::metadata("/dev/null").unwrap());
        for (name, device) in [("null.py", null), ("nodriver.py", libc::makedev(240, 77))] {
            let path = class.path().join(name);
            let c = CString::new(path.as_os_str().as_bytes()).unwrap();
            // SAFETY: mknod(2) reads `c` up to its NUL: a `CString` alive until after the call.
            let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, device) };
            assert_eq!(made, 0);
            match copied(&path, BOUNDS) {
                Err(Refusal::Special {
                    path,
                    kind: Special::CharDevice,
                }) => assert_eq!(path, name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}
