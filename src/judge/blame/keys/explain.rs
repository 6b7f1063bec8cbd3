//! Explains the keys of a batch: each call's plausible keys, written with up to two
//! departures or as a known serialiser writes them, and the one way of writing that
//! explains the most entries.

use super::{Departure, Features, KeyStyle};
use crate::json::{dumps_str, NumberModel};
use crate::reference::{canonical_key_in, DedupCall};

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
    if features.object_order_differs {
        list.push(Departure::KeysInObjectOrder);
    }
    if features.unsorted_nested {
        list.push(Departure::KeysSortedAtTopOnly);
    }
    if features.utf16_order_differs {
        list.push(Departure::KeysSortedByUtf16);
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
            // Only where they change the key: a float with no fraction, and for the safe
            // variant one below 2^53 (above, it writes what the canonical key writes).
            if features.integral_floats {
                list.push(Departure::FloatsAsIntegers);
            }
            if features.safe_integral_floats {
                list.push(Departure::SafeFloatsAsIntegers);
            }
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

/// Every key a call could have been given with at most two departures or as a known
/// serialiser writes it (the canonical key of `model` with none first), each with the
/// departures that produce it.
pub(in crate::judge::blame) fn plausible_keys(
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
    // A library's serialiser departs in more ways at once: its departures that change this
    // call's key, all together.
    for bundle in KEY_FUNCTIONS {
        let mut applied: Vec<Departure> = Vec::new();
        for departure in bundle.iter().copied() {
            // The first of a kind that changes this call's key (one order, one number text).
            if departures.contains(&departure) && !applied.iter().any(|a| same_kind(*a, departure))
            {
                applied.push(departure);
            }
        }
        if applied.len() > 2 {
            let style = applied.iter().fold(canonical, |style, d| style.with(*d));
            keys.push((applied, key(style)));
        }
    }
    keys
}

/// Serialisers people key with, as departures from the canonical key: each is tried whole,
/// beyond the pairs of departures tried for every call.
const KEY_FUNCTIONS: [&[Departure]; 1] = [
    // JavaScript's `JSON.stringify(args)`: members in the object's order, no spaces,
    // non-ASCII raw, the non-finite numbers as `null`. Without integer-like keys a
    // JavaScript object's order is the order given.
    &[
        Departure::KeysInObjectOrder,
        Departure::KeysInInsertionOrder,
        Departure::Separators(",", ":"),
        Departure::NotAscii,
        Departure::OneNumberType,
    ],
];

/// The key each call was given, read as one keying function for the whole batch: the set
/// of departures that explains the most calls and entries wins (an implementation keys
/// every call the same way), and a call it does not explain takes its own best match.
pub(in crate::judge::blame) fn keys_given(
    plausible: &[&[(Vec<Departure>, String)]],
    entries: &std::collections::HashSet<&str>,
) -> Vec<Option<(String, Vec<Departure>)>> {
    // A known serialiser is one style however its departures fall on each call.
    let mut styles: Vec<Vec<Departure>> = vec![Vec::new()];
    styles.extend(KEY_FUNCTIONS.iter().map(|bundle| bundle.to_vec()));
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
        let mut relevant: Vec<Departure> = Vec::new();
        for departure in style.iter().copied() {
            // The first of a kind that applies to the call (a serialiser's object order
            // where it has integer-like keys, the order given elsewhere).
            let applies = options
                .iter()
                .any(|(ds, _)| ds.len() == 1 && ds[0] == departure);
            if applies && !relevant.iter().any(|r| same_kind(*r, departure)) {
                relevant.push(departure);
            }
        }
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

/// Two departures of the same setting cannot combine.
fn same_kind(a: Departure, b: Departure) -> bool {
    a.setting() == b.setting()
}
