//! Cutting a top-level object's list member into its items without parsing them, so the
//! items of a large list can be parsed apart.

use super::{ParseError, Parser};
use crate::json::Value;
use std::ops::Range;

/// A list that is a member of a text's top-level object, cut into its items' byte ranges
/// without parsing them, so they can be parsed apart (a spec export's case files hold
/// 10,000 cases in one list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListMember {
    /// The list itself, brackets included.
    pub list: Range<usize>,
    /// Each item, without the whitespace around it.
    pub items: Vec<Range<usize>>,
}

/// Finds the list that member `key` of the top-level object holds, and cuts it into items.
/// `None` when the text is not shaped so, or not plainly enough to be sure (a key written
/// with an escape, the key twice): the caller then parses the whole text, which also says
/// what is wrong with it. The cut checks only the structure; [`parse_item`] checks each
/// item, and parsing the text with the list emptied checks the rest, so a text whose pieces
/// all parse is valid whole and means what they mean together.
pub fn list_member(text: &str, key: &str) -> Option<ListMember> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_space(bytes, at + 1);
    let mut found = None;
    if bytes.get(at) == Some(&b'}') {
        return None;
    }
    loop {
        let key_end = skip_string(bytes, at)?;
        let written = &text[at + 1..key_end - 1];
        if written.contains('\\') {
            return None;
        }
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(bytes, at + 1);
        let value_end = skip_value(bytes, at)?;
        if written == key {
            if found.is_some() || bytes[at] != b'[' {
                return None;
            }
            found = Some(ListMember {
                list: at..value_end,
                items: list_items(bytes, at)?,
            });
        }
        at = skip_space(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    (skip_space(bytes, at + 1) == bytes.len())
        .then_some(found)
        .flatten()
}

/// Parses one item that [`list_member`] found, nested as deep as it is in the whole text (in
/// a list in the top-level object); errors say where in the whole text.
pub fn parse_item(text: &str, item: Range<usize>) -> Result<Value, ParseError> {
    const ITEM_DEPTH: usize = 2;
    let mut parser = Parser::new(text, item.start);
    let value = parser.value(ITEM_DEPTH)?;
    if parser.pos != item.end {
        return Err(parser.error("the item ends somewhere else"));
    }
    Ok(value)
}

/// The items of the list opening at `at`.
fn list_items(bytes: &[u8], at: usize) -> Option<Vec<Range<usize>>> {
    let mut items = Vec::new();
    let mut at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b']') {
        return Some(items);
    }
    loop {
        let end = skip_value(bytes, at)?;
        items.push(at..end);
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b']') => return Some(items),
            _ => return None,
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end of the string opening at `at` (after its closing quote).
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut at = at + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        match bytes[at] {
            b'"' => return Some(at + 1),
            _ => at += 2,
        }
    }
}

