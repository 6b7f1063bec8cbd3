//! `parcall grade merge`: a class graded in two shards and merged gives what one run gives
//! (the same gradebooks, class page, files and summary), and shards that are not one class
//! graded one way are refused with exit 2, naming what is wrong.

use crate::common;

use common::{copy_from_repo, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Small enough that the whole file grades in a few seconds of CPU.
const OPTIONS: [&str; 6] = [
    "--fuzz",
    "10",
    "--function",
    "execute_tool_calls",
    "--jobs",
    "1",
];

fn parcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `parcall grade CLASS --out OUT --seed SEED` with [`OPTIONS`] and `extra`; must exit 0.
fn grade(class: &Path, out: &Path, seed: &str, extra: &[&str]) -> Output {
    let args = [
        &["grade", path(class), "--out", path(out), "--seed", seed][..],
        &OPTIONS,
        extra,
    ]
    .concat();
    let output = parcall(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    output
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A class of `names`: the first the model solution, the rest a broken one.
fn class(dir: &Path, names: &[&str]) -> PathBuf {
    for (n, name) in names.iter().enumerate() {
        let from = if n == 0 {
            "conformance/examples/python/solution.py"
        } else {
            "conformance/examples/python/broken/ids_zero_based.py"
        };
        copy_from_repo(from, &dir.join(format!("{name}.py")));
    }
    dir.to_owned()
}

fn merge(shards: &[&Path], out: &Path) -> Output {
    let mut args = vec!["grade", "merge"];
    args.extend(shards.iter().map(|s| path(s)));
    args.extend(["--out", path(out)]);
    parcall(&args)
}

/// `merge` exits 2, its message holds every one of `said`, and `out` is as it was.
fn refused(shards: &[&Path], out: &Path, said: &[&str]) {
    let before = out.exists().then(|| files(out));
    let output = merge(shards, out);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{shards:?}: {stderr}");
    for words in said {
        assert!(
            stderr.contains(words),
            "{shards:?}: `{words}` not in {stderr}"
        );
    }
    assert_eq!(out.exists().then(|| files(out)), before, "{shards:?}");
}

/// A gradebook without what differs from run to run: where it ran and how long it took.
fn comparable(out: &Path) -> serde_json::Value {
    let mut book = common::read_gradebook(out);
    book.as_object_mut().unwrap().remove("site");
    for submission in book["submissions"].as_array_mut().unwrap() {
        submission.as_object_mut().unwrap().remove("duration_ms");
    }
    book
}

/// The gradebooks `out/teacher` holds follow `conformance/gradebook.schema.json`.
fn matches_the_schema(out: &Path) {
    let schema = parcall::grade::gradebook::schema();
    for entry in std::fs::read_dir(out.join("teacher")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("gradebook") && name.ends_with(".json")) {
            continue;
        }
        let book: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
        common::assert_follows_schema(&schema, &book, &name);
    }
}

#[test]
fn the_gradebook_schema_is_generated_from_the_gradebook_types() {
    let path = root().join("conformance/gradebook.schema.json");
    common::assert_generated(&path, &parcall::grade::gradebook::schema());
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, base: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, found);
            } else {
                found.push(path.strip_prefix(base).unwrap().to_owned());
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found.sort();
    found
}

#[test]
fn two_shards_merged_give_what_one_run_gives_and_mismatched_shards_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let at = |name: &str| work.path().join(name);
    let class = class(&at("class"), &["alice", "bob"]);
    let whole = grade(&class, &at("whole"), "5", &[]);
    grade(&class, &at("shard-1"), "5", &["--shard", "1/2"]);
    grade(&class, &at("shard-2"), "5", &["--shard", "2/2"]);

    let merged = merge(&[&at("shard-2"), &at("shard-1")], &at("merged"));
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&whole.stdout));
    assert_eq!(comparable(&at("merged")), comparable(&at("whole")));
    assert_eq!(comparable(&at("merged"))["shard"], serde_json::Value::Null);
    assert_eq!(files(&at("merged")), files(&at("whole")));
    for out in ["whole", "merged", "shard-1"] {
        matches_the_schema(&at(out));
    }
    for same in ["teacher/gradebook.csv", "teacher/class.html"] {
        let read = |out: &str| std::fs::read_to_string(at(out).join(same)).unwrap();
        assert_eq!(read("merged"), read("whole"), "{same}");
    }

    // Never written over, not even by a merge that would write the same.
    let book = std::fs::read(at("merged/teacher/gradebook.json")).unwrap();
    refused(
        &[&at("shard-1"), &at("shard-2")],
        &at("merged"),
        &["merged", "already exists"],
    );
    assert_eq!(
        std::fs::read(at("merged/teacher/gradebook.json")).unwrap(),
        book
    );
    let out = at("refused");
    refused(&[&at("shard-1")], &out, &["shard 2/2 is missing"]);
    refused(
        &[&at("shard-1"), &at("shard-1"), &at("shard-2")],
        &out,
        &["shard 1/2 is given twice", "shard-1"],
    );
    refused(
        &[&at("shard-1"), &class],
        &out,
        &["class", "not a `parcall grade --shard` output"],
    );
    refused(
        &[&at("shard-1"), &at("whole")],
        &out,
        &["whole", "graded in one run"],
    );

    // Bob again, under another seed: other hidden cases.
    grade(&class, &at("other-seed"), "6", &["--shard", "2/2"]);
    refused(
        &[&at("shard-1"), &at("other-seed")],
        &out,
        &["shard-1", "other-seed", "different seeds (--seed): 5 and 6"],
    );
    // Alice again, as shard 2 of a class of the same size.
    let other_class = class_with_alice_second(&at("other-class"));
    grade(&other_class, &at("alice-again"), "5", &["--shard", "2/2"]);
    refused(
        &[&at("shard-1"), &at("alice-again")],
        &out,
        &["alice is graded in two shards", "shard-1", "alice-again"],
    );
}

