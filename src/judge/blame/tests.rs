use super::*;
use crate::json::{parse, Style, Value};
use crate::judge::expected_runs;
use crate::spec::Spec;

#[test]
fn the_expected_output_of_every_spec_case_breaks_no_rule() {
    let spec = Spec::embedded().unwrap();
    for case in &spec.cases {
        let blame = blame(&case.case, &expected_runs(&case.case), &Outcome::Pass);
        assert!(
            blame.charges.is_empty(),
            "{}: {:?}",
            case.id(),
            blame.charges
        );
        assert!(!blame.shown.is_empty(), "{}", case.id());
    }
}

#[test]
fn every_checked_requirement_is_in_the_spec_and_shown_by_some_case() {
    let spec = Spec::embedded().unwrap();
    let mut shown = BTreeSet::new();
    for case in &spec.cases {
        shown.extend(blame(&case.case, &expected_runs(&case.case), &Outcome::Pass).shown);
    }
    for id in ids::CHECKED {
        assert!(spec.requirement(id).is_some(), "{id} is not in the spec");
        assert!(shown.contains(*id), "no spec case shows {id}");
    }
    for requirement in &spec.requirements {
        if requirement.earns_points_by_default() {
            assert!(
                ids::CHECKED.contains(&requirement.id.as_str()),
                "{} has no check",
                requirement.id
            );
        }
    }
}

/// Blames an output given as JSON text against the first batch of a spec case.
fn blame_output(case_id: &str, output: &str, invocations: Option<&str>) -> Blame {
    let spec = Spec::embedded().unwrap();
    let case = spec.cases.iter().find(|c| c.id() == case_id).unwrap();
    let mut runs = expected_runs(&case.case);
    runs[0].output = parse(output).unwrap();
    if let Some(invocations) = invocations {
        runs[0].invocations = parse(invocations).unwrap().as_list().unwrap().to_vec();
    }
    let outcome = crate::judge::judge(&case.case, &runs);
    blame(&case.case, &runs, &outcome)
}

#[test]
fn a_zero_based_id_is_charged_to_the_generated_id_rule_alone() {
    let blame = renumbered_ids("call_0", "call_1");
    assert_eq!(blame.charged(), vec![ids::EXEC_ID_GENERATED], "{blame:?}");
    assert!(
        blame.charges[0]
            .diagnosis
            .contains("expected tool_call_id `call_1` (its position in the batch), got \"call_0\""),
        "{}",
        blame.charges[0].diagnosis
    );
}

/// Blames `exec-seed-002` (two calls without ids) with its generated ids renumbered.
fn renumbered_ids(first: &str, second: &str) -> Blame {
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "exec-seed-002")
        .unwrap();
    let mut runs = expected_runs(&case.case);
    let text = runs[0]
        .output
        .to_string()
        .replace("call_1", "\u{0}1")
        .replace("call_2", second)
        .replace("\u{0}1", first);
    runs[0].output = parse(&text).unwrap();
    let outcome = crate::judge::judge(&case.case, &runs);
    blame(&case.case, &runs, &outcome)
}

#[test]
fn generated_ids_that_go_on_counting_from_earlier_calls_are_charged_to_state() {
    // A module-level counter: every generated id of the batch is numbered past its position
    // by the same count, calls that are not in this batch.
    let carried = renumbered_ids("call_8", "call_9");
    assert_eq!(carried.charged(), vec![ids::EXEC_NO_STATE], "{carried:?}");
    assert!(
        carried.charges[0]
            .diagnosis
            .contains("the positions went on counting over 7 calls outside this batch"),
        "{}",
        carried.charges[0].diagnosis
    );
    // One past is a slip within the batch (`call_2` for the first call), and ids that do
    // not agree on a count are not a count carried over.
    for (first, second) in [
        ("call_2", "call_3"),
        ("call_8", "call_5"),
        ("call_08", "call_09"),
    ] {
        let slip = renumbered_ids(first, second);
        assert_eq!(
            slip.charged(),
            vec![ids::EXEC_ID_GENERATED],
            "{first} {second}: {slip:?}"
        );
    }
}

