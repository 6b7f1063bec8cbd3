//! Where a specification's files come from: the copy built into the binary, or a folder
//! named with `--spec`. The loader reads both the same way.

use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_spec.rs"));
}

/// A specification file that cannot be read. `file` is how [`Source::display`] names it.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{file}: not in the built-in spec")]
    NotBuiltIn { file: String },
    #[error("{file}: cannot read: {source}")]
    Unreadable {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}: cannot list case files: {source}")]
    Unlistable {
        file: String,
        source: std::io::Error,
    },
}

/// A specification's files, addressed by paths relative to the spec's root with `/`
/// separators (`cases/execute_tool_calls/ids.json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `spec/` as it was when this binary was built.
    Embedded,
    /// A folder laid out like `spec/`.
    Dir(PathBuf),
}

impl Source {
    /// How errors name the spec as a whole.
    pub fn root(&self) -> PathBuf {
        match self {
            Source::Embedded => PathBuf::from("the built-in spec"),
            Source::Dir(dir) => dir.clone(),
        }
    }

    /// How errors name one file: its path under the folder, or `spec/<path>` for the
    /// built-in copy (where it lives in parcall's repository).
    pub fn display(&self, relative: &str) -> String {
        match self {
            Source::Embedded => format!("spec/{relative} (built in)"),
            Source::Dir(dir) => dir.join(relative).display().to_string(),
        }
    }

    /// How a CI annotation names one file: `spec/<path>` for the built-in spec (where it
    /// lives in parcall's repository), the file itself for a folder.
    pub fn annotation_path(&self, relative: &str) -> String {
        match self {
            Source::Embedded => format!("spec/{relative}"),
            Source::Dir(dir) => dir.join(relative).display().to_string(),
        }
    }

    /// The text of one file.
    pub fn read(&self, relative: &str) -> Result<String, SourceError> {
        let file = || self.display(relative);
        match self {
            Source::Embedded => embedded::FILES
                .iter()
                .find(|(path, _)| *path == relative)
                .map(|(_, text)| (*text).to_owned())
                .ok_or_else(|| SourceError::NotBuiltIn { file: file() }),
            Source::Dir(dir) => {
                crate::json::read_regular_file(&dir.join(relative)).map_err(|source| {
                    SourceError::Unreadable {
                        file: file(),
                        source,
                    }
                })
            }
        }
    }

    /// The `*.json` files directly in folder `relative`, sorted so runs are reproducible.
    pub fn json_files(&self, relative: &str) -> Result<Vec<String>, SourceError> {
        let mut files = match self {
            Source::Embedded => {
                let prefix = format!("{relative}/");
                embedded::FILES
                    .iter()
                    .filter_map(|(path, _)| path.strip_prefix(&prefix).map(|name| (path, name)))
                    .filter(|(_, name)| !name.contains('/') && name.ends_with(".json"))
                    .map(|(path, _)| (*path).to_owned())
                    .collect()
            }
            Source::Dir(dir) => {
                list_json(dir, relative).map_err(|source| SourceError::Unlistable {
                    file: self.display(relative),
                    source,
                })?
            }
        };
        files.sort();
        Ok(files)
    }

    /// Every file of the built-in spec, for `parcall spec export`.
    pub fn embedded_files() -> &'static [(&'static str, &'static str)] {
        embedded::FILES
    }
}

fn list_json(dir: &Path, relative: &str) -> std::io::Result<Vec<String>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir.join(relative))? {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".json") {
            files.push(format!("{relative}/{name}"));
        }
    }
    Ok(files)
}