/// The end of the value starting at `at`, found by its strings and its own kind of bracket
/// only: in valid JSON the other kind nests inside, and in invalid JSON a wrong end makes a
/// piece that does not parse.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        &open @ (b'{' | b'[') => {
            let close = if open == b'{' { b'}' } else { b']' };
            let mut depth = 0usize;
            let mut at = at;
            loop {
                at += memchr::memchr3(b'"', open, close, bytes.get(at..)?)?;
                match bytes[at] {
                    b'"' => at = skip_string(bytes, at)?,
                    byte if byte == open => {
                        depth += 1;
                        at += 1;
                    }
                    _ => {
                        depth -= 1;
                        at += 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                }
            }
        }
        b'"' => skip_string(bytes, at),
        _ => {
            let length = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - at);
            (length > 0).then_some(at + length)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::json::parse::MAX_DEPTH;

    #[test]
    fn a_list_member_is_cut_into_its_items() {
        let text = "{\"topic\": \"]}\",\n \"cases\" : [ {\"a\": \"}\\\"{\", \"b\": [1, {}]},\n\t7 ,\"x\",[[]], -1.5e3 ], \"z\": {}}\n";
        let member = list_member(text, "cases").unwrap();
        let items: Vec<&str> = member.items.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(
            items,
            [
                r#"{"a": "}\"{", "b": [1, {}]}"#,
                "7",
                r#""x""#,
                "[[]]",
                "-1.5e3"
            ]
        );
        assert!(text[member.list.clone()].starts_with('[') && text[member.list].ends_with(']'));
        for item in &member.items {
            let whole = parse(&text[item.clone()]).unwrap();
            assert_eq!(parse_item(text, item.clone()).unwrap(), whole);
        }
        assert!(list_member(r#"{"cases": []}"#, "cases")
            .unwrap()
            .items
            .is_empty());
    }

    #[test]
    fn a_list_member_is_not_cut_unless_the_text_is_plainly_so() {
        for text in [
            r#"{"topic": 1}"#,
            r#"{"cases": {}}"#,
            r#"{"cases": [1], "cases": [2]}"#,
            r#"{"ca\u0073es": [1]}"#,
            r#"{"cases": [1] "x": 2}"#,
            r#"{"cases": [1 2]}"#,
            r#"{"cases": [1,]}"#,
            r#"{"cases": [1]} extra"#,
            r#"{"cases": ["open]}"#,
            r#"[{"cases": [1]}]"#,
            "",
        ] {
            assert_eq!(list_member(text, "cases"), None, "{text}");
        }
    }

    #[test]
    fn an_item_parses_only_as_exactly_its_range() {
        let text = r#"{"cases": [tru, 1x, [2]]}"#;
        let member = list_member(text, "cases").unwrap();
        assert!(parse_item(text, member.items[0].clone()).is_err());
        assert!(parse_item(text, member.items[1].clone()).is_err());
        assert!(parse_item(text, member.items[2].clone()).is_ok());
        // Items nest as deep as they would in the whole text.
        let deep = format!(
            r#"{{"cases": [{}]}}"#,
            "[".repeat(MAX_DEPTH - 1) + &"]".repeat(MAX_DEPTH - 1)
        );
        let item = list_member(&deep, "cases").unwrap().items[0].clone();
        assert_eq!(parse_item(&deep, item).is_err(), parse(&deep).is_err());
    }

    /// JSON-like texts: an object of up to three members, mostly lists of small values, with
    /// a stray bracket, quote, backslash or comma now and then.
    fn object_text() -> impl proptest::strategy::Strategy<Value = String> {
        let item = r#"(1|-2.5e3|"x"|"\]\}"|"\\"|\[\]|\{\}|\{"b":\[1, \{\}\]\}|[\[\]{}",:a\\é])"#;
        let list = format!(r#"\[( ?{item} ?,){{0,3}} ?{item}? ?\]"#);
        let member = format!(r#""(a|a|b|a\\|é)" ?: ?({list}|1|"\]"|\{{\}})"#);
        let text = format!(r#" ?\{{ ?{member}( ?, ?{member}){{0,2}} ?\}}[ \]]?"#);
        proptest::string::string_regex(&text).unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2048))]

        /// Whatever the text, the cut never panics, and a text whose pieces all parse is
        /// valid whole and means what its pieces mean.
        #[test]
        fn pieces_that_parse_make_the_whole(text in object_text()) {
            let Some(member) = list_member(&text, "a") else {
                return Ok(());
            };
            let header = format!("{}[]{}", &text[..member.list.start], &text[member.list.end..]);
            let items: Result<Vec<Value>, _> = member
                .items
                .iter()
                .map(|item| parse_item(&text, item.clone()))
                .collect();
            if let (Ok(Value::Object(mut header)), Ok(items)) = (parse(&header), items) {
                header.insert("a".into(), Value::List(items));
                proptest::prop_assert_eq!(parse(&text), Ok(Value::Object(header)));
            }
        }
    }
}