#[test]
fn one_invocation_serving_another_key_of_its_tool_is_the_invoke_once_rule_s() {
    // `dedup-seed-001`: search cats, dogs, cats. Invoked once per tool name, the dogs
    // entry holds the cats answer: no cache outlived a call.
    let cats = r#"[{"name": "search", "args": {"q": "cats"}}]"#;
    let per_name = blame_output(
        "dedup-seed-001",
        r#"{"search({\"q\": \"cats\"})": "results for cats", "search({\"q\": \"dogs\"})": "results for cats"}"#,
        Some(cats),
    );
    assert_eq!(
        per_name.charged(),
        vec![ids::DEDUP_INVOKE_ONCE],
        "{per_name:?}"
    );
    assert!(
        per_name.charges[0]
            .diagnosis
            .contains("one invocation serving two keys"),
        "{}",
        per_name.charges[0].diagnosis
    );
    // The same entries beside one of another call's: a cache kept from an earlier call.
    let kept = blame_output(
        "dedup-seed-001",
        r#"{"search({\"q\": \"cats\"})": "results for cats", "search({\"q\": \"dogs\"})": "results for cats", "search({\"q\": \"owls\"})": "results for owls"}"#,
        Some(cats),
    );
    assert_eq!(kept.charged(), vec![ids::DEDUP_NO_STATE], "{kept:?}");
    // The call not invoked is found by its exact args: -0.0's invocation is not 0.0's.
    let zeros = blame_output(
        "dedup-number-022",
        r#"{"f({\"a\": -0.0})": "ok", "f({\"a\": 0.0})": "ok"}"#,
        Some(r#"[{"name": "f", "args": {"a": -0.0}}]"#),
    );
    assert_eq!(zeros.charged(), vec![ids::DEDUP_INVOKE_ONCE], "{zeros:?}");
    assert!(
        zeros.charges[0].diagnosis.starts_with("call 2's tool"),
        "{}",
        zeros.charges[0].diagnosis
    );
}

#[test]
fn a_wrong_type_is_charged_once_and_shows_nothing_else() {
    let blame = blame_output("exec-seed-002", "null", None);
    assert_eq!(blame.charged(), vec![ids::EXEC_OUTPUT_COUNT]);
    assert!(!blame.shown.contains(ids::EXEC_ID_GENERATED));
}

#[test]
fn an_empty_answer_counts_against_every_rule_it_leaves_unshown() {
    let blame = blame_output("exec-seed-002", "[]", None);
    let charged = blame.charged();
    for id in [
        ids::EXEC_OUTPUT_COUNT,
        ids::EXEC_ID_GENERATED,
        ids::EXEC_CONTENT_UNCHANGED,
    ] {
        assert!(charged.contains(&id), "{id} not in {charged:?}");
    }
}

#[test]
fn unexplained_failures_are_charged_to_the_named_requirement() {
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "dedup-seed-001")
        .unwrap();
    let outcome = Outcome::Fail(Failure::Timeout { seconds: 5.0 });
    let blame = blame(&case.case, &[], &outcome);
    assert_eq!(blame.charged(), vec![ids::DEDUP_RESULT_ENTRIES]);
    assert!(!blame.charges[0].explained);
    assert!(blame.charges[0].diagnosis.contains("no answer within 5 s"));
}

/// The checks never fire on what the reference expects, over thousands of generated cases
/// of every shape the generator draws (a check that did would charge correct code).
#[test]
fn the_expected_output_of_generated_cases_breaks_no_rule() {
    let spec = Spec::embedded().unwrap();
    for function in Function::EVERY {
        for seed in 0..4 {
            for case in crate::fuzz::generated_cases(function, &spec.cases, 400, seed) {
                let blame = blame(&case.case, &expected_runs(&case.case), &Outcome::Pass);
                assert!(
                    blame.charges.is_empty(),
                    "seed {seed}, {}: {:?}\n{:?}",
                    case.id(),
                    blame.charges,
                    case.case
                );
            }
        }
    }
}

