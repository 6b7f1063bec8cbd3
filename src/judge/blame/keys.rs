//! Reading an implementation's cache keys (RULINGS B1, B2, B9, E): which call each key
//! belongs to, and which rules of the canonical key it departs from. A key is explained by
//! writing the call's key with up to two plausible departures (unsorted keys, compact
//! separators, no `ensure_ascii`, Python literals, numbers as a one-number-type runtime
//! writes them or, under `float64`, as Python writes them, an escaped name, `null` for
//! absent args, another frame than `name(...)`) and finding the one that matches.

use super::ids::*;
use crate::json::{dumps_str, ecmascript_number, python_repr, Key, NumberModel, Object, Value};
use crate::reference::{canonical_key_in, DedupCall};

/// One way of writing a key differently from RULINGS B1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Departure {
    /// Not `name + "(" + args + ")"`.
    Frame(&'static str, &'static str),
    NameQuoted,
    NameEscaped,
    Separators(&'static str, &'static str),
    KeysInInsertionOrder,
    KeysSortedAtTopOnly,
    ListsSorted,
    NotAscii,
    UppercaseHex,
    PythonLiterals,
    /// Numbers as `JSON.stringify` writes them: `1.0` as `1`, and the infinities and NaN
    /// as `null`.
    OneNumberType,
    /// Under `float64`: numbers as Python's `json.dumps` writes the literals (`1.0` stays
    /// `1.0`), as if the runtime could tell `1` from `1.0`.
    PythonNumbers,
    /// Under `float64`: every number as Python's `repr` of a float writes the double (`1`
    /// and `1.0` both as `1.0`, `1e16` as `1e+16`), as if a double were a Python float.
    PythonFloats,
    AbsentArgsNull,
    AbsentArgsEmpty,
    /// Found by reading the key back: the args it holds differ from the call's only in
    /// numbers (the requirement says which kind) or only in the order of keys somewhere.
    ReadBack(&'static str),
}