/// A class of two whose second submission (shard 2/2) is named alice.
fn class_with_alice_second(dir: &Path) -> PathBuf {
    copy_from_repo(
        "conformance/examples/python/broken/ids_zero_based.py",
        &dir.join("aaron.py"),
    );
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &dir.join("alice.py"),
    );
    dir.to_owned()
}

/// Edits a copy of a shard's gradebook and checks the merge refuses it: a shard that did not
/// finish, and one graded with another option than the rest.
#[test]
fn a_shard_that_did_not_finish_or_differs_in_an_option_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let at = |name: &str| work.path().join(name);
    let class = class(&at("class"), &["alice", "bob"]);
    grade(&class, &at("shard-1"), "8", &["--shard", "1/2"]);
    let book = at("shard-1/teacher/gradebook.shard-1-of-2.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    // The same shard as shard 2 of 2, edited: every check but the one under test passes.
    let edited = at("edited");
    let edit = |change: &dyn Fn(&mut serde_json::Value)| {
        let _ = std::fs::remove_dir_all(&edited);
        common::copy_dir(&at("shard-1"), &edited);
        let teacher = edited.join("teacher");
        std::fs::remove_file(teacher.join("gradebook.shard-1-of-2.json")).unwrap();
        let mut book = original.clone();
        book["shard"]["index"] = 2.into();
        for submission in book["submissions"].as_array_mut().unwrap() {
            submission["name"] = "zed".into();
        }
        change(&mut book);
        std::fs::write(
            teacher.join("gradebook.shard-2-of-2.json"),
            book.to_string(),
        )
        .unwrap();
    };
    let out = at("out");
    edit(&|book| book["complete"] = false.into());
    refused(&[&at("shard-1"), &edited], &out, &["did not finish"]);
    edit(&|book| book["options"]["fuzz"] = 11.into());
    refused(
        &[&at("shard-1"), &edited],
        &out,
        &["different hidden case counts (--fuzz): 10 and 11"],
    );
    edit(&|book| book["options"]["points"]["EXEC-ID-GIVEN"] = 3.0.into());
    refused(
        &[&at("shard-1"), &edited],
        &out,
        &["different rubric points"],
    );
    edit(&|book| book["suite"] = "0.0.1".into());
    refused(
        &[&at("shard-1"), &edited],
        &out,
        &["different spec versions"],
    );
    edit(&|book| book["surprise"] = true.into());
    refused(
        &[&at("shard-1"), &edited],
        &out,
        &["unknown field `surprise`"],
    );
    // A shard's folder is read, never followed: zed's feedback a link to another file.
    edit(&|_| ());
    for folder in ["students", "teacher/reports"] {
        std::fs::rename(
            edited.join(folder).join("alice"),
            edited.join(folder).join("zed"),
        )
        .unwrap();
    }
    let feedback = edited.join("students/zed/feedback.txt");
    std::fs::remove_file(&feedback).unwrap();
    std::os::unix::fs::symlink(&book, &feedback).unwrap();
    refused(
        &[&at("shard-1"), &edited],
        &out,
        &["zed/feedback.txt", "not a regular file"],
    );
}
