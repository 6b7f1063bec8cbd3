//! Isolation for untrusted submissions. Each is copied in (regular files only, bounded) and
//! runs with a scrubbed environment and resource limits, only the protocol's descriptors
//! open; when parcall runs as root, under a uid of its own; where the OS allows, in new PID,
//! network, IPC and mount namespaces (util-linux `unshare`) where the class folders, the
//! results and parcall itself (binary, spec, source tree) are hidden, everything writable
//! (its folder, /tmp, /var/tmp, /dev/shm, /run/lock) is one size-limited tmpfs that dies with
//! it, and its processes share one control group. `parcall doctor` reports which are active.

use super::cgroup::{Group, RunGroups};
use super::discover::{Kind, Submission};
use super::intake::{self, Refusal};
pub use super::protections::{Capabilities, Protection};
use super::uids::{Lease, UidError};
use super::workspace::{self, Workspace};
use crate::process::{Launch, Limits};
use crate::subject::launch::{self, Language, Wrap};
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The `unshare` flags of a submission's namespaces: its own PID namespace (everything it
/// starts dies with it), no network, its own IPC objects and mounts.
pub const NAMESPACES: [&str; 7] = [
    "--pid",
    "--fork",
    "--kill-child",
    "--net",
    "--ipc",
    "--mount",
    "--mount-proc",
];

