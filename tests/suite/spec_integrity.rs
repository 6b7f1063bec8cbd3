//! The specification is consistent: schemas match the Rust types, every file validates,
//! every requirement is checked by a case, SPEC.md lists what the files say, and the loader
//! refuses broken specs with a message that names the file and the case.
//!
//! Generated files are rewritten instead of compared when `PARCALL_BLESS=1` is set.

use crate::common::{assert_generated, copy_dir, schema_validator as validator};
use parcall::json;
use parcall::spec::{self, markdown, Spec};
use std::path::PathBuf;

fn spec_root() -> PathBuf {
    Spec::bundled_root()
}

fn bundled() -> Spec {
    Spec::load(&spec_root()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn schemas_are_generated_from_the_rust_types() {
    let dir = spec_root().join("schema");
    assert_generated(&dir.join("case.schema.json"), &spec::case_file_schema());
    assert_generated(
        &dir.join("requirements.schema.json"),
        &spec::requirements_schema(),
    );
}

/// `parcall compare --format json` has a published schema, generated from the matrix types
/// (a matrix it writes is validated against it in `compare::`).
#[test]
fn the_compare_schema_is_generated_from_the_matrix_types() {
    let path = crate::common::root().join("conformance/compare.schema.json");
    assert_generated(&path, &parcall::compare::matrix::schema());
}

#[test]
fn spec_md_lists_every_requirement_and_its_cases() {
    let path = spec_root().join("SPEC.md");
    let document = std::fs::read_to_string(&path).unwrap();
    let updated = markdown::with_requirements_section(&document, &bundled())
        .expect("SPEC.md lost its requirement markers");
    assert_generated(&path, &updated);
}

use parcall::json::to_serde_json as to_serde;

fn case_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for function in spec::Function::EVERY {
        for entry in std::fs::read_dir(spec_root().join("cases").join(function.name())).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.sort();
    files
}

#[test]
fn every_file_validates_against_its_schema() {
    let cases = validator(&spec::case_file_schema());
    for path in case_files() {
        let value = json::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let errors: Vec<String> = cases
            .iter_errors(&to_serde(&value))
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
    let requirements = validator(&spec::requirements_schema());
    let text = std::fs::read_to_string(spec_root().join("requirements.json")).unwrap();
    let value = to_serde(&json::parse(&text).unwrap());
    assert!(requirements.is_valid(&value));
}

#[test]
fn every_requirement_is_checked_by_a_case() {
    let spec = bundled();
    let unchecked: Vec<&str> = spec
        .unchecked_requirements()
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert!(
        unchecked.is_empty(),
        "requirements without a case: {unchecked:?}"
    );
}

#[test]
fn the_suite_is_big_enough_and_versioned() {
    let spec = bundled();
    assert!(spec.cases.len() >= 120, "only {} cases", spec.cases.len());
    assert_eq!(spec.version.split('.').count(), 3);
}

#[test]
fn the_seed_examples_are_cases_verbatim() {
    let spec = bundled();
    let seed_000 = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/spec/cases/execute_tool_calls/seed.json"
    ))
    .unwrap();
    for expected in [
        "toolu_01",
        "18C, light rain",
        "call_2",
        "Standard shipping takes 3-5 business days.",
        "error: divide raised ZeroDivisionError: division by zero",
        "error: duplicate tool_call_id 'x'",
    ] {
        assert!(
            seed_000.contains(expected),
            "seed example text {expected:?} missing"
        );
    }
    assert!(spec.cases.iter().any(|c| c.id() == "dedup-seed-001"));
}

/// Both the schema and the loader must refuse each of these breakages of a valid file.
#[rstest::rstest]
#[case::unknown_case_field(
    "\"description\": \"Seed example 1",
    "\"descripton\": \"Seed example 1"
)]
#[case::wrong_function_tag("\"function\": \"execute_tool_calls\"", "\"function\": \"execute\"")]
#[case::bad_case_id("\"id\": \"exec-seed-001\"", "\"id\": \"Exec Seed 1\"")]
#[case::call_without_tool(
    "\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}",
    "\"arguments\": {\"city\": \"Paris\"}"
)]
#[case::id_not_a_string("\"id\": \"toolu_01\", \"tool\"", "\"id\": 1, \"tool\"")]
fn schema_and_loader_refuse_the_same_breakage(#[case] from: &str, #[case] to: &str) {
    let original =
        std::fs::read_to_string(spec_root().join("cases/execute_tool_calls/seed.json")).unwrap();
    let compact = reformat_compact(&original);
    assert!(compact.contains(from), "fixture text {from:?} not found");
    let broken = compact.replacen(from, to, 1);

    let value = json::parse(&broken).unwrap();
    assert!(
        !validator(&spec::case_file_schema()).is_valid(&to_serde(&value)),
        "schema accepted it"
    );

    let dir = copy_spec_with("execute_tool_calls/seed.json", &broken);
    let error = Spec::load(dir.path()).expect_err("loader accepted it");
    assert!(error.to_string().contains("seed.json"), "{error}");
}

