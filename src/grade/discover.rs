//! Finding the submissions in the paths a teacher gives. The paths are the teacher's and are
//! canonicalised (so `alice.py` from inside the class still hides the class folder); what is
//! inside a class folder is the students' and is never followed: a link, a FIFO or a folder
//! of the wrong shape becomes a refused submission with the reason, not an error that stops
//! the whole class.
//!
//! A module is a Python one (`.py`) or a JavaScript one (`.mjs`, `.cjs`, `.js`), as
//! `parcall check` takes them. A folder holding a manifest, `parcall.json`, is a program
//! that speaks the protocol itself: `{"cmd": ["PROGRAM", "ARG", ...]}`, run in its folder.

use crate::process::data::{Dir, Entry, Kind as EntryKind, Special};
use crate::subject::launch::Language;
use crate::subject::manifest;
pub use crate::subject::manifest::{Manifest, MANIFEST};
use std::path::{Path, PathBuf};

/// One student's work: a module, alone or in a folder of its own, or a folder with a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// Unique in the class: the file stem or the folder name.
    pub name: String,
    /// What is copied into the sandbox: the file, or the folder (canonical).
    pub source: PathBuf,
    /// The module to load (the manifest, for a program).
    pub module: PathBuf,
    /// How it runs; `None` when it is refused.
    pub kind: Option<Kind>,
    /// Why it is not graded, when it is refused at discovery.
    pub refused: Option<String>,
}

/// How a submission runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A module under its language's adapter.
    Module(Language),
    /// A program of its own, from its manifest, run in its folder.
    Command(Manifest),
}

/// Why the submissions could not be found: the teacher's paths, not a student's work.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("{}: no such file or folder ({source})", .path.display())]
    Missing {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a file or a folder", .path.display())]
    NotAFileOrFolder { path: PathBuf },
    #[error("{}: a submission is a Python module (.py), a JavaScript module (.mjs, .cjs, .js) or a folder holding one or a `parcall.json`", .path.display())]
    NotAModule { path: PathBuf },
    #[error("{}: cannot list: {source}", .path.display())]
    Unlistable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no submission found (a submission is a .py, .mjs, .cjs or .js module, or a folder holding one or a `parcall.json`)")]
    None,
}

/// The submissions found, and a note for each one named more than once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    pub submissions: Vec<Submission>,
    /// One line per submission named twice (graded once): worth telling, never an error.
    pub notes: Vec<String>,
}

/// Finds the submissions in `paths`: a module file is one; a folder holding a manifest, or
/// exactly one module and no sub-folder, is one; any other folder is a class, whose module
/// entries and sub-folders are submissions, except the results folder `out`: a class graded
/// twice into `class/grades` would otherwise grade its own last results as a student's.
pub fn discover(paths: &[PathBuf], out: &Path) -> Result<Discovered, DiscoverError> {
    let results = Results::of(out);
    let mut found = Vec::new();
    for path in paths {
        let path = std::fs::canonicalize(path).map_err(|source| DiscoverError::Missing {
            path: path.clone(),
            source,
        })?;
        // `class/*` names the results folder too when it sits in the class: walked as a
        // class, it holds nothing but its own `students` and `teacher`, which are left out.
        if results.is_submissions(&path) {
            continue;
        }
        if path.is_file() {
            found.push(file_submission(&path)?);
        } else if path.is_dir() {
            match named_folder(&path)? {
                Some(submission) => found.push(submission),
                None => found.extend(class(&path, &results)?),
            }
        } else {
            return Err(DiscoverError::NotAFileOrFolder { path });
        }
    }
    let (found, notes) = once_each(found);
    let found = one_per_name(found);
    if found.is_empty() {
        return Err(DiscoverError::None);
    }
    Ok(Discovered {
        submissions: found,
        notes,
    })
}