/// The PATH submissions run with.
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Everything one submission can write, together (its folder, /tmp, /var/tmp, /dev/shm,
/// /run/lock), where namespaces allow a private filesystem.
pub const SCRATCH_BYTES: u64 = 64 << 20;

/// The file name a language's adapter has in a submission's folder: hidden, so it is not
/// taken for the student's own.
fn adapter_file(language: Language) -> String {
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
}

/// The interpreters submissions run under, as named on the command line (found on the
/// sandbox's PATH when not a path).
#[derive(Debug, Clone)]
pub struct Interpreters {
    pub python: OsString,
    pub node: OsString,
}

impl Interpreters {
    fn of(&self, language: Language) -> &OsStr {
        match language {
            Language::Python => &self.python,
            Language::JavaScript => &self.node,
        }
    }
}

/// The folders submissions run in, and what they must not see.
pub struct Sandbox {
    pub capabilities: Capabilities,
    workspace: Workspace,
    /// Hidden from every submission (class folders, results, parcall's own files).
    hidden: Vec<PathBuf>,
    interpreters: Interpreters,
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

/// The script that runs as root inside the new namespaces: join the control groups, hide
/// folders under empty tmpfs mounts (files under /dev/null), mount one size-limited tmpfs for
/// everything writable, copy the staged submission in, then drop to the submission's uid and
/// exec the adapter. Any step that fails stops the submission (`set -e`): isolation never
/// quietly weakens, and a failure that hits every submission is caught before grading by
/// the canary run.
const INSIDE: &str = r#"set -eu
uid=$1 size=$2 stage=$3 work=$4
shift 4
while [ "$1" != "--" ]; do echo 0 > "$1"; shift; done
shift
while [ "$1" != "--" ]; do
  if [ -d "$1" ]; then mount -t tmpfs -o size=4k,mode=0 parcall-hidden "$1"; else mount --bind /dev/null "$1"; fi
  shift
done
shift
mount -t tmpfs -o "size=$size,mode=0755,nosuid,nodev" parcall-scratch "$work"
mkdir -m 0700 "$work/home"
cp -R "$stage/." "$work/home/"
chown -R "$uid:$uid" "$work/home"
for d in tmp var-tmp shm lock; do mkdir -m 1777 "$work/$d"; done
mount --bind "$work/tmp" /tmp
mount --bind "$work/var-tmp" /var/tmp
if [ -d /dev/shm ]; then mount --bind "$work/shm" /dev/shm; fi
if [ -d /run/lock ]; then mount --bind "$work/lock" /run/lock; fi
cd "$work/home"
exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs -- "$@"
"#;

/// The modules of the canary: the smallest submission that starts, run once before grading
/// so a mistake that would fail every submission is a set-up error, not a class of zeros.
const CANARY: &str = "def execute_tool_calls(calls, max_parallel=4):\n    return []\n\n\ndef run_parallel_calls(tools, calls):\n    return {}\n";

impl Sandbox {
    /// Sets up the run: removes what killed runs left, creates and locks the workspace,
    /// leases a block of uids and creates the run's control groups where available.
    pub fn new(
        hidden: Vec<PathBuf>,
        interpreters: Interpreters,
        limits: Limits,
    ) -> Result<Sandbox, SandboxError> {
        let capabilities = Capabilities::detect();
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
            Some(cgroups) if capabilities.namespaces => Some(
                cgroups
                    .create_run(&workspace.name())
                    .map_err(SandboxError::ControlGroup)?,
            ),
            _ => None,
        };
        let mut hidden: Vec<PathBuf> = hidden
            .into_iter()
            .chain(parcall_files())
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        hidden.sort();
        // A path inside another hidden one is hidden with it (and mounting over it after
        // its ancestor is covered would fail: it no longer exists there).
        let mut outermost: Vec<PathBuf> = Vec::new();
        for path in hidden {
            if !outermost.iter().any(|o| path.starts_with(o)) {
                outermost.push(path);
            }
        }
        let hidden = outermost;
        Ok(Sandbox {
            capabilities,
            workspace,
            hidden,
            interpreters,
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
        let mut prepared = Prepared {
            launch: Launch {
                program: OsString::new(),
                args: Vec::new(),
                env: Vec::new(),
                clear_env: true,
                current_dir: None,
                limits: self.limits,
            },
            folder: folder.clone(),
            group: None,
        };
        let isolated = self.capabilities.namespaces && self.capabilities.setpriv;
        // Namespaces: a root-only staging copy, copied into the private tmpfs inside.
        // Without: the copy is the folder the submission runs in.
        let stage = folder.join(if isolated { "stage" } else { "home" });
        let work = folder.join("work");
        std::fs::create_dir(&stage)?;
        std::fs::set_permissions(&stage, std::fs::Permissions::from_mode(0o700))?;
        std::fs::create_dir(&work)?;
        intake::copy_in(&submission.source, &stage, intake::BOUNDS)?;
        let home = if isolated {
            work.join("home")
        } else {
            stage.clone()
        };
        let inner = match kind {
            Kind::Module(language) => {
                let (_, source) = language.adapter();
                std::fs::write(stage.join(adapter_file(*language)), source)?;
                let relative = if submission.source.is_dir() {
                    let module = &submission.module;
                    module
                        .strip_prefix(&submission.source)
                        .unwrap_or(module)
                        .to_owned()
                } else {
                    PathBuf::from(submission.module.file_name().unwrap_or_default())
                };
                language.module(
                    self.interpreters.of(*language),
                    &home.join(adapter_file(*language)),
                    &home.join(relative),
                    self.limits,
                )
            }
            Kind::Command(manifest) => {
                let (program, args) = manifest.cmd.split_first().expect("a checked manifest");
                let args: Vec<OsString> = args.iter().map(OsString::from).collect();
                launch::program(OsStr::new(program), &args, Some(home.clone()), self.limits)
            }
        };
        let uid = match &self.uids {
            Some(lease) => lease.uid(slot)?,
            None => 0,
        };
        if isolated {
            if let Some(groups) = &self.cgroups {
                let memory = self.limits.memory_bytes.unwrap_or(u64::MAX);
                let pids = self.limits.processes.unwrap_or(u64::MAX);
                prepared.group = Some(groups.submission(slot, memory, pids)?);
            }
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o711))?;
        } else if self.capabilities.own_uid() {
            chown_tree(&stage, uid)?;
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o711))?;
        }
        let wrap = Wrapped {
            sandbox: self,
            uid,
            procs: prepared
                .group
                .as_ref()
                .map(Group::procs_files)
                .unwrap_or_default(),
            folder,
            stage,
            work,
            home,
            isolated,
        };
        prepared.launch = wrap.wrap(inner);
        Ok(prepared)
    }

    /// Where this run's submissions ran, for the gradebook.
    pub fn site(&self) -> RunSite {
        RunSite {
            workspace: self.workspace.path().to_owned(),
            uids: self.uids.as_ref().map(Lease::block),
        }
    }
}

