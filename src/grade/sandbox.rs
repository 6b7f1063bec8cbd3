//! Isolation for untrusted submissions. Each is copied in (regular files only, bounded) and
//! runs with a scrubbed environment and resource limits, only the protocol's descriptors
//! open. Where the OS allows, it runs in a sandbox that starts from nothing
//! ([`crate::process::jail`]): an empty root holding only its interpreter, its own copy and a
//! private size-limited `/tmp`, in namespaces of its own, under a uid of its own (a uid leased
//! for the run when parcall is root), with no capability and a keyring of its own; its
//! processes share one control group with memory, task and CPU limits. Without namespaces it
//! runs under a uid of its own (root) or as parcall's user. `parcall doctor` says which.

pub use crate::process::random as seed;

use super::cgroup::{Group, RunGroups};
use super::discover::{Kind, Submission};
use super::intake::{self, Refusal};
pub use super::protections::{Capabilities, Protection};
use super::uids::{Lease, UidError};
use super::workspace::{self, Workspace};
use crate::json::Value;
use crate::process::jail::{
    self, layout::LayoutError, Choice, ChoiceError, RuntimeError, Runtimes, Step,
};
use crate::process::{Launch, Limits};
use crate::spec::{Case, Function, SpecCase};
use crate::subject::launch::{self, Language, Wrap};
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The PATH submissions run with.
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Everything one submission can write, together (its folder, /tmp, /var/tmp, /dev/shm).
pub const SCRATCH_BYTES: u64 = 64 << 20;

/// Tasks (processes and threads) one submission may run together: a thread for each call of
/// the largest batch the suite sends, and the interpreter's own, with room to spare; a fork
/// bomb still stops here.
pub const TASKS: u64 = 1024;

/// The file name a language's adapter has in a submission's folder: hidden, so it is not
/// taken for the student's own.
pub fn adapter_file(language: Language) -> String {
    format!(".{}", language.adapter().0)
}

/// Why a submission could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
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
    /// Its manifest names a program the run did not declare: the student's to fix (or the
    /// teacher's to declare).
    #[error("parcall.json: {0}")]
    Program(#[from] ChoiceError),
    /// A module of a language whose runtime the run lacks.
    #[error("cannot prepare the sandbox: no `{name}` runtime is found on {SANDBOX_PATH}: pass {flag} with its path")]
    NoRuntime {
        name: &'static str,
        flag: &'static str,
    },
    /// Discovery refused it and it reached the sandbox all the same: parcall's mistake.
    #[error("cannot prepare the sandbox: {name} was refused at discovery")]
    NotRunnable { name: String },
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
    #[error("cannot write the canary to a temporary folder: {0}")]
    Canary(std::io::Error),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("runtime `{name}` is the parcall binary, which submissions never reach")]
    ParcallRuntime { name: String },
    #[error("cannot lay out a declared runtime: {0}")]
    RuntimeLayout(#[from] LayoutError),
}

/// The runtime a language's modules run under: its name among the declared runtimes.
fn runtime_of(language: Language) -> &'static str {
    match language {
        Language::Python => "python",
        Language::JavaScript => "node",
    }
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
    if let Some(helper) = jail::helper() {
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
}

