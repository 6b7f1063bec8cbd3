//! The sandbox, one room: everything parcall does to run an implementation it does not
//! trust, from the moment it reads the implementation's files to the moment it execs it,
//! for `check` and `grade` alike.
//!
//! A sandbox that starts from nothing, as bubblewrap and nsjail do: an implementation runs as
//! PID 1 of new user, mount, PID, network, IPC and UTS namespaces, under a root that is an
//! empty tmpfs into which only what its runtime needs is bound read-only (the executable,
//! its standard library, the shared libraries it loads, a minimal `/etc` and `/dev`), plus its
//! own copy of its files, a private size-limited `/tmp` and a fresh `/proc` of its own PID
//! namespace. The old root is detached after `pivot_root`, so nothing else of the machine is
//! reachable, hidden or not. It runs as an unprivileged uid of the new user namespace with every
//! capability dropped, `no_new_privs` set, a default-deny system-call filter and a session
//! keyring of its own; its user keyrings live in that user namespace and die with it.
//!
//! One entry point: a [`Request`] says what to run and what it may see; [`assemble`] lays the
//! root out ([`Plan`]), asking only the runtimes the caller declared ([`Runtimes`]); [`enclose`]
//! turns it into the launch of the helper, the parcall binary itself re-executed with
//! [`ENTRY`] as its only argument and the plan on its stdin (never on its command line, which
//! every user of the machine can read). The helper stays outside the namespaces (so the
//! implementation never sees the parcall binary in its `/proc`), forks the process that
//! creates them, writes its uid map and joins it to its control groups, and reports how it
//! ended as its own exit status. `check` reaches it through [`contain`], `grade` through
//! [`stage`], which adds a workspace, leased uids ([`uids`]), control groups ([`cgroup`]) and
//! the copy of a submission read as data ([`intake`]).

pub mod cgroup;
pub mod contain;
mod enter;
mod helper;
pub mod intake;
mod layout;
mod plan;
pub mod protections;
pub mod runtimes;
pub mod seccomp;
pub mod stage;
mod tree;
pub mod uids;
pub mod workspace;

pub use contain::{ContainError, Containment};
pub use enter::SCRATCH_INODES;
pub use helper::{carried, entered, failing, helper, launch, probe};
pub use layout::LayoutError;
pub use plan::{assemble, copy_holds, fits, Plan, Request, Step, BUILD_SCRATCH_BYTES};
pub use protections::{Capabilities, Protection};
pub use runtimes::{Choice, ChoiceError, Runtime, RuntimeError, Runtimes};
pub use stage::{
    declare_runtimes, RunSite, Sandbox, SandboxError, StageError, Staged, SANDBOX_PATH, TASKS,
};

/// Everything writable of one sandbox together: its home, `/tmp`, `/var/tmp` and `/dev/shm`.
pub const SCRATCH_BYTES: u64 = 64 << 20;

/// The first argument that makes the parcall binary run a plan instead of its command line.
pub const ENTRY: &str = "__parcall-jail";

/// The uid and gid an implementation has inside its user namespace (mapped to a uid of the
/// machine chosen by the caller).
pub const INSIDE_ID: u32 = 1000;

/// Its home: its own copy of its files, writable, on the private tmpfs.
pub const HOME: &str = "/home/sandbox";

/// The exit status of the helper when the sandbox could not be set up (its stderr says why).
pub const SETUP_FAILED: i32 = 125;

/// The helper's exit status for a plan that could not be parsed or set up is
/// [`SETUP_FAILED`]; its message starts with this.
pub const MESSAGE_PREFIX: &str = "parcall sandbox: ";

/// The launch that runs `request` in a sandbox: its root laid out, then handed to the helper
/// with `inner`'s environment and limits. The one way in, for `check` and `grade` alike.
pub fn enclose(
    request: Request,
    inner: &crate::process::Launch,
) -> Result<crate::process::Launch, layout::LayoutError> {
    let plan = assemble(request)?;
    let helper = helper().ok_or_else(|| layout::LayoutError {
        program: "the sandbox".into(),
        reason: "the parcall binary that runs the sandbox is not found".into(),
    })?;
    Ok(launch(&plan, inner, &helper))
}

/// What laying out `program` binds in a sandbox (its files and folders, found by asking it as
/// a sandbox would, once per process): for `parcall doctor` to show what each declared runtime
/// will find.
pub fn runtime_binds(program: &std::path::Path) -> Result<Vec<std::path::PathBuf>, LayoutError> {
    let mut builder = layout::Builder::default();
    layout::program(&mut builder, program)?;
    Ok(builder
        .finish()
        .into_iter()
        .filter_map(|step| match step {
            Step::Bind { path, .. } => Some(path),
            _ => None,
        })
        .collect())
}

/// When a program died at start-up for want of a shared library the sandbox did not bind but
/// this machine has (`error while loading shared libraries: libX.so.1: cannot open shared
/// object file`): the caller's set-up error, with the flag that fixes it. `None` otherwise.
pub fn lacked_library(output: &str) -> Option<String> {
    const SAID: &str = "error while loading shared libraries: ";
    let at = output.find(SAID)? + SAID.len();
    let library = output[at..].split(':').next()?.trim();
    if library.is_empty() || library.contains('/') {
        return None;
    }
    let folder = ["/lib", "/usr/lib", "/usr/local/lib", "/lib64", "/usr/lib64"]
        .iter()
        .flat_map(|top| {
            let top = std::path::Path::new(top);
            let arch = std::fs::read_dir(top)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with("-linux-gnu"));
            std::iter::once(top.to_owned())
                .chain(arch)
                .collect::<Vec<_>>()
        })
        .find(|folder| folder.join(library).exists())?;
    Some(format!(
        "the sandbox lacks {library}, which this machine has in {}: the program needs a \
         library its runtime's layout did not find; pass --readable {} to bind that folder",
        folder.display(),
        folder.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_the_machine_has_is_named_with_the_flag_that_binds_it() {
        let said = "./impl: error while loading shared libraries: libc.so.6: cannot open shared object file: No such file or directory";
        let message = lacked_library(said).expect("libc.so.6 is on every Linux machine");
        assert!(
            message.contains("libc.so.6") && message.contains("--readable /"),
            "{message}"
        );
        let unknown = "error while loading shared libraries: libnowhere.so.9: cannot open";
        assert_eq!(lacked_library(unknown), None);
        assert_eq!(lacked_library("Traceback: KeyError"), None);
    }
}
