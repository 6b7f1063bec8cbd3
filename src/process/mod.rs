//! Supervising an untrusted implementation process: the protocol on private pipes (fds 3
//! and 4 in the child), stdout and stderr drained on threads into bounded tails, limits set
//! before exec, a deadline on every read, and the whole process group killed and reaped on
//! drop, with a sweep for anything that escaped the group.

pub mod build;
pub mod cpu;
pub mod data;
pub mod interrupt;
pub mod orphans;
mod pipes;
pub mod random;
mod reaper;
mod tail;
mod threads;

pub use reaper::{sweep, MARKER_VARIABLE};
pub use tail::Tail;

use pipes::{ReplyPipe, RequestPipe};

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Instant;

/// The fds the child reads requests from and writes replies to.
pub const CHILD_REQUEST_FD: i32 = 3;
pub const CHILD_REPLY_FD: i32 = 4;
/// Tells the child where the protocol is, as `"READ,WRITE"`.
pub const PROTOCOL_FDS_VARIABLE: &str = "PARCALL_PROTOCOL_FDS";

/// What the child may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Memory limit in bytes, applied as RLIMIT_DATA: the private writable memory the
    /// process maps (heap, anonymous mappings, thread stacks), that is what it uses. Not
    /// RLIMIT_AS, which counts what it reserves: a JVM, Go and .NET reserve gigabytes of
    /// address space at start-up (a JVM's 1 GiB compressed class space) and could not start
    /// under a limit they would never use. Memory mapped shared escapes this limit; a
    /// control group (`parcall grade`) bounds it too.
    pub memory_bytes: Option<u64>,
    /// The memory limit a control group holds the process and its descendants to: set by
    /// the caller that made the group (`parcall grade`), not applied here, and named when
    /// the process dies of it, as `memory_bytes` is.
    pub group_memory_bytes: Option<u64>,
    /// The longest protocol line accepted, in bytes.
    pub max_line_bytes: usize,
    /// How much of stdout and stderr is kept (the last bytes).
    pub tail_bytes: usize,
    /// CPU seconds (RLIMIT_CPU): the kernel kills the process past it.
    pub cpu_seconds: Option<u64>,
    /// Processes of the user (RLIMIT_NPROC), which stops fork bombs when the process runs
    /// under a uid of its own.
    pub processes: Option<u64>,
    /// Largest file it may write (RLIMIT_FSIZE).
    pub file_bytes: Option<u64>,
    /// How long its build step may take (0 without one): the start-up deadline grows by
    /// it, wherever the build runs (see [`build`]).
    pub build_seconds: u64,
}

impl Limits {
    /// The memory limit the process runs under, in MiB, whichever holds it.
    pub fn memory_mib(&self) -> Option<u64> {
        self.memory_bytes
            .or(self.group_memory_bytes)
            .map(|bytes| bytes >> 20)
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_bytes: Some(2 << 30),
            group_memory_bytes: None,
            // Far above any honest reply; what one line may hold is bounded further by
            // the runner (runner::bounds).
            max_line_bytes: 2 << 20,
            tail_bytes: 16 << 10,
            cpu_seconds: None,
            processes: None,
            file_bytes: None,
            build_seconds: 0,
        }
    }
}

/// The program to run and how.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Extra environment variables (the rest is inherited unless `clear_env`).
    pub env: Vec<(OsString, OsString)>,
    pub clear_env: bool,
    pub current_dir: Option<std::path::PathBuf>,
    pub limits: Limits,
    /// Folders a sandbox binds read-only at their place, beside what the program needs:
    /// the installed packages of the framework a runtime adapter drives (`--readable`).
    pub readable: Vec<std::path::PathBuf>,
    /// What the program reads on its stdin before it reaches EOF (`/dev/null` when `None`):
    /// how the sandbox's plan reaches its helper without showing on a command line, which
    /// every user of the machine can read.
    pub stdin: Option<std::sync::Arc<[u8]>>,
    /// A step that builds the program before it starts, where it runs ([`build`]).
    pub build: Option<build::Build>,
}

impl Launch {
    /// The command line (program first) it runs, for a wrap that runs it as the last words
    /// of its own.
    pub fn command_line(&self) -> Vec<OsString> {
        std::iter::once(self.program.clone())
            .chain(self.args.iter().cloned())
            .collect()
    }
}

