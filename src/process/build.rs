//! A build step: the command a manifest names to compile the implementation's source
//! (`go build`, `javac`) before its program starts, run where the program will run (inside
//! its sandbox, in its folder, as its user) under a deadline of its own. Its output is the
//! program's: the runner keeps the tail of both as it does the program's, so a compiler's
//! errors reach the report. A build that fails ends the launch with [`BUILD_FAILED`] and a
//! last line starting [`MESSAGE_PREFIX`], which the runner tells apart from a crash.
//!
//! Inside the sandbox, its PID 1 runs the build before it execs the program
//! ([`run`], called by the sandbox's helper). Without the sandbox, the parcall binary
//! itself, started with [`ENTRY`], runs the build and then execs the program ([`driven`]).

use super::Launch;
use std::ffi::{CString, OsString};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::time::{Duration, Instant};

/// A build step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The command, program first (found on the launch's PATH).
    pub argv: Vec<OsString>,
    /// How long it may run: the start-up deadline grows by this much.
    pub seconds: u64,
}

/// How long a build may run unless the caller says (`--build-timeout`).
pub const DEFAULT_SECONDS: u64 = 300;

/// The exit status of a launch whose build step failed.
pub const BUILD_FAILED: i32 = 124;

/// The last line a failed build step's launch writes to stderr starts with this.
pub const MESSAGE_PREFIX: &str = "parcall build: ";

/// The first argument that makes the parcall binary run a build step, then exec a program.
pub const ENTRY: &str = "__parcall-build";

/// Runs `argv` in a process group of its own with stdin, stdout and stderr this process's
/// and no other descriptor, and waits until it ends or `seconds` pass (then its group is
/// killed). `everything`: this process is PID 1 of a PID namespace of its own, so every
/// process the build left behind is killed and reaped when it ends, whatever group it moved
/// to. The error says how it ended.
pub fn run(argv: &[OsString], seconds: u64, everything: bool) -> Result<(), String> {
    let words: Vec<CString> = argv
        .iter()
        .map(|w| CString::new(w.as_bytes()).map_err(|_| "a word holding a NUL byte".to_owned()))
        .collect::<Result<_, _>>()?;
    let Some(program) = words.first() else {
        return Err("the build step names no program".into());
    };
    let mut pointers: Vec<*const libc::c_char> = words.iter().map(|w| w.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: fork(2) in a process that runs no other thread (the sandbox's helper and the
    // build driver start none); the child calls only async-signal-safe functions on memory
    // prepared before the fork, then execs or exits.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!(
            "cannot start it: {}",
            std::io::Error::last_os_error()
        ));
    }
    if pid == 0 {
        // SAFETY: setpgid, close, execvp and _exit are async-signal-safe; execvp reads the
        // NUL-terminated program and the null-terminated array of words, alive in this copy
        // of the parent's memory.
        unsafe {
            libc::setpgid(0, 0);
            // The protocol's pipes are the program's, not the build's.
            for fd in 3..1024 {
                libc::close(fd);
            }
            libc::execvp(program.as_ptr(), pointers.as_ptr());
            libc::_exit(127);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let status = loop {
        let mut status = 0;
        // SAFETY: waitpid(2) writes one int into a live local.
        let waited = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if waited == pid {
            break Some(status);
        }
        if waited < 0 || Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // What it left behind goes with it: `go build` and `javac` leave nothing running, and a
    // build that did must not race the program it built.
    // SAFETY: kill(2) takes integers; -pid names the build's own process group, and -1 (only
    // as PID 1 of a namespace of its own) every other process of that namespace.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        if everything {
            libc::kill(-1, libc::SIGKILL);
        }
    }
    let status = match status {
        Some(status) => status,
        None => {
            let mut status = 0;
            // SAFETY: as above; the build was just killed, so this returns.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            if everything {
                reap_all();
            }
            return Err(format!(
                "it ran past its {seconds} s deadline and was stopped"
            ));
        }
    };
    if everything {
        reap_all();
    }
    if libc::WIFEXITED(status) {
        return match libc::WEXITSTATUS(status) {
            0 => Ok(()),
            127 => Err(
                "it exited with status 127: a program it names was not found (the sandbox holds \
                 only the declared runtimes and the folder's own files)"
                    .into(),
            ),
            code => Err(format!("it exited with status {code}")),
        };
    }
    let signal = libc::WTERMSIG(status);
    Err(format!(
        "it was killed by signal {signal}{}",
        if signal == libc::SIGKILL {
            " (past the memory limit, perhaps)"
        } else {
            ""
        }
    ))
}

/// Reaps every child left (PID 1 inherits the build's orphans).
fn reap_all() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) writes one int into a live local.
        if unsafe { libc::waitpid(-1, &mut status, 0) } <= 0 {
            break;
        }
    }
}

/// Writes why the build failed as the launch's last line, and returns the status to end
/// with.
pub fn failed(command: &[OsString], reason: &str) -> i32 {
    let words: Vec<String> = command
        .iter()
        .map(|w| shell_words::quote(&w.to_string_lossy()).into_owned())
        .collect();
    let _ = writeln!(
        std::io::stderr(),
        "\n{MESSAGE_PREFIX}the build step `{}` failed: {reason}",
        words.join(" ")
    );
    BUILD_FAILED
}

/// The launch that runs `launch`'s build step, then its program, where no sandbox runs the
/// build: the parcall binary started with [`ENTRY`], the deadline, how many words the build
/// has, the build, then the program's command line. A launch without a build is returned as
/// it is.
pub fn driven(launch: &Launch) -> Launch {
    let Some(build) = &launch.build else {
        return launch.clone();
    };
    let Ok(parcall) = std::env::current_exe() else {
        return launch.clone();
    };
    let mut args: Vec<OsString> = vec![
        ENTRY.into(),
        build.seconds.to_string().into(),
        build.argv.len().to_string().into(),
    ];
    args.extend(build.argv.iter().cloned());
    args.extend(launch.command_line());
    Launch {
        program: parcall.into_os_string(),
        args,
        build: None,
        ..launch.clone()
    }
}

/// When this process was started as a build driver ([`driven`]): runs the build, then execs
/// the program, and never returns; otherwise `None`.
pub fn entered() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(ENTRY)) {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    let number = |word: Option<&OsString>| word.and_then(|w| w.to_str()?.parse::<u64>().ok());
    let (Some(seconds), Some(count)) = (number(rest.first()), number(rest.get(1))) else {
        return Some(failed(
            &[],
            "the build driver was started without its deadline",
        ));
    };
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let words = &rest[2..];
    if count == 0 || count >= words.len() {
        return Some(failed(
            &[],
            "the build driver was started without a program",
        ));
    }
    let (build, program) = words.split_at(count);
    if let Err(reason) = run(build, seconds, false) {
        return Some(failed(build, &reason));
    }
    let words: Vec<CString> = match program
        .iter()
        .map(|w| CString::new(w.clone().into_vec()))
        .collect::<Result<_, _>>()
    {
        Ok(words) => words,
        Err(_) => return Some(failed(build, "the program's words hold a NUL byte")),
    };
    let mut pointers: Vec<*const libc::c_char> = words.iter().map(|w| w.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: execvp(3) reads the NUL-terminated program and the null-terminated array of
    // NUL-terminated words, all alive until it returns (only on failure).
    unsafe { libc::execvp(words[0].as_ptr(), pointers.as_ptr()) };
    let _ = writeln!(
        std::io::stderr(),
        "cannot run {}: {}",
        program[0].to_string_lossy(),
        std::io::Error::last_os_error()
    );
    Some(127)
}
