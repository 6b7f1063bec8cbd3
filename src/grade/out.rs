//! Writing results as root: `--out` checked first ([`check_out`]: never the class folder,
//! never an earlier run replaced unless asked), then every name is opened
//! relative to its already opened folder and never through a link (a planted link is
//! replaced, not followed), and every file is written to a fresh temporary name, synced,
//! then renamed over the old one, so a reader or a full disk never sees half a file.

use super::gradebook::Shard;
use std::ffi::CString;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder of what students may see: `students/NAME/`, one per submission, each
/// handed to its student as it is (feedback, no seed, no rerun command).
pub const STUDENTS: &str = "students";
/// The folder of what only the teacher sees: the gradebooks, the class page and, under
/// [`REPORTS`], each submission's whole report (the seed, every failing hidden case, the
/// rerun commands).
pub const TEACHER: &str = "teacher";
/// Under [`TEACHER`]: a folder per submission, so no name a student picks
/// (`gradebook.csv.py`) can collide with the run's own files.
pub const REPORTS: &str = "reports";
/// The folders a grading run writes in `--out`, and the one earlier versions wrote student
/// and teacher files into together: none of them is a student's submission.
pub const FOLDERS: [&str; 3] = [STUDENTS, TEACHER, "submissions"];

/// A results folder, held open.
#[derive(Debug)]
pub struct OutDir {
    fd: OwnedFd,
    path: PathBuf,
}

static TEMPORARY: AtomicU64 = AtomicU64::new(0);