impl Departure {
    /// The requirements a departure breaks, given the call's args as written (a spelling of
    /// numbers breaks only the number rules whose numbers it changes: a float's rule when
    /// it changes a literal with a fraction or exponent, an integer's when it changes an
    /// integer literal).
    pub(super) fn requirements(
        self,
        model: NumberModel,
        args: Option<&Object>,
    ) -> Vec<&'static str> {
        match self {
            Departure::Frame(..) | Departure::Separators(..) => vec![DEDUP_KEY_FORMAT],
            Departure::NameQuoted | Departure::NameEscaped => vec![DEDUP_NAME_VERBATIM],
            Departure::KeysInInsertionOrder | Departure::KeysSortedAtTopOnly => {
                vec![DEDUP_KEY_ORDER]
            }
            Departure::ListsSorted => vec![DEDUP_KEY_LIST_ORDER],
            Departure::NotAscii | Departure::UppercaseHex => vec![DEDUP_KEY_ASCII],
            Departure::PythonLiterals => vec![DEDUP_KEY_LITERALS],
            Departure::AbsentArgsNull | Departure::AbsentArgsEmpty => vec![DEDUP_KEY_ARGS_DEFAULT],
            Departure::ReadBack(requirement) => vec![requirement],
            Departure::OneNumberType if model == NumberModel::Python => {
                let mut numbers = Numbers::default();
                if let Some(args) = args {
                    args.values().for_each(|v| numbers.visit(v));
                }
                let mut broken = Vec::new();
                if numbers.float_differs {
                    broken.push(DEDUP_NUMBER_FLOAT);
                }
                if numbers.int_differs {
                    broken.push(DEDUP_NUMBER_INT);
                }
                if numbers.infinite {
                    broken.push(DEDUP_NUMBER_OVERFLOW);
                }
                broken
            }
            Departure::OneNumberType | Departure::PythonNumbers | Departure::PythonFloats => {
                let canonical = KeyStyle::canonical(model);
                let departed = canonical.with(self);
                let mut broken = Vec::new();
                if let Some(args) = args {
                    args.values()
                        .for_each(|v| respelled(model, v, canonical, departed, &mut broken));
                }
                broken
            }
        }
    }

    pub(super) fn describe(self, model: NumberModel) -> String {
        match self {
            Departure::Frame(open, close) => format!(
                "the key is not name + \"(\" + args + \")\" but name + {} + args + {}",
                dumps_str(open),
                dumps_str(close)
            ),
            Departure::NameQuoted => "the name is written as a JSON string, quoted".into(),
            Departure::NameEscaped => "the name is escaped instead of inserted verbatim".into(),
            Departure::Separators(item, key) => format!(
                "the separators are {} and {}, not json.dumps's default \", \" and \": \"",
                dumps_str(item),
                dumps_str(key)
            ),
            Departure::KeysInInsertionOrder => {
                "the object keys are in the order given, not sorted by code point".into()
            }
            Departure::KeysSortedAtTopOnly => {
                "only the top-level keys are sorted, not the keys of nested objects".into()
            }
            Departure::ListsSorted => "lists were reordered; they must keep their order".into(),
            Departure::NotAscii => {
                "characters outside space..~ are written as themselves, not as \\uXXXX escapes"
                    .into()
            }
            Departure::UppercaseHex => "the \\u escapes use uppercase hex digits".into(),
            Departure::PythonLiterals => {
                "true, false and null are written as Python's True, False and None".into()
            }
            Departure::OneNumberType if model == NumberModel::Float64 => {
                "numbers are written as JSON.stringify writes them (Infinity and NaN as null), not as Number.prototype.toString does".into()
            }
            Departure::OneNumberType => {
                "numbers are written as a runtime with one number type writes them (1.0 as 1)"
                    .into()
            }
            Departure::PythonNumbers => {
                "numbers are written as Python writes them (1.0 stays 1.0), but the implementation declared float64, where 1 and 1.0 are one number, written as ECMAScript writes it (1)".into()
            }
            Departure::PythonFloats => {
                "numbers are written as Python writes a float (1 as 1.0, 1e16 as 1e+16), but the implementation declared float64, where a number is written as ECMAScript writes it (1, 10000000000000000)".into()
            }
            Departure::AbsentArgsNull => "a call without args is keyed with null, not {}".into(),
            Departure::ReadBack(DEDUP_KEY_ORDER) => {
                "read back, the key holds the call's args with keys in another order somewhere (not sorted by code point at every depth)".into()
            }
            Departure::ReadBack(DEDUP_NUMBER_INT | DEDUP_NUMBER_FLOAT)
                if model == NumberModel::Float64 =>
            {
                "read back, the key holds a number of the call's written otherwise than ECMAScript writes it (the implementation declared float64: 1.0 and 1 are both written 1)".into()
            }
            Departure::ReadBack(DEDUP_NUMBER_INT) => {
                "read back, the key holds an integer other than the call's: integers are written exactly, at any size".into()
            }
            Departure::ReadBack(_) => {
                "read back, the key holds a number other than the call's: a float is written as its repr".into()
            }
            Departure::AbsentArgsEmpty => {
                "a call without args is keyed with nothing between the parentheses, not {}".into()
            }
        }
    }
}

/// The number rules a spelling of numbers breaks in `value` under `model`: for each
/// number it writes otherwise than the canonical key does, the rule of its literal (a
/// float's, an integer's, or, for a number whose double is not finite under `float64`, the
/// overflow rule's).
fn respelled(
    model: NumberModel,
    value: &Value,
    canonical: KeyStyle,
    departed: KeyStyle,
    broken: &mut Vec<&'static str>,
) {
    let (double, literal_rule) = match value {
        Value::Int(i) => (i.to_f64(), DEDUP_NUMBER_INT),
        Value::Float(f) => (*f, DEDUP_NUMBER_FLOAT),
        Value::List(items) => {
            for item in items {
                respelled(model, item, canonical, departed, broken);
            }
            return;
        }
        Value::Object(object) => {
            for item in object.values() {
                respelled(model, item, canonical, departed, broken);
            }
            return;
        }
        Value::Null | Value::Bool(_) | Value::Str(_) => return,
    };
    if canonical.number(value) == departed.number(value) {
        return;
    }
    let rule = if model == NumberModel::Float64 && !double.is_finite() {
        DEDUP_NUMBER_OVERFLOW
    } else {
        literal_rule
    };
    if !broken.contains(&rule) {
        broken.push(rule);
    }
}

/// Which number kinds a value holds, and which a one-number-type spelling changes.
#[derive(Default)]
struct Numbers {
    float_differs: bool,
    int_differs: bool,
    infinite: bool,
}

impl Numbers {
    fn visit(&mut self, value: &Value) {
        match value {
            Value::Float(f) if !f.is_finite() => self.infinite |= f.is_infinite(),
            Value::Float(f) => self.float_differs |= python_repr(*f) != ecmascript_number(*f),
            Value::Int(i) => {
                let text = i.as_str();
                let as_double = text.parse::<f64>().map(ecmascript_number);
                self.int_differs |= as_double.is_ok_and(|d| d != text);
            }
            Value::List(items) => items.iter().for_each(|v| self.visit(v)),
            Value::Object(object) => object.values().for_each(|v| self.visit(v)),
            _ => {}
        }
    }
}

