//! Reading input files: regular files of bounded size only, and JSON files into typed
//! values.

use super::{from_value_owned, ShapeError};
use crate::json::ParseError;
use serde::de;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The largest input file parcall reads (spec case files, expectations, rubrics,
/// regressions): far above any real one, far below what would exhaust memory.
pub const MAX_INPUT_FILE_BYTES: u64 = 256 << 20;

/// Reads a regular file as UTF-8 text. Opened without blocking and checked to be a regular
/// file before anything is read, so a FIFO or a device at the path is refused at once
/// instead of hanging the run; larger than [`MAX_INPUT_FILE_BYTES`] is refused too.
pub fn read_regular_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if metadata.len() > MAX_INPUT_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {} MiB",
            MAX_INPUT_FILE_BYTES >> 20
        )));
    }
    let mut text = String::new();
    file.take(MAX_INPUT_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Reads a JSON file into a typed value; the error names the file, and the line and column
/// or the field path of the problem.
pub fn from_file<T: de::DeserializeOwned>(path: &Path) -> Result<T, FileError> {
    let text = read_regular_file(path).map_err(|source| FileError::Read {
        path: path.to_owned(),
        source,
    })?;
    let value = crate::json::parse(&text).map_err(|source| FileError::Json {
        path: path.to_owned(),
        source,
    })?;
    from_value_owned(value).map_err(|source| FileError::Shape {
        path: path.to_owned(),
        source,
    })
}

/// Why [`from_file`] could not read a typed value from a file; each names the file.
#[derive(Debug, Error)]
pub enum FileError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: invalid JSON: {source}", path.display())]
    Json { path: PathBuf, source: ParseError },
    #[error("{}: {source}", path.display())]
    Shape { path: PathBuf, source: ShapeError },
}

/// The readers of these files report errors as text (a file's error is the whole story).
impl From<FileError> for String {
    fn from(error: FileError) -> String {
        error.to_string()
    }
}
