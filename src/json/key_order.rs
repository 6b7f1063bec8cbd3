//! Python's order of an object's keys (`sort_keys=True`), found cheaply: keys compared by an
//! integer prefix first, and the order of a wide object reused for the next object with the
//! same keys in the same order (tool calls in one batch share their shape), checked before
//! it is trusted.

use super::value::Object;

/// Objects with fewer members are sorted every time: their sort costs less than a look-up.
const CACHED_FROM: usize = 16;
/// Objects with more members are sorted every time, which bounds the cache's memory.
const CACHED_UP_TO: usize = 1024;
/// Stack entries kept between calls (16 bytes each).
const STACK_KEPT: usize = 1 << 16;
/// Orders the cache holds: at most `SLOTS * CACHED_UP_TO` indices of 2 bytes (512 KiB).
const SLOTS: usize = 256;
/// Orders per set: a shape may sit in any slot of its set. With one slot per shape (a
/// direct-mapped cache), shapes evicted each other, and sets of two still sorted many wide
/// objects again; sets of four sort few (BENCHMARKS.md section 1).
const WAYS: usize = 4;

/// The sort orders of the objects being written, one slice per object (an object's members
/// are written in the order of its slice while its children push theirs above it), and the
/// orders of wide objects seen before.
#[derive(Default)]
pub(super) struct KeyOrder {
    /// [`key_prefix`] and index of each member of the objects being written.
    stack: Vec<(u64, usize)>,
    /// Sets of [`WAYS`] slots, the most recently stored first; a shape's set is chosen by
    /// its hash. Empty until a wide object needs a sort.
    cache: Vec<Option<Cached>>,
    /// A cached order applied to the members, checked before it replaces them.
    reordered: Vec<(u64, usize)>,
}

/// The sorted order of a shape: the shape's hash, and the member indices in key order.
struct Cached {
    shape: u64,
    order: Box<[u16]>,
}

impl KeyOrder {
    /// Pushes the member indices of `object` in Python's key order; returns where they start.
    pub(super) fn push(&mut self, object: &Object) -> usize {
        let start = self.stack.len();
        // A loop rather than `extend` of an iterator whose length the standard library
        // cannot trust, which grew the stack one checked element at a time.
        self.stack.reserve(object.len());
        for (index, key) in object.keys().enumerate() {
            self.stack.push((key_prefix(key), index));
        }
        // Objects in insertion order that are already sorted (most canonical inputs) skip
        // the sort.
        if is_sorted(&self.stack[start..], object) {
            return start;
        }
        let members = object.len();
        let shape = (CACHED_FROM..=CACHED_UP_TO)
            .contains(&members)
            .then(|| shape(&self.stack[start..]));
        if let Some(shape) = shape {
            if self.reuse(start, shape, object) {
                return start;
            }
        }
        self.stack[start..].sort_unstable_by(|a, b| by_key(a, b, object));
        if let Some(shape) = shape {
            self.remember(start, shape);
        }
        start
    }

    /// The index of the member at `position` of the stack.
    pub(super) fn index(&self, position: usize) -> usize {
        self.stack[position].1
    }

    /// Pops the object pushed at `start`.
    pub(super) fn pop(&mut self, start: usize) {
        self.stack.truncate(start);
    }

    /// Frees the stack if an object with a very large number of members grew it, rather
    /// than keep it for the next call.
    pub(super) fn trim(&mut self) {
        if self.stack.capacity() > STACK_KEPT {
            self.stack = Vec::new();
        }
    }

    /// Orders the members pushed at `start` as the cached order of their shape, if that
    /// order sorts them. A cached order is only a guess (two shapes can share a hash, and
    /// the hash reads only prefixes): it is taken only when the keys come out in order,
    /// which, keys being distinct, only their sorted order does.
    fn reuse(&mut self, start: usize, shape: u64, object: &Object) -> bool {
        let Some(set) = self.cache.get(set_of(shape)) else {
            return false;
        };
        let Some(cached) = set
            .iter()
            .flatten()
            .find(|cached| cached.shape == shape && cached.order.len() == object.len())
        else {
            return false;
        };
        // Reordered into a buffer of its own: an `extend` from a slice, with no check of
        // the capacity per member as pushing onto the stack itself had.
        let members = &self.stack[start..];
        self.reordered.clear();
        self.reordered.extend(
            cached
                .order
                .iter()
                .map(|&index| members[usize::from(index)]),
        );
        let sorted = is_sorted(&self.reordered, object);
        if sorted {
            self.stack[start..].copy_from_slice(&self.reordered);
        }
        sorted
    }

    /// Caches the order of the members pushed at `start`, now sorted, in the first slot of
    /// its shape's set; the set's least recently stored order is dropped.
    fn remember(&mut self, start: usize, shape: u64) {
        if self.cache.is_empty() {
            self.cache.resize_with(SLOTS, || None);
        }
        let order = self.stack[start..]
            .iter()
            .map(|&(_, index)| u16::try_from(index).expect("at most CACHED_UP_TO members"))
            .collect();
        let set = &mut self.cache[set_of(shape)];
        set.rotate_right(1);
        set[0] = Some(Cached { shape, order });
    }
}

/// The slots of a shape's set in the cache.
fn set_of(shape: u64) -> std::ops::Range<usize> {
    // The high bits: the multiplication in `mix` leaves the low ones weakest.
    let set = (shape >> 56) as usize % (SLOTS / WAYS);
    set * WAYS..(set + 1) * WAYS
}

