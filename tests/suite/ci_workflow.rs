//! The README's workflow, run as written: its YAML is parsed, parcall's composite action
//! (`action.yml`) is expanded into its steps, and every `run` step is executed by bash as
//! GitHub runs it, in a scratch repository, with the runner's files (`GITHUB_OUTPUT`,
//! `GITHUB_PATH`, `GITHUB_STEP_SUMMARY`) and the action's expressions evaluated. Steps that
//! use GitHub's own actions (checkout, setup-python, cache, upload-artifact) are stood in
//! for: the scratch repository is the checkout, the cache holds the binary under test (so the
//! build step's condition is exercised, not the two-minute build), and the upload checks
//! that its file is there. An expression or condition this runner does not know fails the
//! test, so the action cannot grow one that goes untested here.

use crate::common;

use common::{root, temp_dir, TempPath};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

/// The README's workflow: its first YAML block.
fn readme_workflow_text() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("```yaml\n")
        .expect("a YAML block in the README")
        + 8;
    let end = start + readme[start..].find("\n```").unwrap();
    readme[start..end].to_owned()
}

fn readme_workflow() -> Yaml {
    YamlLoader::load_from_str(&readme_workflow_text())
        .unwrap()
        .remove(0)
}

fn action() -> Yaml {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

fn text(yaml: &Yaml) -> String {
    match yaml {
        Yaml::String(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        Yaml::Real(r) => r.clone(),
        other => panic!("not a scalar: {other:?}"),
    }
}

/// What one job run did.
struct Job {
    /// The exit status of the first failing step, or 0.
    status: i32,
    log: String,
    summary: String,
    uploaded: Vec<PathBuf>,
}

/// A stand-in for a GitHub runner, enough for the README's job and parcall's action.
struct Runner {
    workspace: PathBuf,
    home: TempPath,
    files: TempPath,
    path: Vec<PathBuf>,
    outputs: HashMap<String, HashMap<String, String>>,
    job: Job,
    counter: usize,
}

impl Runner {
    fn new(workspace: &Path) -> Runner {
        let home = temp_dir("runner-home");
        // The cache restores what an earlier run of this ref installed: the binary under
        // test, where the install step puts it.
        let bin = home.join(".parcall/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_parcall"), bin.join("parcall")).unwrap();
        let files = temp_dir("runner-files");
        std::fs::write(files.join("summary.md"), "").unwrap();
        Runner {
            workspace: workspace.to_owned(),
            home,
            files,
            path: Vec::new(),
            outputs: HashMap::new(),
            job: Job {
                status: 0,
                log: String::new(),
                summary: String::new(),
                uploaded: Vec::new(),
            },
            counter: 0,
        }
    }

    fn run_workflow(mut self, workflow: &Yaml) -> Job {
        let steps = workflow["jobs"]["conformance"]["steps"].as_vec().unwrap();
        for step in steps {
            self.workflow_step(step);
        }
        self.job.summary = std::fs::read_to_string(self.files.join("summary.md")).unwrap();
        self.job
    }

    fn workflow_step(&mut self, step: &Yaml) {
        if let Some(run) = step["run"].as_str() {
            if self.job.status == 0 {
                self.bash(run, &HashMap::new());
            }
            return;
        }
        let uses = step["uses"].as_str().expect("a step runs or uses");
        match uses.split_once('@').unwrap() {
            // The scratch repository is the checkout; python3 is on PATH.
            ("actions/checkout" | "actions/setup-python", _) => {}
            (name, reference) if name.ends_with("/parcall") => {
                assert_eq!(
                    reference,
                    format!("v{}", env!("CARGO_PKG_VERSION")),
                    "the README pins parcall to this release's tag"
                );
                let inputs = self.inputs(&step["with"]);
                for step in action()["runs"]["steps"].as_vec().unwrap() {
                    self.action_step(step, &inputs);
                }
            }
            (other, _) => panic!("the README's workflow uses {other}: stand in for it here"),
        }
    }

    /// The action's inputs: its defaults, overridden by the workflow's `with`.
    fn inputs(&self, with: &Yaml) -> HashMap<String, String> {
        let mut inputs = HashMap::new();
        for (name, spec) in action()["inputs"].as_hash().unwrap() {
            inputs.insert(text(name), text(&spec["default"]));
        }
        if let Some(with) = with.as_hash() {
            for (name, value) in with {
                let name = text(name);
                assert!(
                    inputs.contains_key(&name),
                    "the action has no input `{name}`"
                );
                inputs.insert(name, text(value));
            }
        }
        inputs
    }

    fn action_step(&mut self, step: &Yaml, inputs: &HashMap<String, String>) {
        let always = match step["if"].as_str() {
            None => false,
            Some("always()") => true,
            Some(condition) => {
                if !self.condition(condition) {
                    return;
                }
                false
            }
        };
        if self.job.status != 0 && !always {
            return;
        }
        let id = step["id"].as_str().unwrap_or_default().to_owned();
        if let Some(run) = step["run"].as_str() {
            assert_eq!(step["shell"].as_str(), Some("bash"), "{run}");
            let mut env = HashMap::new();
            if let Some(vars) = step["env"].as_hash() {
                for (name, value) in vars {
                    env.insert(text(name), self.expand(&text(value), inputs));
                }
            }
            assert!(
                !run.contains("${{"),
                "inputs reach a script through `env`, never pasted into it: {run}"
            );
            let outputs = self.bash(run, &env);
            self.outputs.insert(id, outputs);
            return;
        }
        let uses = step["uses"].as_str().unwrap();
        let with = |name: &str| self.expand(&text(&step["with"][name]), inputs);
        match uses {
            "actions/cache@v4" => {
                let key = with("key");
                assert!(key.starts_with("parcall-") && key.len() > 40, "{key}");
                assert_eq!(with("path"), "~/.parcall");
                let hit = self.home.join(".parcall/bin/parcall").exists();
                let outputs = HashMap::from([("cache-hit".to_owned(), hit.to_string())]);
                self.outputs.insert(id, outputs);
            }
            "actions/upload-artifact@v4" => {
                let path = self.workspace.join(with("path"));
                assert!(path.is_file(), "nothing to upload at {}", path.display());
                self.job.uploaded.push(path);
            }
            other => panic!("the action uses {other}: stand in for it here"),
        }
    }

    /// The conditions the action uses.
    fn condition(&self, condition: &str) -> bool {
        let (output, value) = condition
            .split_once(" != ")
            .unwrap_or_else(|| panic!("a condition this runner does not know: {condition}"));
        self.expression(output, &HashMap::new()) != value.trim_matches('\'')
    }

    /// `${{ ... }}` in `value`.
    fn expand(&self, value: &str, inputs: &HashMap<String, String>) -> String {
        let mut out = String::new();
        let mut rest = value;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").unwrap() + start;
            out.push_str(&self.expression(rest[start + 3..end].trim(), inputs));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn expression(&self, expression: &str, inputs: &HashMap<String, String>) -> String {
        let parts: Vec<&str> = expression.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => inputs[*name].clone(),
            ["github", "action_path"] => root().display().to_string(),
            ["steps", id, "outputs", name] => {
                self.outputs[*id].get(*name).cloned().unwrap_or_default()
            }
            _ => panic!("an expression this runner does not know: {expression}"),
        }
    }

    /// Runs `script` as GitHub's `shell: bash` does; returns what it wrote to
    /// `GITHUB_OUTPUT`.
    fn bash(&mut self, script: &str, env: &HashMap<String, String>) -> HashMap<String, String> {
        self.counter += 1;
        let output_file = self.files.join(format!("output-{}", self.counter));
        let path_file = self.files.join(format!("path-{}", self.counter));
        std::fs::write(&output_file, "").unwrap();
        std::fs::write(&path_file, "").unwrap();
        let script_file = self.files.join(format!("step-{}.sh", self.counter));
        std::fs::write(&script_file, script).unwrap();
        let mut path: Vec<PathBuf> = self.path.iter().rev().cloned().collect();
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
        let output = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script_file)
            .current_dir(&self.workspace)
            .env("HOME", &*self.home)
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("GITHUB_WORKSPACE", &self.workspace)
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_PATH", &path_file)
            .env("GITHUB_STEP_SUMMARY", self.files.join("summary.md"))
            .env(
                "PARCALL_REGRESSIONS",
                self.files.join("regressions.json").as_os_str(),
            )
            .envs(env)
            .output()
            .unwrap();
        self.job
            .log
            .push_str(&String::from_utf8_lossy(&output.stdout));
        self.job
            .log
            .push_str(&String::from_utf8_lossy(&output.stderr));
        if !output.status.success() && self.job.status == 0 {
            self.job.status = output.status.code().unwrap_or(-1);
        }
        for line in std::fs::read_to_string(&path_file).unwrap().lines() {
            self.path.push(PathBuf::from(line));
        }
        std::fs::read_to_string(&output_file)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }
}

