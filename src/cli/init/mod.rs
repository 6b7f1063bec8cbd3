//! `parcall init LANG [DIR]`: a starter kit, so an implementer writes only the two functions.
//! Each kit is a folder of `conformance/kits/` built into the binary: the protocol adapter
//! (handshake, messages, a stub per tool, JSON in the protocol's dialect, the canonical key),
//! one file holding `execute_tool_calls` and `run_parallel_calls` left empty, and a
//! `parcall.json` manifest, so `parcall check DIR` and `parcall grade` run it as it is.
//! `tests/suite/kits.rs` fills every kit with a correct implementation kept in the
//! repository and checks that it conforms, so no kit can rot.

mod go;
mod java;
mod javascript;
mod python;
mod ruby;
mod rust;
mod typescript;

use super::{exit, InitArgs};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One language's starter kit.
#[derive(Debug)]
pub(super) struct Kit {
    /// What `parcall init` is given: `go`, `java`, ...
    pub(super) language: &'static str,
    /// The toolchain it needs, for `--list`.
    pub(super) needs: &'static str,
    /// Its files, by path within the kit's folder.
    pub(super) files: &'static [(&'static str, &'static str)],
    /// The one file the implementer edits: it holds the two functions.
    pub(super) functions: &'static str,
    /// What to run next, in the kit's folder.
    pub(super) next: &'static [&'static str],
}

/// Every kit, by language name.
pub(super) const KITS: &[&Kit] = &[
    &go::KIT,
    &java::KIT,
    &javascript::KIT,
    &python::KIT,
    &ruby::KIT,
    &rust::KIT,
    &typescript::KIT,
];

/// The kit for `language` (its name, case-insensitive; `ts` and `js` for short).
pub(super) fn kit(language: &str) -> Option<&'static Kit> {
    let wanted = match language.to_ascii_lowercase().as_str() {
        "ts" => "typescript".to_owned(),
        "js" => "javascript".to_owned(),
        "py" => "python".to_owned(),
        "rb" => "ruby".to_owned(),
        "golang" => "go".to_owned(),
        other => other.to_owned(),
    };
    KITS.iter().copied().find(|kit| kit.language == wanted)
}

pub(super) fn run(args: InitArgs) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    let Some(language) = &args.language else {
        list(&mut out)?;
        return Ok(exit::SUCCESS);
    };
    let Some(kit) = kit(language) else {
        say!(
            "error: no starter kit for `{language}`; kits: {} (`parcall init` lists them)",
            names()
        );
        return Ok(exit::USAGE);
    };
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("parcall-{}", kit.language)));
    if let Err(error) = write(kit, &dir) {
        say!("error: {error}");
        return Ok(exit::USAGE);
    }
    writeln!(
        out,
        "Wrote the {} starter kit to {}/ ({} files).\n\nWrite the two functions in {}, then, in that folder:\n",
        kit.language,
        dir.display(),
        kit.files.len(),
        kit.functions
    )?;
    for step in kit.next {
        writeln!(out, "  {step}")?;
    }
    writeln!(out, "\nIts README.md says more.")?;
    Ok(exit::SUCCESS)
}

fn names() -> String {
    KITS.iter()
        .map(|k| k.language)
        .collect::<Vec<_>>()
        .join(", ")
}

fn list(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "Starter kits (`parcall init LANG [DIR]`):\n")?;
    for kit in KITS {
        writeln!(out, "  {:<11} {}", kit.language, kit.needs)?;
    }
    Ok(())
}

/// Why a kit could not be written.
#[derive(Debug, thiserror::Error)]
pub(super) enum InitError {
    #[error("{}: {} exists already; nothing was written (choose another folder, or move it away)", .dir.display(), .file)]
    Exists { dir: PathBuf, file: String },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Writes `kit` into `dir` (created if missing). Nothing is overwritten: every file's place
/// is checked before the first is written, and each is created only if it does not exist.
pub(super) fn write(kit: &Kit, dir: &Path) -> Result<(), InitError> {
    for (name, _) in kit.files {
        if std::fs::symlink_metadata(dir.join(name)).is_ok() {
            return Err(InitError::Exists {
                dir: dir.to_owned(),
                file: (*name).to_owned(),
            });
        }
    }
    for (name, contents) in kit.files {
        let path = dir.join(name);
        let io = |source| InitError::Io {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::AlreadyExists => InitError::Exists {
                    dir: dir.to_owned(),
                    file: (*name).to_owned(),
                },
                _ => io(source),
            })?;
        file.write_all(contents.as_bytes()).map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kit_names_its_functions_file_and_a_readme() {
        for kit in KITS {
            let names: Vec<&str> = kit.files.iter().map(|(n, _)| *n).collect();
            for wanted in [kit.functions, "README.md"] {
                assert!(names.contains(&wanted), "{}: {wanted}", kit.language);
            }
            assert!(!kit.next.is_empty(), "{}", kit.language);
        }
        assert_eq!(kit("JS").map(|k| k.language), Some("javascript"));
        assert!(kit("cobol").is_none());
    }

    #[test]
    fn a_kit_never_overwrites_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let kit = &python::KIT;
        std::fs::write(dir.path().join(kit.functions), "mine").unwrap();
        assert!(matches!(
            write(kit, dir.path()),
            Err(InitError::Exists { .. })
        ));
        assert_eq!(
            std::fs::read_to_string(dir.path().join(kit.functions)).unwrap(),
            "mine"
        );
        let fresh = dir.path().join("fresh");
        write(kit, &fresh).unwrap();
        assert!(fresh.join("README.md").is_file());
    }
}
