//! The students' folders of a merge: each checked in its shard before anything is written,
//! then copied; and the merge's `--out`, which must be new.

use super::{MergeError, Merged, ShardBook};
use crate::grade::out::{OutDir, REPORTS, STUDENTS, TEACHER};
use crate::grade::Entry;
use std::path::{Path, PathBuf};

/// Checks that `out` may take the merge: a new folder, or an empty one. Merging never writes
/// over earlier results, least of all over a shard's own.
pub fn check_out(out: &Path) -> Result<(), MergeError> {
    match std::fs::read_dir(out).map(|mut listing| listing.next().is_none()) {
        Ok(true) => Ok(()),
        Ok(false) => Err(MergeError::OutExists {
            path: out.to_owned(),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(MergeError::Io {
            path: out.to_owned(),
            source,
        }),
    }
}

/// One student's folder in a shard, and the regular files in it.
#[derive(Debug)]
pub struct Folder {
    pub from: PathBuf,
    pub files: Vec<PathBuf>,
}

/// Each student's folders in their shard, checked before anything is written:
/// `students/NAME/` and `teacher/reports/NAME/`, each holding regular files only, as a grade
/// writes them (a link is refused, never followed).
pub(super) fn of_submissions(
    graded: &[(Entry, usize)],
    shards: &[ShardBook],
) -> Result<Vec<[Folder; 2]>, MergeError> {
    graded
        .iter()
        .map(|(entry, place)| {
            let shard = &shards[*place];
            if entry.name.is_empty()
                || entry.name == "."
                || entry.name == ".."
                || entry.name.contains(['/', '\0'])
            {
                return Err(MergeError::Unreadable {
                    path: shard.path.clone(),
                    reason: format!("`{}` cannot name a submission", entry.name.escape_debug()),
                });
            }
            let students = shard.folder.join(STUDENTS).join(&entry.name);
            let reports = shard.folder.join(TEACHER).join(REPORTS).join(&entry.name);
            Ok([folder(students)?, folder(reports)?])
        })
        .collect()
}

fn folder(from: PathBuf) -> Result<Folder, MergeError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| MergeError::Io { path, source }
    };
    let kind = std::fs::symlink_metadata(&from).map_err(io(&from))?;
    if !kind.is_dir() {
        return Err(MergeError::Unreadable {
            path: from,
            reason: "not a folder: grade the shard again".to_owned(),
        });
    }
    let mut files = Vec::new();
    for file in std::fs::read_dir(&from).map_err(io(&from))? {
        let file = file.map_err(io(&from))?;
        let path = file.path();
        if !file.file_type().map_err(io(&path))?.is_file() {
            return Err(MergeError::Unreadable {
                path,
                reason: "not a regular file, which a grade never writes".to_owned(),
            });
        }
        files.push(path);
    }
    files.sort();
    Ok(Folder { from, files })
}

/// Copies each student's folders from their shard into `students` and `reports`.
pub fn copy_submissions(
    merged: &Merged,
    students: &OutDir,
    reports: &OutDir,
) -> Result<(), MergeError> {
    for ((entry, _), [own, report]) in merged.graded.iter().zip(&merged.folders) {
        copy_folder(own, students, &entry.name)?;
        copy_folder(report, reports, &entry.name)?;
    }
    Ok(())
}

fn copy_folder(folder: &Folder, into: &OutDir, name: &str) -> Result<(), MergeError> {
    let written = |source| MergeError::Write {
        path: into.path().join(name),
        source,
    };
    let to = into.subdir(name).map_err(written)?;
    for path in &folder.files {
        let bytes = std::fs::read(path).map_err(|source| MergeError::Io {
            path: path.clone(),
            source,
        })?;
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        to.write(&file, &bytes).map_err(written)?;
    }
    Ok(())
}
