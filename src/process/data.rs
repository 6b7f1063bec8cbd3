//! Files someone else controls, opened as data only. A student's submission and an
//! implementation's folder are read with more rights than their owners have (the grader runs
//! as root), so every entry is looked at before it is opened: an `O_PATH` descriptor (which
//! opens nothing: no driver runs, no FIFO waits) is taken without following a link, `fstat` on
//! it decides, and only a regular file or a folder is then opened, through that descriptor, so
//! what is read is the inode that was checked. Folders are walked from already opened
//! descriptors (`openat`), so a folder swapped for a link midway gains nothing.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What an entry is, when it is neither a regular file nor a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Link,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
}

impl Special {
    fn of(mode: libc::mode_t) -> Option<Special> {
        Some(match mode & libc::S_IFMT {
            libc::S_IFREG | libc::S_IFDIR => return None,
            libc::S_IFLNK => Special::Link,
            libc::S_IFIFO => Special::Fifo,
            libc::S_IFSOCK => Special::Socket,
            libc::S_IFCHR => Special::CharDevice,
            libc::S_IFBLK => Special::BlockDevice,
            _ => Special::Unknown,
        })
    }

    /// "a symbolic link", "a FIFO", ...: what a refusal calls it.
    pub fn describe(self) -> &'static str {
        match self {
            Special::Link => "a symbolic link",
            Special::Fifo => "a FIFO",
            Special::Socket => "a socket",
            Special::CharDevice => "a character device",
            Special::BlockDevice => "a block device",
            Special::Unknown => "of an unknown type",
        }
    }
}

/// What an entry is, as `fstatat` without following a link says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Special(Special),
}

/// Why an entry was not opened for reading.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// Looked at, never opened: the reason is its type, never an open's error.
    #[error("is {}, not a regular file or a folder", .0.describe())]
    Special(Special),
    /// The entry opened is not the one checked (replaced in between).
    #[error("changed while it was read")]
    Changed,
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
}

/// A folder, held open: everything below it is named relative to it.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

/// A regular file opened for reading, with what `fstat` said of its descriptor.
#[derive(Debug)]
pub struct DataFile {
    pub file: File,
    /// The apparent size when it was opened: read no more than this.
    pub size: u64,
    pub mode: u32,
    pub dev: u64,
    pub ino: u64,
    /// How many names the file has: more than one is a hard link, a name for a file that
    /// may live elsewhere on the machine.
    pub links: u64,
}

/// An entry opened as data.
#[derive(Debug)]
pub enum Entry {
    File(DataFile),
    Dir(Dir),
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::ErrorKind::InvalidInput.into())
}

/// `openat(at, name, flags | O_CLOEXEC)`.
fn open_at(at: libc::c_int, name: &OsStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    let name = c_name(name)?;
    // SAFETY: openat(2) reads `name` up to its NUL: a `CString` alive until after the call.
    // `at` is AT_FDCWD or an fd its caller holds open for the call.
    let fd = unsafe { libc::openat(at, name.as_ptr(), flags | libc::O_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is not negative, so it is an open fd openat just made: nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn fstat(fd: &OwnedFd) -> io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value of this plain C struct.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat(2) writes one `stat` into `stat`, a live local, for an fd `fd` holds open.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat)
}

/// Opens the inode `path_fd` (an `O_PATH` descriptor) refers to, with `flags`: through its
/// /proc link, which names that inode whatever its name now names.
fn reopen(path_fd: &OwnedFd, flags: libc::c_int) -> io::Result<OwnedFd> {
    let link = format!("/proc/self/fd/{}", path_fd.as_raw_fd());
    open_at(libc::AT_FDCWD, OsStr::new(&link), flags)
}

/// Whether two `stat`s are of one inode.
fn same(a: &libc::stat, b: &libc::stat) -> bool {
    a.st_dev == b.st_dev && a.st_ino == b.st_ino
}

/// Opens `name` under `at` as data: a link, FIFO, socket or device is refused from its
/// `O_PATH` descriptor's `fstat`, never opened for reading.
fn entry_at(at: libc::c_int, name: &OsStr) -> Result<Entry, Refused> {
    let path_fd = open_at(at, name, libc::O_PATH | libc::O_NOFOLLOW)?;
    let checked = fstat(&path_fd)?;
    if let Some(special) = Special::of(checked.st_mode) {
        return Err(Refused::Special(special));
    }
    let directory = checked.st_mode & libc::S_IFMT == libc::S_IFDIR;
    let flags = if directory {
        libc::O_RDONLY | libc::O_DIRECTORY
    } else {
        // The inode is a regular file: these only say so again, should it not be.
        libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY
    };
    let fd = reopen(&path_fd, flags)?;
    let opened = fstat(&fd)?;
    if !same(&checked, &opened) || opened.st_mode & libc::S_IFMT != checked.st_mode & libc::S_IFMT {
        return Err(Refused::Changed);
    }
    if directory {
        return Ok(Entry::Dir(Dir { fd }));
    }
    Ok(Entry::File(DataFile {
        file: File::from(fd),
        size: u64::try_from(opened.st_size).unwrap_or(0),
        mode: opened.st_mode,
        dev: opened.st_dev,
        ino: opened.st_ino,
        // `st_nlink` is a u64 on x86_64 and a u32 on aarch64.
        #[allow(clippy::useless_conversion)]
        links: u64::from(opened.st_nlink),
    }))
}

/// Opens `path` as data: the folders leading to it are the caller's (links in them are
/// followed), its last component is checked like any entry. A path ending in `..` or `/` is
/// opened as a folder, the caller's too.
pub fn open(path: &Path) -> Result<Entry, Refused> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            Dir::open(parent)?.entry(name)
        }
        _ => Ok(Entry::Dir(Dir::open(path)?)),
    }
}

