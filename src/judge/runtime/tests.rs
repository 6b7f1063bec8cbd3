//! One bug, one charge (RULES D), and the declared policies honoured (F1): each test is a
//! turn a probe runtime gave that the judge once charged to more than the one rule it broke,
//! or to a rule the declaration excuses.

use super::*;
use crate::protocol::IdenticalCallsPolicy;

/// A case of one turn: `tools` and `calls` as case files write them.
fn case(tools: &str, calls: &str) -> RuntimeCase {
    let text = format!(
        r#"{{"id": "t", "description": "", "requirements": [], "tools": {tools},
            "batches": [{{"calls": {calls}}}]}}"#
    );
    serde_json::from_str(&text).expect("a runtime case")
}

/// The requirements charged for a turn that returned `output` after `invocations`
/// (`[{"name", "args"}]`), under `policies`.
fn charged(
    case: &RuntimeCase,
    output: &str,
    invocations: &str,
    policies: &RuntimePolicies,
) -> Vec<String> {
    let run = BatchRun {
        output: crate::json::parse(output).expect("an output"),
        invocations: crate::json::parse(invocations)
            .expect("invocations")
            .as_list()
            .unwrap_or_default()
            .to_vec(),
    };
    let (_, blame) = verdict(case, &[Ended::Returned(&run)], Some(policies));
    let mut charged: Vec<String> = blame
        .charges
        .iter()
        .map(|c| c.requirement.clone())
        .collect();
    charged.dedup();
    charged
}

const SEARCH: &str = r#"{"search": {"responses": [
    {"args": {"q": "a"}, "answers": [{"type": "return", "value": "for a"}]},
    {"args": {"q": "b"}, "answers": [{"type": "return", "value": "for b"}]},
    {"args": {"q": "same"}, "answers": [{"type": "return", "value": "first run"}, {"type": "return", "value": "second run"}]},
    {"answers": [{"type": "return", "value": "other"}]}]}}"#;

fn reference() -> RuntimePolicies {
    RuntimePolicies::default()
}

#[test]
fn a_later_call_of_a_shared_id_refused_in_order_is_the_execution_rule_alone() {
    // Two identical calls share an id; the second gets seed 000's duplicate error. The
    // results are in call order: not an order charge, nor a content one.
    let case = case(
        SEARCH,
        r#"[{"id": " ", "name": "search", "arguments": {}},
            {"id": " ", "name": "search", "arguments": {}}]"#,
    );
    let output = r#"[{"tool_call_id": " ", "content": "other"},
                     {"tool_call_id": " ", "content": "error: duplicate tool_call_id ' '"}]"#;
    let invocations = r#"[{"name": "search", "args": {}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
    let first = RuntimePolicies {
        duplicate_ids: DuplicateIdsPolicy::First,
        ..reference()
    };
    assert!(charged(&case, output, invocations, &first).is_empty());
}

#[test]
fn calls_past_a_limit_sharing_an_id_with_an_unknown_tool_are_not_out_of_order() {
    let case = case(
        SEARCH,
        r#"[{"id": "one", "name": "search", "arguments": {"q": "a"}},
            {"id": "dup", "name": "search", "arguments": {"q": "b"}},
            {"id": "dup", "name": "no_such_tool", "arguments": {}}]"#,
    );
    let output = r#"[{"tool_call_id": "one", "content": "for a"},
                     {"tool_call_id": "dup", "content": "error: too many parallel tool calls (limit 1)"},
                     {"tool_call_id": "dup", "content": "error: too many parallel tool calls (limit 1)"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
    let limited = RuntimePolicies {
        call_limit: Some(1),
        ..reference()
    };
    assert!(charged(&case, output, invocations, &limited).is_empty());
}

#[test]
fn a_call_past_a_limit_carrying_a_reserved_name_is_not_an_argument_charge() {
    let case = case(
        SEARCH,
        r#"[{"id": "1", "name": "search", "arguments": {"q": "a"}},
            {"id": "2", "name": "search", "arguments": {"run_manager": 1}}]"#,
    );
    let output = r#"[{"tool_call_id": "1", "content": "for a"},
                     {"tool_call_id": "2", "content": "error: too many parallel tool calls (limit 1)"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
}

#[test]
fn a_repeat_served_once_carrying_a_reserved_name_is_not_an_argument_charge() {
    // Seed 003's rule undeclared: the tool did run with those arguments, for the first call.
    let case = case(
        SEARCH,
        r#"[{"id": "1", "name": "search", "arguments": {"config": 1}},
            {"id": "2", "name": "search", "arguments": {"config": 1}}]"#,
    );
    let output = r#"[{"tool_call_id": "1", "content": "other"},
                     {"tool_call_id": "2", "content": "other"}]"#;
    let invocations = r#"[{"name": "search", "args": {"config": 1}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
    let once = RuntimePolicies {
        identical_calls: IdenticalCallsPolicy::Once,
        ..reference()
    };
    assert!(charged(&case, output, invocations, &once).is_empty());
}

