//! Every language, checked and graded alike: a program opens its protocol pipes the ordinary
//! way (by path), a declared runtime finds its standard library in the sandbox, a manifest's
//! build step compiles source inside it, and a failure the sandbox caused is told as the
//! caller's set-up error, not as the implementation's.

use crate::common;

use common::copy_from_repo;
use std::path::Path;

/// A program that reopens its pipes and its stdout by path (as Java's `FileInputStream`, C#'s
/// `FileStream` and Ruby's `File.open` do) before starting the Python adapter on the
/// reopened descriptors.
const REOPENS_BY_PATH: &str = r#"
import os, sys
request, reply = os.environ["PARCALL_PROTOCOL_FDS"].split(",")
reader = os.open("/dev/fd/" + request, os.O_RDONLY)
writer = os.open("/dev/fd/" + reply, os.O_WRONLY)
stdout = os.open("/dev/stdout", os.O_WRONLY)
os.write(stdout, b"stdout reopened\n")
os.dup2(reader, int(request))
os.dup2(writer, int(reply))
os.execv(sys.executable, [sys.executable, "-I", "-B"] + sys.argv[1:])
"#;

fn python_project(dir: &Path) {
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &dir.join("solution.py"),
    );
    copy_from_repo(
        "conformance/adapters/python/parcall_adapter.py",
        &dir.join("adapter.py"),
    );
}

