//! What the machine allows the sandbox, and the list of protections `parcall doctor` and
//! every gradebook show: each one named, active or not, and why not.

use super::cgroup::{CgroupError, Cgroups};
use super::intake::BOUNDS;
use super::sandbox::{NAMESPACES, SCRATCH_BYTES};
use super::uids::{FIRST_UID, LAST_UID, UIDS_PER_RUN};
use crate::process::Limits;
use std::process::{Command, Stdio};
use std::time::Duration;

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
    /// Where control groups can be made, or why they cannot.
    pub cgroups: Result<Cgroups, CgroupError>,
}

impl Capabilities {
    /// Probes the machine: are we root, does `unshare` create the namespaces, is `setpriv`
    /// there, can control groups be made.
    pub fn detect() -> Capabilities {
        // SAFETY: geteuid(2) takes no argument, cannot fail, and reads or writes no memory of
        // this process.
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
        let cgroups = if root {
            Cgroups::detect()
        } else {
            Err(CgroupError::NotRoot)
        };
        Capabilities {
            root,
            namespaces: namespaces && root,
            setpriv,
            namespace_error,
            cgroups,
        }
    }

    /// Whether submissions get a uid of their own.
    pub fn own_uid(&self) -> bool {
        self.root && self.setpriv
    }

    /// Whether the namespaced sandbox (hidden folders, private filesystem) is used.
    pub fn isolated(&self) -> bool {
        self.namespaces && self.setpriv
    }

    fn namespace_detail(&self, what: &str) -> String {
        if self.isolated() {
            what.to_owned()
        } else if !self.root {
            "parcall is not running as root".to_owned()
        } else if !self.setpriv {
            "setpriv (util-linux) not found".to_owned()
        } else {
            format!("unshare failed: {}", self.namespace_error)
        }
    }

    fn cgroup_detail(&self, what: &str) -> (bool, String) {
        match &self.cgroups {
            Ok(cgroups) if self.isolated() => (true, format!("{what}: {}", cgroups.describe())),
            Ok(_) => (false, "needs the namespaced sandbox".to_owned()),
            Err(reason) => (false, reason.to_string()),
        }
    }

    /// Every protection, active or not, for `parcall doctor` and the gradebook.
    pub fn protections(&self, limits: &Limits, budget: Duration) -> Vec<Protection> {
        let limit = |value: Option<u64>, unit: &str| {
            value.map_or("off".to_owned(), |v| format!("{v} {unit}"))
        };
        let always = |name, detail: String| Protection {
            name,
            active: true,
            detail,
        };
        let isolated = |name, what: &str| Protection {
            name,
            active: self.isolated(),
            detail: self.namespace_detail(what),
        };
        let (memory_active, memory_detail) =
            self.cgroup_detail(&limit(limits.memory_bytes.map(|b| b >> 20), "MiB"));
        let (pids_active, pids_detail) = self.cgroup_detail(&limit(limits.processes, "tasks"));
        vec![
            always("safe copy in", format!("regular files only (no links, FIFOs, devices), opened without following links or blocking; at most {} MiB apparent size, {} files", BOUNDS.bytes >> 20, BOUNDS.files)),
            always("only the protocol's descriptors", "every other inherited descriptor is closed before exec".into()),
            always("scrubbed environment", "only PATH, HOME, TMPDIR, LANG and the protocol's variables".into()),
            always("opaque case ids", "requests carry per-run correlation ids, never case ids, names or descriptions".into()),
            always("wall-clock budget per submission", format!("{} s, then its remaining cases are not run", budget.as_secs())),
            always("restart limit", "3 consecutive timeouts, crashes or protocol errors end a function's cases".into()),
            Protection {
                name: "unprivileged uid per submission",
                active: self.own_uid(),
                detail: if self.own_uid() {
                    format!("uids {FIRST_UID}..={LAST_UID}, a block of {UIDS_PER_RUN} leased per run (flock), blocks overlapping /etc/subuid or /etc/subgid skipped")
                } else if !self.root {
                    "parcall is not running as root".into()
                } else {
                    "setpriv (util-linux) not found".into()
                },
            },
            isolated("PID namespace (descendants die with it)", "unshare --pid --fork --kill-child"),
            isolated("network namespace (no network)", "unshare --net"),
            isolated("IPC namespace (no shared memory or queues between submissions)", "unshare --ipc"),
            isolated("mount namespace (class folders, results and parcall hidden)", "unshare --mount: tmpfs over folders, /dev/null over files"),
            isolated("private size-limited filesystem", &format!("one {} MiB tmpfs for its folder, /tmp, /var/tmp, /dev/shm and /run/lock, gone with the submission", SCRATCH_BYTES >> 20)),
            Protection { name: "memory limit for all its processes together", active: memory_active, detail: memory_detail },
            Protection { name: "task limit for all its processes together", active: pids_active, detail: pids_detail },
            Protection {
                name: "memory limit per process",
                active: limits.memory_bytes.is_some(),
                detail: limit(limits.memory_bytes.map(|b| b >> 20), "MiB of address space"),
            },
            Protection { name: "CPU time limit", active: limits.cpu_seconds.is_some(), detail: limit(limits.cpu_seconds, "s") },
            Protection {
                name: "process limit per uid",
                active: limits.processes.is_some() && self.own_uid(),
                detail: if self.own_uid() { limit(limits.processes, "processes") } else { "only effective under a uid of its own".into() },
            },
            Protection {
                name: "file size limit",
                active: limits.file_bytes.is_some(),
                detail: limit(limits.file_bytes.map(|b| b >> 20), "MiB"),
            },
        ]
    }
}
