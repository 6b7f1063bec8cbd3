//! What the machine allows the sandbox, and the list of protections `parcall doctor` and
//! every gradebook show: each one named, active or not, and why not.

use super::cgroup::{CgroupError, Cgroups};
use super::intake::BOUNDS;
use super::uids::{FIRST_UID, LAST_UID, UIDS_PER_RUN};
use super::{SCRATCH_BYTES, TASKS};
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
    /// Whether the sandbox that starts from nothing ([`super::assemble`]) runs here.
    pub namespaces: bool,
    pub setpriv: bool,
    /// Why it does not, when it does not.
    pub namespace_error: String,
    /// Where control groups can be made, or why they cannot.
    pub cgroups: Result<Cgroups, CgroupError>,
}

/// Starts the smallest sandbox; why it cannot start, if not.
pub fn probe_jail() -> Result<(), String> {
    // SAFETY: geteuid(2) and getegid(2) take no argument and cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    // As root, the probe runs under the last submission uid: no run gives it to a submission
    // for longer than a probe, and nothing it could leave outlives its user namespace.
    let (uid, gid) = if uid == 0 {
        (LAST_UID, LAST_UID)
    } else {
        (uid, gid)
    };
    super::probe(uid, gid)
}

/// What the system-call filter refuses, for the protection's detail: it is in force wherever
/// the sandbox starts, since the sandbox does not start without it.
fn system_call_filter() -> String {
    let families: Vec<&str> = super::seccomp::REFUSED.iter().map(|r| r.family).collect();
    format!(
        "an allowlist modelled on Docker's default profile, in force from exec on (the sandbox does not start without it); refused (EPERM unless said): {}",
        families.join("; ")
    )
}

impl Capabilities {
    /// Probes the machine: are we root, does the sandbox start, is `setpriv` there (for
    /// the weaker sandbox without namespaces), can control groups be made.
    pub fn detect() -> Capabilities {
        // SAFETY: geteuid(2) takes no argument, cannot fail, and reads or writes no memory of
        // this process.
        let root = unsafe { libc::geteuid() } == 0;
        let (namespaces, namespace_error) = match probe_jail() {
            Ok(()) => (true, String::new()),
            Err(error) => (false, error),
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
            namespaces,
            setpriv,
            namespace_error,
            cgroups,
        }
    }

    /// Whether submissions get a uid of their own: as root, in the sandbox or through
    /// `setpriv` without it.
    pub fn own_uid(&self) -> bool {
        self.root && (self.namespaces || self.setpriv)
    }

    /// Whether submissions run in the sandbox that starts from nothing.
    pub fn isolated(&self) -> bool {
        self.namespaces
    }

    fn namespace_detail(&self, what: &str) -> String {
        if self.isolated() {
            what.to_owned()
        } else {
            format!("the sandbox cannot start here: {}", self.namespace_error)
        }
    }

