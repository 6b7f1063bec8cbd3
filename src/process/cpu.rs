//! One CPU shared by an implementation and the thread that talks to it.
//!
//! Every invocation is a round trip: the implementation writes, sleeps in its read, parcall
//! wakes, answers and sleeps in its own read. When the two run on different CPUs, each
//! message wakes an idle CPU, and on a virtual machine that wake-up goes through the
//! hypervisor: a pipe ping-pong between two processes costs about 3 µs on one CPU and 60 µs
//! across two on the machines this suite is measured on (BENCHMARKS.md section 3). Sharing
//! a CPU turns every wake-up into a switch on the CPU already running, and takes nothing
//! the conversation could use: while the implementation waits for an answer parcall runs,
//! and while parcall waits, it does. Everything else parcall does (reading the spec, other
//! subjects, rayon's work) keeps every CPU.
//!
//! Speed only, never a boundary: an implementation may set its own affinity, and nothing
//! is judged by where it ran. `PARCALL_NO_SHARED_CPU` (set to anything) turns it off.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::mem;
use std::sync::Mutex;

/// Set (to anything) in parcall's environment, leaves the implementation and the runner to
/// the scheduler: how the two are measured side by side.
pub const NO_SHARED_CPU_VARIABLE: &str = "PARCALL_NO_SHARED_CPU";

/// This process's live children on each CPU, so subjects checked side by side (`compare`,
/// `grade`, `mutate`) spread over the CPUs.
static CHILDREN_ON: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

thread_local! {
    /// The calling thread's pin: its CPU, what it could use before, and how many of its
    /// children share the CPU.
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

struct Held {
    cpu: usize,
    before: libc::cpu_set_t,
    children: usize,
}

/// The CPU a child is to share with the thread spawning it.
#[derive(Clone, Copy)]
pub(super) struct Shared {
    cpu: usize,
    set: libc::cpu_set_t,
}

/// A child's claim on its CPU, given back when dropped (the child is gone).
pub(super) struct Pinned {
    cpu: usize,
    /// Never reused, unlike a kernel thread id.
    thread: std::thread::ThreadId,
}

impl Shared {
    /// The calling thread's CPU when a child already shares it; otherwise, among the CPUs
    /// this process may use, the one with the fewest of its children, the CPU the thread
    /// runs on now first among equals (the scheduler put it where there was room, which is
    /// what keeps two parcall processes apart). None when turned off, when there is only
    /// one CPU to use, or when the CPUs cannot be read.
    pub(super) fn choose() -> Option<Shared> {
        if std::env::var_os(NO_SHARED_CPU_VARIABLE).is_some() {
            return None;
        }
        if let Some(cpu) = HELD.with(|held| held.borrow().as_ref().map(|held| held.cpu)) {
            return Some(Shared::on(cpu));
        }
        let allowed = cpus_of(&current()?);
        if allowed.len() < 2 {
            return None;
        }
        // SAFETY: sched_getcpu takes nothing; a failure is -1, which matches no CPU.
        let now = unsafe { libc::sched_getcpu() };
        least_used(&allowed, &lock(&CHILDREN_ON), now).map(Shared::on)
    }

    fn on(cpu: usize) -> Shared {
        // SAFETY: an all-zero cpu_set_t is the empty set.
        let mut set: libc::cpu_set_t = unsafe { mem::zeroed() };
        // SAFETY: CPU_SET writes one bit of a set we own, at an index that came from a set
        // of the same size.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        Shared { cpu, set }
    }

    /// Pins the calling process to the CPU, between fork and exec: sched_setaffinity is a
    /// plain system call, async-signal-safe, and the set was copied in beforehand. A failure
    /// is ignored: the child runs, only slower.
    pub(super) fn pin_in_child(&self) {
        set_current(&self.set);
    }

    /// Pins the calling thread to the CPU once its child runs there.
    pub(super) fn pin_caller(&self) -> Option<Pinned> {
        let pinned = HELD.with(|held| {
            let mut held = held.borrow_mut();
            match held.as_mut() {
                Some(held) => {
                    held.children += 1;
                    true
                }
                None => {
                    let before = current();
                    let pinned = before.is_some() && set_current(&self.set);
                    if let (true, Some(before)) = (pinned, before) {
                        *held = Some(Held {
                            cpu: self.cpu,
                            before,
                            children: 1,
                        });
                    }
                    pinned
                }
            }
        });
        pinned.then(|| {
            *lock(&CHILDREN_ON).entry(self.cpu).or_default() += 1;
            Pinned {
                cpu: self.cpu,
                thread: std::thread::current().id(),
            }
        })
    }
}

impl Drop for Pinned {
    /// Gives the CPU back. The thread gets its CPUs back when its last child is gone,
    /// if the child is dropped on the thread that spawned it (one dropped elsewhere leaves
    /// that thread as it is).
    fn drop(&mut self) {
        if let Some(count) = lock(&CHILDREN_ON).get_mut(&self.cpu) {
            *count = count.saturating_sub(1);
        }
        if std::thread::current().id() != self.thread {
            return;
        }
        HELD.with(|held| {
            let mut held = held.borrow_mut();
            if let Some(pin) = held.as_mut() {
                pin.children -= 1;
                if pin.children == 0 {
                    set_current(&pin.before);
                    *held = None;
                }
            }
        });
    }
}

/// The CPUs but the one a thread shares with its children, for work that thread hands
/// off: a thread inherits its creator's CPU, and one spawned by a pinned thread would
/// otherwise take the implementation's CPU from it.
#[derive(Clone, Copy)]
pub struct Others {
    set: libc::cpu_set_t,
}

impl Others {
    /// The calling thread's CPUs before it was pinned, but the one it shares; none when it
    /// is not pinned or there is no other.
    pub fn of_caller() -> Option<Others> {
        HELD.with(|held| {
            let held = held.borrow();
            let held = held.as_ref()?;
            let mut set = held.before;
            // SAFETY: CPU_CLR writes one bit of a set we own, at an index below its size.
            unsafe { libc::CPU_CLR(held.cpu, &mut set) };
            (!cpus_of(&set).is_empty()).then_some(Others { set })
        })
    }

    /// Moves the calling thread to these CPUs; a failure leaves it where it is.
    pub fn enter(&self) {
        set_current(&self.set);
    }
}

/// The CPU with the fewest children, `now` first among equals, then the lowest.
fn least_used(allowed: &[usize], children: &BTreeMap<usize, usize>, now: i32) -> Option<usize> {
    let load = |cpu: &usize| children.get(cpu).copied().unwrap_or(0);
    allowed.iter().copied().min_by_key(|cpu| {
        (
            load(cpu),
            i64::try_from(*cpu).ok() != Some(i64::from(now)),
            *cpu,
        )
    })
}

fn current() -> Option<libc::cpu_set_t> {
    // SAFETY: an all-zero cpu_set_t is valid (the empty set).
    let mut set: libc::cpu_set_t = unsafe { mem::zeroed() };
    // SAFETY: sched_getaffinity writes at most the size given into the set, a live local.
    // Pid 0 is the calling thread.
    let read = unsafe { libc::sched_getaffinity(0, mem::size_of::<libc::cpu_set_t>(), &mut set) };
    (read == 0).then_some(set)
}

fn cpus_of(set: &libc::cpu_set_t) -> Vec<usize> {
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads one bit of the set, at an index below its size.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, set) })
        .collect()
}

