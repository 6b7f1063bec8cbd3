//! `parcall grade` taking submissions in and handing results out: every submission file
//! opened as data only (a FIFO, a device or a link refused for its type, never opened), what
//! a student receives sanitised (no host path, no raw escape code), and no `--out` or
//! `spec export` folder written over without `--overwrite`.

use crate::common;

use common::copy_from_repo;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const SOLUTION: &str = "conformance/examples/python/solution.py";

fn parcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `parcall grade CLASS --out OUT` with quick settings and `extra`.
fn grade(class: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "grade",
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend([
        "--seed",
        "5",
        "--fuzz",
        "0",
        "--function",
        "execute_tool_calls",
        "--jobs",
        "1",
    ]);
    args.extend(extra);
    parcall(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn mknod(path: &Path, kind: libc::mode_t, device: libc::dev_t) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mknod(2) reads `c` up to its NUL: a `CString` alive until after the call.
    assert_eq!(unsafe { libc::mknod(c.as_ptr(), kind | 0o644, device) }, 0);
}

fn is_root() -> bool {
    // SAFETY: geteuid(2) takes no argument and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Everything under `students/NAME/`, as one text.
fn student_files(out: &Path, name: &str) -> String {
    ["feedback.txt", "gradescope.json", "exercism.json"]
        .iter()
        .map(|file| std::fs::read_to_string(out.join("students").join(name).join(file)).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A FIFO with no writer (an open for reading without O_NONBLOCK would hang the grade), a
/// copy of /dev/null's node, a device no driver owns (any open fails with ENXIO), a link,
/// and a folder holding a FIFO: each refused for its type, named relative to the submission.
#[test]
fn special_files_are_refused_unopened_and_named_relative_to_the_submission() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    copy_from_repo(SOLUTION, &class.join("carol/main.py"));
    mknod(&class.join("carol/data.txt"), libc::S_IFIFO, 0);
    mknod(&class.join("fifo.py"), libc::S_IFIFO, 0);
    std::os::unix::fs::symlink(class.join("alice.py"), class.join("link.py")).unwrap();
    let mut refused = vec![
        ("fifo", "fifo.py is a FIFO, not a regular file"),
        ("link", "link.py is a symbolic link"),
        ("carol", "data.txt is a FIFO, not a regular file"),
    ];
    if is_root() {
        let null = std::os::unix::fs::MetadataExt::rdev(&std::fs::metadata("/dev/null").unwrap());
        mknod(&class.join("null.py"), libc::S_IFCHR, null);
        // Major 240 is for local, experimental use: no driver claims it here.
        mknod(
            &class.join("nodriver.py"),
            libc::S_IFCHR,
            libc::makedev(240, 77),
        );
        refused.push(("null", "null.py is a character device, not a regular file"));
        refused.push((
            "nodriver",
            "nodriver.py is a character device, not a regular file",
        ));
    } else {
        eprintln!("skipped the devices: making device nodes needs root");
    }
    let out = work.path().join("out");
    let output = grade(&class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let host = work.path().display().to_string();
    for (name, reason) in refused {
        let written = student_files(&out, name);
        assert!(written.contains(reason), "{name}: {written}");
        assert!(!written.contains(&host), "{name}: a host path: {written}");
        assert!(!written.contains("cannot read"), "{name}: {written}");
    }
}

/// What a submission prints (escape codes that clear the screen, a forged summary line)
/// reaches its student's files shown escaped, as the teacher's report shows it.
#[test]
fn what_a_submission_prints_reaches_its_student_escaped() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    copy_from_repo(
        "conformance/fixtures/python/terminal_injection.py",
        &class.join("mallory.py"),
    );
    let out = work.path().join("out");
    let output = grade(&class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let feedback = std::fs::read_to_string(out.join("students/mallory/feedback.txt")).unwrap();
    assert!(feedback.contains("\\x1b[2J"), "{feedback}");
    assert!(
        feedback.contains("  | "),
        "printed lines are quoted: {feedback}"
    );
    let raw = |text: &str| text.contains(['\u{1b}', '\u{7}', '\r', '\u{202e}']);
    assert!(!raw(&feedback), "raw control characters: {feedback:?}");
    for file in ["gradescope.json", "exercism.json"] {
        let written = std::fs::read_to_string(out.join("students/mallory").join(file)).unwrap();
        // JSON escapes a control character itself (`\u001b`): read back, it is raw again.
        let value: serde_json::Value = serde_json::from_str(&written).unwrap();
        let mut strings = vec![&value];
        while let Some(value) = strings.pop() {
            match value {
                serde_json::Value::String(s) => assert!(!raw(s), "{file}: {s:?}"),
                serde_json::Value::Array(items) => strings.extend(items),
                serde_json::Value::Object(fields) => strings.extend(fields.values()),
                _ => {}
            }
        }
        assert!(
            !written.contains(&work.path().display().to_string()),
            "{file}"
        );
    }
}

/// `--out` that already holds a run, that is the class or sits in it: a usage error, and
/// nothing is written; `--overwrite` replaces an earlier run, and nothing else.
#[test]
fn no_output_is_overwritten_silently() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    copy_from_repo(SOLUTION, &class.join("bob.py"));
    let out = work.path().join("out");
    assert_eq!(grade(&class, &out, &[]).status.code(), Some(0));
    // An earlier run's student, gone from the class since.
    std::fs::create_dir(out.join("students/zed")).unwrap();
    let again = grade(&class, &out, &[]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("--overwrite"),
        "{}",
        text(&again.stderr)
    );
    assert!(
        out.join("students/zed").is_dir(),
        "the earlier run was touched"
    );

    let replaced = grade(&class, &out, &["--overwrite"]);
    assert_eq!(
        replaced.status.code(),
        Some(0),
        "{}",
        text(&replaced.stderr)
    );
    assert!(
        !out.join("students/zed").exists(),
        "the earlier run's students stay mixed in"
    );
    assert!(out.join("students/alice/feedback.txt").is_file());

    // Anything a run does not write: refused even with --overwrite, left as it was.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let foreign = grade(&class, &out, &["--overwrite"]);
    assert_eq!(foreign.status.code(), Some(2), "{}", text(&foreign.stderr));
    assert!(
        text(&foreign.stderr).contains("notes.txt"),
        "{}",
        text(&foreign.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(out.join("teacher/gradebook.json").is_file());

    for inside in [class.clone(), class.join("grades"), work.path().to_owned()] {
        let output = grade(&class, &inside, &["--overwrite"]);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
        assert!(
            text(&output.stderr).contains("folder graded"),
            "{}",
            text(&output.stderr)
        );
    }
    assert!(!class.join("grades").exists() && !class.join("students").exists());
}

/// Shards of one run may share an `--out`: a shard joins the others' files, never replaces
/// them, and grading the same shard there again needs --overwrite.
#[test]
fn shards_of_one_run_share_an_out_folder() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    copy_from_repo(SOLUTION, &class.join("alice.py"));
    copy_from_repo(SOLUTION, &class.join("bob.py"));
    let out = work.path().join("out");
    for shard in ["1/2", "2/2"] {
        let output = grade(&class, &out, &["--shard", shard]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{shard}: {}",
            text(&output.stderr)
        );
    }
    assert!(out.join("teacher/gradebook.shard-1-of-2.json").is_file());
    assert!(out.join("teacher/gradebook.shard-2-of-2.json").is_file());
    assert_eq!(
        grade(&class, &out, &["--shard", "1/2"]).status.code(),
        Some(2)
    );
}

#[test]
fn spec_export_never_writes_into_a_folder_silently() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("exported");
    let dir_arg = dir.to_str().unwrap();
    assert_eq!(parcall(&["spec", "export", dir_arg]).status.code(), Some(0));
    let again = parcall(&["spec", "export", dir_arg]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("--overwrite"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        parcall(&["spec", "export", dir_arg, "--overwrite"])
            .status
            .code(),
        Some(0)
    );
    std::fs::write(dir.join("mine.txt"), "mine").unwrap();
    assert_eq!(
        parcall(&["spec", "export", dir_arg, "--overwrite"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("mine.txt")).unwrap(),
        "mine"
    );
}
