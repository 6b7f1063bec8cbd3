//! `parcall grade merge`: the results of a class graded in shards (a CI matrix, a Slurm
//! array, a Kubernetes indexed Job) joined into the results one run would have written. The
//! shards are read back through [`Gradebook`] and refused unless together they are exactly
//! one class graded one way: every shard once, the same seed, spec and options, each
//! student in one shard only.

use super::gradebook::{Gradebook, ProtectionRecord, Run, Shard, FORMAT, VERSION};
use super::out::TEACHER;
use super::Entry;
use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};

mod folders;
pub use folders::{check_out, copy_submissions, Folder};

/// Why shards cannot be merged: the teacher's input, a usage error.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no shard folder given")]
    NoShard,
    #[error("{}: not a `parcall grade --shard` output: no teacher/gradebook.shard-I-of-N.json in it", .folder.display())]
    NotAGradeOutput { folder: PathBuf },
    #[error("{}: graded in one run, not as a shard (it has teacher/gradebook.json); grade with --shard I/N to merge", .folder.display())]
    OneRun { folder: PathBuf },
    #[error("{}: {reason}", .path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("{}: the shard did not finish (`\"complete\": false`); grade shard {shard} again", .path.display())]
    Incomplete { path: PathBuf, shard: Shard },
    #[error("{}: its name says shard {named}, its contents shard {recorded}", .path.display())]
    Renamed {
        path: PathBuf,
        named: String,
        recorded: String,
    },
    #[error("{} and {} were graded with different {field}: {first} and {other}", .first_path.display(), .other_path.display())]
    Differs {
        first_path: PathBuf,
        other_path: PathBuf,
        field: &'static str,
        first: String,
        other: String,
    },
    #[error("shard {index}/{count} is given twice: {}", folders(.paths))]
    Duplicated {
        index: usize,
        count: usize,
        paths: Vec<PathBuf>,
    },
    #[error("{} missing: every shard of {count} is needed", missing(.indices, *.count))]
    Missing { indices: Vec<usize>, count: usize },
    #[error("{name} is graded in two shards: {} and {}", .first.display(), .other.display())]
    SameStudent {
        name: String,
        first: PathBuf,
        other: PathBuf,
    },
    #[error("{}: already exists and is not empty; merge into a new folder", .path.display())]
    OutExists { path: PathBuf },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The machine's doing (a full disk), not the shards': the merge is incomplete.
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl MergeError {
    /// Whether merged results could not be written, rather than the shards refused.
    pub fn is_write(&self) -> bool {
        matches!(self, MergeError::Write { .. })
    }
}

fn folders(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(" and ")
}

fn missing(indices: &[usize], count: usize) -> String {
    let shown: Vec<String> = indices.iter().map(|i| format!("{i}/{count}")).collect();
    match shown.as_slice() {
        [one] => format!("shard {one} is"),
        _ => format!("shards {} are", shown.join(", ")),
    }
}

/// One shard's gradebook, and the folder its students' files are in.
#[derive(Debug)]
pub struct ShardBook {
    pub folder: PathBuf,
    pub path: PathBuf,
    pub shard: Shard,
    pub book: Gradebook,
}

/// A class merged from its shards: what one run would have graded.
#[derive(Debug)]
pub struct Merged {
    pub run: Run,
    /// In gradebook order, with the place in `shards` of the shard each came from.
    pub graded: Vec<(Entry, usize)>,
    /// Each of `graded`'s folders: `students/NAME/` and `teacher/reports/NAME/`.
    pub folders: Vec<[Folder; 2]>,
    pub shards: Vec<ShardBook>,
}

/// Reads every shard gradebook in `folders` (a folder may hold several, when shards were
/// graded into one `--out`) and checks that together they are one class graded one way.
pub fn read(folders: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut shards = Vec::new();
    for folder in folders {
        shards.extend(read_folder(folder)?);
    }
    let Some(first) = shards.first() else {
        return Err(MergeError::NoShard);
    };
    for other in &shards[1..] {
        if let Some((field, a, b)) = difference(first, other) {
            return Err(MergeError::Differs {
                first_path: first.path.clone(),
                other_path: other.path.clone(),
                field,
                first: a,
                other: b,
            });
        }
    }
    every_shard_once(&shards)?;
    let graded = one_class(&shards)?;
    let folders = folders::of_submissions(&graded, &shards)?;
    let mut run = Run::of(&first.book);
    run.shard = None;
    run.protections = weakest(&shards);
    Ok(Merged {
        run,
        graded,
        folders,
        shards,
    })
}

