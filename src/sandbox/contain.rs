//! Containment: every descendant of an implementation ends with its run, whatever it does
//! (double fork, `setsid`, an empty environment, `PR_SET_DUMPABLE` 0, killing its parent),
//! and the implementation gets none of the caller's privileges, environment, stdout or `/proc`.
//!
//! Where the OS allows, the implementation runs in the sandbox that starts from nothing
//! ([`super::assemble`]): PID 1 of its own PID namespace with a `/proc` of its own, in an empty
//! root holding its interpreter and a copy of its files, under an unprivileged uid (one of
//! its own when parcall is root, parcall's user otherwise) with no capabilities. Where only a
//! PID namespace is allowed, util-linux `unshare --pid --fork --kill-child` (in a user
//! namespace when not root). Otherwise parcall becomes a child subreaper: orphans of the
//! implementation are re-parented to parcall instead of init, so they stay findable, and
//! are killed with the run.

use super::{Runtimes, Step, SCRATCH_BYTES};
use crate::process::{orphans, Launch};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// How the processes of an implementation are kept from outliving their run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Containment {
    /// The sandbox that starts from nothing, as parcall's user or (root) as uids of a block
    /// leased for this process.
    Sandbox { root: bool },
    /// Only the process group kill and the environment-marker sweep (before
    /// [`detect`] chose; and what escapes through `setsid` with an empty environment).
    ProcessGroup,
    /// A new PID namespace per process (a user namespace too when not root).
    PidNamespace { user_namespace: bool },
    /// No namespace here (the reason); parcall is a child subreaper and kills every orphan.
    Subreaper { reason: String },
}

impl Containment {
    /// What the reports say.
    pub fn describe(&self) -> String {
        match self {
            Containment::Sandbox { root: true } => {
                "sandbox (empty root, own PID namespace and /proc, a uid of its own, no capabilities)".into()
            }
            Containment::Sandbox { root: false } => {
                "sandbox (empty root, own PID namespace and /proc, in a user namespace, no capabilities)".into()
            }
            Containment::ProcessGroup => "process group only".into(),
            Containment::PidNamespace {
                user_namespace: false,
            } => "PID namespace".into(),
            Containment::PidNamespace {
                user_namespace: true,
            } => "PID namespace (in a user namespace)".into(),
            Containment::Subreaper { reason } => {
                format!("child subreaper (no PID namespace: {reason})")
            }
        }
    }
}

/// The `unshare` flags, after the user-namespace ones when needed.
const PID_NAMESPACE: [&str; 4] = ["--pid", "--fork", "--kill-child", "--"];
const USER_NAMESPACE: [&str; 2] = ["--user", "--map-current-user"];

/// Probes once per process whether a PID namespace can be made here; falls back to making
/// this process a subreaper.
pub fn detect() -> Containment {
    static DETECTED: OnceLock<Containment> = OnceLock::new();
    DETECTED.get_or_init(probe).clone()
}

/// Set (to anything) in parcall's own environment, skips the PID namespace: how the
/// fallback is tested on machines that allow namespaces.
pub const NO_PID_NAMESPACE_VARIABLE: &str = "PARCALL_NO_PID_NAMESPACE";

fn probe() -> Containment {
    if std::env::var_os(NO_PID_NAMESPACE_VARIABLE).is_some() {
        let reason = format!("{NO_PID_NAMESPACE_VARIABLE} is set");
        return subreaper(reason);
    }
    // SAFETY: geteuid(2) takes no argument, cannot fail, and reads or writes no memory of
    // this process.
    let root = unsafe { libc::geteuid() } == 0;
    if sandbox_error(root).is_none() {
        return Containment::Sandbox { root };
    }
    let mut args: Vec<&str> = if root {
        vec![]
    } else {
        USER_NAMESPACE.to_vec()
    };
    args.extend(PID_NAMESPACE);
    args.push("true");
    let probe = Command::new("unshare")
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let reason = match probe {
        Ok(output) if output.status.success() => {
            return Containment::PidNamespace {
                user_namespace: !root,
            }
        }
        Ok(output) => String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        Err(error) => format!("cannot run `unshare`: {error}"),
    };
    subreaper(reason)
}

/// Makes this process a child subreaper, so orphans of the implementation stay findable.
fn subreaper(reason: String) -> Containment {
    match orphans::become_subreaper() {
        Ok(()) => Containment::Subreaper { reason },
        Err(error) => Containment::Subreaper {
            reason: format!("{reason}; and PR_SET_CHILD_SUBREAPER failed: {error}"),
        },
    }
}

/// Why the sandbox cannot start here (probed once per process), or `None` when it can.
pub fn sandbox_error(root: bool) -> Option<String> {
    static PROBED: OnceLock<Option<String>> = OnceLock::new();
    PROBED
        .get_or_init(|| {
            let (uid, gid) = match sandbox_ids(root) {
                Ok(ids) => ids,
                Err(error) => return Some(error),
            };
            super::probe(uid, gid).err()
        })
        .clone()
}