    fn cgroup_detail(&self, what: &str) -> (bool, String) {
        match &self.cgroups {
            Ok(cgroups) if self.isolated() => (true, format!("{what}: {}", cgroups.describe())),
            Ok(_) => (false, "needs the sandbox".to_owned()),
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
        let grouped = self.isolated() && self.cgroups.is_ok();
        let (memory_active, memory_detail) =
            self.cgroup_detail(&limit(limits.memory_bytes.map(|b| b >> 20), "MiB"));
        let (pids_active, pids_detail) = self.cgroup_detail(&format!("{TASKS} tasks"));
        let (cpu_active, cpu_detail) = match &self.cgroups {
            Ok(cgroups) if self.isolated() && cgroups.cpu() => (
                true,
                "one core's worth of CPU time (cpu.max, or cpu.cfs_quota_us on cgroup v1)"
                    .to_owned(),
            ),
            Ok(_) if self.isolated() => (false, "no cpu controller here".to_owned()),
            _ => self.cgroup_detail(""),
        };
        vec![
            always("safe copy in", format!("regular files only (no links, FIFOs, devices), opened without following links or blocking; no hard links; at most {:.1} MiB apparent size, {} files and folders", BOUNDS.bytes as f64 / f64::from(1 << 20), BOUNDS.files)),
            always("only the protocol's descriptors", "every other inherited descriptor is closed before exec".into()),
            always("scrubbed environment", "only PATH, HOME, TMPDIR, LANG and the protocol's variables".into()),
            always("opaque case ids", "requests carry per-run correlation ids, never case ids, names or descriptions".into()),
            always("wall-clock budget per submission", format!("{} s, then its remaining cases are not run", budget.as_secs())),
            always("restart limit", "3 consecutive timeouts, crashes or protocol errors end a function's cases".into()),
            isolated("root that starts from nothing (pivot_root)", "an empty tmpfs holding its interpreter (executable, standard library, the shared libraries it loads), a minimal /dev and /etc and its own copy; the machine's root detached, no other file of the machine reachable"),
            isolated("fresh /proc of its own PID namespace", "only its own processes; the grader's environment, descriptors and executable out of reach"),
            isolated("PID namespace (descendants die with it)", "its first process is PID 1: when it ends, every process it started ends"),
            isolated("network namespace (no network)", "only a loopback interface, down"),
            isolated("IPC namespace (no shared memory or queues between submissions)", "System V and POSIX IPC of its own"),
            isolated("user namespace (keyrings die with it)", "it runs as uid 1000 of a user namespace of its own, mapped to one uid of the machine; its user and persistent keyrings live in that namespace"),
            isolated("session keyring of its own", "a new anonymous session keyring: none of the grader's keys is possessed or reachable"),
            isolated("no capabilities, no_new_privs", "permitted, effective, inheritable, ambient and bounding sets emptied; no_new_privs set; every bound file nosuid"),
            isolated("private size-limited filesystem", &format!("one {} MiB tmpfs of at most {} files and folders for its folder, /tmp, /var/tmp and /dev/shm, gone with the submission; everything else read-only", SCRATCH_BYTES >> 20, super::SCRATCH_INODES)),
            isolated("system-call filter (seccomp, default deny)", &system_call_filter()),
            Protection {
                name: "unprivileged uid per submission",
                active: self.own_uid(),
                detail: if self.own_uid() {
                    format!("uids {FIRST_UID}..={LAST_UID}, a block of {UIDS_PER_RUN} leased per run (flock), blocks overlapping /etc/subuid or /etc/subgid skipped")
                } else if !self.root {
                    "parcall is not running as root".into()
                } else {
                    "neither the sandbox nor setpriv (util-linux) is available".into()
                },
            },
            Protection { name: "memory limit for all its processes together", active: memory_active, detail: memory_detail },
            Protection { name: "task limit for all its processes together", active: pids_active, detail: pids_detail },
            Protection { name: "CPU share (a neighbour cannot slow it past one core)", active: cpu_active, detail: cpu_detail },
            Protection {
                name: "memory limit per process",
                active: limits.memory_bytes.is_some() && !grouped,
                detail: if grouped {
                    "replaced by the memory limit of its control group (a limit per process counts each thread's stack)".into()
                } else {
                    limit(limits.memory_bytes.map(|b| b >> 20), "MiB of private writable memory (RLIMIT_DATA)")
                },
            },
            Protection { name: "CPU time limit", active: limits.cpu_seconds.is_some(), detail: limit(limits.cpu_seconds, "s") },
            Protection {
                name: "process limit per uid",
                active: self.own_uid(),
                detail: if self.own_uid() { format!("{TASKS} processes and threads") } else { "only effective under a uid of its own".into() },
            },
            Protection {
                name: "file size limit",
                active: limits.file_bytes.is_some(),
                detail: limit(limits.file_bytes.map(|b| b >> 20), "MiB"),
            },
        ]
    }
}
