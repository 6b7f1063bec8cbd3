//! The programs the caller trusts: the only ones a sandbox lays out by asking them for their
//! paths, and the only ones an implementation's manifest may start besides its own files.
//!
//! Laying a sandbox out runs the program on the machine, with the caller's rights, before
//! any namespace exists (Python is asked for its module path, Node for what it maps, the
//! dynamic loader for a binary's libraries). So a program is asked only when the caller named
//! it: `--python`, `--node`, `--runtime NAME=PATH`, the program of `--cmd`, and the
//! sandbox's own shell and `env`. Each is resolved on the caller's PATH once, when declared,
//! before any implementation is read. A manifest (`parcall.json`) chooses among them by name,
//! or names a file of its own folder, which runs only inside the sandbox and is never asked.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// The sandbox's own tools, always declared: a shell for scripts and `env` for their `#!`
/// lines.
pub const SYSTEM_TOOLS: [(&str, &str); 2] = [("sh", "/bin/sh"), ("env", "/usr/bin/env")];

/// One trusted program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    /// What a manifest calls it (`python`, `node`, `ruby`, ...).
    pub name: String,
    /// Where it was found, absolute, as exec will be given it.
    pub program: PathBuf,
    /// The file it is, every link followed: how a path is recognised as this runtime.
    real: PathBuf,
}

/// The programs the caller declared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Runtimes {
    list: Vec<Runtime>,
}

/// A declaration that cannot be honoured: the caller's set-up error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    #[error("--runtime {0:?}: expected NAME=PATH, a name of letters, digits, `.`, `_` and `-`, and the program (a path, or a name found on PATH)")]
    Syntax(String),
    #[error("runtime `{name}` is declared twice")]
    Twice { name: String },
    #[error("runtime `{name}`: `{program}` {problem}")]
    Program {
        name: String,
        program: String,
        problem: String,
    },
}

/// Why a manifest's program cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    #[error("`{word}` is not a declared runtime (declared: {declared}); the caller declares others with --runtime NAME=PATH")]
    NotDeclared { word: String, declared: String },
    #[error("`{word}` is neither a declared runtime nor a file of the implementation's own folder: a manifest runs only the runtimes the caller declares (by name) and its own files (by a path relative to its folder)")]
    Outside { word: String },
}

/// What a manifest's program word turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A declared runtime, at the path exec is given.
    Runtime(PathBuf),
    /// A file of the implementation's own folder: it runs only inside the sandbox, from the
    /// copy, and is never run or asked on the machine.
    Own(PathBuf),
}

impl Runtimes {
    /// Resolves each `(NAME, PROGRAM)` on `search` (a PATH), with the sandbox's own tools
    /// added where the machine has them.
    pub fn declare(
        declared: &[(String, OsString)],
        search: &OsStr,
    ) -> Result<Runtimes, RuntimeError> {
        let mut runtimes = Runtimes::default();
        for (name, program) in declared {
            if runtimes.list.iter().any(|r| &r.name == name) {
                return Err(RuntimeError::Twice { name: name.clone() });
            }
            let found = find(program, search).map_err(|problem| RuntimeError::Program {
                name: name.clone(),
                program: program.to_string_lossy().into_owned(),
                problem: problem.into(),
            })?;
            runtimes.push(name, found);
        }
        for (name, path) in SYSTEM_TOOLS {
            if !runtimes.list.iter().any(|r| r.name == name) && Path::new(path).is_file() {
                runtimes.push(name, PathBuf::from(path));
            }
        }
        Ok(runtimes)
    }

    /// `program` declared as `name` where it is found on `search`, unless a runtime of that
    /// name is declared already: a default (`python3`, `node`) that a machine may lack, which
    /// is an error only when something needs it.
    pub fn or_found(mut self, name: &str, program: &OsStr, search: &OsStr) -> Runtimes {
        if self.list.iter().all(|r| r.name != name) {
            if let Ok(found) = find(program, search) {
                self.push(name, found);
            }
        }
        self
    }

    fn push(&mut self, name: &str, program: PathBuf) {
        let real = std::fs::canonicalize(&program).unwrap_or_else(|_| program.clone());
        self.list.push(Runtime {
            name: name.to_owned(),
            program,
            real,
        });
    }

    /// A `NAME=PATH` flag's value, checked for shape only (the program is found when the
    /// runtimes are declared).
    pub fn parse_flag(text: &str) -> Result<(String, OsString), RuntimeError> {
        let syntax = || RuntimeError::Syntax(text.to_owned());
        let (name, program) = text.split_once('=').ok_or_else(syntax)?;
        let shaped = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !shaped || program.is_empty() {
            return Err(syntax());
        }
        Ok((name.to_owned(), program.into()))
    }