#[test]
fn messages_out_of_call_order_are_charged_to_the_order_rule_alone() {
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "exec-seed-001")
        .unwrap();
    let mut runs = expected_runs(&case.case);
    let mut messages = runs[0].output.as_list().unwrap().to_vec();
    messages.reverse();
    runs[0].output = Value::List(messages);
    let outcome = crate::judge::judge(&case.case, &runs);
    let blame = blame(&case.case, &runs, &outcome);
    assert_eq!(blame.charged(), vec![ids::EXEC_OUTPUT_ORDER], "{blame:?}");
}

/// Under float64, what the reference expects is a correct float64 runtime's answer: the
/// checks never fire on it, for the spec's cases or generated ones.
#[test]
fn under_float64_the_expected_output_of_every_case_breaks_no_rule() {
    use crate::json::NumberModel::Float64;
    use crate::judge::expected::expected_under;
    let spec = Spec::embedded().unwrap();
    let mut cases = spec.cases.clone();
    for function in Function::EVERY {
        cases.extend(crate::fuzz::generated_cases(function, &spec.cases, 300, 7));
    }
    for case in &cases {
        let judged = expected_under(Float64, case).unwrap();
        let runs = expected_runs(&judged.case);
        assert!(crate::judge::judge_in(Float64, &judged.case, &runs).is_pass());
        let blame = blame_in(Float64, &judged.case, &runs, &Outcome::Pass);
        assert!(
            blame.charges.is_empty(),
            "{}: {:?}\n{:?}",
            case.id(),
            blame.charges,
            judged.case
        );
    }
}

/// The first batch of a spec case judged under float64 with another output.
fn float64_blame(case_id: &str, output: &str) -> (Outcome, Blame) {
    use crate::json::NumberModel::Float64;
    let spec = Spec::embedded().unwrap();
    let case = spec.cases.iter().find(|c| c.id() == case_id).unwrap();
    let judged = crate::judge::expected::expected_under(Float64, case).unwrap();
    let mut runs = expected_runs(&judged.case);
    runs[0].output = parse(output).unwrap();
    let outcome = crate::judge::judge_in(Float64, &judged.case, &runs);
    let blame = blame_in(Float64, &judged.case, &runs, &outcome);
    (outcome, blame)
}