fn c_name(name: &str) -> io::Result<CString> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{name}` cannot name a result"),
        ));
    }
    CString::new(name).map_err(|_| io::ErrorKind::InvalidInput.into())
}

fn check(result: i32) -> io::Result<i32> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

impl OutDir {
    /// Creates `path` (the teacher's choice, links in it included) and opens it.
    pub fn create(path: &Path) -> io::Result<OutDir> {
        std::fs::create_dir_all(path)?;
        let fd = File::open(path)?;
        if !fd.metadata()?.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder"));
        }
        Ok(OutDir {
            fd: fd.into(),
            path: path.to_owned(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sub-folder `name`, created if needed. Anything else found under that name (a
    /// planted link, a file) is removed first.
    pub fn subdir(&self, name: &str) -> io::Result<OutDir> {
        let c = c_name(name)?;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        for _ in 0..3 {
            // SAFETY: mkdirat, openat and unlinkat read `c` up to its NUL (a `CString` alive
            // for the whole block) relative to `self.fd`, held open by its `OwnedFd`. A
            // non-negative `fd` is one openat just made, owned by nobody else.
            unsafe {
                libc::mkdirat(self.fd.as_raw_fd(), c.as_ptr(), 0o755);
                let fd = libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags);
                if fd >= 0 {
                    return Ok(OutDir {
                        fd: OwnedFd::from_raw_fd(fd),
                        path: self.path.join(name),
                    });
                }
                // ELOOP: a link; ENOTDIR: a file. Remove it (never what it points to).
                libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0);
            }
        }
        Err(io::Error::last_os_error())
    }

    /// Writes `name` atomically: a temporary file, synced, renamed over `name` (which
    /// replaces a link rather than writing through it). On error nothing changes.
    pub fn write(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let target = c_name(name)?;
        let temporary = format!(
            ".{name}.parcall-{}-{}",
            std::process::id(),
            TEMPORARY.fetch_add(1, Ordering::Relaxed)
        );
        let temp = c_name(&temporary)?;
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: openat(2) reads `temp` up to its NUL (a `CString` alive until after the
        // call) relative to `self.fd`, held open by its `OwnedFd`.
        let fd = check(unsafe { libc::openat(self.fd.as_raw_fd(), temp.as_ptr(), flags, 0o644) })?;
        // SAFETY: `check` let only a non-negative `fd` through: an open fd openat just made,
        // owned by nobody else.
        let mut file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let written = file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .and_then(|()| {
                // SAFETY: renameat(2) reads `temp` and `target` up to their NULs (`CString`s
                // alive until after the call) relative to `self.fd`, held open.
                check(unsafe {
                    libc::renameat(
                        self.fd.as_raw_fd(),
                        temp.as_ptr(),
                        self.fd.as_raw_fd(),
                        target.as_ptr(),
                    )
                })
                .map(drop)
            });
        if written.is_err() {
            // SAFETY: unlinkat(2) reads `temp` up to its NUL (a `CString` alive until after
            // the call) relative to `self.fd`, held open; it removes only our temporary name.
            unsafe {
                libc::unlinkat(self.fd.as_raw_fd(), temp.as_ptr(), 0);
            }
        }
        written.map_err(|e| {
            io::Error::new(e.kind(), format!("{}: {e}", self.path.join(name).display()))
        })
    }
}

/// Why `--out` cannot take a run's results: the teacher's to choose again (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    #[error(
        "--out {}: {relation} ({}): results there would sit among the submissions; choose a \
         folder outside every class folder graded (--overwrite does not change this)",
        .out.display(), .class.display()
    )]
    InClass {
        out: PathBuf,
        class: PathBuf,
        relation: &'static str,
    },
    #[error(
        "--out {}: already holds an earlier run's results; pass --overwrite to remove that run \
         (its students/ and teacher/ folders) and grade into it again, or choose a new folder",
        .0.display()
    )]
    EarlierRun(PathBuf),
    #[error(
        "--out {}: is not empty and holds `{name}`, which no parcall run writes; choose a new \
         or empty folder (--overwrite removes only an earlier run's students/ and teacher/ \
         folders, never anything else)",
        .out.display()
    )]
    NotARun { out: PathBuf, name: String },
    #[error("--out {}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

/// What is already in `--out`, once checked by [`check_out`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Nothing (missing or empty), or other shards' results of the same run, which this
    /// shard's files join without touching.
    Nothing,
    /// An earlier run, to remove with [`remove_earlier_run`] (`--overwrite`).
    EarlierRun,
}

/// Checks `out` before anything is graded: never a folder graded (`paths`: the submissions
/// and classes named, canonical), inside one or holding one, nor holding a file graded; empty, missing, holding only
/// other shards of `shard`'s run, or, with `overwrite`, an earlier run and nothing else.
/// Nothing is removed here: a run that fails to start loses no earlier result.
pub fn check_out(
    out: &Path,
    paths: &[PathBuf],
    overwrite: bool,
    shard: Option<Shard>,
) -> Result<Existing, OutError> {
    let io = |source| OutError::Io {
        path: out.to_owned(),
        source,
    };
    let resolved = resolved(out).map_err(io)?;
    for path in paths {
        // A folder named is a class (or a submission folder): results never go in it, nor
        // it in them. A file named is a submission alone: its folder is the teacher's.
        let relation = if path.is_dir() && resolved == *path {
            Some("is the folder graded")
        } else if path.is_dir() && resolved.starts_with(path) {
            Some("is inside the folder graded")
        } else if path.starts_with(&resolved) {
            Some("holds what is graded")
        } else {
            None
        };
        if let Some(relation) = relation {
            return Err(OutError::InClass {
                out: out.to_owned(),
                class: path.to_owned(),
                relation,
            });
        }
    }
    let names = match std::fs::read_dir(out) {
        Ok(listing) => listing
            .map(|e| e.map(|e| e.file_name()))
            .collect::<io::Result<Vec<_>>>()
            .map_err(io)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(e) => return Err(io(e)),
    };
    if names.is_empty() {
        return Ok(Existing::Nothing);
    }
    for name in &names {
        let real_folder = std::fs::symlink_metadata(out.join(name)).is_ok_and(|m| m.is_dir());
        if !(real_folder && FOLDERS.iter().any(|f| name == *f)) {
            return Err(OutError::NotARun {
                out: out.to_owned(),
                name: name.to_string_lossy().into_owned(),
            });
        }
    }
    if shard.is_some_and(|shard| only_other_shards(&out.join(TEACHER), shard)) {
        return Ok(Existing::Nothing);
    }
    if overwrite {
        Ok(Existing::EarlierRun)
    } else {
        Err(OutError::EarlierRun(out.to_owned()))
    }
}

/// Whether `teacher` holds only other shards' files of `shard`'s run (`reports/` and the
/// temporary names of a write in progress besides): this shard's files join them.
fn only_other_shards(teacher: &Path, shard: Shard) -> bool {
    let others: Vec<String> = (1..=shard.count)
        .filter(|index| *index != shard.index)
        .flat_map(|index| {
            let suffix = Shard { index, ..shard }.suffix();
            [
                format!("gradebook{suffix}.json"),
                format!("gradebook{suffix}.csv"),
                format!("class{suffix}.html"),
            ]
        })
        .collect();
    let Ok(listing) = std::fs::read_dir(teacher) else {
        return true;
    };
    listing.flatten().all(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        name == REPORTS || name.starts_with('.') || others.contains(&name)
    })
}

/// Removes the earlier run [`check_out`] found in `out`: its [`FOLDERS`], and nothing else
/// (there is nothing else: it checked). Links inside are removed, never followed.
pub fn remove_earlier_run(out: &Path) -> Result<(), OutError> {
    for folder in FOLDERS {
        let path = out.join(folder);
        match std::fs::remove_dir_all(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(OutError::Io { path, source }),
        }
    }
    Ok(())
}

/// `path` absolute, its links resolved as far as it exists, the rest named as given
/// (`..` taken lexically there: the folders are yet to be made).
fn resolved(path: &Path) -> io::Result<PathBuf> {
    let mut existing = std::path::absolute(path)?;
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let mut resolved = loop {
        if let Ok(canonical) = std::fs::canonicalize(&existing) {
            break canonical;
        }
        match existing.components().next_back() {
            Some(Component::Normal(name)) => rest.push(name.to_owned()),
            Some(Component::ParentDir) => rest.push("..".into()),
            _ => {}
        }
        if !existing.pop() {
            break PathBuf::from("/");
        }
    };
    for part in rest.iter().rev() {
        if *part == ".." {
            resolved.pop();
        } else {
            resolved.push(part);
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planted_links_are_replaced_and_their_targets_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "VICTIM").unwrap();
        let out = OutDir::create(&dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(&victim, out.path().join("book.csv")).unwrap();
        std::os::unix::fs::symlink(dir.path(), out.path().join("alice")).unwrap();
        out.write("book.csv", b"grades").unwrap();
        let alice = out.subdir("alice").unwrap();
        alice.write("victim", b"feedback").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "VICTIM");
        assert_eq!(
            std::fs::read_to_string(out.path().join("book.csv")).unwrap(),
            "grades"
        );
        assert!(std::fs::symlink_metadata(out.path().join("alice"))
            .unwrap()
            .is_dir());
    }

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::create(dir.path()).unwrap();
        for name in ["", ".", "..", "a/b"] {
            assert!(out.write(name, b"x").is_err(), "{name}");
            assert!(out.subdir(name).is_err(), "{name}");
        }
    }
}
