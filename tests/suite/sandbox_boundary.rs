//! What happens before the jail is entered: nothing a submission names runs, is asked or is
//! bound outside it. A manifest (`parcall.json`) chooses among the runtimes the caller
//! declared, by name, or names a file of its own folder, which runs only inside the sandbox;
//! the parcall binary never reaches a graded submission; the jail's plan never shows on a
//! command line. Each attack here touches only the files it created.

use crate::common;

use common::{copy_from_repo, gradebook_entry, parcall};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A fake interpreter: a script that, if it ever ran on the machine, would create `marker`
/// (a file outside every sandbox) and then fail.
fn plant_fake_interpreter(path: &Path, marker: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!("#!/bin/sh\necho ran >> '{}'\nexit 1\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A submission folder whose manifest starts its own `python3` by absolute path, and one
/// whose own script names that file on its `#!` line.
fn hostile_class(class: &Path, marker: &Path) -> [PathBuf; 2] {
    let by_path = class.join("by_path");
    let python = by_path.join("python3");
    plant_fake_interpreter(&python, marker);
    let manifest = serde_json::json!({"cmd": [python, "-c", "pass"]});
    std::fs::write(by_path.join("parcall.json"), manifest.to_string()).unwrap();

    let by_shebang = class.join("by_shebang");
    let interpreter = by_shebang.join("bin/node-fake");
    plant_fake_interpreter(&interpreter, marker);
    let script = by_shebang.join("run.sh");
    std::fs::write(&script, format!("#!{}\n", interpreter.display())).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(by_shebang.join("parcall.json"), r#"{"cmd": ["./run.sh"]}"#).unwrap();
    [by_path, by_shebang]
}

/// Fails with what parcall said unless it exited 0.
fn assert_conforms(output: &std::process::Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        common::stdout(output)
    );
}

fn quick_grade(class: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "grade",
        class.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "5",
        "--fuzz",
        "0",
        "--timeout",
        "2",
        "--function",
        "execute_tool_calls",
        "--jobs",
        "1",
    ];
    args.extend(extra);
    parcall(&args)
}

#[test]
fn a_manifests_own_interpreter_never_runs_on_the_machine_in_grade() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let marker = work.path().join("ran-on-the-host");
    hostile_class(&class, &marker);
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("alice.py"),
    );
    let out = work.path().join("out");
    let output = quick_grade(&class, &out, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        !marker.exists(),
        "a submission's file ran on the machine: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    let by_path = gradebook_entry(&out, "by_path");
    let reason = by_path["error"].as_str().unwrap_or_default();
    assert!(
        reason.contains("neither a declared runtime"),
        "{by_path}\n{stderr}"
    );
    assert_eq!(by_path["score"].as_f64(), Some(0.0), "{by_path}");
    let alice = gradebook_entry(&out, "alice");
    assert_eq!(alice["score"], alice["max_score"], "{alice}");
}

#[test]
fn a_manifests_own_interpreter_never_runs_on_the_machine_in_check() {
    let work = tempfile::tempdir().unwrap();
    let marker = work.path().join("ran-on-the-host");
    for folder in hostile_class(&work.path().join("class"), &marker) {
        let output = parcall(&["check", folder.to_str().unwrap(), "--case", "exec-seed-00*"]);
        assert_ne!(output.status.code(), Some(0), "{folder:?} conformed");
        assert!(
            !marker.exists(),
            "{folder:?}: a file of the implementation's ran on the machine: {}",
            std::fs::read_to_string(&marker).unwrap_or_default()
        );
    }
}

