//! The one launch builder per kind of implementation: a Python module under the Python
//! adapter, a JavaScript module under the Node adapter, a program that speaks the protocol
//! itself. `check` and `grade` both build their launches here and differ only in the
//! [`Wrap`] they apply: `check`'s containment, or `grade`'s sandbox.

use crate::process::{Launch, Limits};
use crate::sandbox::Runtimes;
use crate::sandbox::{contain, Containment};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The languages parcall runs under an adapter of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// A `.py` module, run by CPython.
    Python,
    /// An `.mjs`, `.cjs` or `.js` module, run by Node 20+.
    JavaScript,
}

impl Language {
    /// The language of a module, by its extension; `None` for any other file.
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension().and_then(OsStr::to_str) {
            Some("py") => Some(Language::Python),
            Some("mjs" | "cjs" | "js") => Some(Language::JavaScript),
            _ => None,
        }
    }

    /// The adapter's file name and its source, embedded so the binary works from anywhere.
    pub fn adapter(self) -> (&'static str, &'static str) {
        match self {
            Language::Python => ("parcall_adapter.py", super::adapters::PYTHON_ADAPTER),
            Language::JavaScript => ("parcall_adapter.mjs", super::adapters::JAVASCRIPT_ADAPTER),
        }
    }

    /// The flag that names this language's interpreter.
    pub fn flag(self) -> &'static str {
        match self {
            Language::Python => "--python",
            Language::JavaScript => "--node",
        }
    }

    /// `INTERPRETER [FLAGS] ADAPTER MODULE`: the module run under the adapter found at
    /// `adapter`. Python runs isolated (`-I`: no user site, no PYTHON* variables) and
    /// writes no `.pyc` files into the module's folder (`-B`).
    pub fn module(
        self,
        interpreter: &OsStr,
        adapter: &Path,
        module: &Path,
        limits: Limits,
    ) -> Launch {
        let flags: &[&str] = match self {
            Language::Python => &["-I", "-B"],
            Language::JavaScript => &[],
        };
        let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
        args.extend([adapter.into(), module.into()]);
        plain(interpreter.to_owned(), args, None, limits)
    }
}

/// A program that speaks the protocol itself (`--cmd`, a submission's `parcall.json`),
/// started in `current_dir` when given.
pub fn program(
    program: &OsStr,
    args: &[OsString],
    current_dir: Option<PathBuf>,
    limits: Limits,
) -> Launch {
    plain(program.to_owned(), args.to_vec(), current_dir, limits)
}

fn plain(
    program: OsString,
    args: Vec<OsString>,
    current_dir: Option<PathBuf>,
    limits: Limits,
) -> Launch {
    Launch {
        program,
        args,
        env: Vec::new(),
        clear_env: false,
        current_dir,
        limits,
        readable: Vec::new(),
        stdin: None,
        build: None,
    }
}

/// What turns the launch of an implementation into the launch that actually runs: the
/// containment of `check`, the sandbox of `grade`. A wrap may replace the program (with
/// `unshare`, `setpriv`), the environment and the folder, never the implementation's own
/// command, which it runs last.
pub trait Wrap {
    fn wrap(&self, inner: Launch) -> Launch;
}

impl<F: Fn(Launch) -> Launch> Wrap for F {
    fn wrap(&self, inner: Launch) -> Launch {
        self(inner)
    }
}

/// `check`'s containment, laying out only the programs the caller declared.
pub struct Contained<'a> {
    pub containment: &'a Containment,
    pub runtimes: &'a Runtimes,
    /// A manifest's folder (see [`contain::wrap`]).
    pub own_folder: Option<&'a std::path::Path>,
}

impl Wrap for Contained<'_> {
    fn wrap(&self, inner: Launch) -> Launch {
        contain::wrap(&inner, self.containment, self.runtimes, self.own_folder)
    }
}

/// The wrap that changes nothing.
pub fn unwrapped(inner: Launch) -> Launch {
    inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension() {
        for (name, language) in [
            ("a.py", Some(Language::Python)),
            ("a.mjs", Some(Language::JavaScript)),
            ("a.cjs", Some(Language::JavaScript)),
            ("a.js", Some(Language::JavaScript)),
            ("a.rb", None),
            ("py", None),
        ] {
            assert_eq!(Language::of(Path::new(name)), language, "{name}");
        }
    }

    #[test]
    fn a_closure_is_a_wrap() {
        let launch = program(OsStr::new("impl"), &["a".into()], None, Limits::default());
        let wrap = |inner: Launch| {
            let mut args = vec![OsString::from("--")];
            args.extend(inner.command_line());
            Launch {
                program: "sandbox".into(),
                args,
                ..inner
            }
        };
        let wrapped = wrap.wrap(launch.clone());
        assert_eq!(wrapped.program, "sandbox");
        assert_eq!(wrapped.args, ["--", "impl", "a"]);
        assert_eq!(unwrapped.wrap(launch.clone()).args, launch.args);
    }
}
