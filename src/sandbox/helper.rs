//! The helper: the parcall binary re-executed to build one sandbox and start the
//! implementation in it, given its plan on stdin.

use super::plan::{assemble, Plan, Request};
use super::runtimes::Runtimes;
use super::{enter, ENTRY, MESSAGE_PREFIX, SETUP_FAILED};
use crate::process::Launch;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
        build: None,
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
        build: None,
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
        // The plan carries the build: its PID 1 runs it.
        build: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Step, HOME, INSIDE_ID};

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
            build: None,
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
            build: None,
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
}