/// A submission made ready to run; dropping it removes its copy and its control groups
/// (killing anything still in them).
pub struct Prepared {
    pub launch: Launch,
    folder: PathBuf,
    group: Option<Group>,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        // The group first: nothing may still be writing into the folder.
        self.group.take();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// The canary: a correct implementation that starts a thread for each accepted call. Every
/// run starts it before grading, on the largest batches of the suite ([`canary_cases`]), so
/// a mistake that would fail every submission, or limits that would fail a correct one, is
/// a set-up error, not a class of zeros.
const CANARY: &str = include_str!("sandbox/canary.py");

/// The canary's cases: for each function graded, the case with the largest batch (the most
/// calls dispatched at once).
pub fn canary_cases(cases: &[SpecCase], functions: &[Function]) -> Vec<SpecCase> {
    let size = |case: &SpecCase| -> usize {
        let length = |calls: &Value| match calls {
            Value::List(calls) => calls.len(),
            _ => 0,
        };
        let largest = match &*case.case {
            Case::Exec(c) => c
                .batches
                .iter()
                .map(|b| {
                    let limit = usize::try_from(b.max_parallel.unwrap_or(4)).unwrap_or(usize::MAX);
                    length(&b.calls).min(limit)
                })
                .max(),
            Case::Dedup(c) => c.batches.iter().map(|b| length(&b.calls)).max(),
            Case::Runtime(c) => c.batches.iter().map(|b| length(&b.calls)).max(),
        };
        largest.unwrap_or(0)
    };
    functions
        .iter()
        .filter_map(|function| {
            cases
                .iter()
                .filter(|c| c.function() == *function)
                .max_by_key(|c| (size(c), std::cmp::Reverse(c.id().to_owned())))
                .cloned()
        })
        .collect()
}

impl Sandbox {
    /// Sets up the run: removes what killed runs left, creates and locks the workspace,
    /// leases a block of uids and creates the run's control groups where available.
    pub fn new(runtimes: Runtimes, limits: Limits) -> Result<Sandbox, SandboxError> {
        let capabilities = Capabilities::detect();
        if capabilities.isolated() {
            // Asked once, now, before any submission is read; later layouts reuse the answer.
            for runtime in runtimes.iter() {
                jail::layout::program(&mut jail::layout::Builder::default(), &runtime.program)?;
            }
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
        })
    }

    /// The canary's folder (see `CANARY`) and the submission it is, started as a
    /// submission would be.
    pub fn canary(&self) -> Result<(tempfile::TempDir, Submission), SandboxError> {
        let dir = tempfile::tempdir().map_err(SandboxError::Canary)?;
        let module = dir.path().join("canary.py");
        std::fs::write(&module, CANARY).map_err(SandboxError::Canary)?;
        let submission = Submission {
            name: "canary".into(),
            source: module.clone(),
            module,
            kind: Some(Kind::Module(Language::Python)),
            refused: None,
        };
        Ok((dir, submission))
    }