/// The shard gradebooks under `folder`/teacher, by name.
fn read_folder(folder: &Path) -> Result<Vec<ShardBook>, MergeError> {
    let teacher = folder.join(TEACHER);
    let not_output = || MergeError::NotAGradeOutput {
        folder: folder.to_owned(),
    };
    let listing = std::fs::read_dir(&teacher).map_err(|_| not_output())?;
    let mut named = Vec::new();
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(shard) = shard_named(&name) {
            named.push((shard, teacher.join(&name)));
        }
    }
    if named.is_empty() {
        return Err(if teacher.join("gradebook.json").exists() {
            MergeError::OneRun {
                folder: folder.to_owned(),
            }
        } else {
            not_output()
        });
    }
    named.sort();
    named
        .into_iter()
        .map(|(shard, path)| read_book(folder, path, shard))
        .collect()
}

/// `(I, N)` for `gradebook.shard-I-of-N.json`.
fn shard_named(name: &str) -> Option<(usize, usize)> {
    let (index, count) = name
        .strip_prefix("gradebook.shard-")?
        .strip_suffix(".json")?
        .split_once("-of-")?;
    Some((index.parse().ok()?, count.parse().ok()?))
}

fn read_book(
    folder: &Path,
    path: PathBuf,
    (index, count): (usize, usize),
) -> Result<ShardBook, MergeError> {
    let unreadable = |reason: String| MergeError::Unreadable {
        path: path.clone(),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| unreadable(e.to_string()))?;
    let header: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| unreadable(format!("not JSON: {e}")))?;
    if header["format"] != FORMAT || header["version"] != VERSION {
        return Err(unreadable(format!(
            "not a {FORMAT} of version {VERSION} (written by another parcall? grade the shard again)"
        )));
    }
    let mut reader = serde_json::Deserializer::from_str(&text);
    let book: Gradebook = serde_path_to_error::deserialize(&mut reader)
        .map_err(|e| unreadable(format!("at {}: {}", e.path(), e.inner())))?;
    let Some(shard) = book.shard.filter(|s| (1..=s.count).contains(&s.index)) else {
        return Err(unreadable(
            "records no shard I/N with 1 <= I <= N".to_owned(),
        ));
    };
    if (shard.index, shard.count) != (index, count) {
        return Err(MergeError::Renamed {
            path,
            named: format!("{index}/{count}"),
            recorded: shard.to_string(),
        });
    }
    if !book.complete {
        return Err(MergeError::Incomplete { path, shard });
    }
    Ok(ShardBook {
        folder: folder.to_owned(),
        path,
        shard,
        book,
    })
}

/// The first field that decides scores and differs between two shards, with both values.
fn difference(a: &ShardBook, b: &ShardBook) -> Option<(&'static str, String, String)> {
    fn field<T: PartialEq + Display>(
        name: &'static str,
        a: T,
        b: T,
    ) -> Option<(&'static str, String, String)> {
        (a != b).then(|| (name, a.to_string(), b.to_string()))
    }
    fn listed<T: PartialEq + serde::Serialize>(
        name: &'static str,
        a: &T,
        b: &T,
    ) -> Option<(&'static str, String, String)> {
        let shown = |v: &T| serde_json::to_string(v).unwrap_or_default();
        (a != b).then(|| (name, shown(a), shown(b)))
    }
    let (sa, sb) = (a.shard, b.shard);
    let (a, b) = (&a.book, &b.book);
    let (x, y) = (&a.options, &b.options);
    field("spec versions (suite)", &a.suite, &b.suite)
        .or_else(|| field("seeds (--seed)", a.seed, b.seed))
        .or_else(|| field("shard counts (--shard I/N)", sa.count, sb.count))
        .or_else(|| field("class sizes (submissions found)", sa.class, sb.class))
        .or_else(|| listed("functions (--function)", &x.functions, &y.functions))
        .or_else(|| field("hidden case counts (--fuzz)", x.fuzz, y.fuzz))
        .or_else(|| listed("rubric points (--rubric)", &x.points, &y.points))
        .or_else(|| {
            field(
                "partial credit (--rubric)",
                x.partial_credit,
                y.partial_credit,
            )
        })
        .or_else(|| field("timeouts (--timeout)", x.timeout_seconds, y.timeout_seconds))
        .or_else(|| field("memory limits (--memory-mib)", x.memory_mib, y.memory_mib))
        .or_else(|| field("CPU limits (--cpu-seconds)", x.cpu_seconds, y.cpu_seconds))
        .or_else(|| {
            field(
                "submission budgets (--submission-seconds)",
                x.submission_seconds,
                y.submission_seconds,
            )
        })
}