/// The seed file re-written on one line per object, so fixtures can name fragments.
fn reformat_compact(text: &str) -> String {
    json::dumps(
        &json::parse(text).unwrap(),
        json::Style {
            ensure_ascii: false,
            ..json::Style::PYTHON
        },
    )
}

/// A copy of the bundled spec with one case file replaced.
fn copy_spec_with(relative: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&spec_root(), dir.path());
    std::fs::write(dir.path().join("cases").join(relative), text).unwrap();
    dir
}

#[rstest::rstest]
#[case::unknown_requirement(
    "\"EXEC-ID-GIVEN\"",
    "\"EXEC-NO-SUCH-THING\"",
    "names unknown requirement EXEC-NO-SUCH-THING"
)]
#[case::requirement_of_other_function(
    "\"EXEC-ID-GIVEN\"",
    "\"DEDUP-RAISE\"",
    "requirement DEDUP-RAISE is about run_parallel_calls"
)]
#[case::duplicate_case_id(
    "\"exec-seed-002\"",
    "\"exec-seed-001\"",
    "case id exec-seed-001 is already used"
)]
#[case::invalid_json("\"cases\": [", "\"cases\": [,", "invalid JSON")]
#[case::sandbox_integer_out_of_range(
    "\"b\": 2}}, {\"tool\": \"lookup_doc\"",
    "\"b\": 99999999999999999999}}, {\"tool\": \"lookup_doc\"",
    "outside the sandbox's range"
)]
#[case::a_message_missing(
    ", {\"role\": \"tool\", \"tool_call_id\": \"toolu_02\", \"content\": \"24C, clear\"}]",
    "]",
    "expects 1 messages for 2 calls"
)]
fn loader_names_the_problem(#[case] from: &str, #[case] to: &str, #[case] message: &str) {
    let original =
        std::fs::read_to_string(spec_root().join("cases/execute_tool_calls/seed.json")).unwrap();
    let compact = reformat_compact(&original);
    assert!(compact.contains(from), "fixture text {from:?} not found");
    let dir = copy_spec_with(
        "execute_tool_calls/seed.json",
        &compact.replacen(from, to, 1),
    );
    let error = Spec::load(dir.path())
        .expect_err("loader accepted it")
        .to_string();
    assert!(error.contains(message), "{error}");
    assert!(
        error.contains("cases/execute_tool_calls/seed.json"),
        "{error}"
    );
}

/// A `raise` answer's message must be CPython's `str()` of its class and args, and no
/// integer may have more digits than CPython converts (SPEC.md, Numbers).
#[rstest::rstest]
#[case::key_error_message_is_its_repr(
    "\"message\": \"'x'\", \"exception\": \"KeyError\"",
    "\"message\": \"x\", \"exception\": \"KeyError\"",
    "raises KeyError('x'), whose str() is \"'x'\", not the message \"x\""
)]
#[case::no_args_message_is_empty(
    "\"message\": \"\", \"exception\": \"RuntimeError\", \"args\": []",
    "\"message\": \"None\", \"exception\": \"RuntimeError\", \"args\": []",
    "whose str() is \"\", not the message \"None\""
)]
#[case::integer_beyond_cpython(
    "\"args\": {}}]",
    "\"args\": {\"n\": 1DIGITS}}]",
    "holds an integer of 4301 digits; CPython converts at most 4300"
)]
fn loader_refuses_what_cpython_would_not_do(
    #[case] from: &str,
    #[case] to: &str,
    #[case] message: &str,
) {
    let relative = "run_parallel_calls/raise.json";
    let original = std::fs::read_to_string(spec_root().join("cases").join(relative)).unwrap();
    let compact = reformat_compact(&original);
    assert!(compact.contains(from), "fixture text {from:?} not found");
    let to = to.replace("DIGITS", &"0".repeat(4300));
    let dir = copy_spec_with(relative, &compact.replacen(from, &to, 1));
    let error = Spec::load(dir.path())
        .expect_err("loader accepted it")
        .to_string();
    assert!(error.contains(message), "{error}");
}

