//! Isolation for untrusted submissions. Each runs in a working folder of its own, with a
//! scrubbed environment and resource limits; when parcall runs as root, under a uid of its
//! own; where the OS allows, in new PID, network and mount namespaces (util-linux `unshare`),
//! where the class folder and the results are hidden under empty tmpfs mounts and /tmp is
//! private. `parcall doctor` reports which of these are active here.

use crate::process::{Launch, Limits};
use crate::subject::adapters::PYTHON_ADAPTER;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `unshare` flags of a submission's namespaces: its own PID namespace (everything it
/// starts dies with it), no network, its own mounts.
const NAMESPACES: [&str; 6] = [
    "--pid",
    "--fork",
    "--kill-child",
    "--net",
    "--mount",
    "--mount-proc",
];

/// The PATH submissions run with.
pub const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Where submission uids start. Each grading process takes a block of
/// [`UIDS_PER_RUN`] uids chosen by its pid, so two runs on one machine never share a uid
/// (which would let one run's submissions signal, or count against the process limit of,
/// another's).
pub const FIRST_UID: u32 = 100_000;
/// Submissions one grading run can isolate by uid.
pub const UIDS_PER_RUN: u32 = 1_000;

/// The uid of submission `index` in this process's block.
pub fn submission_uid(index: usize) -> u32 {
    FIRST_UID + (std::process::id() % 10_000) * UIDS_PER_RUN + (index as u32 % UIDS_PER_RUN)
}

/// One protection and whether it is active on this machine, with the reason when not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protection {
    pub name: &'static str,
    pub active: bool,
    pub detail: String,
}

/// What this machine allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    pub root: bool,
    pub namespaces: bool,
    pub setpriv: bool,
    pub namespace_error: String,
}

impl Capabilities {
    /// Probes the machine: are we root, does `unshare` create namespaces, is `setpriv` there.
    pub fn detect() -> Capabilities {
        // SAFETY: geteuid has no side effects.
        let root = unsafe { libc::geteuid() } == 0;
        let probe = Command::new("unshare")
            .args(NAMESPACES)
            .arg("true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        let (namespaces, namespace_error) = match probe {
            Ok(output) if output.status.success() => (true, String::new()),
            Ok(output) => (
                false,
                String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            ),
            Err(error) => (false, format!("cannot run `unshare`: {error}")),
        };
        let setpriv = Command::new("setpriv")
            .arg("--help")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        Capabilities {
            root,
            namespaces: namespaces && root,
            setpriv,
            namespace_error,
        }
    }

    /// Whether submissions get a uid of their own.
    pub fn own_uid(&self) -> bool {
        self.root && self.setpriv
    }

    /// Every protection, active or not, for `parcall doctor` and the gradebook.
    pub fn protections(&self, limits: &Limits) -> Vec<Protection> {
        let not_root = "parcall is not running as root".to_owned();
        let ns_detail = if self.namespaces {
            "util-linux unshare: --pid --fork --kill-child".to_owned()
        } else if !self.root {
            not_root.clone()
        } else {
            format!("unshare failed: {}", self.namespace_error)
        };
        let limit = |value: Option<u64>, unit: &str| {
            value.map_or("off".to_owned(), |v| format!("{v} {unit}"))
        };
        vec![
            Protection {
                name: "own working folder",
                active: true,
                detail: "a fresh folder per submission, removed afterwards".into(),
            },
            Protection {
                name: "scrubbed environment",
                active: true,
                detail: "only PATH, HOME, TMPDIR, LANG and the protocol's variables".into(),
            },
            Protection {
                name: "unprivileged uid per submission",
                active: self.own_uid(),
                detail: if self.own_uid() {
                    format!(
                        "uids from {} (a block of {UIDS_PER_RUN} per run), folders mode 0700",
                        submission_uid(0)
                    )
                } else if !self.root {
                    not_root.clone()
                } else {
                    "setpriv (util-linux) not found".into()
                },
            },
            Protection {
                name: "PID namespace (descendants die with it)",
                active: self.namespaces,
                detail: ns_detail.clone(),
            },
            Protection {
                name: "network namespace (no network)",
                active: self.namespaces,
                detail: ns_detail.clone(),
            },
            Protection {
                name: "mount namespace (class folder and results hidden, private /tmp)",
                active: self.namespaces,
                detail: ns_detail,
            },
            Protection {
                name: "memory limit",
                active: limits.memory_bytes.is_some(),
                detail: limit(limits.memory_bytes.map(|b| b >> 20), "MiB of address space"),
            },
            Protection {
                name: "CPU time limit",
                active: limits.cpu_seconds.is_some(),
                detail: limit(limits.cpu_seconds, "s"),
            },
            Protection {
                name: "process limit",
                active: limits.processes.is_some() && self.own_uid(),
                detail: if self.own_uid() {
                    limit(limits.processes, "processes")
                } else {
                    "only effective under a uid of its own".into()
                },
            },
            Protection {
                name: "file size limit",
                active: limits.file_bytes.is_some(),
                detail: limit(limits.file_bytes.map(|b| b >> 20), "MiB"),
            },
        ]
    }
}

