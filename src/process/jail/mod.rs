//! A sandbox that starts from nothing, as bubblewrap and nsjail do: an implementation runs as
//! PID 1 of new user, mount, PID, network, IPC and UTS namespaces, under a root that is an
//! empty tmpfs into which only what its interpreter needs is bound read-only (the executable,
//! its standard library, the shared libraries it loads, a minimal `/etc` and `/dev`), plus its
//! own copy of its files, a private size-limited `/tmp` and a fresh `/proc` of its own PID
//! namespace. The old root is detached after `pivot_root`, so nothing else of the machine is
//! reachable, hidden or not. It runs as an unprivileged uid of the new user namespace with every
//! capability dropped, `no_new_privs` set and a session keyring of its own; its user keyrings
//! live in that user namespace and die with it, so no later uid inherits them.
//!
//! The work is done by the parcall binary itself, re-executed with [`ENTRY`] as its first
//! argument and a [`Plan`]: it stays outside the namespaces (so the implementation never sees
//! the parcall binary in its `/proc`), forks the process that creates them, writes its uid map
//! and joins it to its control groups, and reports how it ended as its own exit status.

mod enter;
pub mod layout;
pub mod seccomp;
mod tree;

pub use enter::SCRATCH_INODES;

use super::Launch;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The first argument that makes the parcall binary run a plan instead of its command line.
pub const ENTRY: &str = "__parcall-jail";

/// The uid and gid an implementation has inside its user namespace (mapped to a uid of the
/// machine chosen by the caller).
pub const INSIDE_ID: u32 = 1000;

/// Its home: its own copy of its files, writable, on the private tmpfs.
pub const HOME: &str = "/home/sandbox";

/// The exit status of the helper when the sandbox could not be set up (its stderr says why).
pub const SETUP_FAILED: i32 = 125;

/// Everything the helper needs to build one sandbox and start the implementation in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The machine's uid and gid the implementation's [`INSIDE_ID`] maps to.
    pub uid: u32,
    pub gid: u32,
    /// What the new root holds, created in this order.
    pub steps: Vec<Step>,
    /// What everything writable (home, /tmp, /var/tmp, /dev/shm) may hold together.
    pub scratch_bytes: u64,
    /// `cgroup.procs` files the sandbox's first process is written to before it starts.
    #[serde(with = "bytes_list")]
    pub cgroup_procs: Vec<PathBuf>,
    /// The folder the implementation starts in, inside.
    #[serde(with = "bytes")]
    pub cwd: PathBuf,
    /// The program (a path inside, or a name searched on the environment's PATH) and its
    /// arguments, program name first.
    #[serde(with = "bytes_list")]
    pub argv: Vec<PathBuf>,
}

/// One thing in the new root. Paths are absolute paths inside, which are also the host's paths
/// of what is bound or copied (the implementation sees the machine's own layout, reduced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Dir {
        #[serde(with = "bytes")]
        path: PathBuf,
    },
    Symlink {
        #[serde(with = "bytes")]
        path: PathBuf,
        #[serde(with = "bytes")]
        target: PathBuf,
    },
    File {
        #[serde(with = "bytes")]
        path: PathBuf,
        contents: String,
    },
    /// The host's file or folder at the same path, read-only (a device stays writable).
    Bind {
        #[serde(with = "bytes")]
        path: PathBuf,
        device: bool,
    },
    /// A copy of the host's file or folder `source` (regular files and folders only, bounded),
    /// read by the helper with the caller's rights: at `path` read-only, or into [`HOME`]
    /// writable when `path` is [`HOME`].
    Copy {
        #[serde(with = "bytes")]
        source: PathBuf,
        #[serde(with = "bytes")]
        path: PathBuf,
        /// Leave out hidden entries and dependency and build folders (a caller's checkout).
        skip_hidden: bool,
    },
}

impl Step {
    /// Where the step puts something, inside.
    pub fn path(&self) -> &Path {
        match self {
            Step::Dir { path }
            | Step::Symlink { path, .. }
            | Step::File { path, .. }
            | Step::Bind { path, .. }
            | Step::Copy { path, .. } => path,
        }
    }
}

/// The sandbox of one implementation, before its root is laid out.
#[derive(Debug, Clone)]
pub struct Request {
    /// The implementation's command: the program (a path, or a name searched on `path`),
    /// then its arguments, unchanged.
    pub argv: Vec<PathBuf>,
    /// The PATH the program is searched on.
    pub path: OsString,
    /// Where a relative program name is found on the machine.
    pub cwd_outside: PathBuf,
    /// Where it starts, inside.
    pub cwd: PathBuf,
    /// More programs to bind with what they need, when they exist (a shell for scripts).
    pub also: Vec<PathBuf>,
    /// Folders bound read-only at their place, whole (see [`crate::process::Launch::readable`]).
    pub readable: Vec<PathBuf>,
    /// Its own files (copies).
    pub copies: Vec<Step>,
    pub uid: u32,
    pub gid: u32,
    pub scratch_bytes: u64,
    pub cgroup_procs: Vec<PathBuf>,
}