/// The first uid of the block leased for this process's sandboxes when it is root (the
/// block's lock is held until the process ends).
static LEASED: OnceLock<Result<u32, String>> = OnceLock::new();
/// The next uid of that block to give.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// The machine's uid and gid the next sandbox runs as: a fresh uid of the leased block when
/// root, else this process's own.
fn sandbox_ids(root: bool) -> Result<(u32, u32), String> {
    if !root {
        // SAFETY: geteuid(2) and getegid(2) take no argument and cannot fail.
        return Ok(unsafe { (libc::geteuid(), libc::getegid()) });
    }
    let first = LEASED
        .get_or_init(|| {
            let lease = super::uids::Lease::acquire(Path::new(super::uids::LEASE_DIR))
                .map_err(|e| e.to_string())?;
            let first = *lease.block().start();
            // The lock lives as long as the process: its uids are this process's.
            std::mem::forget(lease);
            Ok(first)
        })
        .clone()?;
    let offset = NEXT.fetch_add(1, Ordering::Relaxed) % super::uids::UIDS_PER_RUN;
    Ok((first + offset, first + offset))
}

/// Why `check`'s sandbox could not be laid out: reported where the implementation's output
/// would be, and the implementation never runs.
#[derive(Debug, thiserror::Error)]
pub enum ContainError {
    #[error("cannot read the current folder: {0}")]
    CurrentFolder(std::io::Error),
    #[error("cannot lease the sandbox's uids: {0}")]
    Uids(String),
    #[error(transparent)]
    Layout(#[from] super::layout::LayoutError),
    #[error("{}: the folder does not fit a copy's bounds (16 MiB and 1000 files, hidden entries and build folders left out)", .0.display())]
    TooLarge(PathBuf),
}

/// The launch run inside the containment: in the sandbox, the helper runs the program in
/// an empty root with a copy of the files its command names (of `own_folder` alone, for a
/// manifest's program, whose arguments are its own words), laying out only the programs of
/// `runtimes` (the caller's); in a PID namespace, `unshare` starts the program.
pub fn wrap(
    launch: &Launch,
    containment: &Containment,
    runtimes: &Runtimes,
    own_folder: Option<&Path>,
) -> Launch {
    if let Containment::Sandbox { root } = containment {
        return sandboxed(launch, *root, runtimes, own_folder);
    }
    let Containment::PidNamespace { user_namespace } = containment else {
        return launch.clone();
    };
    let mut args: Vec<OsString> = Vec::new();
    if *user_namespace {
        args.extend(USER_NAMESPACE.map(OsString::from));
    }
    args.extend(PID_NAMESPACE.map(OsString::from));
    args.push(launch.program.clone());
    args.extend(launch.args.iter().cloned());
    Launch {
        program: "unshare".into(),
        args,
        ..launch.clone()
    }
}

fn sandboxed(
    launch: &Launch,
    root: bool,
    runtimes: &Runtimes,
    own_folder: Option<&Path>,
) -> Launch {
    let Some(helper) = super::helper() else {
        // The probe found it; it cannot have gone since.
        return launch.clone();
    };
    let env = launch
        .env
        .iter()
        .filter(|(k, _)| k != "HOME" && k != "TMPDIR")
        .cloned()
        .chain([
            ("HOME".into(), OsString::from(super::HOME)),
            ("TMPDIR".into(), OsString::from("/tmp")),
        ])
        .collect();
    let inner = Launch {
        env,
        ..launch.clone()
    };
    let enclosed = request(launch, root, runtimes, own_folder)
        .and_then(|request| Ok(super::enclose(request, &inner)?));
    enclosed.unwrap_or_else(|error| super::failing(&error.to_string(), launch, &helper))
}

/// The sandbox of a launch: its program and what it needs, and a copy of the folder of each
/// file its command names (the module, the adapter), at the same place, read-only; for a
/// manifest's program, a copy of its folder only.
fn request(
    launch: &Launch,
    root: bool,
    runtimes: &Runtimes,
    own_folder: Option<&Path>,
) -> Result<super::Request, ContainError> {
    let mut argv: Vec<PathBuf> = launch
        .command_line()
        .into_iter()
        .map(PathBuf::from)
        .collect();
    let mut build = launch.build.clone();
    let cwd_outside = match &launch.current_dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(ContainError::CurrentFolder)?,
    };
    let mut cwd = cwd_outside.clone();
    let path = launch
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    let mut copies = match own_folder {
        // A manifest's folder is its home, writable, as a graded submission's copy is: a
        // build step writes its program there, and `check` and `grade` see one layout.
        Some(folder) => {
            let copies = folder_copies(folder, &argv[0], runtimes, build.is_some())?;
            argv[0] = at_home(folder, &argv[0]);
            if let Some(program) = build.as_mut().and_then(|b| b.argv.first_mut()) {
                *program = at_home(folder, Path::new(program)).into_os_string();
            }
            cwd = PathBuf::from(super::HOME);
            copies
        }
        None => named_copies(&argv, &cwd, runtimes),
    };
    // It starts in the caller's folder (empty unless a copy lands there), so relative names
    // in its command mean what they mean to the caller.
    if !copies.iter().any(|c| cwd.starts_with(c.path())) {
        copies.push(Step::Dir { path: cwd.clone() });
    }
    let (uid, gid) = sandbox_ids(root).map_err(ContainError::Uids)?;
    Ok(super::Request {
        argv,
        path,
        cwd_outside,
        cwd,
        runtimes: runtimes.clone(),
        every_runtime: false,
        readable: launch.readable.clone(),
        copies,
        unreachable: Vec::new(),
        uid,
        gid,
        scratch_bytes: SCRATCH_BYTES,
        cgroup_procs: Vec::new(),
        build,
    })
}