/// What a call's args contain, to know which departures can show and which rules apply.
#[derive(Default)]
pub(super) struct Features {
    pub unsorted_objects: bool,
    pub unsorted_nested: bool,
    pub objects_with_several_keys: bool,
    pub lists_to_reorder: bool,
    pub lists_with_several_items: bool,
    pub escapes: bool,
    pub non_ascii: bool,
    pub literals: bool,
    pub floats: bool,
    pub ints: bool,
    /// An infinity, or under `float64` any number whose double is not finite (NaN, an
    /// integer past the largest double): what DEDUP-NUMBER-OVERFLOW is about.
    pub infinite: bool,
    model: NumberModel,
}

impl Features {
    pub(super) fn of(model: NumberModel, args: Option<&Object>) -> Features {
        let mut features = Features {
            model,
            ..Features::default()
        };
        if let Some(args) = args {
            features.object(args, 0);
        }
        features
    }

    fn object(&mut self, object: &Object, depth: usize) {
        if object.len() > 1 {
            self.objects_with_several_keys = true;
        }
        if !object.keys().is_sorted() {
            self.unsorted_objects = true;
            if depth > 0 {
                self.unsorted_nested = true;
            }
        }
        for (key, value) in object {
            self.string(key);
            self.value(value, depth + 1);
        }
    }

    fn string(&mut self, text: &str) {
        for c in text.chars() {
            if !(' '..='~').contains(&c) || c == '"' || c == '\\' {
                self.escapes = true;
            }
            if c > '~' {
                self.non_ascii = true;
            }
        }
    }

    fn value(&mut self, value: &Value, depth: usize) {
        match value {
            Value::Null | Value::Bool(_) => self.literals = true,
            Value::Int(i) => {
                self.ints = true;
                self.infinite |= self.model == NumberModel::Float64 && !i.to_f64().is_finite();
            }
            Value::Float(f) => {
                self.floats = true;
                self.infinite |=
                    f.is_infinite() || (self.model == NumberModel::Float64 && f.is_nan());
            }
            Value::Str(s) => self.string(s),
            Value::List(items) => {
                if items.len() > 1 {
                    self.lists_with_several_items = true;
                    let texts: Vec<String> = items.iter().map(|v| v.to_string()).collect();
                    if !texts.is_sorted() {
                        self.lists_to_reorder = true;
                    }
                }
                items.iter().for_each(|v| self.value(v, depth + 1));
            }
            Value::Object(object) => self.object(object, depth),
        }
    }

    /// The rules of RULINGS B1/B2 a call with these args can show.
    pub(super) fn requirements(&self, args_absent: bool, name: &str) -> Vec<&'static str> {
        let mut applies = vec![DEDUP_KEY_FORMAT];
        let flags = [
            (self.objects_with_several_keys, DEDUP_KEY_ORDER),
            (self.lists_with_several_items, DEDUP_KEY_LIST_ORDER),
            (self.escapes, DEDUP_KEY_ASCII),
            (self.literals, DEDUP_KEY_LITERALS),
            (args_absent, DEDUP_KEY_ARGS_DEFAULT),
            (self.floats, DEDUP_NUMBER_FLOAT),
            (self.ints, DEDUP_NUMBER_INT),
            (self.infinite, DEDUP_NUMBER_OVERFLOW),
            (dumps_str(name).len() != name.len() + 2, DEDUP_NAME_VERBATIM),
        ];
        applies.extend(flags.iter().filter(|(on, _)| *on).map(|(_, id)| *id));
        applies
    }
}

/// How to write a key: the canonical way, with some departures.
#[derive(Clone, Copy, PartialEq)]
struct KeyStyle {
    frame: (&'static str, &'static str),
    name: NameStyle,
    item_separator: &'static str,
    key_separator: &'static str,
    order: Order,
    lists_sorted: bool,
    ascii: Ascii,
    python_literals: bool,
    numbers: NumberText,
    absent: &'static str,
}