/// Each work once, however often it was named: the same file twice, a class folder and a
/// file in it, or a submission folder and its module. Which is kept is the one that names
/// the most (a folder over the file inside it, under the folder's name); a note says what
/// was named twice, since grading it twice under one name refused the second as a rival.
fn once_each(found: Vec<Submission>) -> (Vec<Submission>, Vec<String>) {
    let mut kept: Vec<Submission> = Vec::with_capacity(found.len());
    let mut notes = Vec::new();
    for submission in found {
        match kept.iter_mut().find(|k| k.module == submission.module) {
            Some(same) => {
                let (first, again) = if submission.source.is_dir() && !same.source.is_dir() {
                    (submission.clone(), std::mem::replace(same, submission))
                } else {
                    (same.clone(), submission)
                };
                let shown = |path: &Path| {
                    crate::text::terminal::line(&path.display().to_string()).into_owned()
                };
                notes.push(format!(
                    "{} was named twice ({} and {}): graded once",
                    crate::text::terminal::line(&first.name),
                    shown(&first.source),
                    shown(&again.source)
                ));
            }
            None => kept.push(submission),
        }
    }
    (kept, notes)
}

/// The submissions sorted by name, each name once. Entries that share a name (`alice/` beside `alice.py`, two names that are one
/// once made UTF-8) would share a results folder: a module file keeps the name (the first by
/// path among equals), and each other entry is refused with the reason, under a name of its
/// own, so one odd entry never stops the class.
fn one_per_name(mut found: Vec<Submission>) -> Vec<Submission> {
    for submission in &mut found {
        submission.name = fitting_name(&submission.name);
    }
    found.sort_by(|a, b| {
        let folder = |s: &Submission| s.source.is_dir();
        (&a.name, folder(a), &a.source).cmp(&(&b.name, folder(b), &b.source))
    });
    let mut taken: std::collections::BTreeSet<String> =
        found.iter().map(|s| s.name.clone()).collect();
    let mut kept: Vec<Submission> = Vec::with_capacity(found.len());
    for mut submission in found {
        let Some(first) = kept
            .iter()
            .find(|k| k.name == submission.name && k.refused_for_name().is_none())
        else {
            kept.push(submission);
            continue;
        };
        // The student reads this: the other entry by its own name in the class, never by
        // the class folder's path on the grader's machine.
        let other = first
            .source
            .file_name()
            .unwrap_or_default()
            .to_string_lossy();
        let reason = format!(
            "another submission is named `{}` too ({}): rename one of them so each has a name of its own",
            crate::text::terminal::line(&submission.name),
            crate::text::terminal::line(&other)
        );
        let mut n = 2;
        while taken.contains(&format!("{}~{n}", submission.name)) {
            n += 1;
        }
        submission.name = format!("{}~{n}", submission.name);
        taken.insert(submission.name.clone());
        submission.kind = None;
        submission.refused = Some(reason);
        kept.push(submission);
    }
    kept.sort_by(|a, b| a.name.cmp(&b.name));
    kept
}

impl Submission {
    /// Whether this entry was refused for sharing another's name.
    fn refused_for_name(&self) -> Option<&str> {
        self.refused
            .as_deref()
            .filter(|r| r.starts_with("another submission is named"))
    }
}

/// The longest submission name kept whole, in bytes: a name is a results folder's name, and a
/// file system refuses one past 255 bytes (with `~N` added to tell names apart, room to spare).
const MAX_NAME_BYTES: usize = 200;

