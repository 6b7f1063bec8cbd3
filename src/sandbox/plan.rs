//! What a sandbox's root holds, decided before it is built: the [`Request`] a caller makes,
//! and the [`Plan`] the helper carries out, step by step.

use super::layout;
use super::runtimes::Runtimes;
use super::tree;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// Everything the helper needs to build one sandbox and start the implementation in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The machine's uid and gid the implementation's [`INSIDE_ID`](super::INSIDE_ID) maps to.
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
    /// A build step its PID 1 runs first, in `cwd` (empty: none), and how long it may take.
    #[serde(with = "bytes_list")]
    pub build: Vec<PathBuf>,
    pub build_seconds: u64,
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
    /// read by the helper with the caller's rights: at `path` read-only, or into [`HOME`](super::HOME)
    /// writable when `path` is [`HOME`](super::HOME).
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
    /// A build step to run inside before the program ([`crate::process::build`]).
    pub build: Option<crate::process::build::Build>,
}

/// What everything writable may hold when a build step runs: a compiler's caches (Go's
/// build cache for the standard library, a JVM's class files) live there too. The control
/// group's memory limit counts it, as it counts every page of the scratch.
pub const BUILD_SCRATCH_BYTES: u64 = 512 << 20;

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
    // Decided on the words alone: a file of its own copy is never looked up on the machine.
    let starts_own_program = match argv.first() {
        None => false,
        Some(name) if own_relative(name) || (name.is_absolute() && own(name)) => true,
        Some(name) => {
            let found = layout::resolve(name.as_os_str(), &request.path, &request.cwd_outside)
                .filter(|found| request.runtimes.trusts(found));
            let Some(found) = found else {
                return Err(layout::LayoutError {
                    program: name.display().to_string(),
                    reason: format!(
                        "it is neither a declared runtime ({}) nor a file of the implementation's own: \
                         the sandbox runs only the programs its caller declares (--runtime NAME=PATH)",
                        request.runtimes.names()
                    ),
                });
            };
            let program = layout::program(&mut builder, &found)?;
            // Python behind a launcher script runs as the interpreter the script would start.
            if program != found {
                argv[0] = program;
            }
            false
        }
    };
    let mut build = request.build.clone();
    if let Some(word) = build.as_mut().and_then(|b| b.argv.first_mut()) {
        let program = PathBuf::from(&*word);
        let own_file = own_relative(&program) || (program.is_absolute() && own(&program));
        let declared = layout::resolve(program.as_os_str(), &request.path, &request.cwd_outside)
            .filter(|found| !own_file && request.runtimes.trusts(found));
        if let Some(found) = declared {
            // As for the program: a launcher script's interpreter runs in its place.
            *word = layout::program(&mut builder, &found)?.into_os_string();
        } else if !own_file {
            return Err(layout::LayoutError {
                program: program.display().to_string(),
                reason: format!(
                    "the build step's program is neither a declared runtime ({}) nor a file of \
                     the implementation's own: the caller declares a toolchain with \
                     --runtime NAME=PATH",
                    request.runtimes.names()
                ),
            });
        }
    }
    let build = build.as_ref();
    if request.every_runtime || starts_own_program || build.is_some() {
        for runtime in request.runtimes.iter() {
            layout::program(&mut builder, &runtime.program)?;
        }
    }
    if starts_own_program || build.is_some() {
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
        scratch_bytes: if build.is_some() {
            request.scratch_bytes.max(BUILD_SCRATCH_BYTES)
        } else {
            request.scratch_bytes
        },
        cgroup_procs: request.cgroup_procs,
        cwd: request.cwd,
        argv,
        build: build
            .map(|b| b.argv.iter().map(PathBuf::from).collect())
            .unwrap_or_default(),
        build_seconds: build.map_or(0, |b| b.seconds),
    })
}

/// Refuses a layout any of whose binds or copies holds one of the `files` (compared as the
/// files they are, links followed): a file bound is one of them when it is the same inode, a
/// folder when one of them lies under it. One `stat` a step, and a path resolved only for
/// folders, the few a layout binds whole.
fn unreachable(steps: &[Step], files: &[PathBuf]) -> Result<(), layout::LayoutError> {
    use std::os::unix::fs::MetadataExt;
    let files: Vec<(PathBuf, u64, u64)> = files
        .iter()
        .filter_map(|f| {
            let metadata = std::fs::metadata(f).ok()?;
            Some((
                std::fs::canonicalize(f).ok()?,
                metadata.dev(),
                metadata.ino(),
            ))
        })
        .collect();
    if files.is_empty() {
        return Ok(());
    }
    for step in steps {
        let source = match step {
            Step::Bind { path, .. } => path,
            Step::Copy { source, .. } => source,
            _ => continue,
        };
        let Ok(metadata) = std::fs::metadata(source) else {
            continue;
        };
        let reached = if metadata.is_dir() {
            let Ok(folder) = std::fs::canonicalize(source) else {
                continue;
            };
            files.iter().find(|(file, _, _)| file.starts_with(&folder))
        } else {
            files
                .iter()
                .find(|(_, dev, ino)| (*dev, *ino) == (metadata.dev(), metadata.ino()))
        };
        if let Some((file, _, _)) = reached {
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
    use crate::sandbox::HOME;

    /// A file bound under another name (a link), or a folder holding it, reaches it.
    #[test]
    fn a_file_that_must_stay_out_is_found_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("bin/oracle");
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "").unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join("alias")).unwrap();
        let bind = |path: PathBuf| Step::Bind {
            path,
            device: false,
        };
        let forbidden = std::slice::from_ref(&secret);
        for step in [bind(dir.path().join("alias")), bind(dir.path().join("bin"))] {
            assert!(
                unreachable(std::slice::from_ref(&step), forbidden).is_err(),
                "{step:?}"
            );
        }
        std::fs::write(dir.path().join("other"), "").unwrap();
        assert!(unreachable(&[bind(dir.path().join("other"))], forbidden).is_ok());
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
            build: vec![],
            build_seconds: 0,
            cwd: HOME.into(),
            argv: vec!["python3".into(), odd],
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), plan);
    }
}