/// Lays the root out for a request: the program and what it needs, the base, the copies.
pub fn assemble(request: Request) -> Result<Plan, layout::LayoutError> {
    let mut builder = layout::Builder::default();
    let base_error = |reason| layout::LayoutError {
        program: "the sandbox".into(),
        reason,
    };
    layout::base(&mut builder).map_err(base_error)?;
    let mut argv = request.argv;
    // A relative path (`./run.sh`) is the implementation's own file, in its copy.
    let own_file = |name: &Path| name.is_relative() && name.components().count() > 1;
    if let Some(name) = argv.first().filter(|n| !own_file(n)) {
        let found = layout::resolve(name.as_os_str(), &request.path, &request.cwd_outside);
        if let Some(found) = found {
            let program = layout::program(&mut builder, &found)?;
            // Python behind a launcher script runs as the interpreter the script would start.
            if program != found {
                argv[0] = program;
            }
        }
    }
    for program in &request.also {
        if program.is_file() {
            layout::program(&mut builder, program)?;
        }
    }
    for folder in &request.readable {
        layout::readable(&mut builder, folder)?;
    }
    for copy in request.copies {
        builder.push(copy);
    }
    Ok(Plan {
        uid: request.uid,
        gid: request.gid,
        steps: builder.finish(),
        scratch_bytes: request.scratch_bytes,
        cgroup_procs: request.cgroup_procs,
        cwd: request.cwd,
        argv,
    })
}

/// Starts the smallest sandbox (a shell that exits at once) as the machine's `uid` and
/// `gid`; why it cannot start, if not.
pub fn probe(uid: u32, gid: u32) -> Result<(), String> {
    let helper = helper().ok_or("the parcall binary that runs the sandbox is not found")?;
    let plan = assemble(Request {
        argv: ["/bin/sh", "-c", "exit 0"].map(Into::into).to_vec(),
        path: "/usr/bin:/bin".into(),
        cwd_outside: "/".into(),
        cwd: "/".into(),
        also: Vec::new(),
        readable: Vec::new(),
        copies: Vec::new(),
        uid,
        gid,
        scratch_bytes: 1 << 20,
        cgroup_procs: Vec::new(),
    })
    .map_err(|e| e.to_string())?;
    let output = std::process::Command::new(&helper)
        .arg(ENTRY)
        .arg(serde_json::to_string(&plan).map_err(|e| e.to_string())?)
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", helper.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(stderr.trim().trim_start_matches(MESSAGE_PREFIX).to_owned())
}

/// Whether a folder's copy (hidden entries and dependency folders left out) stays within
/// the bounds of a copy.
pub fn fits(folder: &Path) -> bool {
    tree::read(folder, true).is_ok()
}

/// A launch that fails at once with `message` on its stderr, exit status [`SETUP_FAILED`]:
/// what runs when a sandbox could not be laid out, so the implementation never runs outside
/// one and the reason is reported where its output would be.
pub fn failing(message: &str, inner: &Launch, helper: &Path) -> Launch {
    Launch {
        program: helper.as_os_str().to_owned(),
        args: vec![ENTRY.into(), format!("{FAILED_MARK}{message}").into()],
        env: Vec::new(),
        clear_env: true,
        current_dir: Some(PathBuf::from("/")),
        limits: inner.limits,
        readable: Vec::new(),
    }
}

/// Starts the argument of a helper that is only to report a failure.
const FAILED_MARK: &str = "!";

/// The launch that runs `plan` through the helper: its program is the parcall binary, and the
/// implementation's environment, limits and descriptors are the given launch's.
pub fn launch(plan: &Plan, inner: &Launch, helper: &Path) -> Launch {
    let text = serde_json::to_string(plan).expect("a plan is plain data");
    Launch {
        program: helper.as_os_str().to_owned(),
        args: vec![ENTRY.into(), text.into()],
        env: inner.env.clone(),
        clear_env: inner.clear_env,
        current_dir: Some(PathBuf::from("/")),
        limits: inner.limits,
        readable: Vec::new(),
    }
}

/// Runs the plan given on the command line when this process was started as the helper; the
/// exit status to end with. `None` for any other command line.
pub fn entered() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != ENTRY {
        return None;
    }
    let text = args.next().unwrap_or_default();
    if let Some(message) = text.to_str().and_then(|t| t.strip_prefix(FAILED_MARK)) {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("{MESSAGE_PREFIX}{message}\n").as_bytes(),
        );
        return Some(SETUP_FAILED);
    }
    Some(enter::run(&text))
}

/// The parcall binary that serves as the helper: this executable when it is parcall, else
/// (a test harness linking the library) the `parcall` built beside it.
pub fn helper() -> Option<PathBuf> {
    static HELPER: OnceLock<Option<PathBuf>> = OnceLock::new();
    HELPER
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            if exe.file_name().is_some_and(|n| n == "parcall") {
                return Some(exe);
            }
            let dir = exe.parent()?;
            [dir.join("parcall"), dir.parent()?.join("parcall")]
                .into_iter()
                .find(|p| p.is_file())
        })
        .clone()
}

