//! JSON in Python's dialect, with the standard library only: `NaN` and the infinities as
//! literals, integers exact at any size and apart from floats (`1` is not `1.0`: the `python`
//! number model), floats written as Python's `repr`, and the canonical key of a call.

use std::fmt::{self, Display, Write as _};

/// A JSON value with Python's types.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// An integer, exact at any size, as its decimal text (`-0` reads as `0`).
    Int(String),
    /// A number written with a fraction or exponent (`1.0`, `1e5`, `NaN`, `Infinity`).
    Float(f64),
    Str(String),
    List(Vec<Json>),
    /// Members in the order they came; a repeated key keeps its first place and last value.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// An object's member.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// An integer that fits a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Int(digits) => digits.parse().ok(),
            _ => None,
        }
    }

    /// An object of these members, in this order.
    pub fn object<K: Into<String>>(members: impl IntoIterator<Item = (K, Json)>) -> Json {
        Json::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

impl From<&str> for Json {
    fn from(text: &str) -> Json {
        Json::Str(text.to_owned())
    }
}

impl From<String> for Json {
    fn from(text: String) -> Json {
        Json::Str(text)
    }
}

impl From<i64> for Json {
    fn from(n: i64) -> Json {
        Json::Int(n.to_string())
    }
}

impl From<f64> for Json {
    fn from(x: f64) -> Json {
        Json::Float(x)
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<Vec<Json>> for Json {
    fn from(items: Vec<Json>) -> Json {
        Json::List(items)
    }
}

/// The canonical key of a call (RULES B1, B2): `name(` + Python's
/// `json.dumps(args, sort_keys=True)` + `)`; `key("f", {"b": 1, "a": 1.0})` is
/// `f({"a": 1.0, "b": 1})`.
pub fn key(name: &str, args: &Json) -> String {
    let mut out = format!("{name}(");
    write(args, true, &mut out);
    out.push(')');
    out
}

/// Python's `json.dumps(value)`: members in their order.
impl Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write(self, false, &mut out);
        f.write_str(&out)
    }
}

fn write(value: &Json, sort_keys: bool, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Int(digits) => out.push_str(digits),
        Json::Float(x) => out.push_str(&repr(*x)),
        Json::Str(s) => write_str(s, out),
        Json::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, sort_keys, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            let mut members: Vec<&(String, Json)> = members.iter().collect();
            // UTF-8 byte order is code point order, as Python sorts str keys.
            if sort_keys {
                members.sort_by(|a, b| a.0.cmp(&b.0));
            }
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(k, out);
                out.push_str(": ");
                write(v, sort_keys, out);
            }
            out.push('}');
        }
    }
}

