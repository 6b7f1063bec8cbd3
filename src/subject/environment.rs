//! The environment an implementation starts with. A CI job's variables hold secrets (tokens,
//! keys), so by default only what a program needs to start passes: the search paths, the
//! home folder, the locale and parcall's own variables. `--pass-env NAME` adds one,
//! `--inherit-env` passes everything.

use std::ffi::{OsStr, OsString};

/// Variables passed by default, by exact name.
pub const PASSED: [&str; 9] = [
    "PATH",
    "HOME",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "NODE_PATH",
];

/// Variables passed by default, by prefix: the locale (`LC_ALL`, `LC_CTYPE`, ...) and
/// parcall's own.
pub const PASSED_PREFIXES: [&str; 2] = ["LC_", "PARCALL_"];

/// What of the caller's machine reaches the implementation: which variables, and which
/// folders a sandbox lets it read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Pass every variable (`--inherit-env`).
    pub inherit: bool,
    /// Extra names to pass (`--pass-env`).
    pub pass: Vec<String>,
    /// Folders bound read-only (`--readable`).
    pub readable: Vec<std::path::PathBuf>,
}

impl EnvPolicy {
    /// Whether a variable of the caller's passes.
    pub fn passes(&self, name: &OsStr) -> bool {
        if self.inherit {
            return true;
        }
        let Some(name) = name.to_str() else {
            return false;
        };
        PASSED.contains(&name)
            || PASSED_PREFIXES.iter().any(|p| name.starts_with(p))
            || self.pass.iter().any(|p| p == name)
    }

    /// The variables of `vars` that pass.
    pub fn select(
        &self,
        vars: impl Iterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        vars.filter(|(name, _)| self.passes(name)).collect()
    }
}

/// A `--pass-env` value that cannot name a variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a variable name (pass a NAME; its value comes from the environment)")]
pub struct VariableNameError {
    pub text: String,
}

/// `--pass-env NAME`: a variable name, which cannot be empty or hold `=` or NUL.
pub fn variable_name(text: &str) -> Result<String, VariableNameError> {
    if text.is_empty() || text.contains(['=', '\0']) {
        return Err(VariableNameError { text: text.into() });
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> impl Iterator<Item = (OsString, OsString)> {
        names
            .iter()
            .map(|n| (OsString::from(n), OsString::from("value")))
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn secrets_stay_behind_by_default() {
        let policy = EnvPolicy::default();
        let passed = policy.select(vars(&[
            "PATH",
            "AWS_SECRET_ACCESS_KEY",
            "LC_ALL",
            "GITHUB_TOKEN",
            "PARCALL_FIXTURE_TOKEN",
        ]));
        let names: Vec<_> = passed.iter().map(|(n, _)| n.to_str().unwrap()).collect();
        assert_eq!(names, ["PATH", "LC_ALL", "PARCALL_FIXTURE_TOKEN"]);
    }

    #[test]
    fn pass_env_adds_one_and_inherit_env_adds_all() {
        let one = EnvPolicy {
            inherit: false,
            pass: vec!["GITHUB_TOKEN".into()],
            ..EnvPolicy::default()
        };
        assert!(one.passes(OsStr::new("GITHUB_TOKEN")));
        assert!(!one.passes(OsStr::new("GITHUB_TOKEN_2")));
        let all = EnvPolicy {
            inherit: true,
            ..EnvPolicy::default()
        };
        assert!(all.passes(OsStr::new("AWS_SECRET_ACCESS_KEY")));
    }

    #[test]
    fn names_with_equals_are_refused() {
        assert!(variable_name("A=B").is_err());
        assert!(variable_name("").is_err());
        assert_eq!(variable_name("CI").unwrap(), "CI");
    }
}