/// A manifest names programs of the machine only by the names the caller declared.
#[test]
fn a_manifest_runs_only_declared_runtimes() {
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("impl");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("parcall.json"),
        r#"{"cmd": ["true", "reference"]}"#,
    )
    .unwrap();
    let output = parcall(&["check", folder.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`true` is not a declared runtime")
            && stderr.contains("--runtime NAME=PATH"),
        "{stderr}"
    );
    // Declared by the caller, the same word runs.
    let output = parcall(&[
        "check",
        folder.to_str().unwrap(),
        "--runtime",
        "true=/bin/true",
        "--case",
        "exec-seed-00*",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("not a declared runtime"), "{stderr}");
}

/// The reference answers every case: a graded submission that could start the parcall
/// binary would score with no code of its own.
#[test]
fn the_parcall_binary_never_reaches_a_graded_submission() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let oracle = class.join("oracle");
    std::fs::create_dir_all(&oracle).unwrap();
    let manifest = serde_json::json!({"cmd": [env!("CARGO_BIN_EXE_parcall"), "reference"]});
    std::fs::write(oracle.join("parcall.json"), manifest.to_string()).unwrap();
    let out = work.path().join("out");
    let output = quick_grade(&class, &out, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let entry = gradebook_entry(&out, "oracle");
    assert_eq!(entry["score"].as_f64(), Some(0.0), "{entry}");

    // Declaring it as a runtime is refused before anything is graded.
    let declared = format!("parcall={}", env!("CARGO_BIN_EXE_parcall"));
    let out = work.path().join("out-declared");
    let output = quick_grade(&class, &out, &["--runtime", &declared]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is the parcall binary"), "{stderr}");
}

/// The jail's plan (every host path the sandbox binds) reaches its helper on stdin: a
/// command line is readable by every user of the machine in `ps`.
#[test]
fn the_jail_plan_is_not_on_the_helpers_command_line() {
    use parcall::sandbox;
    let Some(helper) = sandbox::helper() else {
        eprintln!("skipped: no parcall binary built beside the tests");
        return;
    };
    let search = std::ffi::OsString::from("/usr/bin:/bin");
    let plan = sandbox::assemble(sandbox::Request {
        argv: ["/bin/sh", "-c", "exit 0"].map(Into::into).to_vec(),
        path: search.clone(),
        cwd_outside: "/".into(),
        cwd: "/".into(),
        runtimes: sandbox::Runtimes::declare(&[], &search).unwrap(),
        every_runtime: false,
        readable: Vec::new(),
        copies: Vec::new(),
        unreachable: Vec::new(),
        uid: 0,
        gid: 0,
        scratch_bytes: 1 << 20,
        cgroup_procs: Vec::new(),
        build: None,
    })
    .unwrap();
    let inner = parcall::subject::launch::program("sh".as_ref(), &[], None, Default::default());
    let launch = sandbox::launch(&plan, &inner, &helper);
    assert_eq!(
        launch.args,
        [sandbox::ENTRY],
        "the plan is on the command line"
    );
    assert_eq!(sandbox::carried(&launch).as_ref(), Some(&plan));
    // A plan on the command line is refused, not run.
    let text = serde_json::to_string(&plan).unwrap();
    let output = std::process::Command::new(&helper)
        .args([sandbox::ENTRY, &text])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(sandbox::SETUP_FAILED));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("on stdin"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A program of the implementation's own is copied, never asked: one built into `target/`
/// (a folder copies leave out) runs from a copy of the folder below it, with the system's C
/// library bound, in `check` as the docs' example names it.
#[test]
fn an_own_compiled_program_runs_from_its_copy_in_check() {
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("project");
    let program = folder.join("target/release/my-runtime");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    std::fs::copy(common::built_adapters::rust_program(), &program).unwrap();
    std::fs::write(
        folder.join("parcall.json"),
        r#"{"cmd": ["./target/release/my-runtime"]}"#,
    )
    .unwrap();
    let output = parcall(&["check", folder.to_str().unwrap(), "--case", "exec-seed-00*"]);
    assert_conforms(&output);
}

/// Every file a command names is in the sandbox, even where the folder around it is one a
/// copy leaves out (`.hidden`, `venv`): the copy is taken from a folder that holds it.
#[test]
fn a_module_in_a_folder_copies_leave_out_is_still_copied() {
    let work = tempfile::tempdir().unwrap();
    let module = work.path().join("project/.solutions/solution.py");
    copy_from_repo("conformance/examples/python/solution.py", &module);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", ".solutions/solution.py", "--case", "exec-seed-00*"])
        .current_dir(work.path().join("project"))
        .output()
        .unwrap();
    assert_conforms(&output);
}

/// The adapter's folder inside the module's project (`TMPDIR` under it), checked from a
/// folder outside the project, is copied once, with the project: two copies of one place
/// could not both be written.
#[test]
fn an_adapter_folder_inside_the_project_is_copied_once() {
    let work = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let project = work.path().join("project");
    let module = project.join("solution.py");
    copy_from_repo("conformance/examples/python/solution.py", &module);
    let tmp = project.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(["check", module.to_str().unwrap(), "--case", "exec-seed-00*"])
        .current_dir(elsewhere.path())
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_conforms(&output);
}

/// A manifest's arguments are its own words: one naming a file of the machine does not copy
/// that file into the sandbox (a pull request's `parcall.json` in `check DIR`).
#[test]
fn a_manifests_arguments_copy_nothing_of_the_machine() {
    let work = tempfile::tempdir().unwrap();
    let secret_dir = work.path().join("secret");
    std::fs::create_dir(&secret_dir).unwrap();
    let secret = secret_dir.join("key.txt");
    let token = format!("TOKEN-{}-{}", std::process::id(), line!());
    std::fs::write(&secret, &token).unwrap();
    let folder = work.path().join("pr");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("impl.py"),
        "import sys\nfor p in sys.argv[1:]:\n    try:\n        print('READ', open(p).read(), file=sys.stderr)\n    except OSError as e:\n        print('REFUSED', e, file=sys.stderr)\nsys.exit(3)\n",
    )
    .unwrap();
    let manifest =
        serde_json::json!({"cmd": ["python3", "impl.py", secret, secret_dir.join("key.txt")]});
    std::fs::write(folder.join("parcall.json"), manifest.to_string()).unwrap();
    let output = parcall(&["check", folder.to_str().unwrap(), "--case", "exec-seed-00*"]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        common::stdout(&output)
    );
    assert!(all.contains("REFUSED"), "the probe did not run: {all}");
    assert!(
        !all.contains(&token),
        "a file of the machine was copied in: {all}"
    );
}

/// A program of the manifest's folder is checked without following a link: a link planted
/// in the folder tells nothing of the files beyond it (one message whether they exist or not).
#[test]
fn a_link_in_the_folder_tells_nothing_of_the_machine() {
    let work = tempfile::tempdir().unwrap();
    let secret_dir = work.path().join("secret");
    std::fs::create_dir(&secret_dir).unwrap();
    std::fs::write(secret_dir.join("exists.txt"), "x").unwrap();
    let folder = work.path().join("pr");
    std::fs::create_dir(&folder).unwrap();
    std::os::unix::fs::symlink(&secret_dir, folder.join("bin")).unwrap();
    let mut messages = Vec::new();
    for name in ["exists.txt", "absent.txt"] {
        let manifest = serde_json::json!({"cmd": [format!("./bin/{name}")]});
        std::fs::write(folder.join("parcall.json"), manifest.to_string()).unwrap();
        let output = parcall(&["check", folder.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr).replace(name, "NAME");
        messages.push(stderr);
    }
    assert_eq!(messages[0], messages[1]);
    assert!(
        messages[0].contains("reached without a link"),
        "{}",
        messages[0]
    );
}

/// What intake takes fits the sandbox's copy with the adapter added: a submission at the
/// bound is graded, one past it is refused by intake with its reason, never failed by a copy
/// in the sandbox's helper (which read as the student's fault).
#[test]
fn a_submission_at_the_file_bound_is_graded_and_one_past_it_refused_by_name() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    for (name, files) in [("at_bound", 999), ("past_bound", 1000)] {
        let folder = class.join(name);
        copy_from_repo(
            "conformance/examples/python/solution.py",
            &folder.join("main.py"),
        );
        for i in 0..files - 1 {
            std::fs::write(folder.join(format!("f{i}.txt")), "").unwrap();
        }
    }
    let out = work.path().join("out");
    let output = quick_grade(&class, &out, &[]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let at = gradebook_entry(&out, "at_bound");
    assert_eq!(at["score"], at["max_score"], "{at}");
    let past = gradebook_entry(&out, "past_bound");
    let error = past["error"].as_str().unwrap_or_default();
    assert!(error.contains("more than 999"), "{past}");
    assert!(!error.contains("parcall sandbox"), "{past}");
}

/// One student's file name, too long for a folder once made UTF-8, does not stop the class:
/// its results are written under a shortened name.
#[test]
fn a_long_file_name_does_not_stop_the_class() {
    use std::os::unix::ffi::OsStrExt;
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    let mut name = b"0".to_vec();
    name.extend([0xff; 100]);
    name.extend(b".py");
    let module = class.join(std::ffi::OsStr::from_bytes(&name));
    copy_from_repo("conformance/examples/python/solution.py", &module);
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("alice.py"),
    );
    let out = work.path().join("out");
    let output = quick_grade(&class, &out, &[]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let folders = std::fs::read_dir(out.join("students")).unwrap().count();
    assert_eq!(folders, 2);
}

/// What a submission prints before it stops is quoted in everything its student receives,
/// so a line it printed never reads as one of parcall's.
#[test]
fn output_before_the_handshake_is_quoted_for_the_student() {
    let work = tempfile::tempdir().unwrap();
    let class = work.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(
        class.join("forger.py"),
        "import sys\nprint('\\nALL TESTS PASSED\\n17 / 17 points', file=sys.stderr)\nsys.exit(3)\n",
    )
    .unwrap();
    copy_from_repo(
        "conformance/examples/python/solution.py",
        &class.join("alice.py"),
    );
    let out = work.path().join("out");
    let output = quick_grade(&class, &out, &[]);
    assert_eq!(output.status.code(), Some(0));
    for file in ["feedback.txt", "gradescope.json", "exercism.json"] {
        let text = std::fs::read_to_string(out.join("students/forger").join(file)).unwrap();
        let text = text.replace("\\n", "\n");
        assert!(text.contains("  | ALL TESTS PASSED"), "{file}: {text}");
        assert!(
            !text
                .lines()
                .any(|l| l.trim_start_matches('"').starts_with("ALL TESTS")
                    || l.starts_with("17 / 17")),
            "{file}: {text}"
        );
    }
}