#[test]
fn traceability_names_requirements_without_cases() {
    let dir = copy_spec_with(
        "execute_tool_calls/seed.json",
        "{\"function\": \"execute_tool_calls\", \"topic\": \"seed\", \"cases\": []}",
    );
    for entry in std::fs::read_dir(dir.path().join("cases/run_parallel_calls")).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    let spec = Spec::load(dir.path()).unwrap();
    let unchecked = spec.unchecked_requirements();
    assert!(
        unchecked.iter().any(|r| r.id == "DEDUP-KEY-ORDER"),
        "{unchecked:?}"
    );
    assert!(
        !unchecked.iter().any(|r| r.id == "EXEC-LIMIT-ZERO"),
        "{unchecked:?}"
    );
}

/// The spec built into the binary is the source tree's: `cargo build` embeds it again
/// whenever a file under spec/ changes.
#[test]
fn the_built_in_spec_is_the_source_trees() {
    let embedded = Spec::embedded().unwrap();
    let bundled = bundled();
    assert_eq!(embedded.version, bundled.version);
    assert_eq!(embedded.requirements, bundled.requirements);
    assert_eq!(embedded.cases, bundled.cases);
}

/// People read case files: every character Python does not call printable (controls,
/// U+007F, U+200B, U+2028, noncharacters) is written as a `\u` escape, never raw.
#[test]
fn case_files_show_every_invisible_character_as_an_escape() {
    let mut raw = Vec::new();
    for path in case_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (index, line) in text.lines().enumerate() {
            for c in line
                .chars()
                .filter(|c| !parcall::reference::is_printable(*c))
            {
                raw.push(format!(
                    "{}:{}: U+{:04X}",
                    path.display(),
                    index + 1,
                    c as u32
                ));
            }
        }
    }
    assert!(
        raw.is_empty(),
        "write these as \\u escapes (scripts/author_cases.py does):\n{}",
        raw.join("\n")
    );
}

/// `max_parallel` is any integer from 0 to 2^64 - 1 for the schema and the loader alike.
#[rstest::rstest]
#[case::largest("18446744073709551615", true)]
#[case::beyond("36893488147419103232", false)]
#[case::negative("-1", false)]
#[case::null("null", true)]
fn schema_and_loader_agree_on_the_range_of_max_parallel(#[case] value: &str, #[case] valid: bool) {
    let original =
        std::fs::read_to_string(spec_root().join("cases/execute_tool_calls/limit.json")).unwrap();
    let compact = reformat_compact(&original);
    let at = compact
        .find("\"max_parallel\": ")
        .expect("limit.json sets max_parallel")
        + 16;
    let end = at + compact[at..].find([',', '}']).unwrap();
    let changed = format!("{}{value}{}", &compact[..at], &compact[end..]);
    let value = json::parse(&changed).unwrap();
    let schema_ok = validator(&spec::case_file_schema()).is_valid(&to_serde(&value));
    let dir = copy_spec_with("execute_tool_calls/limit.json", &changed);
    let loader_ok = Spec::load(dir.path()).is_ok();
    assert_eq!((schema_ok, loader_ok), (valid, valid));
}

#[test]
fn files_read_in_parallel_give_cases_and_problems_in_file_order() {
    // Case files are read two at a time; cases, their locations and every problem still
    // come out in file order, the same on every load.
    let dir = copy_spec_with("execute_tool_calls/aaa.json", "{\"function\": ");
    std::fs::write(
        dir.path().join("cases/run_parallel_calls/zzz.json"),
        "[not json",
    )
    .unwrap();
    std::fs::write(dir.path().join("cases/execute_tool_calls/mmm.json"), "{}").unwrap();
    let problems = || match Spec::load(dir.path()) {
        Err(error) => error.problems,
        Ok(_) => panic!("the broken files load"),
    };
    let first = problems();
    let files: Vec<&str> = ["aaa.json", "mmm.json", "zzz.json"]
        .into_iter()
        .filter(|f| first.iter().any(|p| p.contains(f)))
        .collect();
    assert_eq!(files, ["aaa.json", "mmm.json", "zzz.json"], "{first:#?}");
    let position = |file: &str| first.iter().position(|p| p.contains(file)).unwrap();
    assert!(position("aaa.json") < position("mmm.json"));
    assert!(position("mmm.json") < position("zzz.json"));
    for _ in 0..5 {
        assert_eq!(problems(), first);
    }
    let spec = bundled();
    let again = bundled();
    let ids = |spec: &Spec| {
        spec.cases
            .iter()
            .map(|c| c.id().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&spec), ids(&again));
    assert_eq!(spec.locations, again.locations);
}
