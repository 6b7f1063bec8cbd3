//! An object as `json.loads` builds one: members in insertion order, a repeated key keeping
//! its first position and its last value. Stored as one vector of members and nothing else.
//! An `IndexMap` behind a `Box` was three heap blocks per object (the box, the members, the
//! hash index); writing a key walks every object of the args, and each block was a cache
//! miss of its own (BENCHMARKS.md section 1). The args a tool call carries have a handful
//! of members, where a scan of the keys is as fast as a hash; what can be large (a hostile
//! object of a million members) is built and compared through paths that hash instead.

use super::text::Key;
use super::value::Value;
use std::collections::HashMap;

mod traits;

/// Up to this many members, repeated keys and equal objects are found by comparing keys
/// pairwise; beyond it, by hashing or sorting, so a huge object costs `n log n`, not `n²`.
const SCANNED_UP_TO: usize = 16;

#[derive(Clone, Default)]
pub struct Object {
    members: Vec<(Key, Value)>,
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    pub fn with_capacity(members: usize) -> Object {
        Object {
            members: Vec::with_capacity(members),
        }
    }

    /// The object of `members` in their order, a repeated key keeping its first position and
    /// its last value, as a Python dict built from them does. Linear in the members' number.
    pub fn from_members(members: Vec<(Key, Value)>) -> Object {
        let Some(targets) = positions_with_repeats(&members) else {
            return Object { members };
        };
        let mut kept: Vec<(Key, Value)> = Vec::with_capacity(members.len());
        for ((key, value), target) in members.into_iter().zip(targets) {
            match kept.get_mut(target) {
                Some(member) => member.1 = value,
                None => kept.push((key, value)),
            }
        }
        Object { members: kept }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members in insertion order.
    pub fn members(&self) -> &[(Key, Value)] {
        &self.members
    }

    /// The position of `key` among the members (a scan: see the module's comment).
    pub fn position(&self, key: &str) -> Option<usize> {
        self.members.iter().position(|(k, _)| k.as_str() == key)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|at| &self.members[at].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.position(key).map(|at| &mut self.members[at].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The members found by key without a scan each time: for looking up many keys of one
    /// object (matching it against another, say), which scans would make quadratic in a
    /// hostile object's size.
    pub fn lookup(&self) -> Lookup<'_> {
        let index = (self.len() > SCANNED_UP_TO).then(|| {
            let mut index = HashMap::with_capacity(self.len());
            for (at, (key, _)) in self.members.iter().enumerate() {
                index.insert(key.as_str(), at);
            }
            index
        });
        Lookup {
            object: self,
            index,
        }
    }

    pub fn get_index(&self, index: usize) -> Option<(&Key, &Value)> {
        self.members.get(index).map(|(k, v)| (k, v))
    }

    /// Sets `key` to `value`: in place if the key is there (returning the old value), else
    /// as a new last member. A scan of the keys; build a large object with
    /// [`Object::from_members`] or `collect`.
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(at) => Some(std::mem::replace(&mut self.members[at].1, value)),
            None => {
                self.members.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, keeping the others in order.
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        self.position(key).map(|at| self.members.remove(at).1)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Key, &Value)> + ExactSizeIterator {
        self.members.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&Key, &mut Value)> + ExactSizeIterator {
        self.members.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Key> + ExactSizeIterator {
        self.members.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.members.iter().map(|(_, v)| v)
    }

    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.members.iter_mut().map(|(_, v)| v)
    }
}

/// An object's members by key: scanned when few, hashed when many (see [`Object::lookup`]).
pub struct Lookup<'a> {
    object: &'a Object,
    index: Option<HashMap<&'a str, usize>>,
}

impl<'a> Lookup<'a> {
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        let at = match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.object.position(key),
        };
        at.map(|at| &self.object.members[at].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// For each member, the position its key takes in the object (its first occurrence's);
/// `None` when no key repeats, the common case, which allocates nothing when small.
fn positions_with_repeats(members: &[(Key, Value)]) -> Option<Vec<usize>> {
    if members.len() <= SCANNED_UP_TO {
        let repeats = members
            .iter()
            .enumerate()
            .any(|(i, (key, _))| members[..i].iter().any(|(k, _)| k == key));
        if !repeats {
            return None;
        }
    }
    // A hash of the keys (std's, keyed at random: hostile keys cannot be made to collide).
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(members.len());
    let targets: Vec<usize> = members
        .iter()
        .map(|(key, _)| {
            let next = first.len();
            *first.entry(key.as_str()).or_insert(next)
        })
        .collect();
    (first.len() < members.len()).then_some(targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn object(members: &[(&str, i64)]) -> Object {
        members
            .iter()
            .map(|&(k, v)| (Key::from(k), Value::from(v)))
            .collect()
    }

    /// What a Python dict does with the same members: the oracle for every size.
    fn dict_of(members: &[(String, i64)]) -> Vec<(String, i64)> {
        let mut dict: Vec<(String, i64)> = Vec::new();
        for (key, value) in members {
            match dict.iter_mut().find(|(k, _)| k == key) {
                Some(member) => member.1 = *value,
                None => dict.push((key.clone(), *value)),
            }
        }
        dict
    }

    fn as_pairs(object: &Object) -> Vec<(String, i64)> {
        object
            .iter()
            .map(|(k, v)| {
                let Value::Int(int) = v else { panic!("{v:?}") };
                (k.to_string(), int.as_i64().unwrap())
            })
            .collect()
    }

    #[test]
    fn a_repeated_key_keeps_its_first_position_and_its_last_value() {
        let o = object(&[("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]);
        assert_eq!(
            as_pairs(&o),
            dict_of(&[
                ("b".into(), 1),
                ("a".into(), 2),
                ("b".into(), 3),
                ("c".into(), 4),
                ("a".into(), 5)
            ])
        );
        assert_eq!(
            format!("{o:?}"),
            r#"{"b": Int(Int("3")), "a": Int(Int("5")), "c": Int(Int("4"))}"#
        );
    }

    #[test]
    fn insert_replaces_in_place_and_appends_new_keys() {
        let mut o = object(&[("a", 1), ("b", 2)]);
        assert_eq!(o.insert("a".into(), 9.into()), Some(1.into()));
        assert_eq!(o.insert("c".into(), 3.into()), None);
        assert_eq!(
            as_pairs(&o),
            [("a".into(), 9), ("b".into(), 2), ("c".into(), 3)]
        );
        assert_eq!(o.shift_remove("a"), Some(9.into()));
        assert_eq!(o.shift_remove("a"), None);
        assert_eq!(as_pairs(&o), [("b".into(), 2), ("c".into(), 3)]);
        assert_eq!(o["c"], Value::from(3));
        assert_eq!(o[0], Value::from(2));
        assert!(o.contains_key("b") && !o.contains_key("a"));
    }

    /// A hostile object of many members, every key repeated, is built and compared in time
    /// linear or `n log n` in its size: pairwise work on 200,000 members would not finish.
    #[test]
    fn huge_objects_with_repeats_are_built_and_compared_by_hashing_and_sorting() {
        let n = 200_000;
        let members = |reverse: bool| {
            let mut keys: Vec<usize> = (0..n).collect();
            if reverse {
                keys.reverse();
            }
            keys.into_iter()
                .chain(0..n)
                .map(|k| (Key::from(format!("k{k}")), Value::from(k as i64)))
                .collect::<Object>()
        };
        let (forward, backward) = (members(false), members(true));
        assert_eq!(forward.len(), n);
        assert_eq!(forward.get_index(0).unwrap().0.as_str(), "k0");
        assert_eq!(
            backward.get_index(0).unwrap().0.as_str(),
            format!("k{}", n - 1)
        );
        assert_eq!(forward, backward);
        let mut changed = backward.clone();
        *changed.get_mut("k7").unwrap() = Value::from(-1);
        assert_ne!(forward, changed);
    }

    proptest! {
        /// Both sides of the size threshold, against a dict: order, repeats and equality.
        #[test]
        fn objects_behave_as_python_dicts(
            members in prop::collection::vec(("[a-e]{1,2}", 0i64..5), 0..40),
            other in prop::collection::vec(("[a-e]{1,2}", 0i64..5), 0..40),
        ) {
            let build = |m: &[(String, i64)]| {
                m.iter().map(|(k, v)| (Key::from(k.as_str()), Value::from(*v))).collect::<Object>()
            };
            let (a, b) = (build(&members), build(&other));
            prop_assert_eq!(as_pairs(&a), dict_of(&members));
            let lookup = a.lookup();
            for (key, value) in dict_of(&members) {
                prop_assert_eq!(lookup.get(&key), Some(&Value::from(value)));
            }
            prop_assert!(!lookup.contains_key("f") && !lookup.contains_key(""));
            let mut by_insert = Object::new();
            for (k, v) in &members {
                by_insert.insert(Key::from(k.as_str()), Value::from(*v));
            }
            prop_assert_eq!(as_pairs(&by_insert), dict_of(&members));
            let mut sorted_a = dict_of(&members);
            let mut sorted_b = dict_of(&other);
            sorted_a.sort();
            sorted_b.sort();
            prop_assert_eq!(a == b, sorted_a == sorted_b);
            let mut shuffled = dict_of(&members);
            shuffled.reverse();
            prop_assert_eq!(&build(&shuffled), &a);
            prop_assert_eq!(&a.clone(), &a);
            // One value changed, at each position in turn, in the same order and reversed.
            for at in 0..shuffled.len() {
                let mut changed = shuffled.clone();
                changed[at].1 += 10;
                prop_assert_ne!(&build(&changed), &a);
                changed.reverse();
                prop_assert_ne!(&build(&changed), &a);
            }
        }
    }
}