/// `ensure_ascii`: everything outside space..`~` escaped, astral characters as a
/// surrogate pair, hex digits in lowercase.
fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for unit in s.encode_utf16() {
        match unit {
            0x22 => out.push_str("\\\""),
            0x5c => out.push_str("\\\\"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            0x20..=0x7e => out.push(unit as u8 as char),
            _ => {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out.push('"');
}

/// Python's `repr` of a float, laid out as Python does: `1.0`, `1e+16`, `1e-05`, `-0.0`.
pub fn repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let (digits, exponent) = shortest(x.abs());
    let sign = if x < 0.0 { "-" } else { "" };
    if !(-4..16).contains(&exponent) {
        let mantissa = match digits.len() {
            1 => digits.clone(),
            _ => format!("{}.{}", &digits[..1], &digits[1..]),
        };
        let e_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{e_sign}{:02}", exponent.abs());
    }
    if exponent < 0 {
        let zeros = "0".repeat((-exponent - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exponent as usize + 1;
    if digits.len() <= point {
        format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// The shortest digits that read back as `x` (positive, finite), and the decimal exponent of
/// the first: of the two neighbours of each length that read back, the nearer, the even one
/// on a tie, as Python chooses. Rust's own shortest form picks otherwise on a tie
/// (562949953421503.25 is `...503.2` in Python). Every double's exact decimal expansion has
/// at most 767 significant digits, and Rust writes it exactly at that precision.
fn shortest(x: f64) -> (String, i32) {
    let exact = format!("{x:.767e}");
    let (mantissa, exponent) = exact.split_once('e').unwrap();
    let exponent: i32 = exponent.parse().unwrap();
    let all: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    for length in 1..=17 {
        let (head, rest) = all.split_at(length);
        // The value of `digits` is digits * 10^scale, whatever their length after a carry.
        let scale = exponent - length as i32 + 1;
        let reads = |digits: &[u8]| {
            let text = format!("{}e{scale}", std::str::from_utf8(digits).unwrap());
            text.parse::<f64>() == Ok(x)
        };
        let down = head.to_vec();
        if rest.iter().all(|&d| d == b'0') {
            return trimmed(down, scale);
        }
        let up = carried(head);
        let chosen = match (reads(&down), reads(&up)) {
            (true, true) => {
                let half = std::iter::once(b'5').chain(std::iter::repeat(b'0'));
                match rest.iter().copied().cmp(half.take(rest.len())) {
                    std::cmp::Ordering::Less => down,
                    std::cmp::Ordering::Greater => up,
                    std::cmp::Ordering::Equal if (head[length - 1] - b'0') % 2 == 0 => down,
                    std::cmp::Ordering::Equal => up,
                }
            }
            (true, false) => down,
            (false, true) => up,
            (false, false) => continue,
        };
        return trimmed(chosen, scale);
    }
    unreachable!("17 significant digits always read back")
}

/// `digits` plus one in the last place (`999` becomes `1000`).
fn carried(digits: &[u8]) -> Vec<u8> {
    let mut out = digits.to_vec();
    for d in out.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return out;
        }
    }
    out.insert(0, b'1');
    out
}

/// Digits without trailing zeros, and the decimal exponent of the first digit.
fn trimmed(mut digits: Vec<u8>, scale: i32) -> (String, i32) {
    let first = scale + digits.len() as i32 - 1;
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (String::from_utf8(digits).unwrap(), first)
}

/// Reads one whole JSON text in Python's dialect; the error says what and where.
pub fn parse(text: &str) -> Result<Json, String> {
    let mut reader = Reader { text: text.as_bytes(), at: 0 };
    let value = reader.value(0)?;
    reader.whitespace();
    if reader.at != text.len() {
        return Err(reader.error("extra data"));
    }
    Ok(value)
}

struct Reader<'t> {
    text: &'t [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> String {
        format!("{what} at offset {}", self.at)
    }

    fn whitespace(&mut self) {
        while matches!(self.text.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn word(&mut self, word: &str) -> bool {
        let found = self.text[self.at..].starts_with(word.as_bytes());
        if found {
            self.at += word.len();
        }
        found
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        // The protocol nests up to 512 deep; far past that is not a message of parcall's.
        if depth > 1000 {
            return Err(self.error("nested too deep"));
        }
        self.whitespace();
        let words = [
            ("null", Json::Null),
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
            ("NaN", Json::Float(f64::NAN)),
            ("Infinity", Json::Float(f64::INFINITY)),
            ("-Infinity", Json::Float(f64::NEG_INFINITY)),
        ];
        for (word, value) in words {
            if self.word(word) {
                return Ok(value);
            }
        }
        match self.text.get(self.at) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.list(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(_) => self.number(),
            None => Err(self.error("expected a value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1;
        let mut members: Vec<(String, Json)> = Vec::new();
        self.whitespace();
        if self.word("}") {
            return Ok(Json::Object(members));
        }
        loop {
            self.whitespace();
            if self.text.get(self.at) != Some(&b'"') {
                return Err(self.error("expected a key"));
            }
            let key = self.string()?;
            self.whitespace();
            if !self.word(":") {
                return Err(self.error("expected ':'"));
            }
            let value = self.value(depth + 1)?;
            match members.iter_mut().find(|(k, _)| *k == key) {
                Some(member) => member.1 = value,
                None => members.push((key, value)),
            }
            self.whitespace();
            if self.word(",") {
                continue;
            }
            if self.word("}") {
                return Ok(Json::Object(members));
            }
            return Err(self.error("expected ',' or '}'"));
        }
    }

    fn list(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1;
        let mut items = Vec::new();
        self.whitespace();
        if self.word("]") {
            return Ok(Json::List(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.whitespace();
            if self.word(",") {
                continue;
            }
            if self.word("]") {
                return Ok(Json::List(items));
            }
            return Err(self.error("expected ',' or ']'"));
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.at += 1;
        let mut units: Vec<u16> = Vec::new();
        loop {
            let rest = &self.text[self.at..];
            // A run of plain characters at once, then the quote or escape that ends it.
            let run = rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            let Some(run) = run else {
                return Err(self.error("unterminated string"));
            };
            let plain = std::str::from_utf8(&rest[..run]).map_err(|_| self.error("invalid UTF-8"))?;
            units.extend(plain.encode_utf16());
            self.at += run;
            match self.text[self.at] {
                b'"' => {
                    self.at += 1;
                    // parcall's strings are Unicode text: a lone surrogate never comes.
                    return Ok(String::from_utf16_lossy(&units));
                }
                b'\\' => units.push(self.escape()?),
                _ => return Err(self.error("control character in a string")),
            }
        }
    }

    fn escape(&mut self) -> Result<u16, String> {
        let Some(&c) = self.text.get(self.at + 1) else {
            return Err(self.error("unterminated string"));
        };
        self.at += 2;
        Ok(match c {
            b'"' | b'\\' | b'/' => c as u16,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => 0x0a,
            b'r' => 0x0d,
            b't' => 0x09,
            b'u' => {
                let hex = self.text.get(self.at..self.at + 4).and_then(|h| std::str::from_utf8(h).ok());
                let unit = hex.and_then(|h| u16::from_str_radix(h, 16).ok());
                let unit = unit.ok_or_else(|| self.error("invalid \\u escape"))?;
                self.at += 4;
                unit
            }
            _ => return Err(self.error("invalid escape")),
        })
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while r.text.get(r.at).is_some_and(u8::is_ascii_digit) {
                r.at += 1;
            }
            r.at - from
        };
        self.word("-");
        let integer_start = self.at;
        let integer = digits(self);
        if integer == 0 {
            return Err(self.error("expected a value"));
        }
        if integer > 1 && self.text[integer_start] == b'0' {
            return Err(self.error("leading zero"));
        }
        let mut float = false;
        if self.word(".") {
            float = true;
            if digits(self) == 0 {
                return Err(self.error("expected digits after '.'"));
            }
        }
        if self.word("e") || self.word("E") {
            float = true;
            let _ = self.word("+") || self.word("-");
            if digits(self) == 0 {
                return Err(self.error("expected exponent digits"));
            }
        }
        let literal = std::str::from_utf8(&self.text[start..self.at]).unwrap();
        if float {
            // Correctly rounded; an overflow such as 1e400 is an infinity, as in Python.
            return Ok(Json::Float(literal.parse().unwrap()));
        }
        Ok(Json::Int(if literal == "-0" { "0".into() } else { literal.into() }))
    }
}