/// How the numbers of a key are written.
#[derive(Clone, Copy, PartialEq)]
enum NumberText {
    /// Python's `json.dumps`: the canonical key under `python`.
    Python,
    /// ECMAScript's `Number.prototype.toString`: the canonical key under `float64`.
    Ecmascript,
    /// `JSON.stringify`: ECMAScript's, with the non-finite numbers as `null`.
    JsonStringify,
    /// Python's `repr` of the double, as if every number were a float (`1.0`, `1e+16`).
    PythonFloat,
}

#[derive(Clone, Copy, PartialEq)]
enum NameStyle {
    Verbatim,
    Quoted,
    Escaped,
}

#[derive(Clone, Copy, PartialEq)]
enum Order {
    Sorted,
    Insertion,
    TopOnly,
}

#[derive(Clone, Copy, PartialEq)]
enum Ascii {
    Escaped,
    Raw,
    UppercaseHex,
}

impl KeyStyle {
    /// The canonical key of a number model.
    fn canonical(model: NumberModel) -> KeyStyle {
        KeyStyle {
            frame: ("(", ")"),
            name: NameStyle::Verbatim,
            item_separator: ", ",
            key_separator: ": ",
            order: Order::Sorted,
            lists_sorted: false,
            ascii: Ascii::Escaped,
            python_literals: false,
            numbers: match model {
                NumberModel::Python => NumberText::Python,
                NumberModel::Float64 => NumberText::Ecmascript,
            },
            absent: "{}",
        }
    }

    fn with(mut self, departure: Departure) -> KeyStyle {
        match departure {
            Departure::Frame(open, close) => self.frame = (open, close),
            Departure::NameQuoted => self.name = NameStyle::Quoted,
            Departure::NameEscaped => self.name = NameStyle::Escaped,
            Departure::Separators(item, key) => {
                self.item_separator = item;
                self.key_separator = key;
            }
            Departure::KeysInInsertionOrder => self.order = Order::Insertion,
            Departure::KeysSortedAtTopOnly => self.order = Order::TopOnly,
            Departure::ListsSorted => self.lists_sorted = true,
            Departure::NotAscii => self.ascii = Ascii::Raw,
            Departure::UppercaseHex => self.ascii = Ascii::UppercaseHex,
            Departure::PythonLiterals => self.python_literals = true,
            Departure::OneNumberType => self.numbers = NumberText::JsonStringify,
            Departure::PythonNumbers => self.numbers = NumberText::Python,
            Departure::PythonFloats => self.numbers = NumberText::PythonFloat,
            Departure::AbsentArgsNull => self.absent = "null",
            Departure::AbsentArgsEmpty => self.absent = "",
            // Not a way of writing: found by reading a key back.
            Departure::ReadBack(_) => {}
        }
        self
    }

    /// Whether two styles write args alike: they may differ only in the name and the frame.
    fn writes_args_as(&self, other: &KeyStyle) -> bool {
        let reframed = KeyStyle {
            frame: other.frame,
            name: other.name,
            ..*self
        };
        reframed == *other
    }

    /// The args between the frame.
    fn args_text(&self, args: Option<&Object>) -> String {
        match args {
            None => self.absent.to_owned(),
            Some(args) => {
                let mut out = String::new();
                self.object(&mut out, args, 0);
                out
            }
        }
    }

    /// The key of a call named `name` whose args this style writes as `args_text`.
    fn key(&self, name: &str, args_text: &str) -> String {
        let mut out = String::with_capacity(name.len() + args_text.len() + 8);
        match self.name {
            NameStyle::Verbatim => out.push_str(name),
            NameStyle::Quoted => self.string_literal(&mut out, name),
            NameStyle::Escaped => {
                let start = out.len();
                self.string_literal(&mut out, name);
                out.pop();
                out.remove(start);
            }
        }
        out.push_str(self.frame.0);
        out.push_str(args_text);
        out.push_str(self.frame.1);
        out
    }

    fn object(&self, out: &mut String, object: &Object, depth: usize) {
        let mut entries: Vec<(&Key, &Value)> = object.iter().collect();
        let sort = match self.order {
            Order::Sorted => true,
            Order::Insertion => false,
            Order::TopOnly => depth == 0,
        };
        if sort {
            entries.sort_by(|a, b| a.0.cmp(b.0));
        }
        out.push('{');
        for (i, (key, value)) in entries.into_iter().enumerate() {
            if i > 0 {
                out.push_str(self.item_separator);
            }
            self.string_literal(out, key);
            out.push_str(self.key_separator);
            self.value(out, value, depth + 1);
        }
        out.push('}');
    }