    /// The limits a submission's processes run with. Where its control group bounds the
    /// memory of all of them, there is no limit per process: that limit counts every
    /// thread's stack whole, not what it uses, and could fail a thread pool that a machine
    /// with the memory runs (so `check` passed what `grade` failed).
    fn launch_limits(&self) -> Limits {
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

    /// Copies the submission into a folder of its own and builds the command that runs it:
    /// the subject's own launch for its kind, with the adapter in the private copy, wrapped
    /// in this sandbox. Slot 0 is the canary's; submission `index` takes slot `index + 1`.
    pub fn prepare(&self, slot: usize, submission: &Submission) -> Result<Prepared, PrepareError> {
        let Some(kind) = &submission.kind else {
            return Err(PrepareError::NotRunnable {
                name: submission.name.clone(),
            });
        };
        let folder = self.workspace.path().join(format!("submission-{slot}"));
        std::fs::create_dir(&folder)?;
        let limits = self.launch_limits();
        let mut prepared = Prepared {
            launch: Launch {
                program: OsString::new(),
                args: Vec::new(),
                env: Vec::new(),
                clear_env: true,
                current_dir: None,
                limits,
                readable: Vec::new(),
                stdin: None,
            },
            folder: folder.clone(),
            group: None,
        };
        let isolated = self.capabilities.isolated();
        // The copy, only parcall's (the sandbox's helper reads it before giving up parcall's
        // rights); without the sandbox it is the folder the submission runs in.
        let stage = folder.join("home");
        std::fs::create_dir(&stage)?;
        std::fs::set_permissions(&stage, std::fs::Permissions::from_mode(0o700))?;
        intake::copy_in(&submission.source, &stage, intake::BOUNDS)?;
        let home = if isolated {
            PathBuf::from(jail::HOME)
        } else {
            stage.clone()
        };
        let inner = match kind {
            Kind::Module(language) => {
                let (_, source) = language.adapter();
                let adapter = stage.join(adapter_file(*language));
                // A student's entry of that name (a file, a folder) would be overwritten or
                // stop the write: it is theirs to rename.
                if std::fs::symlink_metadata(&adapter).is_ok() {
                    return Err(Refusal::Reserved(adapter_file(*language)).into());
                }
                std::fs::write(adapter, source)?;
                let module = short_module_name(&stage, module_in_copy(submission))?;
                let name = runtime_of(*language);
                let runtime = self.runtimes.named(name).ok_or(PrepareError::NoRuntime {
                    name,
                    flag: language.flag(),
                })?;
                language.module(
                    runtime.program.as_os_str(),
                    &home.join(adapter_file(*language)),
                    &home.join(module),
                    limits,
                )
            }
            Kind::Command(manifest) => {
                let (program, args) = manifest.cmd.split_first().expect("a checked manifest");
                // Chosen among the declared runtimes, or a file of its own copy, by name
                // only: nothing of the submission is run or read outside the sandbox.
                let program = match self.runtimes.choose(program, &home)? {
                    Choice::Runtime(path) | Choice::Own(path) => path,
                };
                let args: Vec<OsString> = args.iter().map(OsString::from).collect();
                launch::program(program.as_os_str(), &args, Some(home.clone()), limits)
            }
        };
        let uid = match &self.uids {
            Some(lease) => lease.uid(slot)?,
            None => 0,
        };
        if let Some(groups) = &self.cgroups {
            let memory = self.limits.memory_bytes.unwrap_or(u64::MAX);
            prepared.group = Some(groups.submission(slot, memory, TASKS)?);
        }
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o711))?;
        prepared.launch = if isolated {
            self.jailed(inner, kind, &stage, uid, prepared.group.as_ref())?
        } else {
            if self.capabilities.own_uid() {
                chown_tree(&stage, uid)?;
            }
            Plain {
                sandbox: self,
                uid,
                home,
            }
            .wrap(inner)
        };
        Ok(prepared)
    }

    /// The launch of `inner` in a sandbox of its own (see [`jail`]).
    fn jailed(
        &self,
        inner: Launch,
        kind: &Kind,
        stage: &Path,
        uid: u32,
        group: Option<&Group>,
    ) -> Result<Launch, PrepareError> {
        let helper = jail::helper().ok_or_else(|| {
            std::io::Error::other("the parcall binary that runs the sandbox is not found")
        })?;
        // SAFETY: geteuid(2) and getegid(2) take no argument and cannot fail.
        let (own_uid, own_gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let (uid, gid) = if self.uids.is_some() {
            (uid, uid)
        } else {
            (own_uid, own_gid)
        };
        let plan = jail::assemble(jail::Request {
            readable: Vec::new(),
            argv: inner
                .command_line()
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            path: SANDBOX_PATH.into(),
            cwd_outside: PathBuf::from("/"),
            cwd: jail::HOME.into(),
            runtimes: self.runtimes.clone(),
            // A program of its own may start any declared runtime; a module needs only its
            // language's.
            every_runtime: matches!(kind, Kind::Command(_)),
            copies: vec![Step::Copy {
                source: stage.to_owned(),
                path: jail::HOME.into(),
                skip_hidden: false,
            }],
            unreachable: vec![helper.clone()],
            uid,
            gid,
            scratch_bytes: SCRATCH_BYTES,
            cgroup_procs: group.map(Group::procs_files).unwrap_or_default(),
        })?;
        let env = sandbox_env(Path::new(jail::HOME), "/tmp".into());
        let launch = Launch {
            env,
            clear_env: true,
            ..inner
        };
        Ok(jail::launch(&plan, &launch, &helper))
    }

    /// Where this run's submissions ran, for the gradebook.
    pub fn site(&self) -> RunSite {
        RunSite {
            workspace: self.workspace.path().to_owned(),
            uids: self.uids.as_ref().map(Lease::block),
        }
    }
}

/// The module's path within the submission's copy.
fn module_in_copy(submission: &Submission) -> PathBuf {
    if submission.source.is_dir() {
        let module = &submission.module;
        module
            .strip_prefix(&submission.source)
            .unwrap_or(module)
            .to_owned()
    } else {
        PathBuf::from(submission.module.file_name().unwrap_or_default())
    }
}

/// The longest module file name the adapter can announce: the protocol bounds every name in
/// the handshake to this many bytes.
const MODULE_NAME_BYTES: usize = 200;

