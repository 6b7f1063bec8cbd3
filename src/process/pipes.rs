//! The parent's ends of the protocol pipes, used by whoever sends or waits: a round trip of
//! an invocation is the child's write, parcall's read, parcall's write and the child's read,
//! with no thread of parcall's in between. A hand-off to a reader or writer thread costs a
//! wake-up each way, and an invocation makes two of them per round trip.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use super::{Event, Received};

/// The request pipe, written directly while nothing is queued. A line the pipe cannot take
/// whole right away (the child is not reading) goes, with every line after it, to a writer
/// thread that waits for room: sending never blocks, so a child that stops reading cannot
/// stall the runner, and lines keep their order.
pub(super) struct RequestPipe {
    state: Arc<Mutex<Writing>>,
    queue: Option<Sender<Vec<u8>>>,
}

struct Writing {
    /// Our end, non-blocking; `None` once the pipe was closed. Shared with the writer
    /// thread, which holds it while it waits, so the fd it polls is never another's.
    pipe: Option<Arc<File>>,
    /// Lines handed to the writer thread and not yet written whole.
    queued: usize,
}

impl RequestPipe {
    pub(super) fn new(pipe: File) -> io::Result<(RequestPipe, JoinHandle<()>)> {
        set_nonblocking(&pipe)?;
        let state = Arc::new(Mutex::new(Writing {
            pipe: Some(Arc::new(pipe)),
            queued: 0,
        }));
        let (queue, lines) = mpsc::channel();
        let writer = write_queued(state.clone(), lines);
        Ok((
            RequestPipe {
                state,
                queue: Some(queue),
            },
            writer,
        ))
    }

    pub(super) fn send(&self, line: &[u8]) {
        let mut state = lock(&self.state);
        let written = match (&state.pipe, state.queued) {
            (Some(pipe), 0) => match write_now(pipe, line) {
                Ok(written) => written,
                // A broken pipe: the child is gone, and the reply pipe says so.
                Err(()) => return,
            },
            (Some(_), _) => 0,
            // Closed: the child is being killed.
            (None, _) => return,
        };
        if written == line.len() {
            return;
        }
        let Some(queue) = &self.queue else {
            return;
        };
        state.queued += 1;
        if queue.send(line[written..].to_vec()).is_err() {
            state.queued -= 1;
        }
    }

    /// Closes our end: the child reads end of file, and the writer thread ends.
    pub(super) fn close(&mut self) {
        self.queue = None;
        lock(&self.state).pipe = None;
    }
}

/// Writes what the pipe takes without waiting: the count written, short when the pipe is
/// full; an error when it is broken (the child is gone).
fn write_now(mut pipe: &File, line: &[u8]) -> Result<usize, ()> {
    let mut written = 0;
    while written < line.len() {
        match pipe.write(&line[written..]) {
            Ok(0) => break,
            Ok(n) => written += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => return Err(()),
        }
    }
    Ok(written)
}

fn write_queued(state: Arc<Mutex<Writing>>, lines: Receiver<Vec<u8>>) -> JoinHandle<()> {
    thread::spawn(move || {
        for line in lines {
            let mut written = 0;
            while written < line.len() {
                let Some(pipe) = lock(&state).pipe.clone() else {
                    return;
                };
                if !wait_for(pipe.as_raw_fd(), libc::POLLOUT, None) {
                    return;
                }
                let state = lock(&state);
                let Some(pipe) = &state.pipe else { return };
                match write_now(pipe, &line[written..]) {
                    Ok(n) => written += n,
                    Err(()) => return,
                }
            }
            lock(&state).queued -= 1;
        }
    })
}