    /// Every declared runtime, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &Runtime> {
        self.list.iter()
    }

    /// The runtime called `word` by a manifest: by its declared name, or by its program's
    /// file name (`python3` for the `python` runtime `/usr/bin/python3`).
    pub fn named(&self, word: &str) -> Option<&Runtime> {
        self.list.iter().find(|r| r.name == word).or_else(|| {
            self.list
                .iter()
                .find(|r| r.program.file_name() == Some(OsStr::new(word)))
        })
    }

    /// The runtime `path` names: its program's path as declared or as found, links
    /// followed, compared as words. Nothing is looked up on the machine: `path` may be a
    /// submission's word, and even a look-up on the way to refusing it would reach the
    /// machine's files (a link in a folder it names, an automounter) before the sandbox.
    pub fn holding(&self, path: &Path) -> Option<&Runtime> {
        self.list
            .iter()
            .find(|r| r.program == path || r.real == path)
    }

    /// Whether `path` is one of the declared programs (see [`Runtimes::holding`]).
    pub fn trusts(&self, path: &Path) -> bool {
        self.holding(path).is_some()
    }

    /// The names, for messages.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.list.iter().map(|r| r.name.as_str()).collect();
        names.join(", ")
    }

    /// A runtime declared for this run only (the program of `--cmd`).
    pub fn with(mut self, name: &str, program: &Path) -> Runtimes {
        if !self.trusts(program) {
            self.push(name, program.to_owned());
        }
        self
    }

    /// What a manifest's program word names: a declared runtime (a bare name, or the path of
    /// one), or a file of `folder`, the manifest's own folder (a path with a `/`, relative to
    /// it, or absolute inside it). `folder` is where the implementation finds its files when
    /// it runs; nothing is read from it here.
    pub fn choose(&self, word: &str, folder: &Path) -> Result<Choice, ChoiceError> {
        if !word.contains('/') {
            return self
                .named(word)
                .map(|r| Choice::Runtime(r.program.clone()))
                .ok_or_else(|| ChoiceError::NotDeclared {
                    word: word.to_owned(),
                    declared: self.names(),
                });
        }
        let path = Path::new(word);
        if path.is_absolute() {
            if let Some(runtime) = self.holding(path) {
                return Ok(Choice::Runtime(runtime.program.clone()));
            }
        }
        let joined = normalise(&folder.join(path));
        if joined.starts_with(folder) && joined != folder {
            return Ok(Choice::Own(joined));
        }
        Err(ChoiceError::Outside {
            word: word.to_owned(),
        })
    }
}

/// `path` with `.` and `..` taken away lexically, as the words say (links are not followed:
/// inside the sandbox the copy holds no links).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `program` as exec would find it: a path taken as it is (made absolute: the sandbox starts
/// it in a folder of its own, where `./run` would name nothing), a bare name searched on
/// `search`; it must be an executable regular file. The error says why not.
pub fn find(program: &OsStr, search: &OsStr) -> Result<PathBuf, &'static str> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| -> Result<(), &'static str> {
        let metadata = std::fs::metadata(path).map_err(|_| "no such file")?;
        if !metadata.is_file() {
            return Err("not a file");
        }
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err("not executable");
        }
        Ok(())
    };
    if program.is_empty() {
        return Err("the program name is empty");
    }
    if program.as_encoded_bytes().contains(&b'/') {
        let path = std::path::absolute(program).map_err(|_| "no such file")?;
        executable(&path)?;
        return Ok(path);
    }
    std::env::split_paths(search)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate).is_ok())
        .and_then(|found| std::path::absolute(found).ok())
        .ok_or("not found on PATH")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared() -> Runtimes {
        Runtimes::declare(
            &[("shell".into(), "sh".into())],
            OsStr::new("/usr/bin:/bin"),
        )
        .unwrap()
    }

    #[test]
    fn a_manifest_names_runtimes_by_name_or_file_name_and_nothing_else_on_path() {
        let runtimes = declared();
        assert!(matches!(
            runtimes.choose("shell", Path::new("/s")),
            Ok(Choice::Runtime(_))
        ));
        assert!(matches!(
            runtimes.choose("sh", Path::new("/s")),
            Ok(Choice::Runtime(_))
        ));
        // On PATH, but not declared.
        assert!(matches!(
            runtimes.choose("ls", Path::new("/s")),
            Err(ChoiceError::NotDeclared { .. })
        ));
    }

    #[test]
    fn a_path_is_the_folders_own_file_or_a_declared_runtime_never_anything_else() {
        let runtimes = declared();
        let folder = Path::new("/autograder/submission");
        assert_eq!(
            runtimes.choose("./run.sh", folder),
            Ok(Choice::Own(folder.join("run.sh")))
        );
        assert_eq!(
            runtimes.choose("/autograder/submission/bin/python3", folder),
            Ok(Choice::Own(folder.join("bin/python3")))
        );
        for word in [
            "../other/python3",
            "/usr/bin/python3",
            "./a/../../x",
            "/tmp/python3",
        ] {
            assert!(
                matches!(
                    runtimes.choose(word, folder),
                    Err(ChoiceError::Outside { .. })
                ),
                "{word}"
            );
        }
        assert!(matches!(
            runtimes.choose("/bin/sh", folder),
            Ok(Choice::Runtime(_))
        ));
    }

    #[test]
    fn declarations_are_checked_for_shape_and_existence() {
        assert!(Runtimes::parse_flag("ruby=/usr/bin/ruby").is_ok());
        for bad in ["ruby", "=x", "ru by=x", "ruby="] {
            assert!(Runtimes::parse_flag(bad).is_err(), "{bad}");
        }
        let missing = Runtimes::declare(
            &[("ghost".into(), "/nonexistent/ghost".into())],
            OsStr::new(""),
        );
        assert!(matches!(missing, Err(RuntimeError::Program { .. })));
        let twice = Runtimes::declare(
            &[("a".into(), "sh".into()), ("a".into(), "sh".into())],
            OsStr::new("/usr/bin:/bin"),
        );
        assert!(matches!(twice, Err(RuntimeError::Twice { .. })));
    }
}