/// The module's path in the copy, renamed `submission.EXT` in the copy when its file name is
/// longer than the handshake allows: a correct submission is not a protocol error for its
/// name.
fn short_module_name(stage: &Path, module: PathBuf) -> std::io::Result<PathBuf> {
    let name = module.file_name().unwrap_or_default();
    if name.len() <= MODULE_NAME_BYTES {
        return Ok(module);
    }
    let extension = module.extension().unwrap_or_default().to_string_lossy();
    let short = module.with_file_name(format!("submission.{extension}"));
    if std::fs::symlink_metadata(stage.join(&short)).is_ok() {
        return Ok(module);
    }
    std::fs::rename(stage.join(&module), stage.join(&short))?;
    Ok(short)
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

/// The weaker sandbox where namespaces are not allowed: `setpriv` to the submission's uid
/// when parcall is root, else the command itself; the environment scrubbed, the folder the
/// submission's copy.
struct Plain<'a> {
    sandbox: &'a Sandbox,
    uid: u32,
    home: PathBuf,
}

impl Wrap for Plain<'_> {
    fn wrap(&self, inner: Launch) -> Launch {
        let mut target = inner.command_line().into_iter();
        let (program, args) = if self.sandbox.capabilities.own_uid() {
            let uid = self.uid;
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
            env: sandbox_env(&self.home, self.home.clone().into_os_string()),
            clear_env: true,
            current_dir: Some(self.home.clone()),
            limits: inner.limits,
            readable: Vec::new(),
            stdin: None,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry named like the adapter parcall adds refuses that submission, with the
    /// reason: it no longer makes the run incomplete.
    #[test]
    fn an_entry_named_like_the_adapter_is_refused() {
        let class = tempfile::tempdir().unwrap();
        let folder = class.path().join("mallory");
        std::fs::create_dir_all(folder.join(adapter_file(Language::Python))).unwrap();
        std::fs::write(folder.join("main.py"), "").unwrap();
        let runtimes = declare_runtimes(&[], OsStr::new("python3"), OsStr::new("node")).unwrap();
        let sandbox = Sandbox::new(runtimes, Limits::default()).unwrap();
        let submission = Submission {
            name: "mallory".into(),
            source: folder.clone(),
            module: folder.join("main.py"),
            kind: Some(Kind::Module(Language::Python)),
            refused: None,
        };
        match sandbox.prepare(1, &submission) {
            Err(PrepareError::Refused(Refusal::Reserved(name))) => {
                assert_eq!(name, adapter_file(Language::Python))
            }
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("prepared"),
        }
    }

    /// The sandbox asks the subject's builder for the launch `check` would run, with the
    /// adapter in the submission's private copy, and only wraps it: the command it runs last
    /// is the builder's (its interpreter found on the sandbox's PATH).
    #[test]
    fn a_submission_runs_the_subjects_launch_inside_the_wrap() {
        let class = tempfile::tempdir().unwrap();
        let runtimes = declare_runtimes(&[], OsStr::new("python3"), OsStr::new("node")).unwrap();
        let sandbox = Sandbox::new(runtimes, Limits::default()).unwrap();
        for (file, language, interpreter) in [
            ("alice.py", Language::Python, "python3"),
            ("bob.mjs", Language::JavaScript, "node"),
        ] {
            let module = class.path().join(file);
            std::fs::write(&module, "").unwrap();
            let submission = Submission {
                name: file.into(),
                source: module.clone(),
                module,
                kind: Some(Kind::Module(language)),
                refused: None,
            };
            let slot = usize::from(language == Language::JavaScript) + 1;
            let prepared = match sandbox.prepare(slot, &submission) {
                Ok(prepared) => prepared,
                Err(PrepareError::Layout(e)) => {
                    eprintln!("skipped {file}: {e}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            assert!(prepared.launch.clear_env);
            let home = PathBuf::from(&prepared.launch.env[1].1);
            let built = language.module(
                OsStr::new(interpreter),
                &home.join(adapter_file(language)),
                &home.join(file),
                Limits::default(),
            );
            let built = built.command_line();
            let line = if prepared
                .launch
                .args
                .first()
                .is_some_and(|a| a == jail::ENTRY)
            {
                let plan = jail::carried(&prepared.launch).unwrap();
                plan.argv.into_iter().map(OsString::from).collect()
            } else {
                prepared.launch.command_line()
            };
            assert!(
                line[1..].ends_with(&built[1..]),
                "{line:?} does not end with {built:?}"
            );
        }
    }
}
