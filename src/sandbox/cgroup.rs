//! Limits on a submission's processes taken together: a control group per submission with a
//! memory limit (swap included where the kernel accounts it), a process limit and, where the
//! cpu controller is there, one core's worth of CPU time, so a neighbour spinning on every
//! core cannot push a submission past its deadlines. cgroup v2 (`memory.max`, `pids.max`,
//! `cpu.max`) where the unified hierarchy has the controllers, v1 (`memory.limit_in_bytes`,
//! `pids.max`, `cpu.cfs_quota_us`) otherwise; `parcall doctor` says which, or why none.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const ROOT: &str = "/sys/fs/cgroup";

/// Why this machine gives parcall no control groups. Kept comparable and clonable, as the
/// machine's [`Capabilities`](super::protections::Capabilities) are, so I/O errors are kept
/// as their text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CgroupError {
    #[error("parcall is not running as root")]
    NotRoot,
    #[error("cgroup v2 without the memory and pids controllers: `{controllers}`")]
    MissingControllers { controllers: String },
    #[error("cannot read /proc/self/cgroup: {reason}")]
    OwnGroupUnreadable { reason: String },
    #[error("no cgroup v1 `{controller}` hierarchy")]
    NoV1Hierarchy { controller: String },
    #[error("{path} is not mounted here")]
    NotMounted { path: PathBuf },
    #[error("cannot create a control group: {reason}")]
    CannotCreate { reason: String },
}

/// Which cgroup interface this machine offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V2,
    V1,
}

/// Where this machine lets parcall create control groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cgroups {
    pub version: Version,
    /// The parents run groups are created in: one (v2), or memory, pids and maybe cpu (v1).
    parents: Vec<PathBuf>,
    /// Whether the cpu controller is there (v2: enabled with the others; v1: the third
    /// parent).
    cpu: bool,
}

/// The CPU time a submission may use per period: one core.
const CPU_PERIOD_US: u64 = 100_000;
const CPU_QUOTA_US: u64 = 100_000;

impl Cgroups {
    /// Finds a writable hierarchy with the memory and pids controllers, proving it by
    /// creating and removing a group. The error says why there is none.
    pub fn detect() -> Result<Cgroups, CgroupError> {
        let v2 = std::fs::read_to_string(Path::new(ROOT).join("cgroup.controllers"));
        let found = match v2 {
            Ok(controllers) => {
                let has = |c: &str| controllers.split_whitespace().any(|x| x == c);
                if !(has("memory") && has("pids")) {
                    return Err(CgroupError::MissingControllers {
                        controllers: controllers.trim().to_owned(),
                    });
                }
                Cgroups {
                    version: Version::V2,
                    parents: vec![PathBuf::from(ROOT)],
                    cpu: has("cpu"),
                }
            }
            Err(_) => {
                let mut parents = vec![v1_parent("memory")?, v1_parent("pids")?];
                let cpu = v1_parent("cpu").ok();
                let has_cpu = cpu.is_some();
                parents.extend(cpu);
                Cgroups {
                    version: Version::V1,
                    parents,
                    cpu: has_cpu,
                }
            }
        };
        // Unique per call: two probes of one process must not collide.
        static PROBES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let probe = format!("parcall-probe-{}-{n}", std::process::id());
        found
            .create_run(&probe)
            .map_err(|e| CgroupError::CannotCreate {
                reason: e.to_string(),
            })?;
        Ok(found)
    }

    /// Whether submissions get their CPU share.
    pub fn cpu(&self) -> bool {
        self.cpu
    }

    /// The controllers a v2 run group delegates.
    fn v2_controllers(&self) -> &'static str {
        if self.cpu {
            "+memory +pids +cpu"
        } else {
            "+memory +pids"
        }
    }

    /// One line for `parcall doctor`.
    pub fn describe(&self) -> String {
        let shown: Vec<String> = self
            .parents
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        match self.version {
            Version::V2 => format!(
                "cgroup v2 memory.max, memory.swap.max, pids.max{} under {}",
                if self.cpu { ", cpu.max" } else { "" },
                shown.join(", ")
            ),
            Version::V1 => format!(
                "cgroup v1 memory.limit_in_bytes, pids.max{} under {}",
                if self.cpu { ", cpu.cfs_quota_us" } else { "" },
                shown.join(", ")
            ),
        }
    }

    /// Creates the run's groups (`name` in every parent), removed when the value drops.
    pub fn create_run(&self, name: &str) -> io::Result<RunGroups> {
        let mut dirs = Vec::new();
        for parent in &self.parents {
            if self.version == Version::V2 {
                // Only the root group may both hold processes and delegate controllers.
                write(
                    &parent.join("cgroup.subtree_control"),
                    self.v2_controllers(),
                )?;
            }
            let dir = parent.join(name);
            std::fs::create_dir(&dir)?;
            dirs.push(dir);
        }
        let run = RunGroups {
            version: self.version,
            dirs,
            cpu: self.cpu,
        };
        if self.version == Version::V2 {
            write(
                &run.dirs[0].join("cgroup.subtree_control"),
                self.v2_controllers(),
            )?;
        }
        Ok(run)
    }

    /// The run groups under every parent whose name starts with `prefix`.
    pub fn runs_named(&self, prefix: &str) -> Vec<(String, RunGroups)> {
        let Some(first) = self.parents.first() else {
            return Vec::new();
        };
        let names = std::fs::read_dir(first)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(prefix));
        names
            .map(|name| {
                let dirs = self.parents.iter().map(|p| p.join(&name)).collect();
                let run = RunGroups {
                    version: self.version,
                    dirs,
                    cpu: self.cpu,
                };
                (name, run)
            })
            .collect()
    }
}