/// Every shard index of the count once.
fn every_shard_once(shards: &[ShardBook]) -> Result<(), MergeError> {
    let Some(count) = shards.first().map(|s| s.shard.count) else {
        return Err(MergeError::NoShard);
    };
    let mut by_index: BTreeMap<usize, Vec<PathBuf>> = BTreeMap::new();
    for shard in shards {
        let index = shard.shard.index;
        by_index.entry(index).or_default().push(shard.path.clone());
    }
    if let Some((index, paths)) = by_index.iter().find(|(_, paths)| paths.len() > 1) {
        return Err(MergeError::Duplicated {
            index: *index,
            count,
            paths: paths.clone(),
        });
    }
    let indices: Vec<usize> = (1..=count).filter(|i| !by_index.contains_key(i)).collect();
    if !indices.is_empty() {
        return Err(MergeError::Missing { indices, count });
    }
    Ok(())
}

/// Every shard's entries in gradebook order (by name, as one run sorts them), each with its
/// shard's place in `shards`; a student in two shards is refused.
fn one_class(shards: &[ShardBook]) -> Result<Vec<(Entry, usize)>, MergeError> {
    let mut graded: BTreeMap<String, (Entry, usize)> = BTreeMap::new();
    for (place, shard) in shards.iter().enumerate() {
        for entry in shard.book.entries() {
            if let Some((_, first)) = graded.get(&entry.name) {
                return Err(MergeError::SameStudent {
                    name: crate::text::terminal::line(&entry.name).into_owned(),
                    first: shards[*first].path.clone(),
                    other: shard.path.clone(),
                });
            }
            graded.insert(entry.name.clone(), (entry, place));
        }
    }
    Ok(graded.into_values().collect())
}

/// The protections every shard had: one inactive in any shard is inactive in the class,
/// with that shard's reason.
fn weakest(shards: &[ShardBook]) -> Vec<ProtectionRecord> {
    let Some((first, rest)) = shards.split_first() else {
        return Vec::new();
    };
    let mut protections = first.book.protections.clone();
    for shard in rest {
        for protection in &mut protections {
            let other = shard
                .book
                .protections
                .iter()
                .find(|p| p.name == protection.name);
            if let Some(other) = other.filter(|p| protection.active && !p.active) {
                *protection = other.clone();
            }
        }
    }
    protections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_shard_gradebook_names_a_shard() {
        assert_eq!(shard_named("gradebook.shard-2-of-8.json"), Some((2, 8)));
        for name in [
            "gradebook.json",
            "gradebook.shard-2-of-8.csv",
            ".gradebook.shard-2-of-8.json.parcall-1-0",
            "gradebook.shard-x-of-8.json",
        ] {
            assert_eq!(shard_named(name), None, "{name}");
        }
    }

    #[test]
    fn missing_shards_are_each_named() {
        let one = MergeError::Missing {
            indices: vec![3],
            count: 4,
        };
        assert_eq!(
            one.to_string(),
            "shard 3/4 is missing: every shard of 4 is needed"
        );
        let two = MergeError::Missing {
            indices: vec![1, 4],
            count: 4,
        };
        assert!(two.to_string().starts_with("shards 1/4, 4/4 are missing"));
    }
}