    fn value(&self, out: &mut String, value: &Value, depth: usize) {
        match value {
            Value::Null => out.push_str(if self.python_literals { "None" } else { "null" }),
            Value::Bool(b) => out.push_str(match (self.python_literals, b) {
                (false, true) => "true",
                (false, false) => "false",
                (true, true) => "True",
                (true, false) => "False",
            }),
            Value::Int(_) | Value::Float(_) => out.push_str(&self.number(value)),
            Value::Str(s) => self.string_literal(out, s),
            Value::List(items) if !self.lists_sorted => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(self.item_separator);
                    }
                    self.value(out, item, depth + 1);
                }
                out.push(']');
            }
            Value::List(items) => {
                let mut texts: Vec<String> = items
                    .iter()
                    .map(|item| {
                        let mut text = String::new();
                        self.value(&mut text, item, depth + 1);
                        text
                    })
                    .collect();
                texts.sort();
                out.push('[');
                out.push_str(&texts.join(self.item_separator));
                out.push(']');
            }
            Value::Object(object) => self.object(out, object, depth),
        }
    }

    fn number(&self, value: &Value) -> String {
        let double = match value {
            Value::Int(i) => i.to_f64(),
            Value::Float(f) => *f,
            _ => unreachable!("number() is called with numbers only"),
        };
        match self.numbers {
            NumberText::Python => crate::json::dumps(value, crate::json::Style::PYTHON),
            NumberText::JsonStringify if !double.is_finite() => "null".into(),
            NumberText::PythonFloat => crate::json::json_float(double),
            NumberText::Ecmascript | NumberText::JsonStringify => ecmascript_number(double),
        }
    }

    fn string_literal(&self, out: &mut String, text: &str) {
        match self.ascii {
            Ascii::Escaped => crate::json::write_str(out, text),
            Ascii::UppercaseHex => out.push_str(&uppercase_escapes(&dumps_str(text))),
            Ascii::Raw => {
                out.push('"');
                // `ensure_ascii=False` escapes only what JSON requires.
                for c in text.chars() {
                    if c < ' ' || c == '"' || c == '\\' {
                        let escaped = dumps_str(&c.to_string());
                        out.push_str(&escaped[1..escaped.len() - 1]);
                    } else {
                        out.push(c);
                    }
                }
                out.push('"');
            }
        }
    }
}

fn uppercase_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at + 2]);
        let hex_end = (at + 6).min(rest.len());
        out.push_str(&rest[at + 2..hex_end].to_ascii_uppercase());
        rest = &rest[hex_end..];
    }
    out.push_str(rest);
    out
}

/// The departures worth trying for a call: only those that change its key.
fn candidates(model: NumberModel, call: &DedupCall, features: &Features) -> Vec<Departure> {
    let mut list = vec![
        Departure::Frame(":", ""),
        Departure::Frame("", ""),
        Departure::Frame(" ", ""),
        Departure::Frame("|", ""),
        Departure::Frame("[", "]"),
        Departure::NameQuoted,
        Departure::Separators(",", ":"),
        Departure::Separators(",", ": "),
        Departure::Separators(", ", ":"),
    ];
    if dumps_str(&call.name).len() != call.name.len() + 2 {
        list.push(Departure::NameEscaped);
    }
    if call.args.is_none() {
        list.extend([Departure::AbsentArgsNull, Departure::AbsentArgsEmpty]);
    }
    if features.unsorted_objects {
        list.push(Departure::KeysInInsertionOrder);
    }
    if features.unsorted_nested {
        list.push(Departure::KeysSortedAtTopOnly);
    }
    if features.lists_to_reorder {
        list.push(Departure::ListsSorted);
    }
    if features.non_ascii {
        list.push(Departure::NotAscii);
    }
    if features.escapes {
        list.push(Departure::UppercaseHex);
    }
    if features.literals {
        list.push(Departure::PythonLiterals);
    }
    match model {
        NumberModel::Python if features.floats || features.ints => {
            list.push(Departure::OneNumberType);
        }
        NumberModel::Float64 if features.floats || features.ints => {
            list.extend([Departure::PythonNumbers, Departure::PythonFloats]);
            if features.infinite {
                list.push(Departure::OneNumberType);
            }
        }

        _ => {}
    }
    list
}