/// The v1 parent of `controller`: parcall's own group in that hierarchy, so the grader's
/// own limits still bound everything it starts.
fn v1_parent(controller: &str) -> Result<PathBuf, CgroupError> {
    let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| {
        CgroupError::OwnGroupUnreadable {
            reason: e.to_string(),
        }
    })?;
    let path = own
        .lines()
        .filter_map(|l| {
            // `hierarchy-id:controllers:path`; the path may itself hold colons.
            let mut fields = l.splitn(3, ':').skip(1);
            Some((fields.next()?, fields.next()?))
        })
        .find(|(controllers, _)| controllers.split(',').any(|c| c == controller))
        .map(|(_, path)| path.trim_start_matches('/').to_owned())
        .ok_or_else(|| CgroupError::NoV1Hierarchy {
            controller: controller.to_owned(),
        })?;
    let parent = Path::new(ROOT).join(controller).join(path);
    if parent.is_dir() {
        Ok(parent)
    } else {
        Err(CgroupError::NotMounted { path: parent })
    }
}

fn write(path: &Path, value: &str) -> io::Result<()> {
    std::fs::write(path, value)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// The groups of one grading run.
#[derive(Debug)]
pub struct RunGroups {
    version: Version,
    dirs: Vec<PathBuf>,
    cpu: bool,
}

impl RunGroups {
    /// A group for submission `index` limited to `memory` bytes and `pids` tasks together,
    /// and to one core where the cpu controller is there.
    pub fn submission(&self, index: usize, memory: u64, pids: u64) -> io::Result<Group> {
        let dirs: Vec<PathBuf> = self
            .dirs
            .iter()
            .map(|d| d.join(format!("submission-{index}")))
            .collect();
        for dir in &dirs {
            std::fs::create_dir(dir)?;
        }
        let group = Group { dirs };
        match self.version {
            Version::V2 => {
                let dir = &group.dirs[0];
                write(&dir.join("memory.max"), &memory.to_string())?;
                // Absent without swap accounting; there is then no swap to escape to.
                let _ = write(&dir.join("memory.swap.max"), "0");
                write(&dir.join("pids.max"), &pids.to_string())?;
                if self.cpu {
                    write(
                        &dir.join("cpu.max"),
                        &format!("{CPU_QUOTA_US} {CPU_PERIOD_US}"),
                    )?;
                }
            }
            Version::V1 => {
                write(
                    &group.dirs[0].join("memory.limit_in_bytes"),
                    &memory.to_string(),
                )?;
                let _ = write(
                    &group.dirs[0].join("memory.memsw.limit_in_bytes"),
                    &memory.to_string(),
                );
                write(&group.dirs[1].join("pids.max"), &pids.to_string())?;
                if let Some(cpu) = group.dirs.get(2).filter(|_| self.cpu) {
                    write(&cpu.join("cpu.cfs_period_us"), &CPU_PERIOD_US.to_string())?;
                    write(&cpu.join("cpu.cfs_quota_us"), &CPU_QUOTA_US.to_string())?;
                }
            }
        }
        Ok(group)
    }
}

impl Drop for RunGroups {
    fn drop(&mut self) {
        for dir in &self.dirs {
            remove_tree(dir);
        }
    }
}

/// One submission's groups. Dropping kills whatever is still in them and removes them.
#[derive(Debug)]
pub struct Group {
    dirs: Vec<PathBuf>,
}

impl Group {
    /// The files a process writes `0` to in order to join the group (every hierarchy).
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        for dir in &self.dirs {
            remove_tree(dir);
        }
    }
}

/// Kills every process in `dir` and its children groups, then removes them. The kernel
/// refuses to remove a group until its last task is gone, which takes a moment after
/// SIGKILL: retried for up to a second.
pub fn remove_tree(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&entry.path());
            }
        }
    }
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        for pid in std::fs::read_to_string(dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse::<i32>().ok())
        {
            // SAFETY: kill(2) takes integers only and touches no memory of this process; the
            // pid is in a group parcall made for a submission, which this process is not in.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() || Instant::now() > deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs for real where the machine allows it, and says why not otherwise.
    #[test]
    fn a_submission_group_carries_its_limits_and_is_removed() {
        let cgroups = match Cgroups::detect() {
            Ok(c) => c,
            Err(reason) => {
                eprintln!("skipped: no usable cgroups here ({reason})");
                return;
            }
        };
        let run = cgroups
            .create_run(&format!("parcall-unit-{}", std::process::id()))
            .unwrap();
        let group = run.submission(7, 64 << 20, 32).unwrap();
        let (memory_file, pids_dir) = match cgroups.version {
            Version::V2 => ("memory.max", &group.dirs[0]),
            Version::V1 => ("memory.limit_in_bytes", &group.dirs[1]),
        };
        let memory = std::fs::read_to_string(group.dirs[0].join(memory_file)).unwrap();
        assert_eq!(memory.trim(), (64u64 << 20).to_string());
        let pids = std::fs::read_to_string(pids_dir.join("pids.max")).unwrap();
        assert_eq!(pids.trim(), "32");
        if cgroups.cpu() {
            let (file, expected) = match cgroups.version {
                Version::V2 => (group.dirs[0].join("cpu.max"), "100000 100000"),
                Version::V1 => (group.dirs[2].join("cpu.cfs_quota_us"), "100000"),
            };
            assert_eq!(std::fs::read_to_string(file).unwrap().trim(), expected);
        }
        let dirs = group.dirs.clone();
        drop(group);
        assert!(dirs.iter().all(|d| !d.exists()));
        let run_dirs = run.dirs.clone();
        drop(run);
        assert!(run_dirs.iter().all(|d| !d.exists()));
    }
}