/// The sandbox around one submission's launch: in namespaces, `unshare` running `INSIDE`,
/// which execs the launch's command under `setpriv`; without them, `setpriv` alone when
/// submissions get uids of their own, else the command itself. Either way the environment
/// is scrubbed to the sandbox's own and the folder is the submission's private copy.
struct Wrapped<'a> {
    sandbox: &'a Sandbox,
    uid: u32,
    procs: Vec<PathBuf>,
    folder: PathBuf,
    stage: PathBuf,
    work: PathBuf,
    home: PathBuf,
    isolated: bool,
}

impl Wrap for Wrapped<'_> {
    fn wrap(&self, inner: Launch) -> Launch {
        let target = launch::command_line(&inner);
        let (program, args, current_dir) = if self.isolated {
            (
                OsString::from("unshare"),
                self.inside(target),
                self.folder.clone(),
            )
        } else {
            let (program, args) = self.without_namespaces(target);
            (program, args, self.stage.clone())
        };
        let tmp: OsString = if self.isolated {
            "/tmp".into()
        } else {
            self.home.clone().into_os_string()
        };
        Launch {
            program,
            args,
            env: vec![
                ("PATH".into(), SANDBOX_PATH.into()),
                ("HOME".into(), self.home.clone().into_os_string()),
                ("TMPDIR".into(), tmp),
                ("LANG".into(), "C.UTF-8".into()),
            ],
            clear_env: true,
            current_dir: Some(current_dir),
            limits: inner.limits,
        }
    }
}

impl Wrapped<'_> {
    /// `unshare NAMESPACES -- sh -c INSIDE parcall-sandbox UID SIZE STAGE WORK PROCS --
    /// HIDDEN -- TARGET`.
    fn inside(&self, target: Vec<OsString>) -> Vec<OsString> {
        let mut args: Vec<OsString> = NAMESPACES.iter().map(OsString::from).collect();
        args.extend(["--", "sh", "-c", INSIDE, "parcall-sandbox"].map(OsString::from));
        args.extend([
            self.uid.to_string().into(),
            SCRATCH_BYTES.to_string().into(),
        ]);
        args.extend([self.stage.clone().into(), self.work.clone().into()]);
        args.extend(self.procs.iter().map(|p| p.clone().into_os_string()));
        args.push("--".into());
        args.extend(
            self.sandbox
                .hidden
                .iter()
                .map(|p| p.clone().into_os_string()),
        );
        args.push("--".into());
        args.extend(target);
        args
    }

    fn without_namespaces(&self, target: Vec<OsString>) -> (OsString, Vec<OsString>) {
        if self.sandbox.capabilities.own_uid() {
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
            let mut target = target.into_iter();
            let program = target.next().expect("the program");
            (program, target.collect())
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

/// parcall's own files, which would let a submission look answers up or run parcall as an
/// oracle: the running binary, any `parcall` on the submissions' PATH, and the source tree
/// it was built from (spec, reference and example solutions) if it is on this machine.
fn parcall_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::env::current_exe().into_iter().collect();
    files.extend(
        SANDBOX_PATH
            .split(':')
            .map(|dir| Path::new(dir).join("parcall"))
            .filter(|p| p.exists()),
    );
    let tree = Path::new(env!("CARGO_MANIFEST_DIR"));
    if tree.join("Cargo.toml").is_file() {
        files.push(tree.to_owned());
    }
    files
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

    /// The sandbox asks the subject's builder for the launch `check` would run, with the
    /// adapter in the submission's private copy, and only wraps it: its command ends with
    /// the builder's, unchanged.
    #[test]
    fn a_submission_runs_the_subjects_launch_inside_the_wrap() {
        let class = tempfile::tempdir().unwrap();
        let limits = Limits {
            processes: Some(64),
            ..Limits::default()
        };
        let interpreters = Interpreters {
            python: "python3".into(),
            node: "node".into(),
        };
        let sandbox = Sandbox::new(vec![], interpreters, limits).unwrap();
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
            let prepared = sandbox.prepare(slot, &submission).unwrap();
            let home = PathBuf::from(&prepared.launch.env[1].1);
            let built = language.module(
                OsStr::new(interpreter),
                &home.join(adapter_file(language)),
                &home.join(file),
                limits,
            );
            let line = launch::command_line(&prepared.launch);
            assert!(
                line.ends_with(&launch::command_line(&built)),
                "{line:?} does not end with {built:?}"
            );
            assert!(prepared.launch.clear_env);
        }
    }
}