#[test]
fn a_program_opens_its_pipes_by_path_inside_the_sandbox() {
    let work = tempfile::tempdir().unwrap();
    python_project(work.path());
    std::fs::write(work.path().join("reopen.py"), REOPENS_BY_PATH).unwrap();
    let command = format!(
        "python3 {} adapter.py solution.py",
        work.path().join("reopen.py").display()
    );
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", "--cmd", &command, "--seed", "1", "--fuzz", "5"])
        .args(["--color", "never"])
        .current_dir(work.path())
        .env("PARCALL_REGRESSIONS", work.path().join("regressions.json"))
        .output()
        .unwrap();
    let stdout = common::stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `grade` over `class` with `args`, its gradebook in `out`; asserts the run completed.
fn grade(class: &Path, out: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec![
        "grade",
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "2",
        "--fuzz",
        "10",
    ];
    all.extend(args);
    let output = common::parcall(&all);
    let said = (
        common::stdout(&output),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert_eq!(output.status.code(), Some(0), "{}\n{}", said.0, said.1);
    said
}

#[test]
fn a_submissions_own_script_keeps_its_execute_bit_in_grade() {
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir().unwrap();
    let scripted = work.path().join("class/scripted");
    python_project(&scripted);
    let run = scripted.join("run.sh");
    std::fs::write(
        &run,
        "#!/bin/sh\nexec python3 -I -B adapter.py solution.py\n",
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(scripted.join("parcall.json"), r#"{"cmd": ["./run.sh"]}"#).unwrap();
    let out = work.path().join("out");
    let said = grade(&work.path().join("class"), &out, &[]);
    let entry = common::gradebook_entry(&out, "scripted");
    assert_eq!(entry["verdict"], "conforms", "{entry}\n{}", said.0);
}

/// A declared runtime finds its standard library inside the sandbox, found by asking it on
/// the machine: Ruby's `json` (a compiled extension) and `set`, with no `--readable`.
#[test]
fn ruby_finds_its_standard_library_in_the_sandbox() {
    if !std::process::Command::new("ruby")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: no ruby on this machine (.ci/run installs it)");
        return;
    }
    let output = common::parcall(&[
        "check",
        "--cmd",
        "ruby -e 'require %q(json); require %q(set); STDERR.puts JSON.generate([1]); exit 7'",
        "--fuzz",
        "0",
        "--color",
        "never",
    ]);
    let said = common::stdout(&output);
    assert!(said.contains("exited with status 7"), "{said}");
    assert!(
        said.contains("[1]") && !said.contains("cannot load"),
        "{said}"
    );
}

/// A manifest's build step runs in the sandbox before its program, in a writable copy of the
/// folder (the caller's folder is left as it was); a build that fails is the implementation's
/// failure, told with what the compiler printed.
#[test]
fn a_build_step_runs_in_the_sandbox_and_its_failure_shows_the_compilers_output() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("built");
    python_project(&dir);
    let build = r#"import shutil; shutil.copy("adapter.py", "built.py")"#;
    let manifest = serde_json::json!({
        "build": ["python3", "-c", build],
        "cmd": ["python3", "-I", "-B", "built.py", "solution.py"],
    });
    std::fs::write(dir.join("parcall.json"), manifest.to_string()).unwrap();
    let check = |dir: &Path| {
        common::parcall(&[
            "check",
            dir.to_str().unwrap(),
            "--fuzz",
            "5",
            "--color",
            "never",
        ])
    };
    let output = check(&dir);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    assert!(
        !dir.join("built.py").exists(),
        "the build wrote into the caller's folder"
    );

    let failing = r#"import sys; sys.stderr.write("main.go:3:2: undefined: x\n"); sys.exit(2)"#;
    let manifest = serde_json::json!({
        "build": ["python3", "-c", failing],
        "cmd": ["python3", "-I", "-B", "adapter.py", "solution.py"],
    });
    std::fs::write(dir.join("parcall.json"), manifest.to_string()).unwrap();
    let output = check(&dir);
    let said = common::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("failed: it exited with status 2"), "{said}");
    assert!(said.contains("main.go:3:2: undefined: x"), "{said}");
}

/// A program that writes its hello to stdout, where the runner never reads, is told so as
/// soon as it is seen: here it would otherwise end by itself, without a word on its pipe,
/// long before the deadline.
#[test]
fn a_hello_on_stdout_is_told_at_once() {
    let script = r#"import sys, time; print('{"type": "hello", "protocol": 2}', flush=True); time.sleep(20)"#;
    let command = format!("python3 -c {}", shell_quote(script));
    let output = common::parcall(&[
        "check",
        "--cmd",
        &command,
        "--startup-timeout",
        "600",
        "--fuzz",
        "0",
        "--color",
        "never",
    ]);
    let said = common::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("did not answer the handshake; it wrote a protocol message to stdout"),
        "{said}"
    );
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A class mixing languages: each correct submission (a Python and a JavaScript module, and
/// Go source, Ruby and Java source built by their manifests, from `parcall init`'s kits)
/// grades 100% with the toolchains declared, each one-bug submission loses exactly its bug's
/// rule, and `check` on each file gives the same verdict and the same lost rules as `grade`.
#[test]
fn a_class_mixing_languages_grades_each_alike_and_check_agrees() {
    for (program, flag) in [
        ("go", "version"),
        ("ruby", "--version"),
        ("javac", "-version"),
    ] {
        if !crate::kits::toolchain(program, flag) {
            return;
        }
    }
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    // Go, Ruby and Java from their kits, built by their manifests; the one-bug ones carry
    // the bug the kits' tests keep for their language.
    let compiled_or_interpreted = ["go", "ruby", "java"];
    for language in compiled_or_interpreted {
        use crate::kits::{write_kit, Fill};
        write_kit(
            language,
            Fill::Correct,
            &class.join(format!("{language}-ok")),
        );
        write_kit(
            language,
            Fill::Broken,
            &class.join(format!("{language}-bug")),
        );
    }
    for (from, to) in [
        ("conformance/examples/python/solution.py", "python-ok.py"),
        (
            "conformance/examples/python/broken/ids_zero_based.py",
            "python-bug.py",
        ),
        (
            "conformance/examples/javascript/solution.mjs",
            "javascript-ok.mjs",
        ),
        (
            "conformance/examples/javascript/broken/ids_zero_based.cjs",
            "javascript-bug.cjs",
        ),
    ] {
        copy_from_repo(from, &class.join(to));
    }
    let declared = [
        "--runtime",
        "go=go",
        "--runtime",
        "ruby=ruby",
        "--runtime",
        "java=java",
        "--runtime",
        "javac=javac",
    ];
    let out = work.path().join("out");
    let mut args = vec!["--jobs", "2"];
    args.extend(declared);
    let said = grade(&class, &out, &args);

    let bug_of = |language: &str| {
        crate::kits::BUGS
            .iter()
            .find(|b| b.language == language)
            .map(|b| b.rule)
            .unwrap()
    };
    let expected_loss = [
        ("go-bug", bug_of("go")),
        ("ruby-bug", bug_of("ruby")),
        ("java-bug", bug_of("java")),
        ("python-bug", "EXEC-ID-GENERATED"),
        ("javascript-bug", "EXEC-ID-GENERATED"),
    ];
    let scores = common::gradebook(&out);
    for name in ["go-ok", "ruby-ok", "java-ok", "python-ok", "javascript-ok"] {
        let (score, max) = scores[name];
        assert_eq!(score, max, "{name} lost points:\n{}\n{}", said.0, said.1);
    }
    for (name, rule) in expected_loss {
        let entry = common::gradebook_entry(&out, name);
        assert_eq!(lost_in_grade(&entry), [rule], "{name}: {entry}");
    }

    // `check` on each file, with the seed and generated cases grade used.
    for entry in std::fs::read_dir(&class).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut args = vec![
            "check",
            path.to_str().unwrap(),
            "--seed",
            "2",
            "--fuzz",
            "10",
            "--color",
            "never",
        ];
        args.extend(declared);
        let output = common::parcall(&args);
        let said = common::stdout(&output);
        // The requirement lines: `  ✗ EXEC-ID-GENERATED  ...`.
        let graded = common::gradebook_entry(&out, &name);
        // Of the requirements grade scores (not SANDBOX-* or MAY ones).
        let scored: Vec<&str> = graded["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        let lost: Vec<String> = said
            .lines()
            .filter_map(|line| line.trim_start().strip_prefix("✗ "))
            .filter_map(|rest| rest.split_whitespace().next())
            .filter(|id| scored.contains(id))
            .map(str::to_owned)
            .collect();
        assert_eq!(
            lost,
            lost_in_grade(&graded),
            "{name}: check and grade disagree\n{said}"
        );
        let verdict = match output.status.code() {
            Some(0) => "conforms",
            Some(1) => "does_not_conform",
            other => panic!("{name}: check exited {other:?}\n{said}"),
        };
        assert_eq!(graded["verdict"], verdict, "{name}");
    }
}

/// The rules a gradebook entry lost points on.
fn lost_in_grade(entry: &serde_json::Value) -> Vec<String> {
    entry["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["earned"].as_f64() < r["points"].as_f64())
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A file of the caller's declares toolchains once (`--runtimes FILE`), as `--runtime` does,
/// and `parcall doctor` shows what each finds in the sandbox; a malformed line is a usage
/// error naming the file and the line.
#[test]
fn a_runtimes_file_declares_toolchains_and_doctor_shows_them() {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("runtimes.txt");
    std::fs::write(&file, "# the class's toolchains\n\nshell=sh\n").unwrap();
    let output = common::parcall(&["doctor", "--runtimes", file.to_str().unwrap()]);
    let said = common::stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.lines()
            .any(|line| line.trim_start().starts_with("shell ") && line.contains("/sh")),
        "{said}"
    );
    std::fs::write(&file, "shell=sh\nnot a declaration\n").unwrap();
    let output = common::parcall(&["doctor", "--runtimes", file.to_str().unwrap()]);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{errors}");
    assert!(errors.contains("runtimes.txt:2:"), "{errors}");
}

/// `grade --readable DIR` binds a folder of the machine into every submission's sandbox, as
/// `check --readable` does: here the folder a submission's code imports its module from
/// (graded on `run_parallel_calls`, whose tools come as arguments: the example's own
/// `dispatch` lives in the imported module, where parcall does not replace it).
#[test]
fn grade_binds_the_folders_it_is_told_are_readable() {
    let work = tempfile::tempdir().unwrap();
    let library = work.path().join("library");
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &library.join("shared_solution.py"),
    );
    let class = work.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(
        class.join("importer.py"),
        format!(
            "import sys\nsys.path.insert(0, {:?})\nfrom shared_solution import *\n",
            library.display().to_string()
        ),
    )
    .unwrap();
    // A second submission makes the folder a class.
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("plain.py"),
    );
    let only = ["--function", "run_parallel_calls"];
    let out = work.path().join("bound");
    let mut args = vec!["--readable", library.to_str().unwrap()];
    args.extend(only);
    grade(&class, &out, &args);
    let entry = common::gradebook_entry(&out, "importer");
    assert_eq!(entry["verdict"], "conforms", "{entry}");
    let out = work.path().join("unbound");
    grade(&class, &out, &only);
    let entry = common::gradebook_entry(&out, "importer");
    assert_eq!(entry["verdict"], "does_not_conform", "{entry}");
}