/// Every key a call could have been given with at most two departures (the canonical key
/// of `model` with none first), each with the departures that produce it.
pub(super) fn plausible_keys(
    model: NumberModel,
    call: &DedupCall,
    features: &Features,
) -> Vec<(Vec<Departure>, String)> {
    let args = call.args.as_ref();
    let canonical = KeyStyle::canonical(model);
    let mut keys = vec![(Vec::new(), canonical_key_in(model, &call.name, args))];
    // Most departures change only the name or the frame around the args: the args are
    // written once per way of writing them, not once per key (a call has about a hundred
    // plausible keys and a few dozen ways of writing its args).
    let mut args_texts: Vec<(KeyStyle, String)> = Vec::new();
    let mut key = |style: KeyStyle| {
        let written = match args_texts
            .iter()
            .position(|(s, _)| s.writes_args_as(&style))
        {
            Some(index) => index,
            None => {
                args_texts.push((style, style.args_text(args)));
                args_texts.len() - 1
            }
        };
        style.key(&call.name, &args_texts[written].1)
    };
    let departures = candidates(model, call, features);
    for first in &departures {
        keys.push((vec![*first], key(canonical.with(*first))));
    }
    for (i, first) in departures.iter().enumerate() {
        let one = canonical.with(*first);
        for second in &departures[i + 1..] {
            if !same_kind(*first, *second) {
                keys.push((vec![*first, *second], key(one.with(*second))));
            }
        }
    }
    keys
}

/// The key each call was given, read as one keying function for the whole batch: the set
/// of departures that explains the most calls and entries wins (an implementation keys
/// every call the same way), and a call it does not explain takes its own best match.
pub(super) fn keys_given(
    plausible: &[&[(Vec<Departure>, String)]],
    entries: &std::collections::HashSet<&str>,
) -> Vec<Option<(String, Vec<Departure>)>> {
    let mut styles: Vec<Vec<Departure>> = vec![Vec::new()];
    for options in plausible {
        for (departures, key) in options.iter() {
            if entries.contains(key.as_str()) && !styles.contains(departures) {
                styles.push(departures.clone());
            }
        }
    }
    // A style names departures; a call it does not concern keeps the canonical spelling
    // there, so its key under the style is the one with the departures that apply to it.
    let under = |options: &[(Vec<Departure>, String)],
                 style: &[Departure]|
     -> Option<(String, Vec<Departure>)> {
        let relevant: Vec<Departure> = style
            .iter()
            .copied()
            .filter(|d| options.iter().any(|(ds, _)| ds.len() == 1 && ds[0] == *d))
            .collect();
        options
            .iter()
            .find(|(ds, _)| ds.len() == relevant.len() && relevant.iter().all(|d| ds.contains(d)))
            .map(|(ds, key)| (key.clone(), ds.clone()))
    };
    let mut best: Option<(usize, usize, usize, &Vec<Departure>)> = None;
    for style in &styles {
        let keys: Vec<Option<(String, Vec<Departure>)>> = plausible
            .iter()
            .map(|options| under(options, style).filter(|(k, _)| entries.contains(k.as_str())))
            .collect();
        let calls = keys.iter().flatten().count();
        let covered: std::collections::HashSet<&str> =
            keys.iter().flatten().map(|(k, _)| k.as_str()).collect();
        let score = (calls, covered.len(), usize::MAX - style.len(), style);
        if best
            .as_ref()
            .is_none_or(|b| (score.0, score.1, score.2) > (b.0, b.1, b.2))
        {
            best = Some(score);
        }
    }
    let style = best.map(|b| b.3.clone()).unwrap_or_default();
    plausible
        .iter()
        .map(|options| {
            under(options, &style)
                .filter(|(k, _)| entries.contains(k.as_str()))
                .or_else(|| {
                    options
                        .iter()
                        .filter(|(_, k)| entries.contains(k.as_str()))
                        .min_by_key(|(ds, _)| ds.len())
                        .map(|(ds, k)| (k.clone(), ds.clone()))
                })
        })
        .collect()
}

/// Reads an entry's key back as `name(args)` and compares its args with the call's as
/// written: when they differ only in numbers (as `model` writes them), or hold the same
/// values with keys in another order somewhere, the key is this call's, written against
/// that rule. `None` otherwise.
pub(super) fn read_back(model: NumberModel, call: &DedupCall, key: &str) -> Option<Departure> {
    use crate::json::{dumps, Style};
    let args_text = key
        .strip_prefix(call.name.as_str())?
        .strip_prefix('(')?
        .strip_suffix(')')?;
    let written = crate::json::parse(args_text).ok()?;
    let empty = Object::new();
    let args = Value::from(call.args.clone().unwrap_or(empty));
    if written == as_key_reads(model, &args) {
        // Same values: the text departs in how it orders keys, if it is canonical
        // otherwise (the enumerated departures cover the rest).
        let canonical = dumps(&written, Style::canonical(model));
        let as_read = dumps(
            &written,
            Style {
                numbers: model,
                ..Style::PYTHON
            },
        );
        return (as_read == args_text && canonical != args_text)
            .then_some(Departure::ReadBack(DEDUP_KEY_ORDER));
    }
    let mut kinds = Vec::new();
    numbers_apart(model, &args, &written, &mut kinds).then_some(())?;
    if kinds.contains(&DEDUP_NUMBER_INT) {
        Some(Departure::ReadBack(DEDUP_NUMBER_INT))
    } else {
        kinds.first().map(|k| Departure::ReadBack(k))
    }
}