/// A fresh repository holding `module` as the README's `src/runtime.py`.
fn repository(module: &str) -> TempPath {
    let repository = temp_dir("workflow-repo");
    common::copy_from_repo(module, &repository.join("src/runtime.py"));
    repository
}

fn error_annotations(log: &str) -> usize {
    log.lines().filter(|l| l.starts_with("::error ")).count()
}

/// A correct implementation on a fresh repository, no expectations file yet: green, with
/// the step summary written and the JUnit report uploaded.
#[test]
fn the_readme_workflow_passes_a_correct_implementation_as_written() {
    let repository = repository("conformance/examples/python/solution.py");
    let job = Runner::new(&repository).run_workflow(&readme_workflow());
    assert_eq!(job.status, 0, "{}", job.log);
    assert!(
        job.summary.starts_with("## parcall: ✅ conforms"),
        "{}",
        job.summary
    );
    assert_eq!(job.uploaded, [repository.join("parcall-junit.xml")]);
    assert_eq!(error_annotations(&job.log), 0, "{}", job.log);
}

/// A deviating implementation: red with at most ten error annotations, a notice that says
/// how to create the expectations file; once created with that command, green.
#[test]
fn the_readme_workflow_gates_with_and_without_an_expectations_file() {
    let repository = repository("conformance/examples/python/broken/ids_zero_based.py");
    let job = Runner::new(&repository).run_workflow(&readme_workflow());
    assert_eq!(job.status, 1, "{}", job.log);
    let errors = error_annotations(&job.log);
    assert!((1..=10).contains(&errors), "{}", job.log);
    assert!(job.summary.starts_with("## parcall: ❌"), "{}", job.summary);
    let junit = std::fs::read_to_string(repository.join("parcall-junit.xml")).unwrap();
    assert!(junit.contains("<failure "), "{junit}");
    assert_eq!(job.uploaded.len(), 1, "uploaded on failure too");
    let notice = job
        .log
        .lines()
        .find(|l| l.starts_with("::notice title=parcall expectations::"))
        .unwrap_or_else(|| panic!("{}", job.log));
    // The command the notice gives, run in the repository, creates the file.
    let command = notice
        .split("create it: ")
        .nth(1)
        .and_then(|c| c.split(", then review").next())
        .unwrap();
    let words = shell_words::split(command).unwrap();
    assert_eq!(words[0], "parcall");
    let created = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(&words[1..])
        .current_dir(&repository)
        .env(
            "PARCALL_REGRESSIONS",
            repository.join(".parcall-regressions.json"),
        )
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    assert!(repository.join("parcall-expectations.json").is_file());
    let job = Runner::new(&repository).run_workflow(&readme_workflow());
    assert_eq!(job.status, 0, "{}", job.log);
    assert!(job.summary.starts_with("## parcall: ✅"), "{}", job.summary);
}

