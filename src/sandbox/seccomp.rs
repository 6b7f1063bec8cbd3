//! The system calls an implementation may make: a default-deny allowlist, installed by the
//! helper as the last step before it execs the implementation (after `no_new_privs`), so
//! everything the implementation and its children run is under it and nothing can lift it.
//!
//! The list is modelled on the default profile of Docker and containerd, for a process with
//! no capability (which is what the sandbox leaves), made stricter where nsjail and bubblewrap
//! are: what an interpreter needs (files, memory, threads, signals, time, pipes, Unix and IP
//! sockets, events) is allowed; the rest answers `EPERM` before the kernel looks at its
//! arguments. The sandbox's namespaces and dropped capabilities already stop most of what is
//! refused here; the filter keeps the kernel code behind those calls out of reach, so a bug in
//! it (a nested user namespace's capabilities, `io_uring`, netlink, `bpf`) is not one bug away
//! from the machine.
//!
//! A refused call is simply absent from [`allowed`]; what is refused, family by family, and
//! why, is [`REFUSED`].

use seccompiler::{
    BackendError, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// Why the filter could not be put in force: the sandbox does not start without it.
#[derive(Debug, thiserror::Error)]
pub(super) enum FilterError {
    #[error("cannot build the system-call filter: {0}")]
    Build(#[from] BackendError),
    #[error("cannot install the system-call filter: {0}")]
    Install(#[from] seccompiler::Error),
    #[error("no system-call filter for the {0} architecture")]
    Architecture(&'static str),
}

/// One family of refused calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// Its name, as `parcall doctor` and every gradebook list it.
    pub family: &'static str,
    /// The calls (and arguments) refused.
    pub calls: &'static str,
    /// Why.
    pub why: &'static str,
}

/// Every family refused, with the reason, as `parcall doctor`, the gradebook and
/// docs/sandbox.md list them.
pub const REFUSED: &[Refused] = &[
    Refused {
        family: "new namespaces",
        calls: "unshare, setns, clone with any CLONE_NEW* flag",
        why: "a nested user namespace holds every capability over what it creates (mounts, network and PID namespaces), and the kernel code reached only with them",
    },
    Refused {
        family: "clone3 (answers ENOSYS)",
        calls: "clone3",
        why: "its flags sit in memory the filter cannot read; ENOSYS makes glibc, the JVM and others fall back to clone, whose flags it reads",
    },
    Refused {
        family: "mounts",
        calls: "mount, umount2, pivot_root, chroot, and the new mount API: fsopen, fsconfig, fsmount, fspick, move_mount, open_tree, mount_setattr",
        why: "the root is laid out before the filter, and nothing inside should change it",
    },
    Refused {
        family: "tracing other processes",
        calls: "ptrace, process_vm_readv, process_vm_writev, process_madvise, pidfd_getfd, kcmp",
        why: "reading or steering another process's memory, descriptors or threads",
    },
    Refused {
        family: "kernel programs and counters",
        calls: "bpf, perf_event_open",
        why: "large attack surfaces of the kernel, not needed to run code",
    },
    Refused {
        family: "userfaultfd and io_uring",
        calls: "userfaultfd, io_uring_setup, io_uring_enter, io_uring_register",
        why: "the usual ways a kernel exploit stretches a race or reaches kernel code past the other checks; runtimes fall back to threads and epoll",
    },
    Refused {
        family: "keyrings",
        calls: "add_key, request_key, keyctl",
        why: "keys are shared more widely than files; the session keyring the sandbox made for it stays its own",
    },
    Refused {
        family: "machine administration",
        calls: "init_module, finit_module, delete_module, kexec_load, kexec_file_load, reboot, swapon, swapoff, acct, quotactl, quotactl_fd, syslog, sethostname, setdomainname, settimeofday, clock_settime, clock_adjtime, adjtimex, iopl, ioperm, vhangup",
        why: "nothing a program run for grading needs",
    },
    Refused {
        family: "file handles",
        calls: "open_by_handle_at, name_to_handle_at",
        why: "a handle opens a file by inode number, past every folder's permissions and outside the root",
    },
    Refused {
        family: "personality changes",
        calls: "personality with anything but the default (0) or the query (0xffffffff)",
        why: "READ_IMPLIES_EXEC and ADDR_NO_RANDOMIZE weaken the implementation's own protections",
    },
    Refused {
        family: "sockets other than Unix and IP",
        calls: "socket with any family but AF_UNIX, AF_INET, AF_INET6 (netlink, packet, vsock ...); socketpair but AF_UNIX",
        why: "netlink reaches the kernel's routing, audit and device code; the network namespace leaves nothing else to talk to",
    },
    Refused {
        family: "terminal input injection",
        calls: "ioctl TIOCSTI, TIOCLINUX",
        why: "typing into a terminal it might share, as bubblewrap refuses",
    },
    Refused {
        family: "everything else not listed",
        calls: "lookup_dcookie, modify_ldt, fanotify_init, mbind, set_mempolicy, migrate_pages, move_pages, statmount, listmount, and any call the kernel adds later",
        why: "not needed to run code: a call is refused until it is listed",
    },
    Refused {
        family: "calls of another architecture",
        calls: "i386 (int 0x80) and x32 calls on x86_64, 32-bit ARM calls on aarch64",
        why: "a second system-call table the list does not cover: such a call ends the process with SIGSYS (an x32 number is not on the list: EPERM)",
    },
];

/// The `errno` of a refused call.
const REFUSED_ERRNO: u32 = libc::EPERM as u32;

/// Every `CLONE_NEW*` flag `clone` can carry (`CLONE_NEWTIME` shares its bit with the exit
/// signal there, and is only taken by `unshare` and `clone3`, both refused).
const CLONE_NEW_ANY: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u64;

/// Terminal ioctls that push input into a terminal or drive its console.
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;

/// The default persona, and `personality(0xffffffff)`, which only reads the current one.
const PER_LINUX: u64 = 0;
const PERSONALITY_QUERY: u64 = 0xffff_ffff;

/// Calls newer than the libc crate names. From `pidfd_send_signal` (424) on, every
/// architecture numbers new calls alike.
mod newer {
    pub(super) const CACHESTAT: i64 = 451;
    pub(super) const FCHMODAT2: i64 = 452;
    pub(super) const MAP_SHADOW_STACK: i64 = 453;
    pub(super) const FUTEX_WAKE: i64 = 454;
    pub(super) const FUTEX_WAIT: i64 = 455;
    pub(super) const FUTEX_REQUEUE: i64 = 456;
    pub(super) const MSEAL: i64 = 462;
}

/// Calls allowed whatever their arguments, on every architecture the project ships.
const ALWAYS: &[libc::c_long] = &[
    // Files and folders.
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_pread64,
    libc::SYS_pwrite64,
    libc::SYS_preadv,
    libc::SYS_pwritev,
    libc::SYS_preadv2,
    libc::SYS_pwritev2,
    libc::SYS_openat,
    libc::SYS_openat2,
    libc::SYS_close,
    libc::SYS_close_range,
    libc::SYS_lseek,
    libc::SYS_fstat,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_statfs,
    libc::SYS_fstatfs,
    libc::SYS_faccessat,
    libc::SYS_faccessat2,
    libc::SYS_getdents64,
    libc::SYS_getcwd,
    libc::SYS_chdir,
    libc::SYS_fchdir,
    libc::SYS_mkdirat,
    libc::SYS_mknodat,
    libc::SYS_unlinkat,
    libc::SYS_renameat2,
    libc::SYS_linkat,
    libc::SYS_symlinkat,
    libc::SYS_readlinkat,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    newer::FCHMODAT2,
    libc::SYS_fchown,
    libc::SYS_fchownat,
    libc::SYS_umask,
    libc::SYS_truncate,
    libc::SYS_ftruncate,
    libc::SYS_fallocate,
    libc::SYS_fadvise64,
    libc::SYS_readahead,
    libc::SYS_fsync,
    libc::SYS_fdatasync,
    libc::SYS_sync,
    libc::SYS_syncfs,
    libc::SYS_sync_file_range,
    libc::SYS_flock,
    libc::SYS_fcntl,
    libc::SYS_dup,
    libc::SYS_dup3,
    libc::SYS_pipe2,
    libc::SYS_splice,
    libc::SYS_tee,
    libc::SYS_vmsplice,
    libc::SYS_sendfile,
    libc::SYS_copy_file_range,
    libc::SYS_utimensat,
    libc::SYS_getxattr,
    libc::SYS_lgetxattr,
    libc::SYS_fgetxattr,
    libc::SYS_listxattr,
    libc::SYS_llistxattr,
    libc::SYS_flistxattr,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    libc::SYS_inotify_init1,
    libc::SYS_inotify_add_watch,
    libc::SYS_inotify_rm_watch,
    libc::SYS_fanotify_mark,
    newer::CACHESTAT,
    // Memory.
    libc::SYS_brk,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_madvise,
    libc::SYS_msync,
    libc::SYS_mincore,
    libc::SYS_mlock,
    libc::SYS_mlock2,
    libc::SYS_mlockall,
    libc::SYS_munlock,
    libc::SYS_munlockall,
    libc::SYS_remap_file_pages,
    libc::SYS_memfd_create,
    libc::SYS_memfd_secret,
    libc::SYS_membarrier,
    libc::SYS_pkey_alloc,
    libc::SYS_pkey_free,
    libc::SYS_pkey_mprotect,
    libc::SYS_process_mrelease,
    newer::MAP_SHADOW_STACK,
    newer::MSEAL,
    // Processes and threads (`clone` has a rule of its own).
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_wait4,
    libc::SYS_waitid,
    libc::SYS_set_tid_address,
    libc::SYS_set_robust_list,
    libc::SYS_get_robust_list,
    libc::SYS_rseq,
    libc::SYS_futex,
    libc::SYS_futex_waitv,
    newer::FUTEX_WAKE,
    newer::FUTEX_WAIT,
    newer::FUTEX_REQUEUE,
    libc::SYS_prctl,
    libc::SYS_seccomp,
    libc::SYS_landlock_create_ruleset,
    libc::SYS_landlock_add_rule,
    libc::SYS_landlock_restrict_self,
    libc::SYS_capget,
    libc::SYS_capset,
    libc::SYS_getpid,
    libc::SYS_getppid,
    libc::SYS_gettid,
    libc::SYS_getpgid,
    libc::SYS_setpgid,
    libc::SYS_getsid,
    libc::SYS_setsid,
    libc::SYS_getuid,
    libc::SYS_geteuid,
    libc::SYS_getgid,
    libc::SYS_getegid,
    libc::SYS_getresuid,
    libc::SYS_getresgid,
    libc::SYS_getgroups,
    libc::SYS_setuid,
    libc::SYS_setgid,
    libc::SYS_setreuid,
    libc::SYS_setregid,
    libc::SYS_setresuid,
    libc::SYS_setresgid,
    libc::SYS_setfsuid,
    libc::SYS_setfsgid,
    libc::SYS_setgroups,
    libc::SYS_getrlimit,
    libc::SYS_setrlimit,
    libc::SYS_prlimit64,
    libc::SYS_getrusage,
    libc::SYS_getpriority,
    libc::SYS_setpriority,
    libc::SYS_ioprio_get,
    libc::SYS_ioprio_set,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_getparam,
    libc::SYS_sched_setparam,
    libc::SYS_sched_getscheduler,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_getattr,
    libc::SYS_sched_setattr,
    libc::SYS_sched_get_priority_max,
    libc::SYS_sched_get_priority_min,
    libc::SYS_sched_rr_get_interval,
    libc::SYS_getcpu,
    libc::SYS_uname,
    libc::SYS_sysinfo,
    libc::SYS_times,
    libc::SYS_getrandom,
    libc::SYS_restart_syscall,
    // Signals.
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_tgkill,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_rt_sigpending,
    libc::SYS_rt_sigsuspend,
    libc::SYS_rt_sigtimedwait,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_sigaltstack,
    libc::SYS_signalfd4,
    // Time.
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_clock_nanosleep,
    libc::SYS_gettimeofday,
    libc::SYS_nanosleep,
    libc::SYS_getitimer,
    libc::SYS_setitimer,
    libc::SYS_timer_create,
    libc::SYS_timer_delete,
    libc::SYS_timer_gettime,
    libc::SYS_timer_settime,
    libc::SYS_timer_getoverrun,
    libc::SYS_timerfd_create,
    libc::SYS_timerfd_gettime,
    libc::SYS_timerfd_settime,
    // Waiting on many descriptors.
    libc::SYS_epoll_create1,
    libc::SYS_epoll_ctl,
    libc::SYS_epoll_pwait,
    libc::SYS_epoll_pwait2,
    libc::SYS_ppoll,
    libc::SYS_pselect6,
    libc::SYS_eventfd2,
    // Sockets (`socket` and `socketpair` have rules of their own).
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_connect,
    libc::SYS_shutdown,
    libc::SYS_getsockname,
    libc::SYS_getpeername,
    libc::SYS_getsockopt,
    libc::SYS_setsockopt,
    libc::SYS_sendto,
    libc::SYS_recvfrom,
    libc::SYS_sendmsg,
    libc::SYS_recvmsg,
    libc::SYS_sendmmsg,
    libc::SYS_recvmmsg,
    // System V and POSIX IPC: the IPC namespace is the sandbox's own.
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmdt,
    libc::SYS_shmctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
    // Asynchronous I/O of the old interface (not io_uring).
    libc::SYS_io_setup,
    libc::SYS_io_destroy,
    libc::SYS_io_submit,
    libc::SYS_io_cancel,
    libc::SYS_io_getevents,
];

/// The calls x86_64 keeps from before the generic table, which aarch64 never had.
#[cfg(target_arch = "x86_64")]
const LEGACY: &[libc::c_long] = &[
    libc::SYS_open,
    libc::SYS_creat,
    libc::SYS_stat,
    libc::SYS_lstat,
    libc::SYS_access,
    libc::SYS_getdents,
    libc::SYS_mkdir,
    libc::SYS_rmdir,
    libc::SYS_mknod,
    libc::SYS_unlink,
    libc::SYS_rename,
    libc::SYS_renameat,
    libc::SYS_link,
    libc::SYS_symlink,
    libc::SYS_readlink,
    libc::SYS_chmod,
    libc::SYS_chown,
    libc::SYS_lchown,
    libc::SYS_utime,
    libc::SYS_utimes,
    libc::SYS_futimesat,
    libc::SYS_dup2,
    libc::SYS_pipe,
    libc::SYS_poll,
    libc::SYS_select,
    libc::SYS_epoll_create,
    libc::SYS_epoll_wait,
    libc::SYS_eventfd,
    libc::SYS_signalfd,
    libc::SYS_inotify_init,
    libc::SYS_fork,
    libc::SYS_vfork,
    libc::SYS_getpgrp,
    libc::SYS_pause,
    libc::SYS_alarm,
    libc::SYS_time,
    libc::SYS_arch_prctl,
    libc::SYS_set_thread_area,
    libc::SYS_get_thread_area,
];

#[cfg(target_arch = "aarch64")]
const LEGACY: &[libc::c_long] = &[libc::SYS_renameat];

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, BackendError> {
    // Every argument tested is a 32-bit int or flags the kernel reads as 32 bits: comparing
    // only the low half is what the kernel itself looks at.
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
}

/// One rule per allowed value of argument `arg` (any one of them allows the call).
fn any_of(arg: u8, values: &[u64]) -> Result<Vec<SeccompRule>, BackendError> {
    values
        .iter()
        .map(|&v| SeccompRule::new(vec![condition(arg, SeccompCmpOp::Eq, v)?]))
        .collect()
}

/// The calls allowed only with some arguments.
fn with_arguments() -> Result<Vec<(libc::c_long, Vec<SeccompRule>)>, BackendError> {
    let families = [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6].map(|f| f as u64);
    Ok(vec![
        // A process or a thread, in the namespaces it has.
        (
            libc::SYS_clone,
            vec![SeccompRule::new(vec![condition(
                0,
                SeccompCmpOp::MaskedEq(CLONE_NEW_ANY),
                0,
            )?])?],
        ),
        (libc::SYS_socket, any_of(0, &families)?),
        (libc::SYS_socketpair, any_of(0, &[libc::AF_UNIX as u64])?),
        (
            libc::SYS_personality,
            any_of(0, &[PER_LINUX, PERSONALITY_QUERY])?,
        ),
        (
            libc::SYS_ioctl,
            vec![SeccompRule::new(vec![
                condition(1, SeccompCmpOp::Ne, TIOCSTI)?,
                condition(1, SeccompCmpOp::Ne, TIOCLINUX)?,
            ])?],
        ),
    ])
}

/// Every allowed call, by number, with the rules its arguments must meet (none: any).
pub(super) fn allowed() -> Result<BTreeMap<i64, Vec<SeccompRule>>, BackendError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALWAYS
        .iter()
        .chain(LEGACY)
        .map(|&nr| (nr, Vec::new()))
        .collect();
    rules.extend(with_arguments()?);
    Ok(rules)
}

fn arch() -> Result<TargetArch, FilterError> {
    let name = std::env::consts::ARCH;
    TargetArch::try_from(name).map_err(|_| FilterError::Architecture(name))
}

/// The two programs, in the order they are installed: the allowlist, then the answer to
/// `clone3`. Of two filters that both refuse a call, the one installed last gives the
/// `errno`, so `clone3` answers `ENOSYS` (a libc then falls back to `clone`) where every
/// other unlisted call answers `EPERM`.
pub(super) fn programs() -> Result<[BpfProgram; 2], FilterError> {
    let arch = arch()?;
    let allowlist = SeccompFilter::new(
        allowed()?,
        SeccompAction::Errno(REFUSED_ERRNO),
        SeccompAction::Allow,
        arch,
    )?;
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )?;
    Ok([allowlist.try_into()?, clone3.try_into()?])
}

/// Puts the filter in force for this process and everything it starts. Needs `no_new_privs`
/// (set by the helper's `seal`) and must be the last thing before exec: from here on, the
/// helper itself may make only the calls the implementation may.
pub(super) fn install() -> Result<(), FilterError> {
    for program in programs()? {
        seccompiler::apply_filter(&program)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_programs_build_for_this_architecture() {
        let [allowlist, clone3] = programs().unwrap();
        // The kernel takes at most 4096 instructions per program.
        assert!(allowlist.len() < 4096, "{}", allowlist.len());
        assert!(!clone3.is_empty());
    }

    #[test]
    fn the_calls_the_sandbox_refuses_are_not_on_the_list() {
        let allowed = allowed().unwrap();
        let refused = [
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_clone3,
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_chroot,
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_bpf,
            libc::SYS_perf_event_open,
            libc::SYS_userfaultfd,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_keyctl,
            libc::SYS_init_module,
            libc::SYS_finit_module,
            libc::SYS_delete_module,
            libc::SYS_kexec_load,
            libc::SYS_kexec_file_load,
            libc::SYS_reboot,
            libc::SYS_swapon,
            libc::SYS_swapoff,
            libc::SYS_acct,
            libc::SYS_quotactl,
            libc::SYS_open_by_handle_at,
            libc::SYS_name_to_handle_at,
            libc::SYS_fsopen,
            libc::SYS_fsconfig,
            libc::SYS_fsmount,
            libc::SYS_fspick,
            libc::SYS_move_mount,
            libc::SYS_open_tree,
            libc::SYS_mount_setattr,
            libc::SYS_lookup_dcookie,
            libc::SYS_kcmp,
            libc::SYS_pidfd_getfd,
            libc::SYS_process_madvise,
            libc::SYS_sethostname,
            libc::SYS_syslog,
        ];
        for nr in refused {
            assert!(!allowed.contains_key(&nr), "system call {nr} is allowed");
        }
    }

    #[test]
    fn calls_with_rules_are_allowed_only_with_their_arguments() {
        let allowed = allowed().unwrap();
        for nr in [
            libc::SYS_clone,
            libc::SYS_socket,
            libc::SYS_socketpair,
            libc::SYS_personality,
            libc::SYS_ioctl,
        ] {
            assert!(
                allowed.get(&nr).is_some_and(|rules| !rules.is_empty()),
                "{nr}"
            );
        }
    }
}