/// The reply pipe, read by the caller waiting for a reply, up to its deadline. Lines are cut
/// from a buffer that holds at most one line too long plus one read: a child that writes
/// replies faster than they are judged blocks on its pipe instead of growing parcall's
/// memory.
pub(super) struct ReplyPipe {
    pipe: File,
    /// Bytes read, from `start` to `end`; the rest is room for the next read, zeroed once
    /// when the buffer grows, not before every read (a read of a line or two would
    /// otherwise first clear the whole read size).
    buffer: Vec<u8>,
    /// Where the bytes not yet returned start in `buffer`.
    start: usize,
    /// Where the bytes read end in `buffer`.
    end: usize,
    max_line: usize,
    /// Set once the pipe ended or a line was too long: every later wait gets `Closed`.
    ended: bool,
}

/// Bytes read at a time.
const READ_SIZE: usize = 1 << 16;

impl ReplyPipe {
    pub(super) fn new(pipe: File, max_line: usize) -> ReplyPipe {
        ReplyPipe {
            pipe,
            buffer: Vec::new(),
            start: 0,
            end: 0,
            max_line,
            ended: false,
        }
    }

    pub(super) fn receive(&mut self, deadline: Instant) -> Received {
        loop {
            if let Some(event) = self.next_line() {
                return Received::Event(event);
            }
            if self.ended {
                return Received::Event(Event::Closed);
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            if !wait_for(self.pipe.as_raw_fd(), libc::POLLIN, Some(wait)) {
                return Received::Timeout;
            }
            self.fill();
        }
    }

    /// A whole line from the buffer, a line too long, or the unterminated rest at the end.
    fn next_line(&mut self) -> Option<Event> {
        let pending = &self.buffer[self.start..self.end];
        if let Some(end) = memchr::memchr(b'\n', pending) {
            if end > self.max_line {
                return Some(self.too_long());
            }
            let text = String::from_utf8_lossy(&pending[..end])
                .trim_end_matches('\r')
                .to_owned();
            self.start += end + 1;
            return Some(Event::Line(text));
        }
        if pending.len() > self.max_line {
            return Some(self.too_long());
        }
        if self.ended && !pending.is_empty() {
            let text = String::from_utf8_lossy(pending)
                .trim_end_matches('\r')
                .to_owned();
            self.start = self.end;
            return Some(Event::Line(text));
        }
        None
    }

    fn too_long(&mut self) -> Event {
        self.ended = true;
        self.buffer = Vec::new();
        self.start = 0;
        self.end = 0;
        Event::LineTooLong
    }

    /// Reads what the pipe holds (poll said it is readable, or it ended).
    fn fill(&mut self) {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buffer.len() < self.end + READ_SIZE {
            self.buffer.resize(self.end + READ_SIZE, 0);
        }
        loop {
            match self.pipe.read(&mut self.buffer[self.end..]) {
                Ok(0) => self.ended = true,
                Ok(n) => self.end += n,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => self.ended = true,
            }
            return;
        }
    }
}

/// Waits until `fd` is ready for `events`, or `wait` passes (`None`: no limit). False on
/// timeout; true when ready, hung up or in error (the read or write then says which).
fn wait_for(fd: i32, events: libc::c_short, wait: Option<std::time::Duration>) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    let deadline = wait.map(|wait| Instant::now() + wait);
    loop {
        let timeout = deadline.map(|deadline| {
            let left = deadline.saturating_duration_since(Instant::now());
            libc::timespec {
                tv_sec: left.as_secs() as libc::time_t,
                tv_nsec: libc::c_long::from(left.subsec_nanos() as i32),
            }
        });
        let timeout_ptr = timeout
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `poll` is one live pollfd and `timeout_ptr` is null or points at a live
        // timespec; ppoll(2) reads them and writes `revents` only; no signal mask is passed.
        let ready = unsafe { libc::ppoll(&mut poll, 1, timeout_ptr, std::ptr::null()) };
        match ready {
            0 => return false,
            n if n > 0 => return true,
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            // A poll that fails on a valid fd does not get better by retrying.
            _ => return true,
        }
    }
}

fn set_nonblocking(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl(F_GETFL/F_SETFL) takes integers only; `file` keeps `fd` open.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