/// The folders submissions run in, and what they must not see.
pub struct Sandbox {
    pub capabilities: Capabilities,
    base: tempfile::TempDir,
    /// Hidden from every submission (the class folders, the results).
    hidden: Vec<PathBuf>,
    python: OsString,
    limits: Limits,
}

/// A submission made ready to run.
pub struct Prepared {
    pub launch: Launch,
    pub workdir: PathBuf,
}

/// The script that runs inside the new namespaces as root: hide folders under empty tmpfs
/// mounts, make /tmp private, then drop to the submission's uid and exec the adapter. A mount
/// that fails weakens the isolation (`parcall doctor` says so) but never the grade.
const INSIDE: &str = r#"
while [ "$1" != "--" ]; do mount -t tmpfs -o size=4k,mode=0 parcall-hidden "$1"; shift; done
shift
for d in /tmp /var/tmp /dev/shm; do [ -d "$d" ] && mount -t tmpfs -o mode=1777,size=64m parcall-tmp "$d"; done
exec setpriv --reuid="$PARCALL_SANDBOX_UID" --regid="$PARCALL_SANDBOX_UID" --clear-groups --no-new-privs -- "$@"
"#;

impl Sandbox {
    pub fn new(hidden: Vec<PathBuf>, python: OsString, limits: Limits) -> std::io::Result<Sandbox> {
        let capabilities = Capabilities::detect();
        // Under /run when root (not world-writable, unlike /tmp, which is made private
        // inside the namespace); the usual temporary folder otherwise.
        let base = if capabilities.root && Path::new("/run").is_dir() {
            tempfile::Builder::new()
                .prefix("parcall-grade-")
                .tempdir_in("/run")?
        } else {
            tempfile::Builder::new()
                .prefix("parcall-grade-")
                .tempdir()?
        };
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o711))?;
        let hidden = hidden
            .into_iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        Ok(Sandbox {
            capabilities,
            base,
            hidden,
            python,
            limits,
        })
    }

    /// Copies the submission into a folder of its own and builds the command that runs it.
    pub fn prepare(&self, index: usize, source: &Path, module: &Path) -> std::io::Result<Prepared> {
        let workdir = self.base.path().join(format!("submission-{index}"));
        std::fs::create_dir(&workdir)?;
        let module_name = module.file_name().unwrap_or_default();
        if source.is_dir() {
            copy_tree(source, &workdir, 0)?;
        } else {
            std::fs::copy(source, workdir.join(module_name))?;
        }
        let adapter = workdir.join(".parcall_adapter.py");
        std::fs::write(&adapter, PYTHON_ADAPTER)?;
        let uid = submission_uid(index);
        if self.capabilities.own_uid() {
            chown_tree(&workdir, uid)?;
        }
        std::fs::set_permissions(&workdir, std::fs::Permissions::from_mode(0o700))?;
        let module_in_workdir = if source.is_dir() {
            workdir.join(
                module
                    .strip_prefix(source)
                    .unwrap_or(Path::new(module_name)),
            )
        } else {
            workdir.join(module_name)
        };
        let target: Vec<OsString> = vec![
            self.python.clone(),
            "-I".into(),
            "-B".into(),
            adapter.into_os_string(),
            module_in_workdir.into_os_string(),
        ];
        let (program, args) = self.wrap(target, uid);
        let env = vec![
            ("PATH".into(), SANDBOX_PATH.into()),
            ("HOME".into(), workdir.clone().into_os_string()),
            ("TMPDIR".into(), workdir.clone().into_os_string()),
            ("LANG".into(), "C.UTF-8".into()),
            ("PARCALL_SANDBOX_UID".into(), uid.to_string().into()),
        ];
        let launch = Launch {
            program,
            args,
            env,
            clear_env: true,
            current_dir: Some(workdir.clone()),
            limits: self.limits,
        };
        Ok(Prepared { launch, workdir })
    }

    fn wrap(&self, target: Vec<OsString>, uid: u32) -> (OsString, Vec<OsString>) {
        let caps = &self.capabilities;
        if caps.namespaces && caps.setpriv {
            let fixed = NAMESPACES
                .into_iter()
                .chain(["--", "sh", "-c", INSIDE, "parcall-sandbox"]);
            let mut args: Vec<OsString> = fixed.map(OsString::from).collect();
            args.extend(self.hidden.iter().map(|p| p.clone().into_os_string()));
            args.push("--".into());
            args.extend(target);
            ("unshare".into(), args)
        } else if caps.own_uid() {
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
            let program = target.next().expect("the interpreter");
            (program, target.collect())
        }
    }
}

/// Copies a submission folder (its files, not symlinks that could point outside it).
fn copy_tree(from: &Path, to: &Path, depth: usize) -> std::io::Result<()> {
    if depth > 8 {
        return Ok(());
    }
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target, depth + 1)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

fn chown_tree(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::chown(path, Some(uid), Some(uid))?;
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid)?;
        }
    }
    Ok(())
}