/// A hash of a shape: the prefixes of its keys in insertion order.
fn shape(members: &[(u64, usize)]) -> u64 {
    members
        .iter()
        .fold(0, |hash: u64, &(prefix, _)| mix(hash, prefix))
}

/// One step of a multiplicative hash (FxHash's).
fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// Whether the members are in key order.
fn is_sorted(members: &[(u64, usize)], object: &Object) -> bool {
    members.is_sorted_by(|a, b| by_key(a, b, object).is_le())
}

/// Python's order of two members' keys, by prefix first.
fn by_key(a: &(u64, usize), b: &(u64, usize), object: &Object) -> std::cmp::Ordering {
    let key = |index: usize| object.get_index(index).expect("an index of the object").0;
    a.0.cmp(&b.0).then_with(|| key(a.1).cmp(key(b.1)))
}

/// The first 8 bytes of a key, big-endian, zero-padded. Rust orders `str` by UTF-8 bytes,
/// which is code-point order: Python's. Comparing prefixes as integers agrees with it
/// wherever they differ (a padding zero sorts below any byte a longer key has there, and
/// where it has a NUL the prefixes tie), so the byte comparison only runs on a tie: one
/// integer comparison instead of a `memcmp` call for most pairs.
fn key_prefix(key: &str) -> u64 {
    let bytes = key.as_bytes();
    if let Some(head) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    // A shorter key as overlapping pieces: a copy of a variable length is a `memcpy` call
    // (an eighth of the time of writing a wide object), and a loop a few instructions a byte.
    let n = bytes.len();
    match n {
        4..=7 => {
            let head = u32::from_be_bytes(bytes[..4].try_into().expect("4 bytes"));
            let last = u32::from_be_bytes(bytes[n - 4..].try_into().expect("4 bytes"));
            u64::from(head) << 32 | u64::from(last) << (8 * (8 - n))
        }
        1..=3 => {
            // The first, middle and last bytes are every byte of 1 to 3.
            let at = |i: usize| u64::from(bytes[i]) << (56 - 8 * i);
            at(0) | at(n / 2) | at(n - 1)
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{key_prefix, KeyOrder};
    use crate::json::{dumps_object, Object, Style, Value};

    /// `keys` in insertion order, written canonically, and the order a plain sort gives.
    fn written_and_sorted(keys: &[String]) -> (String, String) {
        let object: Object = keys.iter().map(|k| (k.into(), Value::Null)).collect();
        let mut sorted = keys.to_vec();
        sorted.sort();
        let expected: Object = sorted.iter().map(|k| (k.into(), Value::Null)).collect();
        let style = Style::CANONICAL;
        (
            dumps_object(&object, style),
            dumps_object(&expected, Style::PYTHON),
        )
    }

    #[test]
    fn a_cached_order_is_never_trusted_for_other_keys() {
        // Two wide shapes with the same prefixes in the same insertion order (one hash, one
        // slot), whose tails sort them differently: the second must not take the first's
        // order.
        let shape = |flip: bool| -> Vec<String> {
            (0..20)
                .map(|i| {
                    let tail = if (i % 2 == 0) == flip { "a" } else { "b" };
                    format!("{:08}{tail}", 19 - i / 2)
                })
                .collect()
        };
        for keys in [shape(false), shape(true), shape(false), shape(true)] {
            let (written, expected) = written_and_sorted(&keys);
            assert_eq!(written, expected);
        }
    }

    #[test]
    fn a_set_keeps_the_four_shapes_last_stored_in_it() {
        let object =
            |keys: &[&str]| -> Object { keys.iter().map(|&k| (k.into(), Value::Null)).collect() };
        // Five unsorted objects whose shapes (hashes made up here) fall in one set.
        let objects = [
            (object(&["b", "a", "c"]), 7 << 56),
            (object(&["c", "b", "a"]), (7 << 56) | 1),
            (object(&["a", "c", "b"]), (7 << 56) | 2),
            (object(&["b", "c", "a"]), (7 << 56) | 3),
            (object(&["c", "a", "b"]), (7 << 56) | 4),
        ];
        let mut order = KeyOrder::default();
        let cached = |order: &mut KeyOrder, (object, shape): &(Object, u64)| {
            let start = order.stack.len();
            let prefixes = object.keys().map(|key| key_prefix(key));
            order.stack.extend(prefixes.zip(0..));
            let hit = order.reuse(start, *shape, object);
            order.pop(start);
            hit
        };
        for (i, stored) in objects.iter().enumerate() {
            let start = order.push(&stored.0);
            order.remember(start, stored.1);
            order.pop(start);
            for (j, probed) in objects.iter().enumerate() {
                // Four per set: the one stored last and the three before it.
                let kept = j <= i && i - j < 4;
                assert_eq!(cached(&mut order, probed), kept, "after {i}, shape {j}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn a_prefix_is_the_first_eight_bytes_zero_padded(key in ".{0,10}") {
            let mut expected = [0u8; 8];
            let n = key.len().min(8);
            expected[..n].copy_from_slice(&key.as_bytes()[..n]);
            proptest::prop_assert_eq!(key_prefix(&key), u64::from_be_bytes(expected));
        }
    }

    #[test]
    fn keys_sharing_a_prefix_sort_by_their_tails() {
        let mut keys: Vec<String> = (0..40).map(|i| format!("field___{}", 39 - i)).collect();
        keys.extend(["", "\0", "field___", "fiel", "\u{ffff}", "😀"].map(String::from));
        for _ in 0..3 {
            let (written, expected) = written_and_sorted(&keys);
            assert_eq!(written, expected);
            keys.rotate_left(7);
        }
    }
}