impl Dir {
    /// A folder the caller names (its links followed: the path is the caller's own). Opened
    /// with `O_DIRECTORY`, which never opens anything but a folder.
    pub fn open(path: &Path) -> io::Result<Dir> {
        let fd = open_at(
            libc::AT_FDCWD,
            path.as_os_str(),
            libc::O_RDONLY | libc::O_DIRECTORY,
        )?;
        Ok(Dir { fd })
    }

    /// Opens `name`, an entry of this folder, as data.
    pub fn entry(&self, name: &OsStr) -> Result<Entry, Refused> {
        entry_at(self.fd.as_raw_fd(), name)
    }

    /// What `name` is, from `fstatat` without following a link: nothing is opened.
    pub fn kind(&self, name: &OsStr) -> io::Result<Kind> {
        let c = c_name(name)?;
        // SAFETY: an all-zero `stat` is a valid value of this plain C struct.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstatat(2) reads `c` up to its NUL (a `CString` alive until after the
        // call) relative to `self.fd`, held open, and writes one `stat` into a live local.
        let result = unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                &mut stat,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if result != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(match Special::of(stat.st_mode) {
            Some(special) => Kind::Special(special),
            None if stat.st_mode & libc::S_IFMT == libc::S_IFDIR => Kind::Dir,
            None => Kind::File,
        })
    }

    /// The names in this folder (not `.` and `..`), sorted: of the folder that was opened,
    /// whatever its path names now.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        let reopened = reopen(&self.fd, libc::O_RDONLY | libc::O_DIRECTORY)?;
        let listing = format!("/proc/self/fd/{}", reopened.as_raw_fd());
        let mut names = std::fs::read_dir(listing)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect::<io::Result<Vec<_>>>()?;
        names.sort();
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(path: &Path, mode: libc::mode_t, device: libc::dev_t) {
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: mknod(2) reads `c` up to its NUL: a `CString` alive until after the call.
        assert_eq!(unsafe { libc::mknod(c.as_ptr(), mode | 0o666, device) }, 0);
    }

    fn refused(result: Result<Entry, Refused>) -> Special {
        match result {
            Err(Refused::Special(special)) => special,
            other => panic!("expected a refusal for the entry's type, got {other:?}"),
        }
    }

    /// A FIFO with no writer blocks an open for reading without `O_NONBLOCK` (and this test
    /// with it); a device with numbers no driver owns fails any open with ENXIO. Both are
    /// refused for their type: they were never opened.
    #[test]
    fn fifos_devices_and_links_are_refused_without_being_opened() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        node(&d.join("fifo"), libc::S_IFIFO, 0);
        std::os::unix::fs::symlink("/etc/passwd", d.join("link")).unwrap();
        assert_eq!(refused(open(&d.join("fifo"))), Special::Fifo);
        assert_eq!(refused(open(&d.join("link"))), Special::Link);
        // SAFETY: geteuid(2) takes no argument and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: making device nodes needs root");
            return;
        }
        let null = std::os::unix::fs::MetadataExt::rdev(&std::fs::metadata("/dev/null").unwrap());
        node(&d.join("null"), libc::S_IFCHR, null);
        // Major 240 is for local, experimental use: no driver claims it here.
        node(&d.join("nodriver"), libc::S_IFCHR, libc::makedev(240, 77));
        assert!(std::fs::File::open(d.join("nodriver")).is_err());
        let folder = Dir::open(d).unwrap();
        for (name, kind) in [
            ("null", Special::CharDevice),
            ("nodriver", Special::CharDevice),
            ("fifo", Special::Fifo),
        ] {
            assert_eq!(refused(folder.entry(OsStr::new(name))), kind, "{name}");
            assert_eq!(folder.kind(OsStr::new(name)).unwrap(), Kind::Special(kind));
        }
    }

    /// A folder replaced by a link once opened: what is read below it is still the folder's.
    #[test]
    fn a_folder_swapped_for_a_link_midway_is_read_as_opened() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/a.py"), "mine").unwrap();
        std::fs::create_dir_all(d.join("elsewhere")).unwrap();
        std::fs::write(d.join("elsewhere/a.py"), "secret").unwrap();
        let Entry::Dir(sub) = open(&d.join("sub")).unwrap() else {
            panic!("a folder")
        };
        std::fs::rename(d.join("sub"), d.join("moved")).unwrap();
        std::os::unix::fs::symlink(d.join("elsewhere"), d.join("sub")).unwrap();
        assert_eq!(sub.names().unwrap(), [OsString::from("a.py")]);
        let Entry::File(file) = sub.entry(OsStr::new("a.py")).unwrap() else {
            panic!("a file")
        };
        assert_eq!(io::read_to_string(file.file).unwrap(), "mine");
        assert_eq!(refused(open(&d.join("sub"))), Special::Link);
    }
}