/// `name`, or where it is longer than [`MAX_NAME_BYTES`] (an odd file name made UTF-8 grows
/// threefold), its beginning and a digest of the whole, so two long names stay apart: one
/// student's file name never stops the class's results from being written.
fn fitting_name(name: &str) -> String {
    if name.len() <= MAX_NAME_BYTES {
        return name.to_owned();
    }
    let mut end = MAX_NAME_BYTES - 17;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    // FNV-1a: stable across runs and machines, so a regrade writes the same folders.
    let digest = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{}~{digest:016x}", &name[..end])
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn is_module(path: &Path) -> bool {
    Language::of(path).is_some()
}

fn file_submission(path: &Path) -> Result<Submission, DiscoverError> {
    let Some(language) = Language::of(path) else {
        return Err(DiscoverError::NotAModule {
            path: path.to_owned(),
        });
    };
    Ok(Submission {
        name: stem(path),
        source: path.to_owned(),
        module: path.to_owned(),
        kind: Some(Kind::Module(language)),
        refused: None,
    })
}

/// The entries of `dir` (opened; named `path`) with their own type, from `fstatat` (a link
/// is a link, not what it points to, and nothing is opened), hidden files and caches left
/// out.
fn entries(dir: &Dir, path: &Path) -> Result<Vec<(PathBuf, EntryKind)>, DiscoverError> {
    let unlistable = |source| DiscoverError::Unlistable {
        path: path.to_owned(),
        source,
    };
    let mut entries = Vec::new();
    for name in dir.names().map_err(unlistable)? {
        if name.as_encoded_bytes().starts_with(b".") || name == "__pycache__" {
            continue;
        }
        // Gone since it was listed: as if it had never been there.
        if let Ok(kind) = dir.kind(&name) {
            entries.push((path.join(name), kind));
        }
    }
    Ok(entries)
}

/// A folder of the teacher's naming (links leading to it followed) as a submission, if it
/// is one.
fn named_folder(path: &Path) -> Result<Option<Submission>, DiscoverError> {
    let dir = Dir::open(path).map_err(|source| DiscoverError::Unlistable {
        path: path.to_owned(),
        source,
    })?;
    folder_submission(&dir, path)
}

/// `dir` (opened; named `path`) as a submission: a manifest read from it (opened as data,
/// relative to the folder's descriptor), or exactly one module and no sub-folder.
fn folder_submission(dir: &Dir, path: &Path) -> Result<Option<Submission>, DiscoverError> {
    let entries = entries(dir, path)?;
    let folder_name = || {
        path.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    if let Some((manifest, _)) = entries.iter().find(|(p, _)| p.ends_with(MANIFEST)) {
        let mut submission = refused(path, folder_name(), String::new());
        submission.module = manifest.clone();
        match manifest::read_in(dir) {
            Ok(read) => {
                submission.kind = Some(Kind::Command(read));
                submission.refused = None;
            }
            Err(reason) => submission.refused = Some(format!("{MANIFEST}: {reason}")),
        }
        return Ok(Some(submission));
    }
    // By name: whether a module is a regular file is the copy's to check (and refuse).
    let modules: Vec<&PathBuf> = entries
        .iter()
        .filter(|(p, t)| *t != EntryKind::Dir && is_module(p))
        .map(|(p, _)| p)
        .collect();
    if modules.len() == 1 && !entries.iter().any(|(_, t)| *t == EntryKind::Dir) {
        let name = path
            .file_name()
            .map_or_else(|| stem(modules[0]), |n| n.to_string_lossy().into_owned());
        return Ok(Some(Submission {
            name,
            source: path.to_owned(),
            module: modules[0].clone(),
            kind: Language::of(modules[0]).map(Kind::Module),
            refused: None,
        }));
    }
    Ok(None)
}

fn refused(path: &Path, name: String, reason: String) -> Submission {
    Submission {
        name,
        source: path.to_owned(),
        module: path.to_owned(),
        kind: None,
        refused: Some(reason),
    }
}

/// Where a grading run writes (`--out`), canonical, so discovery can leave it out.
struct Results(Option<PathBuf>);

impl Results {
    fn of(out: &Path) -> Results {
        Results(std::fs::canonicalize(out).ok())
    }

    /// Whether `path` (canonical) is the results folder or one of its own folders (the
    /// results written into the class folder itself, `--out class`).
    fn holds(&self, path: &Path) -> bool {
        self.0.as_ref().is_some_and(|out| path == out) || self.is_submissions(path)
    }

    /// Whether `path` (canonical) is one of the results' own folders ([`super::out::FOLDERS`]).
    fn is_submissions(&self, path: &Path) -> bool {
        self.0.as_ref().is_some_and(|out| {
            super::out::FOLDERS
                .iter()
                .any(|folder| path == out.join(folder))
        })
    }
}

fn class(path: &Path, results: &Results) -> Result<Vec<Submission>, DiscoverError> {
    let dir = Dir::open(path).map_err(|source| DiscoverError::Unlistable {
        path: path.to_owned(),
        source,
    })?;
    let mut found = Vec::new();
    for (entry, kind) in entries(&dir, path)? {
        // `path` is canonical, so a folder inside it is named as canonicalize names it.
        if kind == EntryKind::Dir && results.holds(&entry) {
            continue;
        }
        let name = entry
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        match kind {
            EntryKind::Dir => found.push(student_folder(&dir, &entry, name)?),
            // Whatever its type: the copy refuses a link, a FIFO or a device with a reason.
            _ if is_module(&entry) => found.push(file_submission(&entry)?),
            EntryKind::Special(Special::Link) => found.push(refused(
                &entry,
                name.clone(),
                format!("{name} is a symbolic link: submit the folder itself"),
            )),
            _ => {}
        }
    }
    Ok(found)
}

/// The class folder's entry `path`, a folder when listed: opened from the class's
/// descriptor without following a link, so a folder swapped for one meanwhile is refused,
/// never read.
fn student_folder(class: &Dir, path: &Path, name: String) -> Result<Submission, DiscoverError> {
    let refusal = |reason: String| Ok(refused(path, name.clone(), reason));
    let opened = match class.entry(path.file_name().unwrap_or_default()) {
        Ok(Entry::Dir(dir)) => dir,
        Ok(Entry::File(_)) => {
            return refusal(format!(
                "{name} changed while parcall read it: submit it again, unchanged"
            ))
        }
        Err(reason) => return refusal(format!("{name} {reason}")),
    };
    Ok(folder_submission(&opened, path)?.unwrap_or_else(|| {
        refused(
            path,
            name.clone(),
            "a submission folder must hold a `parcall.json`, or exactly one module \
             (.py, .mjs, .cjs, .js) and no sub-folder"
                .into(),
        )
    }))
}

/// `--shard I/N`: the submissions of shard I (1-based) of N, by name, so shards never
/// overlap and together cover the class.
pub fn shard(submissions: Vec<Submission>, index: usize, count: usize) -> Vec<Submission> {
    submissions
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % count == index - 1)
        .map(|(_, s)| s)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name a file system would refuse as a folder's is shortened, and two long names that
    /// share a beginning stay apart.
    #[test]
    fn long_names_fit_a_folder_name_and_stay_apart() {
        let long = |tail: &str| format!("{}{tail}", "\u{fffd}".repeat(100));
        let (a, b) = (fitting_name(&long("a")), fitting_name(&long("b")));
        assert!(
            a.len() <= MAX_NAME_BYTES && b.len() <= MAX_NAME_BYTES,
            "{a}"
        );
        assert_ne!(a, b);
        assert_eq!(fitting_name("alice"), "alice");
    }

    fn names(submissions: &[Submission]) -> Vec<&str> {
        submissions.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn the_results_folder_inside_a_class_is_not_a_submission() {
        let class = tempfile::tempdir().unwrap();
        std::fs::write(class.path().join("alice.py"), "").unwrap();
        let grades = class.path().join("grades");
        std::fs::create_dir_all(grades.join("submissions/alice")).unwrap();
        std::fs::write(grades.join("gradebook.json"), "{}").unwrap();
        let classes = [class.path().to_owned()];

        let graded_into_it = discover(&classes, &grades).unwrap().submissions;
        assert_eq!(names(&graded_into_it), ["alice"]);

        // Named another way (relative, with `..`), it is still the same folder.
        let roundabout = grades.join("submissions/..");
        assert_eq!(
            names(&discover(&classes, &roundabout).unwrap().submissions),
            ["alice"]
        );

        // Results graded elsewhere: a folder of the class that is not one module is refused.
        let elsewhere = tempfile::tempdir().unwrap();
        let found = discover(&classes, elsewhere.path()).unwrap().submissions;
        assert_eq!(names(&found), ["alice", "grades"]);
        assert!(found[1].refused.is_some());

        // Named among the paths (`class/*`), it is left out too.
        let each: Vec<PathBuf> = [class.path().join("alice.py"), grades.clone()].into();
        assert_eq!(
            names(&discover(&each, &grades).unwrap().submissions),
            ["alice"]
        );

        // Results written into the class folder itself: its own folders are not students.
        for folder in [
            "submissions/alice",
            "students/alice",
            "teacher/reports/alice",
        ] {
            std::fs::create_dir_all(class.path().join(folder)).unwrap();
        }
        let found = discover(&classes, class.path()).unwrap().submissions;
        assert_eq!(names(&found), ["alice", "grades"]);

        // The results folder alone holds no submission.
        assert!(discover(std::slice::from_ref(&grades), &grades).is_err());
    }

    #[test]
    fn a_name_shared_by_two_entries_refuses_one_of_them_not_the_class() {
        let class = tempfile::tempdir().unwrap();
        std::fs::write(class.path().join("alice.py"), "").unwrap();
        std::fs::create_dir(class.path().join("alice")).unwrap();
        std::fs::write(class.path().join("alice/main.py"), "").unwrap();
        std::fs::write(class.path().join("bob.py"), "").unwrap();
        let found = discover(&[class.path().to_owned()], &class.path().join("out"))
            .unwrap()
            .submissions;
        assert_eq!(names(&found), ["alice", "alice~2", "bob"]);
        assert!(found[0].source.is_file() && found[0].refused.is_none());
        let refused = found[1].refused.as_deref().unwrap();
        assert!(
            refused.contains("named `alice` too (alice.py)"),
            "{refused}"
        );
        let host = class.path().display().to_string();
        assert!(!refused.contains(&host), "{refused}");
        assert_eq!(found[1].kind, None);
    }

    /// The same work named twice is graded once, with a note: the same file twice, a class
    /// and a file in it, a submission folder and its module (which took the folder's name
    /// and was refused as a rival).
    #[test]
    fn a_submission_named_twice_is_graded_once_with_a_note() {
        let class = tempfile::tempdir().unwrap();
        std::fs::write(class.path().join("bob.py"), "").unwrap();
        std::fs::create_dir(class.path().join("alice")).unwrap();
        std::fs::write(class.path().join("alice/main.py"), "").unwrap();
        let out = class.path().join("out");
        let bob = class.path().join("bob.py");
        let alice = class.path().join("alice/main.py");
        for (paths, twice) in [
            (vec![bob.clone(), bob.clone()], "bob"),
            (vec![class.path().to_owned(), bob.clone()], "bob"),
            (vec![class.path().to_owned(), alice.clone()], "alice"),
            (vec![alice.clone(), class.path().join("alice")], "alice"),
        ] {
            let found = discover(&paths, &out).unwrap();
            let expected: &[&str] = if paths[0] == bob {
                &["bob"]
            } else {
                &["alice", "bob"]
            };
            let expected = if paths[0] == alice {
                &["alice"][..]
            } else {
                expected
            };
            assert_eq!(names(&found.submissions), expected, "{paths:?}");
            assert!(found.submissions.iter().all(|s| s.refused.is_none()));
            assert_eq!(found.notes.len(), 1, "{paths:?}: {:?}", found.notes);
            assert!(
                found.notes[0].starts_with(&format!("{twice} was named twice (")),
                "{:?}",
                found.notes
            );
        }
    }

    #[rstest::rstest]
    #[case::words(r#"{"cmd": ["./run.sh", "--fast"]}"#, Ok(&["./run.sh", "--fast"][..]))]
    #[case::a_string(r#"{"cmd": "./run.sh"}"#, Err("expected a sequence"))]
    #[case::unknown_field(r#"{"cmd": ["a"], "env": {}}"#, Err("unknown field `env`"))]
    #[case::no_cmd("{}", Err("missing field `cmd`"))]
    #[case::empty(r#"{"cmd": []}"#, Err("`cmd` is empty"))]
    #[case::empty_program(r#"{"cmd": [""]}"#, Err("empty program"))]
    #[case::not_json("cmd = ./run.sh", Err("expected"))]
    fn manifests_are_read_strictly(#[case] text: &str, #[case] expected: Result<&[&str], &str>) {
        let class = tempfile::tempdir().unwrap();
        let folder = class.path().join("alice");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join(MANIFEST), text).unwrap();
        std::fs::write(folder.join("run.sh"), "").unwrap();
        let found = discover(&[class.path().to_owned()], &class.path().join("out"))
            .unwrap()
            .submissions;
        assert_eq!(names(&found), ["alice"]);
        match expected {
            Ok(cmd) => {
                let manifest = Manifest {
                    cmd: cmd.iter().map(|w| w.to_string()).collect(),
                    build: None,
                };
                assert_eq!(found[0].kind, Some(Kind::Command(manifest)));
                assert_eq!(found[0].refused, None);
            }
            Err(reason) => {
                let refused = found[0].refused.as_deref().unwrap();
                assert!(refused.starts_with("parcall.json: "), "{refused}");
                assert!(refused.contains(reason), "{refused}");
                assert_eq!(found[0].kind, None);
            }
        }
    }

    #[test]
    fn javascript_modules_are_submissions() {
        let class = tempfile::tempdir().unwrap();
        for file in ["a.mjs", "b.cjs", "c.js", "d.py", "notes.txt"] {
            std::fs::write(class.path().join(file), "").unwrap();
        }
        let found = discover(&[class.path().to_owned()], &class.path().join("out"))
            .unwrap()
            .submissions;
        assert_eq!(names(&found), ["a", "b", "c", "d"]);
        let kinds: Vec<_> = found.iter().map(|s| s.kind.clone()).collect();
        let js = Some(Kind::Module(Language::JavaScript));
        let py = Some(Kind::Module(Language::Python));
        assert_eq!(kinds, [js.clone(), js.clone(), js, py]);
    }

    /// A manifest that is not a regular file is refused for its type, never opened: a FIFO
    /// with no writer would block the read, a device no driver owns would fail its open.
    #[test]
    fn a_manifest_that_is_not_a_regular_file_is_refused_unopened() {
        let class = tempfile::tempdir().unwrap();
        let mut planted = vec![("fifo", libc::S_IFIFO, 0, "a FIFO")];
        // SAFETY: geteuid(2) takes no argument and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            // Major 240 is for local, experimental use: no driver claims it here.
            planted.push((
                "device",
                libc::S_IFCHR,
                libc::makedev(240, 77),
                "a character device",
            ));
        }
        for (name, kind, device, _) in &planted {
            let folder = class.path().join(name);
            std::fs::create_dir(&folder).unwrap();
            let path = folder.join(MANIFEST);
            let c = std::ffi::CString::new(path.into_os_string().into_encoded_bytes()).unwrap();
            // SAFETY: mknod(2) reads `c` up to its NUL: a `CString` alive until after the call.
            assert_eq!(unsafe { libc::mknod(c.as_ptr(), kind | 0o644, *device) }, 0);
        }
        std::fs::create_dir(class.path().join("link")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", class.path().join("link").join(MANIFEST))
            .unwrap();
        planted.push(("link", 0, 0, "a symbolic link"));
        let found = discover(&[class.path().to_owned()], &class.path().join("out"))
            .unwrap()
            .submissions;
        for (name, _, _, described) in planted {
            let submission = found.iter().find(|s| s.name == name).unwrap();
            assert_eq!(
                submission.refused.as_deref(),
                Some(&*format!(
                    "parcall.json: not a regular file ({described}): name the manifest itself"
                ))
            );
        }
    }
}