/// The helper's exit status for a plan that could not be parsed or set up is
/// [`SETUP_FAILED`]; its message starts with this.
pub const MESSAGE_PREFIX: &str = "parcall sandbox: ";

mod bytes {
    //! Paths as byte arrays: a student's file name need not be UTF-8.
    use super::*;
    pub(super) fn serialize<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        path.as_os_str().as_bytes().serialize(s)
    }
    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Ok(PathBuf::from(OsString::from_vec(Vec::<u8>::deserialize(
            d,
        )?)))
    }
}

mod bytes_list {
    use super::*;
    pub(super) fn serialize<S: serde::Serializer>(
        paths: &[PathBuf],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let all: Vec<&[u8]> = paths.iter().map(|p| p.as_os_str().as_bytes()).collect();
        all.serialize(s)
    }
    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<PathBuf>, D::Error> {
        Ok(Vec::<Vec<u8>>::deserialize(d)?
            .into_iter()
            .map(|b| PathBuf::from(OsString::from_vec(b)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `script` with python3 in a sandbox; its stdout and stderr, or `None` (with the
    /// reason printed) where the helper or namespaces are not available.
    fn jailed_python(script: &str) -> Option<(String, String, Option<i32>)> {
        let helper = helper().or_else(|| {
            eprintln!("skipped: no parcall binary built beside the tests");
            None
        })?;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("probe.py"), script).unwrap();
        // SAFETY: geteuid/getegid take no argument and cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let plan = assemble(Request {
            argv: vec![
                "python3".into(),
                "-I".into(),
                format!("{HOME}/probe.py").into(),
            ],
            path: "/usr/local/bin:/usr/bin:/bin".into(),
            cwd_outside: "/".into(),
            cwd: HOME.into(),
            also: vec![],
            readable: vec![],
            copies: vec![Step::Copy {
                source: dir.path().to_owned(),
                path: HOME.into(),
                skip_hidden: false,
            }],
            uid: if uid == 0 { 0x7ff0_0000 } else { uid },
            gid: if uid == 0 { 0x7ff0_0000 } else { gid },
            scratch_bytes: 8 << 20,
            cgroup_procs: vec![],
        })
        .unwrap();
        let inner = Launch {
            program: "python3".into(),
            args: vec![],
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            clear_env: true,
            current_dir: None,
            limits: crate::process::Limits::default(),
            readable: Vec::new(),
        };
        let launch = launch(&plan, &inner, &helper);
        let output = std::process::Command::new(&launch.program)
            .args(&launch.args)
            .env_clear()
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if stderr.contains("cannot create the namespaces") {
            eprintln!("skipped: {stderr}");
            return None;
        }
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        Some((stdout, stderr, output.status.code()))
    }

    #[test]
    fn a_sandboxed_python_sees_only_its_files_and_the_standard_library() {
        let script = r#"
import os, sys
found = []
for top, dirs, files in os.walk('/'):
    if top.startswith('/proc'):
        dirs[:] = []
        continue
    found += [os.path.join(top, f) for f in files if f.endswith('.py')]
outside = [f for f in found if not f.startswith(sys.base_prefix + '/lib/python') and not f.startswith('/home/sandbox/')]
print('OUTSIDE', outside[:5])
print('PIDS', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
print('UID', os.getuid())
print('CAPS', [l for l in open('/proc/self/status') if l.startswith('Cap')])
print('ROOT', sorted(os.listdir('/')))
open('/home/sandbox/written', 'w').write('x')
open('/tmp/written', 'w').write('x')
try:
    open('/etc/written', 'w')
    print('ETC-WRITABLE')
except OSError:
    pass
"#;
        let Some((stdout, stderr, code)) = jailed_python(script) else {
            return;
        };
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
        assert!(stdout.contains("OUTSIDE []"), "{stdout}");
        assert!(stdout.contains("PIDS [1]"), "{stdout}");
        assert!(stdout.contains(&format!("UID {INSIDE_ID}")), "{stdout}");
        assert!(stdout.contains(r"CapEff:\t0000000000000000"), "{stdout}");
        assert!(stdout.contains(r"CapBnd:\t0000000000000000"), "{stdout}");
        assert!(!stdout.contains("ETC-WRITABLE"), "{stdout}");
    }

    #[test]
    fn a_plan_survives_the_command_line_with_names_that_are_not_utf8() {
        let odd = PathBuf::from(OsString::from_vec(b"/home/sandbox/caf\xe9.py".to_vec()));
        let plan = Plan {
            uid: 7,
            gid: 8,
            steps: vec![
                Step::Bind {
                    path: "/usr/bin/python3".into(),
                    device: false,
                },
                Step::Copy {
                    source: odd.clone(),
                    path: HOME.into(),
                    skip_hidden: false,
                },
            ],
            scratch_bytes: 1 << 20,
            cgroup_procs: vec![],
            cwd: HOME.into(),
            argv: vec!["python3".into(), odd],
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), plan);
    }
}
