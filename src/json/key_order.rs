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

/// The sort orders of the objects being written, one slice per object (an object's members
/// are written in the order of its slice while its children push theirs above it), and the
/// orders of wide objects seen before.
#[derive(Default)]
pub(super) struct KeyOrder {
    /// [`key_prefix`] and index of each member of the objects being written.
    stack: Vec<(u64, usize)>,
    /// Indexed by the shape's hash modulo [`SLOTS`]; empty until a wide object needs a sort.
    cache: Vec<Option<Cached>>,
}

/// The sorted order of a shape: the shape's hash, and the member indices in key order.
struct Cached {
    shape: u64,
    order: Box<[u16]>,
}

impl KeyOrder {
    /// Pushes the member indices of `object` in Python's key order; returns where they start.
    pub fn push(&mut self, object: &Object) -> usize {
        let start = self.stack.len();
        let prefixes = object.keys().map(|key| key_prefix(key));
        self.stack.extend(prefixes.zip(0..));
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
    pub fn index(&self, position: usize) -> usize {
        self.stack[position].1
    }

    /// Pops the object pushed at `start`.
    pub fn pop(&mut self, start: usize) {
        self.stack.truncate(start);
    }

    /// Frees the stack if an object with a very large number of members grew it, rather
    /// than keep it for the next call.
    pub fn trim(&mut self) {
        if self.stack.capacity() > STACK_KEPT {
            self.stack = Vec::new();
        }
    }

    /// Orders the members pushed at `start` as the cached order of their shape, if that
    /// order sorts them. A cached order is only a guess (two shapes can share a hash, and
    /// the hash reads only prefixes): it is taken only when the keys come out in order,
    /// which, keys being distinct, only their sorted order does.
    fn reuse(&mut self, start: usize, shape: u64, object: &Object) -> bool {
        let Some(Some(cached)) = self.cache.get(slot(shape)) else {
            return false;
        };
        if cached.shape != shape || cached.order.len() != object.len() {
            return false;
        }
        let end = self.stack.len();
        for &index in cached.order.iter() {
            self.stack.push(self.stack[start + usize::from(index)]);
        }
        let sorted = is_sorted(&self.stack[end..], object);
        if sorted {
            self.stack.copy_within(end.., start);
        }
        self.stack.truncate(end);
        sorted
    }

    /// Caches the order of the members pushed at `start`, now sorted.
    fn remember(&mut self, start: usize, shape: u64) {
        if self.cache.is_empty() {
            self.cache.resize_with(SLOTS, || None);
        }
        let order = self.stack[start..]
            .iter()
            .map(|&(_, index)| u16::try_from(index).expect("at most CACHED_UP_TO members"))
            .collect();
        self.cache[slot(shape)] = Some(Cached { shape, order });
    }
}

/// The cache slot of a shape.
fn slot(shape: u64) -> usize {
    // The high bits: the multiplication in `mix` leaves the low ones weakest.
    (shape >> 56) as usize % SLOTS
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
    // A shorter key byte by byte: a copy of a variable length is a `memcpy` call, which
    // was an eighth of the time of writing a wide object.
    let mut prefix = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        prefix |= u64::from(byte) << (56 - 8 * i);
    }
    prefix
}

#[cfg(test)]
mod tests {
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