fn set_current(set: &libc::cpu_set_t) -> bool {
    // SAFETY: sched_setaffinity reads the size given from `set`, which outlives the call;
    // pid 0 is the calling thread (or, in a child before exec, the process).
    unsafe { libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), set) == 0 }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The CPUs the calling thread may run on.
fn allowed() -> Vec<usize> {
    current().map(|set| cpus_of(&set)).unwrap_or_default()
}

/// Whether an implementation shares a CPU with the thread answering it here, and why not
/// (`parcall doctor`).
pub fn describe() -> String {
    let cpus = allowed();
    if std::env::var_os(NO_SHARED_CPU_VARIABLE).is_some() {
        format!("no, {NO_SHARED_CPU_VARIABLE} is set: the scheduler places both")
    } else if cpus.len() < 2 {
        "no need: parcall may use one CPU only, where both run anyway".to_owned()
    } else {
        format!(
            "yes, each implementation on one of the {} CPUs parcall may use, with the thread answering it",
            cpus.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread that spawns children is pinned to their CPU while any of them lives, and has
    /// its CPUs back after the last; a release on another thread leaves that thread alone.
    #[test]
    fn the_caller_is_pinned_while_a_child_lives() {
        std::thread::spawn(|| {
            let before = allowed();
            let Some(shared) = Shared::choose() else {
                assert!(before.len() < 2 || std::env::var_os(NO_SHARED_CPU_VARIABLE).is_some());
                return;
            };
            assert!(Others::of_caller().is_none(), "not pinned yet");
            let first = shared.pin_caller().unwrap();
            assert_eq!(allowed(), vec![shared.cpu]);
            // Work handed off goes to every other CPU the thread had.
            let others = Others::of_caller().unwrap();
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    assert_eq!(allowed(), vec![shared.cpu], "inherited");
                    others.enter();
                    let mut elsewhere = before.clone();
                    elsewhere.retain(|cpu| *cpu != shared.cpu);
                    assert_eq!(allowed(), elsewhere);
                });
            });
            // A second child shares the same CPU: the thread can run on one only.
            let again = Shared::choose().unwrap();
            assert_eq!(again.cpu, shared.cpu);
            let second = again.pin_caller().unwrap();
            drop(first);
            assert_eq!(allowed(), vec![shared.cpu]);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    let theirs = allowed();
                    drop(second);
                    assert_eq!(allowed(), theirs);
                });
            });
            // Released elsewhere: this thread keeps its pin, as documented.
            assert_eq!(allowed(), vec![shared.cpu]);
        })
        .join()
        .unwrap();
        std::thread::spawn(|| {
            let before = allowed();
            if let Some(shared) = Shared::choose() {
                drop(shared.pin_caller().unwrap());
            }
            assert_eq!(allowed(), before);
        })
        .join()
        .unwrap();
    }

    /// A child goes where this process has the fewest, to the CPU the thread runs on
    /// among equals.
    #[test]
    fn the_least_used_cpu_is_chosen() {
        let none = BTreeMap::new();
        assert_eq!(least_used(&[0, 1, 2], &none, 1), Some(1));
        assert_eq!(least_used(&[0, 1, 2], &none, -1), Some(0));
        let busy = BTreeMap::from([(1, 1), (0, 1)]);
        assert_eq!(least_used(&[0, 1, 2], &busy, 1), Some(2));
        let full = BTreeMap::from([(0, 2), (1, 1), (2, 1)]);
        assert_eq!(least_used(&[0, 1, 2], &full, 2), Some(2));
        assert_eq!(least_used(&[0, 1, 2], &full, 0), Some(1));
        assert_eq!(least_used(&[], &none, 0), None);
    }
}
