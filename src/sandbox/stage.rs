//! Staging a graded submission: each run gets a workspace of its own, a block of uids and
//! control groups where the machine allows; each submission gets a folder in it holding its
//! copy (read as data, regular files only, bounded: [`super::intake`]), a uid, a control group
//! with memory, task and CPU limits, and then its launch in the sandbox that starts from
//! nothing ([`super::assemble`]), or without namespaces under a uid of its own (root) or as
//! parcall's user, with a scrubbed environment. `parcall doctor` says which.

use super::cgroup::{Group, RunGroups};
use super::intake::{self, Refusal};
use super::layout::LayoutError;
use super::protections::Capabilities;
use super::uids::{Lease, UidError};
use super::workspace::{self, Workspace};
use super::{RuntimeError, Runtimes, Step, SCRATCH_BYTES};
use crate::process::{Launch, Limits};
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The PATH submissions run with.
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Tasks (processes and threads) one submission may run together: a thread for each call of
/// the largest batch the suite sends, and the interpreter's own, with room to spare; a fork
/// bomb still stops here.
pub const TASKS: u64 = 1024;

/// Why a submission could not be staged.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// The submission broke a rule: the student's to fix.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// parcall could not set the sandbox up: the run's fault.
    #[error("cannot prepare the sandbox: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot prepare the sandbox: {0}")]
    Uid(#[from] UidError),
    #[error("cannot prepare the sandbox: {0}")]
    Layout(#[from] LayoutError),
}

/// Why the sandbox of a run could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot create the workspace in {}: {source}", .parent.display())]
    Workspace {
        parent: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot lease the submissions' uids: {0}")]
    Uids(#[from] UidError),
    #[error("cannot create the run's control group: {0}")]
    ControlGroup(std::io::Error),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("runtime `{name}` is the parcall binary, which submissions never reach")]
    ParcallRuntime { name: String },
    #[error("cannot lay out a declared runtime: {0}")]
    RuntimeLayout(#[from] LayoutError),
}

/// The runtimes of a run: `--runtime` declarations, then `--python` and `--node` where found,
/// then the sandbox's shell and `env`, all found on the submissions' PATH ([`SANDBOX_PATH`]),
/// before any submission is read.
pub fn declare_runtimes(
    declared: &[(String, OsString)],
    python: &OsStr,
    node: &OsStr,
) -> Result<Runtimes, SandboxError> {
    let search = OsStr::new(SANDBOX_PATH);
    let runtimes = Runtimes::declare(declared, search)?
        .or_found("python", python, search)
        .or_found("node", node, search);
    // The parcall binary answers every case itself (`parcall reference`): a submission that
    // could start it would score without code of its own.
    if let Some(helper) = super::helper() {
        if let Some(runtime) = runtimes.holding(&helper) {
            return Err(SandboxError::ParcallRuntime {
                name: runtime.name.clone(),
            });
        }
    }
    Ok(runtimes)
}

/// The folders submissions are staged in, and how they run.
pub struct Sandbox {
    pub capabilities: Capabilities,
    workspace: Workspace,
    runtimes: Runtimes,
    limits: Limits,
    uids: Option<Lease>,
    cgroups: Option<RunGroups>,
    /// Folders every submission may read, beside what its runtime needs (`--readable`).
    readable: Vec<PathBuf>,
}

/// A submission's folder in the workspace, with its copy; dropping it removes the folder and
/// its control group (killing anything still in it).
pub struct Staged {
    slot: usize,
    folder: PathBuf,
    group: Option<Group>,
    /// The copy on this machine, only parcall's until it is enclosed: where parcall adds its
    /// own files (an adapter) to it.
    pub copy: PathBuf,
    /// Where the submission finds its copy when it runs: [`super::HOME`] in the sandbox, the
    /// copy itself without one.
    pub home: PathBuf,
}

impl Drop for Staged {
    fn drop(&mut self) {
        // The group first: nothing may still be writing into the folder.
        self.group.take();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

impl Sandbox {
    /// Sets up the run: removes what killed runs left, creates and locks the workspace,
    /// leases a block of uids and creates the run's control groups where available.
    pub fn new(runtimes: Runtimes, limits: Limits) -> Result<Sandbox, SandboxError> {
        // Each runtime is asked once, now, before any submission is read (later layouts reuse
        // the answer), all at once and while the machine's protections are probed: the
        // interpreters' start-ups overlap instead of adding up.
        let (capabilities, asked) = std::thread::scope(|scope| {
            let asking: Vec<_> = runtimes
                .iter()
                .map(|runtime| {
                    scope.spawn(move || {
                        let mut builder = super::layout::Builder::default();
                        super::layout::program(&mut builder, &runtime.program).map(|_| ())
                    })
                })
                .collect();
            let capabilities = Capabilities::detect();
            let asked: Vec<Result<(), LayoutError>> = asking
                .into_iter()
                .map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect();
            (capabilities, asked)
        });
        if capabilities.isolated() {
            asked.into_iter().collect::<Result<(), LayoutError>>()?;
        }
        let parent = workspace::parent(capabilities.root);
        let cgroups = capabilities.cgroups.as_ref().ok();
        for removed in workspace::sweep_abandoned(&parent, cgroups) {
            say!("parcall: removed {removed}, left by a run that was killed");
        }
        let workspace = Workspace::create(&parent).map_err(|source| SandboxError::Workspace {
            parent: parent.clone(),
            source,
        })?;
        let uids = if capabilities.own_uid() {
            Some(Lease::acquire(Path::new(super::uids::LEASE_DIR))?)
        } else {
            None
        };
        let run_groups = match cgroups {
            Some(cgroups) if capabilities.isolated() => Some(
                cgroups
                    .create_run(&workspace.name())
                    .map_err(SandboxError::ControlGroup)?,
            ),
            _ => None,
        };
        Ok(Sandbox {
            capabilities,
            workspace,
            runtimes,
            limits,
            uids,
            cgroups: run_groups,
            readable: Vec::new(),
        })
    }

    /// Lets every submission read `folders` too, bound read-only at their place: a library a
    /// runtime loads from outside what laying it out finds.
    pub fn with_readable(mut self, folders: Vec<PathBuf>) -> Sandbox {
        self.readable = folders;
        self
    }

    /// The programs submissions may start (see [`Runtimes`]).
    pub fn runtimes(&self) -> &Runtimes {
        &self.runtimes
    }

    /// The limits a submission's processes run with. Where its control group bounds the
    /// memory of all of them, there is no limit per process: that limit counts every
    /// thread's stack whole, not what it uses, and could fail a thread pool that a machine
    /// with the memory runs (so `check` passed what `grade` failed).
    pub fn launch_limits(&self) -> Limits {
        let grouped = self.cgroups.is_some();
        Limits {
            memory_bytes: if grouped {
                None
            } else {
                self.limits.memory_bytes
            },
            group_memory_bytes: self.limits.memory_bytes.filter(|_| grouped),
            // A process limit counts every process of the uid: only a uid of its own makes it
            // the submission's alone.
            processes: self.uids.as_ref().map(|_| TASKS),
            ..self.limits
        }
    }

    /// Copies `source` (a file or a folder) into a folder of its own, slot `slot` of the
    /// workspace: slot 0 is the canary's; submission `index` takes slot `index + 1`.
    pub fn stage(&self, slot: usize, source: &Path) -> Result<Staged, StageError> {
        let folder = self.workspace.path().join(format!("submission-{slot}"));
        std::fs::create_dir(&folder)?;
        let mut staged = Staged {
            slot,
            folder: folder.clone(),
            group: None,
            copy: folder.join("home"),
            home: PathBuf::new(),
        };
        // The copy, only parcall's (the sandbox's helper reads it before giving up parcall's
        // rights); without the sandbox it is the folder the submission runs in.
        std::fs::create_dir(&staged.copy)?;
        std::fs::set_permissions(&staged.copy, std::fs::Permissions::from_mode(0o700))?;
        intake::copy_in(source, &staged.copy, intake::BOUNDS)?;
        staged.home = if self.capabilities.isolated() {
            PathBuf::from(super::HOME)
        } else {
            staged.copy.clone()
        };
        Ok(staged)
    }

    /// The launch that runs `inner` (a command that names the copy by [`Staged::home`]) for
    /// the staged submission: under its uid and control group, in the sandbox where the
    /// machine allows one. `every_runtime`: a program of the submission's own may start any
    /// declared runtime; a module needs only its language's.
    pub fn enclose(
        &self,
        staged: &mut Staged,
        inner: Launch,
        every_runtime: bool,
    ) -> Result<Launch, StageError> {
        let uid = match &self.uids {
            Some(lease) => lease.uid(staged.slot)?,
            None => 0,
        };
        if let Some(groups) = &self.cgroups {
            let memory = self.limits.memory_bytes.unwrap_or(u64::MAX);
            staged.group = Some(groups.submission(staged.slot, memory, TASKS)?);
        }
        std::fs::set_permissions(&staged.folder, std::fs::Permissions::from_mode(0o711))?;
        if self.capabilities.isolated() {
            return self.jailed(inner, every_runtime, staged, uid);
        }
        if self.capabilities.own_uid() {
            chown_tree(&staged.copy, uid)?;
        }
        Ok(self.plain(inner, uid, &staged.home))
    }

    /// The launch of `inner` in a sandbox of its own (see [`super::assemble`]).
    fn jailed(
        &self,
        inner: Launch,
        every_runtime: bool,
        staged: &Staged,
        uid: u32,
    ) -> Result<Launch, StageError> {
        // SAFETY: geteuid(2) and getegid(2) take no argument and cannot fail.
        let (own_uid, own_gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let (uid, gid) = if self.uids.is_some() {
            (uid, uid)
        } else {
            (own_uid, own_gid)
        };
        let request = super::Request {
            readable: self.readable.clone(),
            argv: inner
                .command_line()
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            path: SANDBOX_PATH.into(),
            cwd_outside: PathBuf::from("/"),
            cwd: super::HOME.into(),
            runtimes: self.runtimes.clone(),
            every_runtime,
            copies: vec![Step::Copy {
                source: staged.copy.clone(),
                path: super::HOME.into(),
                skip_hidden: false,
            }],
            // The parcall binary answers every case: never within a submission's reach.
            unreachable: super::helper().into_iter().collect(),
            uid,
            gid,
            scratch_bytes: SCRATCH_BYTES,
            cgroup_procs: staged
                .group
                .as_ref()
                .map(Group::procs_files)
                .unwrap_or_default(),
            build: inner.build.clone(),
        };
        let launch = Launch {
            env: sandbox_env(Path::new(super::HOME), "/tmp".into()),
            clear_env: true,
            ..inner
        };
        Ok(super::enclose(request, &launch)?)
    }

    /// The weaker sandbox where namespaces are not allowed: `setpriv` to the submission's uid
    /// when parcall is root, else the command itself; the environment scrubbed, the folder
    /// the submission's copy.
    fn plain(&self, inner: Launch, uid: u32, home: &Path) -> Launch {
        // The build runs as the submission does, under its uid: inside `setpriv`.
        let inner = crate::process::build::driven(&inner);
        let mut target = inner.command_line().into_iter();
        let (program, args) = if self.capabilities.own_uid() {
            let mut args: Vec<OsString> = vec![
                format!("--reuid={uid}").into(),
                format!("--regid={uid}").into(),
                "--clear-groups".into(),
                "--no-new-privs".into(),
                "--".into(),
            ];
            args.extend(target);
            ("setpriv".into(), args)
        } else {
            let program = target.next().expect("the program");
            (program, target.collect())
        };
        Launch {
            program,
            args,
            env: sandbox_env(home, home.as_os_str().to_owned()),
            clear_env: true,
            current_dir: Some(home.to_owned()),
            limits: inner.limits,
            readable: Vec::new(),
            stdin: None,
            build: None,
        }
    }

    /// Where this run's submissions ran, for the gradebook.
    pub fn site(&self) -> RunSite {
        RunSite {
            workspace: self.workspace.path().to_owned(),
            uids: self.uids.as_ref().map(Lease::block),
        }
    }
}

/// The whole environment of a submission.
fn sandbox_env(home: &Path, tmp: OsString) -> Vec<(OsString, OsString)> {
    vec![
        ("PATH".into(), SANDBOX_PATH.into()),
        ("HOME".into(), home.as_os_str().to_owned()),
        ("TMPDIR".into(), tmp),
        ("LANG".into(), "C.UTF-8".into()),
    ]
}

/// Where one run's submissions ran on this machine: what an administrator needs to tell its
/// processes, files and control groups from another run's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSite {
    /// The run's workspace; its control groups carry the folder's name.
    pub workspace: PathBuf,
    /// The run's block of submission uids, when submissions get uids of their own.
    pub uids: Option<std::ops::RangeInclusive<u32>>,
}

fn chown_tree(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}