/// Whether a number written in a key is plausibly the call's own, rounded or respelled:
/// the same sign and size and the same leading digits.
fn near(call: &Value, written: &Value) -> bool {
    let digits = |v: &Value| -> Option<(bool, String, i64)> {
        // (negative, leading significant digits, decimal exponent)
        let text = match v {
            Value::Int(i) => i.as_str().to_owned(),
            Value::Float(f) if f.is_finite() => format!("{f:e}"),
            _ => return None,
        };
        let negative = text.starts_with('-');
        let body = text.trim_start_matches('-');
        let (mantissa, exponent) = match body.split_once('e') {
            Some((m, e)) => (m.replace('.', ""), e.parse::<i64>().ok()?),
            None => (body.to_owned(), body.len() as i64 - 1),
        };
        // Padded with zeros, so `2` is `200000` and never matches `1` (`100000`).
        let significant: String = mantissa
            .trim_start_matches('0')
            .chars()
            .chain(std::iter::repeat('0'))
            .take(6)
            .collect();
        Some((negative, significant, exponent))
    };
    match (digits(call), digits(written)) {
        // A rounding may drop or carry one digit.
        (Some(a), Some(b)) => a.0 == b.0 && a.1 == b.1 && (a.2 - b.2).abs() <= 1,
        // An integer too long for a double, written as one: infinite, same sign.
        (Some((negative, _, exponent)), None) => {
            exponent > 308
                && matches!(written, Value::Float(f) if f.is_infinite() && (*f < 0.0) == negative)
        }
        _ => false,
    }
}

/// `value` as the canonical key of `model` writes it, read back as Python reads JSON: under
/// `python` the value itself; under `float64`, `1.0` reads back as `1`, `2^60` as
/// `1152921504606847000`, `1e-7` as the float.
fn as_key_reads(model: NumberModel, value: &Value) -> Value {
    match (model, value) {
        (NumberModel::Python, _) => value.clone(),
        (_, Value::Int(_) | Value::Float(_)) => {
            let text = crate::json::dumps(value, crate::json::Style::canonical(model));
            crate::json::parse(&text).expect("ECMAScript numbers are JSON in Python's dialect")
        }
        (_, Value::List(items)) => {
            Value::List(items.iter().map(|v| as_key_reads(model, v)).collect())
        }
        (_, Value::Object(object)) => Value::from(
            object
                .iter()
                .map(|(k, v)| (k.clone(), as_key_reads(model, v)))
                .collect::<Object>(),
        ),
        _ => value.clone(),
    }
}

/// Whether two values differ only in numbers (same shape, same keys, same strings),
/// collecting which number rule each difference from how `model` writes the call's number
/// is about: the rule of the call's literal.
fn numbers_apart(
    model: NumberModel,
    call: &Value,
    written: &Value,
    kinds: &mut Vec<&'static str>,
) -> bool {
    match (call, written) {
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            if as_key_reads(model, call) != *written {
                kinds.push(match call {
                    Value::Int(_) => DEDUP_NUMBER_INT,
                    _ => DEDUP_NUMBER_FLOAT,
                });
            }
            near(call, written)
        }
        (Value::List(a), Value::List(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| numbers_apart(model, x, y, kinds))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && {
                let b = b.lookup();
                a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| numbers_apart(model, x, y, kinds)))
            }
        }
        _ => call == written,
    }
}

