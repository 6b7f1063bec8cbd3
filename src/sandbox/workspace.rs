//! The run's workspace: a folder under /run (root) or the temporary folder holding each
//! submission's staged copy, locked with `flock` for the life of the run. A run removes its
//! workspace when it ends; a run that was killed cannot, so every run first removes the
//! workspaces (and control groups) whose lock nobody holds any more.

use crate::process::interrupt;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every workspace's name starts with this.
pub const PREFIX: &str = "parcall-grade-";
const LOCK: &str = ".lock";
/// The lock file's name until it is locked.
const LOCKING: &str = ".lock.new";

/// A locked workspace, removed on drop.
#[derive(Debug)]
pub struct Workspace {
    dir: interrupt::TempDir,
    /// Holds the flock that tells other runs this workspace is alive.
    _lock: File,
}

/// Where workspaces live: /run when root (not world-writable, unlike /tmp), else the
/// temporary folder.
pub fn parent(root: bool) -> PathBuf {
    if root && Path::new("/run").is_dir() {
        PathBuf::from("/run")
    } else {
        std::env::temp_dir()
    }
}

fn try_lock(file: &File) -> bool {
    // SAFETY: flock(2) takes integers only; `file` holds the fd open for the call. LOCK_NB
    // makes it return at once when another run holds the lock.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

impl Workspace {
    /// Creates and locks a fresh workspace under `parent`, mode 0711 (submissions may pass
    /// through to their own folder, never list the others).
    pub fn create(parent: &Path) -> io::Result<Workspace> {
        // Made and locked in one step of the signal clean-up's gate, which removes it on
        // SIGINT, SIGTERM and SIGHUP.
        let mut locked = None;
        let dir = interrupt::TempDir::create(
            tempfile::Builder::new().prefix(PREFIX),
            Some(parent),
            |dir| {
                locked = Some(Self::lock(dir)?);
                Ok(())
            },
        )?;
        let lock = locked.ok_or_else(|| io::Error::other("cannot lock a fresh workspace"))?;
        Ok(Workspace { dir, _lock: lock })
    }

    fn lock(dir: &Path) -> io::Result<File> {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711))?;
        // Locked under another name, then renamed into place: between creating `.lock` and
        // locking it, another run's sweep would find it free and remove the workspace. Until
        // the rename there is no `.lock`, and a young folder without one counts as alive.
        let locking = dir.join(LOCKING);
        let lock = File::create(&locking)?;
        if !try_lock(&lock) {
            return Err(io::Error::other("cannot lock a fresh workspace"));
        }
        std::fs::rename(&locking, dir.join(LOCK))?;
        Ok(lock)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The folder's name, which also names the run's control groups.
    pub fn name(&self) -> String {
        self.dir
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Whether the workspace `dir` belongs to a run that is gone: its lock is free, or it has no
/// lock and is more than a day old. A fresh run has no lock for a moment, and a run of a
/// parcall before locks never has one but may still be alive: only age tells them apart.
fn abandoned(dir: &Path) -> bool {
    match File::open(dir.join(LOCK)) {
        Ok(lock) => try_lock(&lock),
        // Only a missing lock: one we may not open belongs to someone else.
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => false,
        Err(_) => std::fs::metadata(dir)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(86_400)),
    }
}

/// Removes the workspaces under `parent` left by runs that died, and the control groups
/// named after them (or after workspaces that no longer exist). Returns what it removed.
pub fn sweep_abandoned(parent: &Path, cgroups: Option<&super::cgroup::Cgroups>) -> Vec<String> {
    let mut removed = Vec::new();
    let entries = std::fs::read_dir(parent).into_iter().flatten().flatten();
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if name.starts_with(PREFIX) && is_dir && abandoned(&entry.path()) {
            let _ = std::fs::remove_dir_all(entry.path());
            removed.push(name);
        }
    }
    if let Some(cgroups) = cgroups {
        for (name, run) in cgroups.runs_named(PREFIX) {
            let workspace = parent.join(&name);
            if !workspace.exists() || abandoned(&workspace) {
                drop(run);
                removed.push(format!("cgroup {name}"));
            } else {
                // Alive: forget the handle without removing the live run's groups.
                std::mem::forget(run);
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_never_removes_a_workspace_being_created() {
        // Another run's sweep, at any moment of a run's start: the workspace must never be
        // taken for the leftover of a dead run.
        let parent = tempfile::tempdir().unwrap();
        let done = std::sync::atomic::AtomicBool::new(false);
        let lost = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    sweep_abandoned(parent.path(), None);
                }
            });
            let mut lost = 0;
            for _ in 0..3000 {
                match Workspace::create(parent.path()) {
                    Ok(workspace) if workspace.path().join(LOCK).is_file() => {}
                    _ => lost += 1,
                }
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            lost
        });
        assert_eq!(lost, 0, "workspaces removed while being created");
    }

    #[test]
    fn a_live_workspace_is_kept_and_a_dead_one_removed() {
        let parent = tempfile::tempdir().unwrap();
        let live = Workspace::create(parent.path()).unwrap();
        let dead = parent.path().join(format!("{PREFIX}dead"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(LOCK), "").unwrap();
        std::fs::write(dead.join("copy.py"), "x = 1").unwrap();
        let removed = sweep_abandoned(parent.path(), None);
        assert_eq!(removed, vec![format!("{PREFIX}dead")]);
        assert!(live.path().exists());
        assert!(!dead.exists());
        let path = live.path().to_owned();
        drop(live);
        assert!(!path.exists());
    }
}
