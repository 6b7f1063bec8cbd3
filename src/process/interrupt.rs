//! Ending on SIGINT, SIGTERM and SIGHUP as a finished run ends: the implementation's
//! processes killed and parcall's temporary folders removed, then the conventional exit
//! status (128 + the signal: 130, 143, 129).
//!
//! No signal handler runs: [`install`] blocks the three signals in the main thread before any
//! other thread exists (every thread inherits the mask; `std::process::Command` clears it in
//! its children) and one thread takes them with `sigwait`, so the clean-up runs as ordinary
//! code and may allocate and lock. It runs while the other threads go on, so what it undoes
//! is made and unmade behind a gate: a folder is created and registered, or removed and
//! forgotten, and a process is spawned and registered, under the gate's shared side
//! ([`hold`]); the clean-up takes its exclusive side and keeps it until the process exits.
//! A signal that arrives mid-creation therefore waits for the folder or process to be
//! registered, and nothing is created once the clean-up has begun.

use std::io;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

/// The signals that end a run cleanly.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Shared while something registered is being made or unmade, exclusive (for good) once the
/// clean-up has begun.
static GATE: RwLock<()> = RwLock::new(());
/// The temporary folders alive now.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// The implementation processes alive now: each one's pid (its process group's id too) and
/// the marker in its descendants' environment (`super::sweep`).
static CHILDREN: Mutex<Vec<(u32, String)>> = Mutex::new(Vec::new());

/// The exit status of a run ended by `signal`.
pub fn exit_status(signal: libc::c_int) -> i32 {
    128 + signal
}

/// Starts taking SIGINT, SIGTERM and SIGHUP on a thread of their own. Call it from the main
/// thread before any other thread starts: a thread started earlier keeps them unblocked,
/// and the kernel may hand it a signal that then kills the process as before.
///
/// A signal ignored when parcall starts (`nohup`, a shell's background job) stays ignored.
/// Where the thread cannot start, the signals are left as they were.
pub fn install() {
    let set = signal_set();
    // SAFETY: pthread_sigmask reads the set through a pointer to a live local and writes no
    // old mask (null).
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
        return;
    }
    let started = std::thread::Builder::new()
        .name("parcall-signals".into())
        .spawn(move || wait(set));
    if started.is_err() {
        // SAFETY: as above; unblocking restores the default action (the process ends).
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// The signals of [`SIGNALS`] whose action is not "ignore".
fn signal_set() -> libc::sigset_t {
    let mut set = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: sigemptyset initialises the set it points to, a live local.
    unsafe { libc::sigemptyset(set.as_mut_ptr()) };
    // SAFETY: initialised just above.
    let mut set = unsafe { set.assume_init() };
    for signal in SIGNALS {
        let mut action = MaybeUninit::<libc::sigaction>::uninit();
        // SAFETY: with a null new action, sigaction only writes the current one through a
        // pointer to a live local. On Linux a blocked signal is queued even when ignored, so
        // an ignored one must stay out of the set `sigwait` takes.
        let read = unsafe { libc::sigaction(signal, std::ptr::null(), action.as_mut_ptr()) };
        // SAFETY: sigaction succeeded, so it wrote the action.
        if read == 0 && unsafe { action.assume_init() }.sa_sigaction == libc::SIG_IGN {
            continue;
        }
        // SAFETY: sigaddset writes into `set`, initialised above; `signal` is valid.
        unsafe { libc::sigaddset(&mut set, signal) };
    }
    set
}

/// The signal thread: waits for one of `set`, cleans up and ends the process.
fn wait(set: libc::sigset_t) {
    loop {
        let mut signal = 0;
        // SAFETY: sigwait reads the set and writes one int, both live locals; the signals of
        // the set are blocked in every thread, as sigwait requires.
        if unsafe { libc::sigwait(&set, &mut signal) } == 0 {
            clean_up();
            std::process::exit(exit_status(signal));
        }
    }
}

/// Kills every registered implementation process, then removes every registered folder
/// (processes first: one still running could write into a folder as it goes).
fn clean_up() {
    // Never released: the process ends holding it, so no thread makes anything from now on.
    std::mem::forget(
        GATE.write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    );
    for (pid, marker) in super::lock(&CHILDREN).iter() {
        super::reaper::kill_group(*pid as i32);
        // SAFETY: kill(2) takes integers only; the pid is a child not yet reaped (it is
        // forgotten before it is), so it names no other process. The child itself too: one
        // that called setsid left its group.
        unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
        super::sweep(marker);
    }
    super::orphans::kill_orphans();
    for folder in super::lock(&FOLDERS).iter() {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// While the returned guard lives, no clean-up starts (one under way finishes first and
/// this waits for ever, until the process ends): hold it across making or unmaking
/// something the clean-up undoes, and never ask for it twice on one thread.
pub fn hold() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers a spawned implementation process; call it under [`hold`], with the spawn.
pub(super) fn child_started(pid: u32, marker: &str) {
    super::lock(&CHILDREN).push((pid, marker.to_owned()));
}

/// Forgets an implementation process once it is killed, before it is reaped (after that its
/// pid may name another process).
pub(super) fn child_ended(pid: u32) {
    super::lock(&CHILDREN).retain(|(p, _)| *p != pid);
}

/// A temporary folder removed when dropped, or by the clean-up when a signal ends the run.
#[derive(Debug)]
pub struct TempDir {
    /// `None` only while being dropped.
    dir: Option<tempfile::TempDir>,
}

impl TempDir {
    /// Creates a folder as `builder` says, in `parent` (the temporary folder when `None`),
    /// registers it and lets `fill` write into it, all in one step under the gate: a
    /// clean-up never removes it while something is still being written into it.
    pub fn create(
        builder: &tempfile::Builder<'_, '_>,
        parent: Option<&Path>,
        fill: impl FnOnce(&Path) -> io::Result<()>,
    ) -> io::Result<Self> {
        let held = hold();
        let dir = match parent {
            Some(parent) => builder.tempdir_in(parent)?,
            None => builder.tempdir()?,
        };
        super::lock(&FOLDERS).push(dir.path().to_owned());
        let dir = TempDir { dir: Some(dir) };
        let filled = fill(dir.path());
        // Released before `dir` can drop (when `fill` failed): its drop holds the gate too.
        drop(held);
        filled.map(|()| dir)
    }

    pub fn path(&self) -> &Path {
        match &self.dir {
            Some(dir) => dir.path(),
            None => Path::new(""),
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Removed and forgotten under the gate: a clean-up that began mid-removal would
        // otherwise end the process with half a folder left and no record of it.
        let _held = hold();
        if let Some(dir) = self.dir.take() {
            super::lock(&FOLDERS).retain(|folder| folder != dir.path());
            drop(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_registered_while_it_lives() {
        let parent = tempfile::tempdir().unwrap();
        let dir =
            TempDir::create(&tempfile::Builder::new(), Some(parent.path()), |_| Ok(())).unwrap();
        let path = dir.path().to_owned();
        assert!(path.is_dir());
        assert!(super::super::lock(&FOLDERS).contains(&path));
        drop(dir);
        assert!(!path.exists());
        assert!(!super::super::lock(&FOLDERS).contains(&path));
    }
}
