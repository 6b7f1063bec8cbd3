//! Reading JSON text as CPython's `json.loads` does, without losing integer literals.

use super::text::Text;
use super::value::{Int, Object, Value};
use thiserror::Error;

mod list_member;

pub use list_member::{list_member, parse_item, ListMember};

/// Why a JSON text could not be read, and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message} at line {line} column {column}")]
pub struct ParseError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// How deep arrays and objects may nest before the text is refused: deep enough for any real
/// input, shallow enough that hostile input cannot overflow the stack.
pub(crate) use super::MAX_DEPTH;

/// Parses a whole JSON text. Accepts what `json.loads` accepts (including `NaN`, `Infinity`
/// and `-Infinity`), except strings holding a lone UTF-16 surrogate, which no Rust string can
/// hold; those are refused with an error.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut parser = Parser::new(text, 0);
    parser.skip_whitespace();
    let value = parser.value(0)?;
    parser.skip_whitespace();
    if parser.pos < text.len() {
        return Err(parser.error("extra data after the JSON value"));
    }
    Ok(value)
}

pub(super) struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// The items of the lists being read, innermost last, and the members of the objects.
    /// A container is copied out into a block of exactly its size when it closes: no chain
    /// of reallocations per container, and a tree laid out in as few blocks as a copy of it
    /// would be, which is faster to walk (BENCHMARKS.md section 1).
    items: Vec<Value>,
    members: Vec<(Text, Value)>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, pos: usize) -> Parser<'a> {
        Parser {
            text,
            pos,
            items: Vec::new(),
            members: Vec::new(),
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        let before = &self.text[..self.pos];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ParseError {
            message: message.into(),
            line,
            column,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, literal: &str) -> bool {
        let found = self.text[self.pos..].starts_with(literal);
        if found {
            self.pos += literal.len();
        }
        found
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        match self.peek() {
            None => Err(self.error("expecting a value, found the end of the text")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.list(depth),
            Some(b'"') => self.string().map(Value::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.keyword(),
        }
    }

    fn keyword(&mut self) -> Result<Value, ParseError> {
        let keywords = [
            ("null", Value::Null),
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("NaN", Value::Float(f64::NAN)),
            ("Infinity", Value::Float(f64::INFINITY)),
        ];
        for (literal, value) in keywords {
            if self.eat(literal) {
                return Ok(value);
            }
        }
        Err(self.error("expecting a value"))
    }

    fn list(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.pos += 1;
        let start = self.items.len();
        self.skip_whitespace();
        if self.eat("]") {
            return Ok(Value::List(Vec::new()));
        }
        loop {
            self.skip_whitespace();
            let item = self.value(depth + 1)?;
            self.items.push(item);
            self.skip_whitespace();
            if self.eat("]") {
                return Ok(Value::List(self.items.drain(start..).collect()));
            }
            if !self.eat(",") {
                return Err(self.error("expecting ',' or ']' in a list"));
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.pos += 1;
        // Collected, then made an object in one pass over the keys for repeats: inserting
        // member by member would scan the keys at every member, quadratic in a hostile text.
        let start = self.members.len();
        self.skip_whitespace();
        if self.eat("}") {
            return Ok(Value::from(Object::new()));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error("expecting a property name in double quotes"));
            }
            let key = self.string()?;
            self.skip_whitespace();
            if !self.eat(":") {
                return Err(self.error("expecting ':' after a property name"));
            }
            self.skip_whitespace();
            let value = self.value(depth + 1)?;
            self.members.push((key, value));
            self.skip_whitespace();
            if self.eat("}") {
                // As in a Python dict: a repeated key keeps its first position and its last
                // value.
                let members = self.members.drain(start..).collect();
                return Ok(Value::from(Object::from_members(members)));
            }
            if !self.eat(",") {
                return Err(self.error("expecting ',' or '}' in an object"));
            }
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if self.eat("-Infinity") {
            return Ok(Value::Float(f64::NEG_INFINITY));
        }
        self.eat("-");
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("expecting a digit after '-'")),
        }
        let integer_end = self.pos;
        if self.peek() == Some(b'.') && self.digit_at(self.pos + 1) {
            self.pos += 1;
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(
                self.text.as_bytes().get(self.pos + 1),
                Some(b'+' | b'-')
            ));
            if self.digit_at(self.pos + 1 + sign) {
                self.pos += 1 + sign;
                self.digits();
            }
        }
        let literal = &self.text[start..self.pos];
        if self.pos == integer_end {
            let int =
                Int::from_literal(literal).expect("the grammar above admits only integers here");
            return Ok(Value::Int(int));
        }
        // Rust's float parsing is correctly rounded, like CPython's; overflow gives infinity.
        let float = literal
            .parse()
            .map_err(|_| self.error("malformed number"))?;
        Ok(Value::Float(float))
    }

    fn digit_at(&self, index: usize) -> bool {
        self.text
            .as_bytes()
            .get(index)
            .is_some_and(u8::is_ascii_digit)
    }

    fn digits(&mut self) {
        while self.digit_at(self.pos) {
            self.pos += 1;
        }
    }

    /// A string literal, built in place: inline when short, so no heap block is made and
    /// freed for a key or a word.
    fn string(&mut self) -> Result<Text, ParseError> {
        self.pos += 1;
        let mut out = Text::default();
        loop {
            let rest = &self.text[self.pos..];
            let plain = rest.find(|c: char| c == '"' || c == '\\' || c < ' ');
            let Some(stop) = plain else {
                return Err(self.error("unterminated string"));
            };
            out.push_str(&rest[..stop]);
            self.pos += stop;
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => out.push(self.escape()?),
                _ => return Err(self.error("invalid control character in a string")),
            }
        }
    }

    fn escape(&mut self) -> Result<char, ParseError> {
        self.pos += 1;
        let simple = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(),
            _ => return Err(self.error("invalid escape in a string")),
        };
        self.pos += 1;
        Ok(simple)
    }

    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let first = self.hex4()?;
        if !(0xD800..0xDC00).contains(&first) {
            return char::from_u32(first).ok_or_else(|| self.lone_surrogate(first));
        }
        if !self.text[self.pos..].starts_with("\\u") {
            return Err(self.lone_surrogate(first));
        }
        self.pos += 1;
        let second = self.hex4()?;
        if !(0xDC00..0xE000).contains(&second) {
            return Err(self.lone_surrogate(first));
        }
        let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        Ok(char::from_u32(combined).expect("a surrogate pair always makes a valid char"))
    }

    /// Reads `uhhhh` (the position is on the `u`).
    fn hex4(&mut self) -> Result<u32, ParseError> {
        let hex = self.text.get(self.pos + 1..self.pos + 5).unwrap_or("");
        let code = (hex.len() == 4 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(hex, 16).ok())
            .flatten()
            .ok_or_else(|| self.error("invalid \\uhhhh escape"))?;
        self.pos += 5;
        Ok(code)
    }

    fn lone_surrogate(&self, code: u32) -> ParseError {
        self.error(format!(
            "lone surrogate \\u{code:04x} in a string: parcall handles only strings of Unicode scalar values"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_python_types() {
        assert_eq!(parse("1E2").unwrap(), Value::Float(100.0));
        assert_eq!(
            parse("-0").unwrap(),
            Value::Int(Int::from_literal("0").unwrap())
        );
        assert_eq!(parse("1e400").unwrap(), Value::Float(f64::INFINITY));
        let big = "123456789012345678901234567890";
        assert_eq!(
            parse(big).unwrap(),
            Value::Int(Int::from_literal(big).unwrap())
        );
    }

    #[test]
    fn repeated_keys_keep_first_position_and_last_value() {
        let Value::Object(o) = parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap() else {
            panic!("not an object")
        };
        assert_eq!(o.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(o["a"], Value::from(3));
    }

    /// Past the size where repeats are found by comparing keys pairwise, by parcall's reader
    /// and by serde's (a `Value` read through `serde_json`): each key in its first position
    /// with its last value.
    #[test]
    fn repeated_keys_of_large_objects_keep_first_position_and_last_value() {
        let members: Vec<String> = (0..60).map(|i| format!("\"k{}\": {i}", i % 25)).collect();
        let text = format!("{{{}}}", members.join(", "));
        let expected: Object = (0..25)
            .map(|k| {
                (
                    format!("k{k}").into(),
                    Value::from(k + if k < 10 { 50 } else { 25 }),
                )
            })
            .collect();
        for read in [
            parse(&text).unwrap(),
            serde_json::from_str::<Value>(&text).unwrap(),
        ] {
            let Value::Object(o) = read else {
                panic!("not an object")
            };
            assert!(o
                .keys()
                .map(|k| k.as_str())
                .eq(expected.keys().map(|k| k.as_str())));
            assert_eq!(o, expected);
        }
    }

    #[test]
    fn errors_say_where() {
        let error = parse("{\n  \"a\": tru\n}").unwrap_err();
        assert_eq!((error.line, error.column), (2, 8));
        assert!(parse("[1, 2").is_err());
        assert!(parse(r#""\ud800""#)
            .unwrap_err()
            .message
            .contains("lone surrogate"));
        assert!(parse("01").is_err());
        assert!(parse(&"[".repeat(10_000)).is_err());
    }

    #[test]
    fn astral_escapes_combine() {
        assert_eq!(parse(r#""\ud83d\ude00""#).unwrap(), Value::from("😀"));
    }
}