/// The notice's command runs as pasted when the action checks a `cmd` with arguments: each
/// word is quoted for a shell, so `--cmd` keeps its whole command line.
#[test]
fn the_notice_quotes_a_cmd_with_arguments() {
    let repository = repository("conformance/examples/python/broken/ids_zero_based.py");
    common::copy_from_repo(
        "conformance/adapters/python/parcall_adapter.py",
        &repository.join("adapter.py"),
    );
    let text = readme_workflow_text();
    assert!(text.contains("implementation: src/runtime.py"), "{text}");
    let workflow = YamlLoader::load_from_str(&text.replace(
        "implementation: src/runtime.py",
        "cmd: python3 -I -B adapter.py src/runtime.py",
    ))
    .unwrap()
    .remove(0);
    let job = Runner::new(&repository).run_workflow(&workflow);
    assert_eq!(job.status, 1, "{}", job.log);
    let notice = job
        .log
        .lines()
        .find(|l| l.starts_with("::notice title=parcall expectations::"))
        .unwrap_or_else(|| panic!("{}", job.log));
    let command = notice
        .split("create it: ")
        .nth(1)
        .and_then(|c| c.split(", then review").next())
        .unwrap();
    let words = shell_words::split(command).unwrap();
    let cmd = words.iter().position(|w| w == "--cmd").unwrap();
    assert_eq!(
        words[cmd + 1],
        "python3 -I -B adapter.py src/runtime.py",
        "{command}"
    );
    let created = Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(&words[1..])
        .current_dir(&repository)
        .env(
            "PARCALL_REGRESSIONS",
            repository.join(".parcall-regressions.json"),
        )
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    assert!(repository.join("parcall-expectations.json").is_file());
}

/// The action's inputs reach parcall as values: quotes group, `$(...)` stays text.
#[test]
fn the_action_splits_args_without_running_them() {
    let repository = repository("conformance/examples/python/solution.py");
    let marker = repository.join("ran");
    // A single-quoted YAML scalar: `''` is one quote.
    let args = format!(
        "args: '--seed 1 --case ''exec-seed-*'' --pass-env \"$(touch {})\"'",
        marker.display()
    );
    let text = readme_workflow_text();
    assert!(text.contains("args: --seed 1"), "{text}");
    let workflow = YamlLoader::load_from_str(&text.replace("args: --seed 1", &args))
        .unwrap()
        .remove(0);
    let job = Runner::new(&repository).run_workflow(&workflow);
    assert!(!marker.exists(), "an input was run as a command");
    // The quoted glob reached parcall as one word (the four seed cases ran), and so did
    // `$(touch ...)`: the name of a variable to pass, which is no command.
    assert_eq!(job.status, 0, "{}", job.log);
    assert!(job.log.contains("conforms: 4 passed"), "{}", job.log);
}
