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
//! The work is done by the parcall binary itself, re-executed with [`ENTRY`] as its only
//! argument and a [`Plan`] on its stdin (never on its command line, which every user of the
//! machine can read): it stays outside the namespaces (so the implementation never sees
//! the parcall binary in its `/proc`), forks the process that creates them, writes its uid map
//! and joins it to its control groups, and reports how it ended as its own exit status.

mod enter;
pub mod layout;
pub mod runtimes;
pub mod seccomp;
mod tree;

pub use enter::SCRATCH_INODES;

use super::Launch;
pub use runtimes::{Choice, ChoiceError, Runtime, RuntimeError, Runtimes};
use serde::{Deserialize, Serialize};
use std::ffi::{OsStr, OsString};
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
    /// The implementation's command: the program (a declared runtime, by name or path, or a
    /// file of its own copy), then its arguments, unchanged.
    pub argv: Vec<PathBuf>,
    /// The PATH the program is searched on.
    pub path: OsString,
    /// Where a relative program name is found on the machine.
    pub cwd_outside: PathBuf,
    /// Where it starts, inside.
    pub cwd: PathBuf,
    /// The programs the caller declared: the only ones laid out by asking them, and so the
    /// only programs of the machine the sandbox holds.
    pub runtimes: Runtimes,
    /// Lay out every declared runtime, not only the one the command starts: a program of the
    /// implementation's own may start any of them (its `#!` line is never read outside).
    pub every_runtime: bool,
    /// Folders bound read-only at their place, whole (see [`crate::process::Launch::readable`]).
    pub readable: Vec<PathBuf>,
    /// Its own files (copies).
    pub copies: Vec<Step>,
    /// Files no step may reach: in `grade`, the parcall binary.
    pub unreachable: Vec<PathBuf>,
    pub uid: u32,
    pub gid: u32,
    pub scratch_bytes: u64,
    pub cgroup_procs: Vec<PathBuf>,
}

/// Lays the root out for a request: the program and what it needs, the base, the copies.
///
/// Only declared runtimes are laid out, which runs them on the machine; a program of the
/// implementation's own (inside one of its copies) is neither run nor read here, and any
/// other program is refused.
pub fn assemble(request: Request) -> Result<Plan, layout::LayoutError> {
    let mut builder = layout::Builder::default();
    let base_error = |reason| layout::LayoutError {
        program: "the sandbox".into(),
        reason,
    };
    layout::base(&mut builder).map_err(base_error)?;
    let mut argv = request.argv;
    let own = |path: &Path| {
        request
            .copies
            .iter()
            .any(|copy| path.starts_with(copy.path()) && path != copy.path())
    };
    // A relative path (`./run.sh`) is the implementation's own file, in its copy.
    let own_relative = |name: &Path| name.is_relative() && name.components().count() > 1;
    let mut starts_own_program = false;
    if let Some(name) = argv.first().filter(|n| !own_relative(n)) {
        let found = layout::resolve(name.as_os_str(), &request.path, &request.cwd_outside);
        match found {
            Some(found) if request.runtimes.trusts(&found) => {
                let program = layout::program(&mut builder, &found)?;
                // Python behind a launcher script runs as the interpreter the script would start.
                if program != found {
                    argv[0] = program;
                }
            }
            _ if name.is_absolute() && own(name) => starts_own_program = true,
            _ => {
                return Err(layout::LayoutError {
                    program: name.display().to_string(),
                    reason: format!(
                        "it is neither a declared runtime ({}) nor a file of the implementation's own: \
                         the sandbox runs only the programs its caller declares (--runtime NAME=PATH)",
                        request.runtimes.names()
                    ),
                })
            }
        }
    } else {
        starts_own_program = true;
    }
    if request.every_runtime || starts_own_program {
        for runtime in request.runtimes.iter() {
            layout::program(&mut builder, &runtime.program)?;
        }
    }
    if starts_own_program {
        layout::system_libraries(&mut builder)?;
    }
    for folder in &request.readable {
        layout::readable(&mut builder, folder)?;
    }
    for copy in request.copies {
        builder.push(copy);
    }
    let steps = builder.finish();
    unreachable(&steps, &request.unreachable)?;
    Ok(Plan {
        uid: request.uid,
        gid: request.gid,
        steps,
        scratch_bytes: request.scratch_bytes,
        cgroup_procs: request.cgroup_procs,
        cwd: request.cwd,
        argv,
    })
}

/// Refuses a layout any of whose binds or copies holds one of the `files` (compared as the
/// files they are, links followed).
fn unreachable(steps: &[Step], files: &[PathBuf]) -> Result<(), layout::LayoutError> {
    let files: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    for step in steps {
        let source = match step {
            Step::Bind { path, .. } => path,
            Step::Copy { source, .. } => source,
            _ => continue,
        };
        let Ok(source) = std::fs::canonicalize(source) else {
            continue;
        };
        if let Some(file) = files.iter().find(|f| f.starts_with(&source)) {
            return Err(layout::LayoutError {
                program: source.display().to_string(),
                reason: format!(
                    "binding it would put {} inside the sandbox, which is never bound there",
                    file.display()
                ),
            });
        }
    }
    Ok(())
}

