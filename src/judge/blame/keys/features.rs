//! What a call's args hold that a way of writing keys could change: which rules its key
//! can break at all.

use super::super::ids::*;
use crate::json::{dumps_str, ecmascript_number, python_repr, NumberModel, Object, Value};

/// Which number kinds a value holds, and which a one-number-type spelling changes.
#[derive(Default)]
pub(super) struct Numbers {
    pub(super) float_differs: bool,
    pub(super) int_differs: bool,
    pub(super) infinite: bool,
}

impl Numbers {
    pub(super) fn visit(&mut self, value: &Value) {
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
pub(in crate::judge::blame) struct Features {
    pub unsorted_objects: bool,
    pub unsorted_nested: bool,
    /// Some object's keys sort otherwise by UTF-16 unit than by code point.
    pub utf16_order_differs: bool,
    /// Some object's keys come otherwise in a JavaScript object's order (integer-like keys
    /// first) than in the order given.
    pub object_order_differs: bool,
    pub objects_with_several_keys: bool,
    pub lists_to_reorder: bool,
    pub lists_with_several_items: bool,
    pub escapes: bool,
    pub non_ascii: bool,
    pub literals: bool,
    pub floats: bool,
    /// A finite float with no fraction: what writing such floats as integers changes.
    pub integral_floats: bool,
    /// One below 2^53 in magnitude, what the safe-integer variant of that changes.
    pub safe_integral_floats: bool,
    pub ints: bool,
    /// An infinity, or under `float64` any number whose double is not finite (NaN, an
    /// integer past the largest double): what DEDUP-NUMBER-OVERFLOW is about.
    pub infinite: bool,
    model: NumberModel,
}

impl Features {
    pub(in crate::judge::blame) fn of(model: NumberModel, args: Option<&Object>) -> Features {
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
        let mut keys: Vec<&str> = object.keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        if !keys.is_sorted_by(|a, b| a.encode_utf16().le(b.encode_utf16())) {
            self.utf16_order_differs = true;
        }
        let in_object_order = {
            let mut given: Vec<&str> = object.keys().map(|k| k.as_str()).collect();
            given.sort_by_key(|key| super::style::array_index(key).unwrap_or(u32::MAX));
            given
        };
        if !in_object_order
            .iter()
            .copied()
            .eq(object.keys().map(|k| k.as_str()))
        {
            self.object_order_differs = true;
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
                if f.is_finite() && f.fract() == 0.0 {
                    self.integral_floats = true;
                    self.safe_integral_floats |= f.abs() < super::style::SAFE_INTEGER_BOUND;
                }
                self.infinite |=
                    f.is_infinite() || (self.model == NumberModel::Float64 && f.is_nan());
            }
            Value::Str(s) => self.string(s),
            Value::List(items) => {
                if items.len() > 1 {
                    self.lists_with_several_items = true;
                    // As the key writes them (keys sorted): the order a sort of the items'
                    // texts would give.
                    let texts: Vec<String> = items
                        .iter()
                        .map(|v| crate::json::dumps(v, crate::json::Style::CANONICAL))
                        .collect();
                    if !texts.is_sorted() {
                        self.lists_to_reorder = true;
                    }
                }
                items.iter().for_each(|v| self.value(v, depth + 1));
            }
            Value::Object(object) => self.object(object, depth),
        }
    }

    /// The rules of RULES B1/B2 a call with these args can show.
    pub(in crate::judge::blame) fn requirements(
        &self,
        args_absent: bool,
        name: &str,
    ) -> Vec<&'static str> {
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