#[test]
fn under_float64_a_key_that_keeps_1_0_is_charged_to_the_float_rule() {
    // dedup-number-001 calls f with {"a": 1.0}: a float64 runtime keys it f({"a": 1}).
    let (outcome, blame) = float64_blame("dedup-number-001", r#"{"f({\"a\": 1})": "ok"}"#);
    assert!(outcome.is_pass(), "{outcome:?}");
    assert!(blame.charges.is_empty());
    let (outcome, blame) = float64_blame("dedup-number-001", r#"{"f({\"a\": 1.0})": "ok"}"#);
    assert!(!outcome.is_pass());
    assert_eq!(blame.charged(), vec![ids::DEDUP_NUMBER_FLOAT], "{blame:?}");
    assert!(
        blame.charges[0].diagnosis.contains("declared float64"),
        "{}",
        blame.charges[0].diagnosis
    );
}

#[test]
fn under_float64_an_integer_written_as_a_float_is_charged_to_the_integer_rule() {
    // dedup-result-008 calls f with {"k": 1} twice.
    let (_, blame) = float64_blame("dedup-result-008", r#"{"f({\"k\": 1.0})": 2.0}"#);
    assert_eq!(blame.charged(), vec![ids::DEDUP_NUMBER_INT], "{blame:?}");
}

#[test]
fn under_float64_results_compare_by_value_but_true_is_not_1() {
    // The tool returns 2.0: under float64, 2 is the same value.
    let (outcome, _) = float64_blame("dedup-result-008", r#"{"f({\"k\": 1})": 2}"#);
    assert!(outcome.is_pass(), "{outcome:?}");
    let (outcome, blame) = float64_blame("dedup-result-008", r#"{"f({\"k\": 1})": true}"#);
    assert!(!outcome.is_pass());
    assert_eq!(
        blame.charged(),
        vec![ids::DEDUP_RESULT_UNCHANGED],
        "{blame:?}"
    );
    // Under python, 2 is not 2.0.
    let spec = Spec::embedded().unwrap();
    let case = spec
        .cases
        .iter()
        .find(|c| c.id() == "dedup-result-008")
        .unwrap();
    let mut runs = expected_runs(&case.case);
    runs[0].output = parse(r#"{"f({\"k\": 1})": 2}"#).unwrap();
    assert!(!crate::judge::judge(&case.case, &runs).is_pass());
}

#[test]
fn a_diagnosis_never_shows_parcalls_own_answer_as_the_implementations_text() {
    let text = "error: parcall: no scripted answer for lookup_doc({})";
    for quoted in [quote_str(text), quote(&Value::Str(text.into()))] {
        assert!(!quoted.contains("parcall:"), "{quoted}");
        assert!(quoted.contains("lookup_doc({})"), "{quoted}");
    }
    assert_eq!(quote_str("plain"), "\"plain\"");
}

/// The expected output of a spec case's first batch as JSON text, with `from` replaced.
fn expected_with(case_id: &str, from: &str, to: &str) -> String {
    let spec = Spec::embedded().unwrap();
    let case = spec.cases.iter().find(|c| c.id() == case_id).unwrap();
    let output = crate::json::dumps(&expected_runs(&case.case)[0].output, Style::PYTHON);
    assert!(output.contains(from), "{output}");
    output.replace(from, to)
}

#[test]
fn a_power_of_two_written_with_an_extra_digit_is_charged_to_the_float_rule() {
    // The key reader finds no departure that writes 7.1202363472230444e-307; read back,
    // the key holds the call's own float, spelled with a digit more than its repr.
    let output = expected_with(
        "dedup-number-028",
        "7.120236347223045e-307",
        "7.1202363472230444e-307",
    );
    let blame = blame_output("dedup-number-028", &output, None);
    assert_eq!(blame.charged(), vec![ids::DEDUP_NUMBER_FLOAT], "{blame:?}");
    assert!(blame.charges[0].diagnosis.contains("spelled"), "{blame:?}");
}

#[test]
fn a_tool_found_on_a_javascript_object_s_prototype_is_charged_to_the_unknown_tool_rule() {
    // `tools[name]` finds Object.prototype.constructor, which returns its argument.
    let output = expected_with(
        "dedup-unknown-006",
        r#""error: unknown tool 'constructor'""#,
        "{}",
    );
    let blame = blame_output("dedup-unknown-006", &output, None);
    assert_eq!(blame.charged(), vec![ids::DEDUP_UNKNOWN_TOOL], "{blame:?}");
}

#[test]
fn keys_in_a_javascript_object_s_order_are_charged_to_the_order_rule_alone() {
    // A JavaScript object lists integer-like keys first, in numeric order, so both calls
    // of dedup-key-019 (written in two orders) get the one key that neither order explains.
    let output = expected_with(
        "dedup-key-019",
        r#"f({\"1\": {\"10\": false, \"9\": true}, \"10\": 2, \"9\": 1, \"a\": 3})"#,
        r#"f({\"1\": {\"9\": true, \"10\": false}, \"9\": 1, \"10\": 2, \"a\": 3})"#,
    );
    let blame = blame_output("dedup-key-019", &output, None);
    assert_eq!(blame.charged(), vec![ids::DEDUP_KEY_ORDER], "{blame:?}");
}

/// A case of `function` from the JSON text of its one case.
fn case_of(function: &str, case: &str) -> Case {
    let file = format!(r#"{{"function": "{function}", "topic": "test", "cases": [{case}]}}"#);
    match crate::json::from_value(&parse(&file).unwrap()).unwrap() {
        crate::spec::CaseFile::ExecuteToolCalls { cases, .. } => {
            Case::Exec(cases.into_iter().next().unwrap())
        }
        crate::spec::CaseFile::RunParallelCalls { cases, .. } => {
            Case::Dedup(cases.into_iter().next().unwrap())
        }
        crate::spec::CaseFile::RunToolCalls { cases, .. } => {
            Case::Runtime(cases.into_iter().next().unwrap())
        }
    }
}

/// A one-batch case of `run_parallel_calls` whose one tool `f` answers "ok": `calls` (a JSON
/// list) invoked once each, `expected` (a JSON object) its entries.
fn calls_of_f(calls: &str, expected: &str) -> Case {
    case_of(
        "run_parallel_calls",
        &format!(
            r#"{{"id": "calls-of-f", "description": "d", "requirements": ["DEDUP-KEY-FORMAT"],
            "tools": {{"f": {{"responses": [{{"answers": [{{"type": "return", "value": "ok"}}]}}]}}}},
            "batches": [{{"calls": {calls}, "expected": {expected}, "invocations": {calls}}}]}}"#
        ),
    )
}

/// Blames `outputs` (per batch: the JSON text of the output and, where given, of the
/// invocations; the case's own where not) against `case`.
fn blame_batches(case: &Case, outputs: &[(&str, Option<&str>)]) -> Blame {
    let mut runs = expected_runs(case);
    for (run, (output, invocations)) in runs.iter_mut().zip(outputs) {
        run.output = parse(output).unwrap();
        if let Some(invocations) = invocations {
            run.invocations = parse(invocations).unwrap().as_list().unwrap().to_vec();
        }
    }
    let outcome = crate::judge::judge(case, &runs);
    blame(case, &runs, &outcome)
}

#[test]
fn an_id_refused_for_a_look_alike_earlier_in_its_batch_is_not_charged_to_state() {
    let weather = |id: &str, city: &str, content: &str| {
        (
            format!(
                r#"{{"id": "{id}", "tool": "get_weather", "arguments": {{"city": "{city}"}}}}"#
            ),
            format!(r#"{{"role": "tool", "tool_call_id": "{id}", "content": "{content}"}}"#),
        )
    };
    let (first, first_said) = weather("\\u00c5", "paris", "18C, light rain");
    let (composed, composed_said) = weather("A\\u030a", "tokyo", "24C, clear");
    let (again, again_said) = weather("\\u00c5", "lima", "16C, overcast");
    let invocation =
        |city: &str| format!(r#"{{"tool": "get_weather", "arguments": {{"city": "{city}"}}}}"#);
    let case = case_of(
        "execute_tool_calls",
        &format!(
            r#"{{"id": "look-alike", "description": "d", "requirements": ["EXEC-DUP-REJECTED"],
            "batches": [
              {{"calls": [{first}], "expected": [{first_said}], "invocations": [{}]}},
              {{"calls": [{composed}, {again}], "expected": [{composed_said}, {again_said}],
                "invocations": [{}, {}]}}]}}"#,
            invocation("paris"),
            invocation("tokyo"),
            invocation("lima")
        ),
    );
    let refused = r#"{"role": "tool", "tool_call_id": "\u00c5", "content": "error: duplicate tool_call_id '\u00c5'"}"#;
    // Normalised before the comparison: the second call taken for the first.
    let normalised = blame_batches(
        &case,
        &[
            (&format!("[{first_said}]"), None),
            (
                &format!("[{composed_said}, {refused}]"),
                Some(&format!("[{}]", invocation("tokyo"))),
            ),
        ],
    );
    assert!(
        normalised.charged().contains(&ids::EXEC_DUP_REJECTED)
            && !normalised.charged().contains(&ids::EXEC_NO_STATE),
        "{normalised:?}"
    );
    // Ids kept from the first batch: the same refusal with nothing alike before it in
    // the batch is state.
    let case_alone = case_of(
        "execute_tool_calls",
        &format!(
            r#"{{"id": "kept", "description": "d", "requirements": ["EXEC-NO-STATE"],
            "batches": [
              {{"calls": [{first}], "expected": [{first_said}], "invocations": [{}]}},
              {{"calls": [{again}], "expected": [{again_said}], "invocations": [{}]}}]}}"#,
            invocation("paris"),
            invocation("lima")
        ),
    );
    let kept = blame_batches(
        &case_alone,
        &[
            (&format!("[{first_said}]"), None),
            (&format!("[{refused}]"), Some("[]")),
        ],
    );
    assert_eq!(kept.charged(), vec![ids::EXEC_NO_STATE], "{kept:?}");
}

/// The blame of `case_id`'s first batch with every message's or entry's value replaced
/// by `blank`, the invocations left as the case expects.
fn blame_blanked(case_id: &str, blank: Value) -> Blame {
    let spec = Spec::embedded().unwrap();
    let case = spec.cases.iter().find(|c| c.id() == case_id).unwrap();
    let mut runs = expected_runs(&case.case);
    match &mut runs[0].output {
        Value::List(messages) => {
            for message in messages.iter_mut() {
                if let Value::Object(message) = message {
                    message.insert("content".into(), blank.clone());
                }
            }
        }
        Value::Object(entries) => {
            let keys: Vec<String> = entries.keys().map(|k| k.to_string()).collect();
            for key in keys {
                entries.insert(key.as_str().into(), blank.clone());
            }
        }
        other => panic!("{case_id} expects {other:?}"),
    }
    let outcome = crate::judge::judge(&case.case, &runs);
    blame(&case.case, &runs, &outcome)
}

/// Shown means done (RULES D): output that leaves a behaviour out shows none of the rules
/// that name it, though no check charges them, while the expected output shows each.
#[test]
fn output_that_skips_the_work_shows_no_rule_whose_work_it_skips() {
    let spec = Spec::embedded().unwrap();
    let shown_by_expected = |case_id: &str| {
        let case = spec.cases.iter().find(|c| c.id() == case_id).unwrap();
        blame(&case.case, &expected_runs(&case.case), &Outcome::Pass).shown
    };
    // No messages keep no order.
    let empty = blame_output("exec-seed-002", "[]", None);
    assert!(!empty.shown.contains(ids::EXEC_OUTPUT_ORDER), "{empty:?}");
    assert!(shown_by_expected("exec-seed-002").contains(ids::EXEC_OUTPUT_ORDER));
    // No entries hold 1, 1.0 and true apart.
    let none = blame_output("dedup-number-011", "{}", Some("[]"));
    assert!(!none.shown.contains(ids::DEDUP_NUMBER_DISTINCT), "{none:?}");
    assert!(shown_by_expected("dedup-number-011").contains(ids::DEDUP_NUMBER_DISTINCT));
    // Every call dispatched, every content empty: the failed calls' errors never reached
    // the output, so no failure was isolated.
    let blank = blame_blanked("exec-fail-001", Value::from(""));
    assert!(
        !blank.shown.contains(ids::EXEC_FAILURE_ISOLATED),
        "{blank:?}"
    );
    assert!(shown_by_expected("exec-fail-001").contains(ids::EXEC_FAILURE_ISOLATED));
    // The repeated key invoked once, but its entry holds null, not the tool's result: no
    // result was served from the cache.
    let null = blame_blanked("dedup-invoke-001", Value::Null);
    assert!(!null.shown.contains(ids::DEDUP_CACHE_HIT), "{null:?}");
    assert!(shown_by_expected("dedup-invoke-001").contains(ids::DEDUP_CACHE_HIT));
}

/// A duplicate check that compares each id with the call just before only: the duplicate
/// it misses repeats an id from further back, which is the every-earlier-call rule's
/// alone, not also the plain duplicate rule's.
#[test]
fn a_duplicate_missed_further_back_than_the_call_before_is_the_every_earlier_call_rule_s() {
    let call = |id: &str, city: &str| {
        format!(r#"{{"id": "{id}", "tool": "get_weather", "arguments": {{"city": "{city}"}}}}"#)
    };
    let said = |id: &str, content: &str| {
        format!(r#"{{"role": "tool", "tool_call_id": "{id}", "content": "{content}"}}"#)
    };
    let invocation =
        |city: &str| format!(r#"{{"tool": "get_weather", "arguments": {{"city": "{city}"}}}}"#);
    let case = case_of(
        "execute_tool_calls",
        &format!(
            r#"{{"id": "further-back", "description": "d", "requirements": ["EXEC-DUP-ANY-EARLIER"],
            "batches": [{{"calls": [{}, {}, {}],
              "expected": [{}, {}, {}], "invocations": [{}, {}]}}]}}"#,
            call("a", "paris"),
            call("b", "tokyo"),
            call("a", "lima"),
            said("a", "18C, light rain"),
            said("b", "24C, clear"),
            said("a", "error: duplicate tool_call_id 'a'"),
            invocation("paris"),
            invocation("tokyo"),
        ),
    );
    let blame = blame_batches(
        &case,
        &[(
            &format!(
                "[{}, {}, {}]",
                said("a", "18C, light rain"),
                said("b", "24C, clear"),
                said("a", "16C, overcast")
            ),
            Some(&format!(
                "[{}, {}, {}]",
                invocation("paris"),
                invocation("tokyo"),
                invocation("lima")
            )),
        )],
    );
    assert_eq!(
        blame.charged(),
        vec![ids::EXEC_DUP_ANY_EARLIER],
        "{blame:?}"
    );
}

/// A keying function that makes every float with no fraction the integer it equals
/// before the dump (`int(x)`: `1.0` as `1`, `8.57e+174` with all its digits) breaks the
/// float rule, and the two calls it merges the distinct-numbers rule: nothing else, though
/// the merged call has no entry and no invocation of its own.
#[test]
fn floats_made_integers_before_the_dump_are_charged_to_the_number_rules_alone() {
    let calls = r#"[{"name": "f", "args": {"a": 1}}, {"name": "f", "args": {"a": 1.0}},
        {"name": "f", "args": {"\u00e9": {"b": 8.57e+174, "c": [-7.306107542337782e+199, 0.5]}}}]"#;
    let invocation = |i: usize| {
        let calls = parse(calls).unwrap();
        crate::json::dumps(&calls.as_list().unwrap()[i], Style::PYTHON)
    };
    let case = calls_of_f(
        calls,
        r#"{"f({\"a\": 1})": "ok", "f({\"a\": 1.0})": "ok",
            "f({\"\\u00e9\": {\"b\": 8.57e+174, \"c\": [-7.306107542337782e+199, 0.5]}})": "ok"}"#,
    );
    // What `int(x)` before `json.dumps(..., sort_keys=True)` keys and invokes (CPython 3.11).
    let b = "8569999999999999661747342515478744755966017499223000049642956630815524452269155191277095568010155080796288893770619060877345580076249754542347399686563132128781294060554944512";
    let c = "-73061075423377822645515799092237926897588992563314234206394847998648424266706941046237049278468717915984953980563341909852745270029930163501496736115574180889276690847274656084339722655740292075880448";
    let output = format!(
        r#"{{"f({{\"a\": 1}})": "ok", "f({{\"\\u00e9\": {{\"b\": {b}, \"c\": [{c}, 0.5]}}}})": "ok"}}"#
    );
    let blame = blame_batches(
        &case,
        &[(
            &output,
            Some(&format!("[{}, {}]", invocation(0), invocation(2))),
        )],
    );
    assert_eq!(
        blame.charged(),
        vec![ids::DEDUP_NUMBER_FLOAT, ids::DEDUP_NUMBER_DISTINCT],
        "{blame:?}"
    );
}

#[test]
fn floats_made_integers_below_2_53_only_are_charged_to_the_number_rules_alone() {
    // `int(x)` where `abs(x) < 2**53`: 1.0 and 2.0 become integers, 1e16 stays a float
    // (which a runtime with one number type writes 10000000000000000).
    let calls = r#"[{"name": "f", "args": {"a": 1}}, {"name": "f", "args": {"a": 1.0}},
        {"name": "f", "args": {"a": [1e16, 2.0]}}]"#;
    let invocation = |i: usize| {
        let calls = parse(calls).unwrap();
        crate::json::dumps(&calls.as_list().unwrap()[i], Style::PYTHON)
    };
    let case = calls_of_f(
        calls,
        r#"{"f({\"a\": 1})": "ok", "f({\"a\": 1.0})": "ok", "f({\"a\": [1e+16, 2.0]})": "ok"}"#,
    );
    let output = r#"{"f({\"a\": 1})": "ok", "f({\"a\": [1e+16, 2]})": "ok"}"#;
    let blame = blame_batches(
        &case,
        &[(
            output,
            Some(&format!("[{}, {}]", invocation(0), invocation(2))),
        )],
    );
    assert_eq!(
        blame.charged(),
        vec![ids::DEDUP_NUMBER_FLOAT, ids::DEDUP_NUMBER_DISTINCT],
        "{blame:?}"
    );
    assert!(
        blame
            .charges
            .iter()
            .any(|c| c.diagnosis.contains("below 2^53")),
        "{blame:?}"
    );
}

#[test]
fn calls_made_one_key_by_sorted_lists_are_the_list_order_rule_s_alone() {
    // Lists sorted by their items' text: [1.0, 1] keys as [1, 1.0], the first call's key,
    // so one invocation serves both. The number rules hold: 1 and 1.0 stay apart.
    let calls =
        r#"[{"name": "f", "args": {"xs": [1, 1.0]}}, {"name": "f", "args": {"xs": [1.0, 1]}}]"#;
    let case = calls_of_f(
        calls,
        r#"{"f({\"xs\": [1, 1.0]})": "ok", "f({\"xs\": [1.0, 1]})": "ok"}"#,
    );
    let blame = blame_batches(
        &case,
        &[(
            r#"{"f({\"xs\": [1, 1.0]})": "ok"}"#,
            Some(r#"[{"name": "f", "args": {"xs": [1, 1.0]}}]"#),
        )],
    );
    assert_eq!(
        blame.charged(),
        vec![ids::DEDUP_KEY_LIST_ORDER],
        "{blame:?}"
    );
}

#[test]
fn lists_sorted_by_their_items_keys_sorted_text_are_read_as_sorted_lists() {
    // In the order given, the items' texts are sorted only while their keys are unsorted:
    // sorted as the key writes them ({"a": 2, "c": 0} first), the list changes order.
    let call = r#"{"name": "f", "args": {"xs": [{"b": 1}, {"c": 0, "a": 2}]}}"#;
    let case = calls_of_f(
        &format!("[{call}]"),
        r#"{"f({\"xs\": [{\"b\": 1}, {\"a\": 2, \"c\": 0}]})": "ok"}"#,
    );
    let blame = blame_batches(
        &case,
        &[(
            r#"{"f({\"xs\": [{\"a\": 2, \"c\": 0}, {\"b\": 1}]})": "ok"}"#,
            None,
        )],
    );
    assert_eq!(
        blame.charged(),
        vec![ids::DEDUP_KEY_LIST_ORDER],
        "{blame:?}"
    );
}

#[test]
fn an_entry_holding_parcalls_answer_to_a_request_no_call_makes_is_that_invocations_rule_s() {
    // A call without args keyed `f(null)` and its tool invoked with None: parcall answers a
    // request no script covers, and the entry holds that answer. The args rule is charged;
    // the entry is not a result changed.
    let case = case_of(
        "run_parallel_calls",
        r#"{"id": "null-args", "description": "d", "requirements": ["DEDUP-KEY-ARGS-DEFAULT"],
            "tools": {"f": {"responses": [{"answers": [{"type": "return", "value": "ok"}]}]}},
            "batches": [{"calls": [{"name": "f"}, {"name": "f", "args": {}}],
              "expected": {"f({})": "ok"},
              "invocations": [{"name": "f", "args": {}}]}]}"#,
    );
    let blame = blame_batches(
        &case,
        &[(
            r#"{"f(null)": "parcall: no scripted answer for f(null)", "f({})": "ok"}"#,
            Some(r#"[{"name": "f", "args": null}, {"name": "f", "args": {}}]"#),
        )],
    );
    assert_eq!(
        blame.charged(),
        vec![ids::DEDUP_KEY_ARGS_DEFAULT],
        "{blame:?}"
    );
}