/// Where `path`, a path of the manifest's `folder` on the machine, is inside: under the
/// sandbox's home, where the folder's copy is. Any other word is left as it is.
fn at_home(folder: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(folder) {
        Ok(inner) if path.is_absolute() => Path::new(super::HOME).join(inner),
        _ => path.to_owned(),
    }
}

/// The copies for a command the caller wrote (`--cmd`, a module under its adapter): the
/// folder of each file or folder its words name.
fn named_copies(argv: &[PathBuf], cwd: &Path, runtimes: &Runtimes) -> Vec<Step> {
    let mut copies: Vec<Step> = Vec::new();
    for (index, word) in argv.iter().enumerate() {
        // A declared runtime is laid out with what it needs, and a bare name is one or is
        // refused; any other program is a file of the implementation's own (`./run.sh`),
        // copied with its folder and run only inside.
        if index == 0 && (word.components().count() == 1 || runtimes.trusts(word)) {
            continue;
        }
        let named = cwd.join(word);
        // A folder named as an argument is copied whole: a class path (`java -cp out Main`)
        // names the folder of the classes, never a file.
        let copy = if named.is_file() {
            own_files(&named, cwd)
        } else if index > 0 && named.is_dir() {
            own_files(&named.join("-"), cwd)
        } else {
            continue;
        };
        // One copy per place: a copy inside another (the adapter's folder in the module's
        // project, a `TMPDIR` under it) is already there, in whichever order they come.
        if !copies.iter().any(|c| copy.path().starts_with(c.path())) {
            copies.retain(|c| !c.path().starts_with(copy.path()));
            copies.push(copy);
        }
    }
    copies
}

/// The copies for a manifest's program: its folder (hidden entries and build folders left
/// out), and the folder below them that holds its program when the program is its own and
/// lies in one (`target/release`). Its arguments are never read: a manifest is the
/// implementation's, and a word of it naming a file of the machine must not copy that file.
fn folder_copies(
    folder: &Path,
    program: &Path,
    runtimes: &Runtimes,
    built: bool,
) -> Result<Vec<Step>, ContainError> {
    let mut copies = Vec::new();
    let fits = super::fits(folder);
    if fits {
        copies.push(Step::Copy {
            source: folder.to_owned(),
            path: super::HOME.into(),
            skip_hidden: true,
        });
    }
    // A program the build step makes is made in the copy.
    let own = !built && !runtimes.trusts(program) && program.starts_with(folder);
    if own && !(fits && super::copy_holds(folder, program)) {
        copies.push(match own_files(program, folder) {
            Step::Copy {
                source,
                path,
                skip_hidden,
            } => Step::Copy {
                source,
                path: at_home(folder, &path),
                skip_hidden,
            },
            other => other,
        });
    } else if !fits {
        return Err(ContainError::TooLarge(folder.to_owned()));
    }
    Ok(copies)
}

/// What is copied for a file the command names: the highest folder from the caller's
/// folder down to the file's own that fits a copy's bounds and holds the file (hidden entries
/// and dependency and build folders left out: a program in `target/release` is copied with
/// the folder below `target`), so modules that import or read their project's other files
/// find them; the file alone when no folder fits or it lies in a folder every user shares.
fn own_files(file: &Path, cwd: &Path) -> Step {
    let folder = file.parent().unwrap_or(Path::new("/"));
    let shared = |f: &Path| {
        f.parent().is_none_or(|p| p == Path::new("/"))
            || ["/tmp", "/var/tmp", "/dev/shm"]
                .iter()
                .any(|s| f == Path::new(s))
    };
    let mut candidates: Vec<&Path> = folder
        .ancestors()
        .take_while(|f| f.starts_with(cwd))
        .collect();
    if candidates.is_empty() {
        candidates.push(folder);
    }
    let chosen = candidates
        .into_iter()
        .rev()
        .filter(|f| !shared(f) && super::copy_holds(f, file))
        .find(|f| super::fits(f));
    match chosen {
        Some(folder) => Step::Copy {
            source: folder.to_owned(),
            path: folder.to_owned(),
            skip_hidden: true,
        },
        None => Step::Copy {
            source: file.to_owned(),
            path: folder.to_owned(),
            skip_hidden: true,
        },
    }
}