/// One event on the reply channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Line(String),
    /// A line longer than the limit; the channel is abandoned after it.
    LineTooLong,
    /// The child closed its end (usually: it exited).
    Closed,
}

/// What waiting for a line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    Event(Event),
    Timeout,
}

/// A running implementation process. Dropping it kills the whole group and reaps it.
pub struct Child {
    child: std::process::Child,
    requests: RequestPipe,
    replies: Mutex<ReplyPipe>,
    stdout: Arc<Mutex<Tail>>,
    stderr: Arc<Mutex<Tail>>,
    marker: String,
    threads: Vec<JoinHandle<()>>,
    status: Option<ExitStatus>,
    /// The spawning thread, pinned to the CPU the child runs on (`cpu`).
    pinned: Option<cpu::Pinned>,
}

/// Creates a pipe whose ends close on exec, moved to fds above 9 so placing the child's ends
/// on 3 and 4 can never clobber one of them.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) writes exactly two ints through the pointer, into `fds`, a live local
    // array of two.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both fds are open, and they were just created: nothing
    // else owns them, so each `OwnedFd` is their only owner and closes them once.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((high(read)?, high(write)?))
}

fn high(fd: OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) takes integers only; `fd` is open for the call, as an
    // `OwnedFd` we hold.
    let new = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` is not negative, so it is an open fd fcntl just made: nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Child {
    /// Starts the program with the protocol on fds 3 (requests) and 4 (replies), stdin from
    /// /dev/null, stdout and stderr drained into tails, in a new process group.
    pub fn spawn(launch: &Launch) -> io::Result<Child> {
        // A build no sandbox took on runs under the build driver, then the program.
        let driven = build::driven(launch);
        let launch = &driven;
        let (request_read, request_write) = pipe()?;
        let (reply_read, reply_write) = pipe()?;
        let marker = format!(
            "{}-{}-{}",
            std::process::id(),
            RUN_COUNTER.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let mut command = Command::new(&launch.program);
        command.args(&launch.args);
        if launch.clear_env {
            command.env_clear();
        }
        command
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .env(
                PROTOCOL_FDS_VARIABLE,
                format!("{CHILD_REQUEST_FD},{CHILD_REPLY_FD}"),
            )
            .env(MARKER_VARIABLE, &marker)
            .stdin(if launch.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = &launch.current_dir {
            command.current_dir(dir);
        }
        let child_fds = (request_read.as_raw_fd(), reply_write.as_raw_fd());
        let limits = launch.limits;
        // The thread that spawns a child is the one that talks to it (the runner's).
        let shared = cpu::Shared::choose();
        // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
        // functions (dup2, setrlimit, prctl, sched_setaffinity) on values copied in
        // beforehand.
        unsafe {
            command.pre_exec(move || {
                if let Some(shared) = &shared {
                    shared.pin_in_child();
                }
                child_setup(child_fds, &limits)
            });
        }
        // Spawned and registered in one step: a signal's clean-up kills it or never sees it.
        let held = interrupt::hold();
        let mut child = command.spawn()?;
        interrupt::child_started(child.id(), &marker);
        drop(held);
        orphans::register(child.id());
        let mut threads = Vec::new();
        if let (Some(bytes), Some(stdin)) = (launch.stdin.clone(), child.stdin.take()) {
            // On a thread: a child that stops reading must not stall the runner. The thread
            // ends when the bytes are written or the child closes its end.
            threads.push(feed(stdin, bytes));
        }
        // The child has its copies; ours must close, or EOF would never be seen.
        drop(request_read);
        drop(reply_write);
        let stdout = Arc::new(Mutex::new(Tail::new(launch.limits.tail_bytes)));
        let stderr = Arc::new(Mutex::new(Tail::new(launch.limits.tail_bytes)));
        threads.push(drain(child.stdout.take().expect("piped"), stdout.clone()));
        threads.push(drain(child.stderr.take().expect("piped"), stderr.clone()));
        let (requests, writer) = RequestPipe::new(File::from(request_write))?;
        threads.push(writer);
        let replies = ReplyPipe::new(File::from(reply_read), launch.limits.max_line_bytes);
        // Last, once nothing can fail: the threads above are the child's, not the
        // conversation's, and start where they like.
        let pinned = shared.and_then(|shared| shared.pin_caller());
        Ok(Child {
            child,
            requests,
            replies: Mutex::new(replies),
            stdout,
            stderr,
            marker,
            threads,
            status: None,
            pinned,
        })
    }

    /// Sends a line to the child. Never blocks: what the pipe cannot take now, a writer
    /// thread feeds it, so a child that stops reading cannot stall the runner.
    pub fn send(&self, line: String) {
        self.requests.send(line.as_bytes());
    }

    /// Whether the child could run two things at once: some process of its tree has more than
    /// one thread. Read from `/proc` by parcall, never asked of the child; where it cannot
    /// be read, the answer is yes.
    pub fn runs_threads(&self) -> bool {
        threads::any_process_threaded(self.child.id())
    }

    /// The next reply line, or `Timeout` at the deadline.
    pub fn receive(&self, deadline: Instant) -> Received {
        lock(&self.replies).receive(deadline)
    }

    /// The last bytes the child wrote to stderr (and stdout, which the adapters leave to the
    /// module: only output that bypassed the capture lands there).
    pub fn output_tail(&self) -> String {
        let stderr = lock(&self.stderr).text();
        let stdout = lock(&self.stdout).text();
        match (stdout.trim().is_empty(), stderr.trim().is_empty()) {
            (true, _) => stderr,
            (false, true) => stdout,
            (false, false) => format!("{stdout}\n{stderr}"),
        }
    }

    /// The last bytes the child wrote to stdout alone.
    pub fn stdout_tail(&self) -> String {
        lock(&self.stdout).text()
    }

    /// Waits up to the deadline for the child to exit by itself; kills it otherwise.
    pub fn finish(&mut self, deadline: Instant) -> Option<ExitStatus> {
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.status = Some(status);
                break;
            }
            thread::sleep(std::time::Duration::from_millis(5));
        }
        self.kill();
        self.status
    }

    /// How the child ended, if it has.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }

    /// Kills the process group and anything that escaped it, and reaps the child.
    pub fn kill(&mut self) {
        reaper::kill_group(self.child.id() as i32);
        // The child itself too: one that called setsid left the group, and the wait below
        // would otherwise never end.
        let _ = self.child.kill();
        reaper::sweep(&self.marker);
        interrupt::child_ended(self.child.id());
        if let Ok(status) = self.child.wait() {
            self.status.get_or_insert(status);
        }
        orphans::unregister(self.child.id());
        orphans::kill_orphans();
        // Closing the request pipe ends the writer thread; the readers of stdout and stderr
        // end at EOF once every process holding the pipes is dead. They are detached, not
        // joined: a process that escaped both the group and the sweep must not hang the
        // runner.
        self.requests.close();
        self.threads.clear();
        self.pinned = None;
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// In the child, between fork and exec.
fn child_setup((request, reply): (i32, i32), limits: &Limits) -> io::Result<()> {
    // SAFETY: this runs between fork and exec, where only async-signal-safe calls are
    // allowed: dup2, prctl and setrlimit are, and the closure allocates nothing. They take
    // integers, or a pointer to an `rlimit` on this stack frame that outlives the call.
    unsafe {
        // dup2 onto 3 and 4 clears close-on-exec on the copies; the originals (above 9)
        // still close at exec.
        if libc::dup2(request, CHILD_REQUEST_FD) < 0 || libc::dup2(reply, CHILD_REPLY_FD) < 0 {
            return Err(io::Error::last_os_error());
        }
        close_inherited_at_exec();
        open_to_the_sandbox_user(CHILD_REPLY_FD);
        // Die with the runner, whatever kills it.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        let resources = [
            (libc::RLIMIT_DATA, limits.memory_bytes),
            (libc::RLIMIT_CPU, limits.cpu_seconds),
            (libc::RLIMIT_NPROC, limits.processes),
            (libc::RLIMIT_FSIZE, limits.file_bytes),
        ];
        for (resource, value) in resources {
            if let Some(value) = value {
                let limit = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: value,
                };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
    }
    Ok(())
}

/// Lets the child reopen its pipes by path, as every language's ordinary file API does
/// (`new FileInputStream("/dev/fd/3")`, `os.NewFile`, `File.open("/dev/stdout")`): a pipe is
/// created with mode 0600 and its creator as owner, and the sandbox's user is not its creator,
/// so the open would be refused. Only fds `0..=last` that are pipes are changed, and every
/// pipe there is one `Child::spawn` made for this child alone: the mode of an anonymous pipe
/// matters only to opens through `/proc/PID/fd`, which only a process allowed to trace the
/// child can make. Runs between fork and exec: fstat and fchmod are async-signal-safe.
fn open_to_the_sandbox_user(last: i32) {
    for fd in 0..=last {
        let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fstat writes one `stat` into the live local buffer.
        if unsafe { libc::fstat(fd, stat.as_mut_ptr()) } != 0 {
            continue;
        }
        // SAFETY: fstat succeeded, so it filled the buffer.
        let stat = unsafe { stat.assume_init() };
        if stat.st_mode & libc::S_IFMT == libc::S_IFIFO {
            // SAFETY: fchmod takes integers only.
            unsafe { libc::fchmod(fd, 0o666) };
        }
    }
}

/// The first descriptor the child does not need: 0-2 are stdio, 3 and 4 the protocol.
const FIRST_UNNEEDED_FD: u32 = 5;

/// Marks every descriptor above the protocol's close-on-exec, so nothing the runner
/// inherited (`7</etc/shadow` from the shell, a CI runner's pipes) reaches the child. Marking
/// rather than closing leaves the standard library's own close-on-exec pipe, which reports
/// a failed exec, working. Between fork and exec: async-signal-safe calls only.
fn close_inherited_at_exec() {
    // SAFETY: close_range(2) and fcntl(2) take integers only and only set close-on-exec
    // flags (this process execs next, so no `OwnedFd` of it is invalidated); getrlimit(2)
    // writes one `rlimit` into `limit`, a live local. All three are async-signal-safe.
    unsafe {
        let marked = libc::syscall(
            libc::SYS_close_range,
            FIRST_UNNEEDED_FD,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
        if marked == 0 {
            return;
        }
        // Kernels before 5.11: every possible descriptor, one at a time.
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        let last = limit.rlim_cur.min(1 << 20) as i32;
        for fd in FIRST_UNNEEDED_FD as i32..last {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

fn drain(mut source: impl Read + Send + 'static, tail: Arc<Mutex<Tail>>) -> JoinHandle<()> {
    thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        // Read until EOF whatever the child writes: a full pipe would block the child.
        while let Ok(n) = source.read(&mut buffer) {
            if n == 0 {
                break;
            }
            lock(&tail).push(&buffer[..n]);
        }
    })
}

/// Writes `bytes` to the child's stdin, then closes it.
fn feed(mut stdin: std::process::ChildStdin, bytes: Arc<[u8]>) -> JoinHandle<()> {
    thread::spawn(move || {
        // A child that exits early closes its end: the write fails and that is all.
        let _ = io::Write::write_all(&mut stdin, &bytes);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn allowed_list(status: &str) -> String {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
            .map(|list| list.trim().to_owned())
            .unwrap_or_default()
    }

    /// The child runs on the one CPU of the thread that spawned it (and so talks to it), and
    /// the thread has all its CPUs back once the child is gone.
    #[test]
    fn a_child_shares_one_cpu_with_the_thread_that_spawned_it() {
        std::thread::spawn(|| {
            let before = allowed_list(&fs_status());
            let sharing = cpu::describe();
            let launch = Launch {
                program: "sh".into(),
                args: vec![
                    "-c".into(),
                    "grep Cpus_allowed_list /proc/self/status; exec sleep 10".into(),
                ],
                env: Vec::new(),
                clear_env: false,
                current_dir: None,
                limits: Limits::default(),
                readable: Vec::new(),
                stdin: None,
                build: None,
            };
            let mut child = Child::spawn(&launch).unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            while !child.stdout_tail().contains('\n') && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(10));
            }
            let theirs = allowed_list(&child.stdout_tail());
            let ours = allowed_list(&fs_status());
            if sharing.starts_with("yes") {
                assert!(!ours.contains([',', '-']), "the thread runs on {ours}");
                assert_eq!(theirs, ours);
                assert_ne!(ours, before);
            } else {
                assert_eq!(theirs, before, "{sharing}");
            }
            child.kill();
            assert_eq!(allowed_list(&fs_status()), before);
        })
        .join()
        .unwrap();
    }

    fn fs_status() -> String {
        std::fs::read_to_string("/proc/thread-self/status").unwrap()
    }
}