#[test]
fn a_call_skipped_in_a_case_of_one_turn_is_not_a_no_state_charge() {
    let case = case(
        SEARCH,
        r#"[{"id": "1", "name": "search", "arguments": {"q": "a"}},
            {"id": "2", "name": "search", "arguments": {"q": "b"}}]"#,
    );
    let output = r#"[{"tool_call_id": "1", "content": "for a"},
                     {"tool_call_id": "2", "content": "skipped: one call per turn"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
}

#[test]
fn identical_calls_run_once_cite_no_return_that_never_happened() {
    // runtime-results-004 as seed 003 runs it: one run, both calls get its answer. Undeclared,
    // that is the execution rule alone; declared `once`, it conforms.
    let case = case(
        SEARCH,
        r#"[{"id": "call_1st", "name": "search", "arguments": {"q": "same"}},
            {"id": "call_2nd", "name": "search", "arguments": {"q": "same"}}]"#,
    );
    let output = r#"[{"tool_call_id": "call_1st", "content": "first run"},
                     {"tool_call_id": "call_2nd", "content": "first run"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "same"}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
    let once = RuntimePolicies {
        identical_calls: IdenticalCallsPolicy::Once,
        ..reference()
    };
    assert!(charged(&case, output, invocations, &once).is_empty());
    // Declared `once` but run twice: the execution rule.
    let twice = r#"[{"tool_call_id": "call_1st", "content": "first run"},
                    {"tool_call_id": "call_2nd", "content": "second run"}]"#;
    let both =
        r#"[{"name": "search", "args": {"q": "same"}}, {"name": "search", "args": {"q": "same"}}]"#;
    assert_eq!(
        charged(&case, twice, both, &once),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
}

#[test]
fn a_made_up_position_id_meeting_a_given_one_is_governed_by_the_shared_id_policy() {
    let case = case(
        SEARCH,
        r#"[{"id": "call_2", "name": "search", "arguments": {"q": "a"}},
            {"id": null, "name": "search", "arguments": {"q": "b"}}]"#,
    );
    let output = r#"[{"tool_call_id": "call_2", "content": "for a"},
                     {"tool_call_id": "call_2", "content": "for b"}]"#;
    let invocations =
        r#"[{"name": "search", "args": {"q": "a"}}, {"name": "search", "args": {"q": "b"}}]"#;
    let position = RuntimePolicies {
        missing_id: MissingIdPolicy::Position,
        ..reference()
    };
    assert!(charged(&case, output, invocations, &position).is_empty());
    // Undeclared (kept): the made-up id alone is charged.
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_POLICY_DECLARED]
    );
    // Declared generated: an id equal to another of the turn breaks the promise.
    let generated = RuntimePolicies {
        missing_id: MissingIdPolicy::Generated,
        ..reference()
    };
    assert_eq!(
        charged(&case, output, invocations, &generated),
        [ids::RUNTIME_POLICY_DECLARED]
    );
    // Position and `first`: seed 000 refuses the second as a duplicate.
    let seed_000 = RuntimePolicies {
        missing_id: MissingIdPolicy::Position,
        duplicate_ids: DuplicateIdsPolicy::First,
        ..reference()
    };
    let refused = r#"[{"tool_call_id": "call_2", "content": "for a"},
                      {"tool_call_id": "call_2", "content": "error: duplicate tool_call_id 'call_2'"}]"#;
    let one = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    assert!(charged(&case, refused, one, &seed_000).is_empty());
}

#[test]
fn an_empty_id_declared_missing_is_answered_as_one() {
    let case = case(
        SEARCH,
        r#"[{"id": "", "name": "search", "arguments": {"q": "a"}}]"#,
    );
    let output = r#"[{"tool_call_id": null, "content": "for a"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_ID_ECHOED]
    );
    let missing = RuntimePolicies {
        empty_id: EmptyIdPolicy::Missing,
        ..reference()
    };
    assert!(charged(&case, output, invocations, &missing).is_empty());
}

#[test]
fn collapsed_shared_ids_answered_once_conform_when_declared() {
    let case = case(
        SEARCH,
        r#"[{"id": "dup", "name": "search", "arguments": {"q": "a"}},
            {"id": "dup", "name": "search", "arguments": {"q": "b"}}]"#,
    );
    let output = r#"[{"tool_call_id": "dup", "content": "for a"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    let collapsed = RuntimePolicies {
        duplicate_ids: DuplicateIdsPolicy::Collapsed,
        ..reference()
    };
    assert!(charged(&case, output, invocations, &collapsed).is_empty());
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_EXECUTE_ONCE]
    );
}

#[test]
fn the_last_call_refused_for_a_reserved_name_its_result_names_is_the_argument_rule_s() {
    // The Vercel AI SDK refuses `__proto__` arguments; that the call is last does not make
    // it a limit's.
    let case = case(
        SEARCH,
        r#"[{"id": "p", "name": "search", "arguments": {"q": "a"}},
            {"id": "s", "name": "search", "arguments": {"__proto__": {"polluted": true}}}]"#,
    );
    let output = r#"[{"tool_call_id": "p", "content": "for a"},
                     {"tool_call_id": "s", "content": "Invalid input: {\"__proto__\": {}}"}]"#;
    let invocations = r#"[{"name": "search", "args": {"q": "a"}}]"#;
    assert_eq!(
        charged(&case, output, invocations, &reference()),
        [ids::RUNTIME_ARGS_UNCHANGED]
    );
}