/// Two departures of the same setting cannot combine.
fn same_kind(a: Departure, b: Departure) -> bool {
    use Departure::*;
    let kind = |d| match d {
        Frame(..) => 0,
        NameQuoted | NameEscaped => 1,
        Separators(..) => 2,
        KeysInInsertionOrder | KeysSortedAtTopOnly => 3,
        ListsSorted => 4,
        NotAscii | UppercaseHex => 5,
        PythonLiterals => 6,
        OneNumberType | PythonNumbers | PythonFloats => 7,
        AbsentArgsNull | AbsentArgsEmpty => 8,
        ReadBack(_) => 9,
    };
    kind(a) == kind(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn call(name: &str, args: &str) -> DedupCall {
        DedupCall {
            name: name.into(),
            args: parse(args).unwrap().as_object().cloned(),
        }
    }

    fn explain(call: &DedupCall, key: &str) -> Option<Vec<Departure>> {
        let plausible = plausible_keys(
            NumberModel::Python,
            call,
            &Features::of(NumberModel::Python, call.args.as_ref()),
        );
        let entries = std::collections::HashSet::from([key]);
        keys_given(&[plausible.as_slice()], &entries)[0]
            .clone()
            .map(|(_, d)| d)
    }

    #[test]
    fn one_keying_function_explains_the_batch() {
        let calls = [
            call("f", r#"{"a": 1, "b": 2}"#),
            call("f", r#"{"b": 2, "a": 1}"#),
        ];
        let plausible: Vec<_> = calls
            .iter()
            .map(|c| {
                plausible_keys(
                    NumberModel::Python,
                    c,
                    &Features::of(NumberModel::Python, c.args.as_ref()),
                )
            })
            .collect();
        let entries =
            std::collections::HashSet::from([r#"f({"a": 1, "b": 2})"#, r#"f({"b": 2, "a": 1})"#]);
        let plausible: Vec<&[_]> = plausible.iter().map(Vec::as_slice).collect();
        let given = keys_given(&plausible, &entries);
        assert_eq!(given[0].as_ref().unwrap().0, r#"f({"a": 1, "b": 2})"#);
        assert_eq!(given[1].as_ref().unwrap().0, r#"f({"b": 2, "a": 1})"#);
        assert_eq!(
            given[1].as_ref().unwrap().1,
            vec![Departure::KeysInInsertionOrder]
        );
    }

    #[test]
    fn departures_are_found_and_named() {
        let c = call("f", r#"{"b": 1.0, "a": "é"}"#);
        assert_eq!(explain(&c, r#"f({"a": "\u00e9", "b": 1.0})"#), Some(vec![]));
        assert_eq!(
            explain(&c, r#"f({"b": 1.0, "a": "\u00e9"})"#),
            Some(vec![Departure::KeysInInsertionOrder])
        );
        assert_eq!(
            explain(&c, r#"f({"a":"\u00e9","b":1.0})"#),
            Some(vec![Departure::Separators(",", ":")])
        );
        assert_eq!(
            explain(&c, r#"f({"a": "é", "b": 1})"#),
            Some(vec![Departure::NotAscii, Departure::OneNumberType])
        );
        assert_eq!(explain(&c, "nothing like it"), None);
        assert_eq!(
            Departure::OneNumberType.requirements(NumberModel::Python, c.args.as_ref()),
            vec![DEDUP_NUMBER_FLOAT]
        );
    }

    #[test]
    fn absent_args_and_names() {
        let c = DedupCall {
            name: "a\"b".into(),
            args: None,
        };
        assert_eq!(explain(&c, "a\"b({})"), Some(vec![]));
        assert_eq!(
            explain(&c, "a\"b(null)"),
            Some(vec![Departure::AbsentArgsNull])
        );
        assert_eq!(
            explain(&c, "a\\\"b({})"),
            Some(vec![Departure::NameEscaped])
        );
    }

    #[test]
    fn a_key_holding_other_short_numbers_is_not_read_as_the_calls() {
        // 2 is not 1.0 respelled: numbers of few digits are near only when their digits are.
        let c = call("f", r#"{"xs": [2, 1]}"#);
        for model in [NumberModel::Python, NumberModel::Float64] {
            assert_eq!(read_back(model, &c, r#"f({"xs": [1.0, 2.0]})"#), None);
            assert_eq!(read_back(model, &c, r#"f({"xs": [3, 1]})"#), None);
        }
        assert_eq!(
            read_back(NumberModel::Python, &c, r#"f({"xs": [2.0, 1.0]})"#),
            Some(Departure::ReadBack(DEDUP_NUMBER_INT))
        );
        // 0.30000000000000004 written with fewer digits is still the call's.
        let c = call("f", r#"{"a": 0.30000000000000004}"#);
        assert_eq!(
            read_back(NumberModel::Python, &c, r#"f({"a": 0.3})"#),
            Some(Departure::ReadBack(DEDUP_NUMBER_FLOAT))
        );
    }
}