/// Starts the smallest sandbox (a shell that exits at once) as the machine's `uid` and
/// `gid`; why it cannot start, if not.
pub fn probe(uid: u32, gid: u32) -> Result<(), String> {
    let helper = helper().ok_or("the parcall binary that runs the sandbox is not found")?;
    let search = OsString::from("/usr/bin:/bin");
    let runtimes = Runtimes::declare(&[], &search).map_err(|e| e.to_string())?;
    let plan = assemble(Request {
        argv: ["/bin/sh", "-c", "exit 0"].map(Into::into).to_vec(),
        path: search,
        cwd_outside: "/".into(),
        cwd: "/".into(),
        runtimes,
        every_runtime: false,
        readable: Vec::new(),
        copies: Vec::new(),
        unreachable: Vec::new(),
        uid,
        gid,
        scratch_bytes: 1 << 20,
        cgroup_procs: Vec::new(),
    })
    .map_err(|e| e.to_string())?;
    let mut child = std::process::Command::new(&helper)
        .arg(ENTRY)
        .env_clear()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", helper.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        // The helper reads its whole plan before anything else; a helper that died early
        // closed its end, and its stderr says why.
        let _ = std::io::Write::write_all(&mut stdin, &plan_bytes(&plan));
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("cannot run {}: {e}", helper.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(stderr.trim().trim_start_matches(MESSAGE_PREFIX).to_owned())
}

/// Whether the copy of `folder` (hidden entries and dependency folders left out) holds
/// `file`, which lies under it.
pub fn copy_holds(folder: &Path, file: &Path) -> bool {
    file.strip_prefix(folder).is_ok_and(|inner| {
        !inner
            .components()
            .any(|c| tree::skipped(c.as_os_str(), true))
    })
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
        args: vec![ENTRY.into()],
        env: Vec::new(),
        clear_env: true,
        current_dir: Some(PathBuf::from("/")),
        limits: inner.limits,
        readable: Vec::new(),
        stdin: Some(format!("{FAILED_MARK}{message}").into_bytes().into()),
    }
}

/// Starts the helper's input when it is only to report a failure (a plan starts with `{`).
const FAILED_MARK: &str = "!";

/// The most the helper reads of its input: a plan is a few kilobytes per bound path.
const MAX_PLAN_BYTES: u64 = 16 << 20;

fn plan_bytes(plan: &Plan) -> Vec<u8> {
    serde_json::to_vec(plan).expect("a plan is plain data")
}

/// The launch that runs `plan` through the helper: its program is the parcall binary, given
/// the plan on its stdin (a command line is every user's to read in `ps`), and the
/// implementation's environment, limits and descriptors are the given launch's.
pub fn launch(plan: &Plan, inner: &Launch, helper: &Path) -> Launch {
    Launch {
        program: helper.as_os_str().to_owned(),
        args: vec![ENTRY.into()],
        env: inner.env.clone(),
        clear_env: inner.clear_env,
        current_dir: Some(PathBuf::from("/")),
        limits: inner.limits,
        readable: Vec::new(),
        stdin: Some(plan_bytes(plan).into()),
    }
}

/// The plan a helper's launch carries, as the helper will read it.
pub fn carried(launch: &Launch) -> Option<Plan> {
    serde_json::from_slice(launch.stdin.as_deref()?).ok()
}

/// Runs the plan read from stdin when this process was started as the helper; the exit
/// status to end with. `None` for any other command line.
pub fn entered() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != ENTRY {
        return None;
    }
    let fail = |message: &str| {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("{MESSAGE_PREFIX}{message}\n").as_bytes(),
        );
        Some(SETUP_FAILED)
    };
    if args.next().is_some() {
        return fail("the helper takes its plan on stdin, not on its command line");
    }
    let text = match read_plan() {
        Ok(text) => text,
        Err(message) => return fail(&message),
    };
    if let Some(message) = text.strip_prefix(FAILED_MARK) {
        return fail(message);
    }
    Some(enter::run(OsStr::new(&text)))
}

/// The helper's whole stdin (bounded), then `/dev/null` in its place: the implementation
/// inherits stdin and must read nothing there.
fn read_plan() -> Result<String, String> {
    use std::io::Read;
    // SAFETY: isatty(3) takes an int and reads no memory of ours.
    if unsafe { libc::isatty(0) } == 1 {
        return Err("the helper reads its plan on stdin, which is a terminal here".into());
    }
    let mut text = String::new();
    std::io::stdin()
        .lock()
        .take(MAX_PLAN_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the plan on stdin: {e}"))?;
    if text.len() as u64 > MAX_PLAN_BYTES {
        return Err(format!(
            "the plan on stdin is larger than {MAX_PLAN_BYTES} bytes"
        ));
    }
    let null = std::fs::File::open("/dev/null").map_err(|e| format!("/dev/null: {e}"))?;
    // SAFETY: dup2(2) takes two descriptors we hold open (`null` lives to the end of this
    // call) and replaces fd 0, which nothing in this process reads after this point.
    if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 0) } < 0 {
        return Err(format!(
            "cannot replace stdin: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(text)
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
            runtimes: Runtimes::declare(
                &[("python".into(), "python3".into())],
                OsStr::new("/usr/local/bin:/usr/bin:/bin"),
            )
            .unwrap(),
            every_runtime: false,
            readable: vec![],
            copies: vec![Step::Copy {
                source: dir.path().to_owned(),
                path: HOME.into(),
                skip_hidden: false,
            }],
            unreachable: vec![],
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
            stdin: None,
        };
        let launch = launch(&plan, &inner, &helper);
        let mut child = std::process::Command::new(&launch.program)
            .args(&launch.args)
            .env_clear()
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, launch.stdin.as_deref().unwrap()).unwrap();
        drop(stdin);
        let output = child.wait_with_output().unwrap();
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
