//! String literals as CPython's `json.dumps` writes them: a plain run copied eight bytes at a
//! time, every other character escaped through a table, without a branch on its kind.
//!
//! In strings dense with characters to escape (the adversarial corpus of BENCHMARKS.md
//! section 1), a branch per kind of character (quote, newline, other control, two, three or
//! four bytes of UTF-8) was mispredicted on most characters; here each ASCII byte is one table
//! load and one store, and each longer character one decode and two stores, whatever it is.

/// Appends `text` as a string literal, quotes included. `ensure_ascii`: every character
/// outside space..`~` as `\uhhhh` (astral ones as a surrogate pair), as Python's default;
/// otherwise only `"`, `\`, U+007F and the controls of C0 and C1 are escaped.
#[inline(always)]
pub(super) fn string(out: &mut String, text: &str, ensure_ascii: bool) {
    let bytes = text.as_bytes();
    // The quotes are stored with the plain prefix, in its room: most strings are all plain.
    let plain = append_plain::<true>(out, bytes);
    if plain < bytes.len() {
        escaped_rest(out, text, plain, ensure_ascii);
        out.push('"');
    }
}

/// The rest of `text` from `index`, a byte that needs an escape. One call whatever the style,
/// so that what is inlined at every string is only the plain scan.
#[inline(never)]
fn escaped_rest(out: &mut String, text: &str, index: usize, ensure_ascii: bool) {
    if ensure_ascii {
        escape_from::<true>(out, text, index);
    } else {
        escape_from::<false>(out, text, index);
    }
}

/// Input bytes escaped per reservation of room: a long string with one escape near its start
/// must not reserve six times its length at once.
const CHUNK: usize = 4096;

/// [`escaped_rest`] in one style.
#[inline(always)]
fn escape_from<const ENSURE_ASCII: bool>(out: &mut String, text: &str, mut index: usize) {
    let bytes = text.as_bytes();
    while index < bytes.len() {
        let end = bytes.len().min(index + CHUNK);
        // Six bytes out per byte in at most (a control byte as `\u00hh`; two to four bytes of
        // UTF-8 are one or two escapes of six), and room for the words stored whole past the
        // last byte written, and for a character that begins before `end` and ends after it.
        out.reserve(6 * (end - index) + 32);
        let len = out.len();
        let mut written = 0;
        // SAFETY: every store starts at `written`, which is at most six times the bytes read
        // since `len` (see `reserve` above), and is at most 16 bytes long; a character begun
        // before `end` ends at most 3 bytes after it. So every store lands within the room
        // reserved. The bytes taken into the string's length are ASCII escapes, or (without
        // `ENSURE_ASCII`) whole characters copied from `text`: UTF-8.
        unsafe {
            let to = out.as_mut_vec().as_mut_ptr().add(len);
            while index < end {
                let byte = bytes[index];
                if byte < 0x80 {
                    let escape = ASCII_ESCAPES[usize::from(byte)];
                    to.add(written)
                        .cast::<u64>()
                        .write_unaligned(escape.to_le());
                    written += (escape >> 56) as usize;
                    index += 1;
                    if escape >> 56 == 1 && plain_word_at(bytes, index) {
                        break;
                    }
                    continue;
                }
                let (code, width, raw) = decode(bytes, index);
                index += width;
                if !ENSURE_ASCII && !(0x80..0xa0).contains(&code) {
                    to.add(written).cast::<u32>().write_unaligned(raw.to_be());
                    written += width;
                    continue;
                }
                // A code point beyond the BMP is written as its surrogates, high then low;
                // one inside it as itself, and the second store is left past the end.
                let astral = code >= 0x1_0000;
                let offset = code.wrapping_sub(0x1_0000);
                let first = if astral {
                    0xd800 | (offset >> 10)
                } else {
                    code
                };
                let low = 0xdc00 | (offset & 0x3ff);
                to.add(written)
                    .cast::<u64>()
                    .write_unaligned(u_escape(first).to_le());
                to.add(written + 6)
                    .cast::<u64>()
                    .write_unaligned(u_escape(low).to_le());
                written += 6 + 6 * usize::from(astral);
            }
            out.as_mut_vec().set_len(len + written);
        }
        if index < end {
            // Stopped at a run of at least eight plain bytes.
            index += append_plain::<false>(out, &bytes[index..]);
        }
    }
}

/// Whether the eight bytes from `index` are all plain: the escape loop then hands over to
/// the word-wise copy (a long plain run after one accented letter, say).
#[inline]
fn plain_word_at(bytes: &[u8], index: usize) -> bool {
    bytes
        .get(index..index + 8)
        .is_some_and(|word| special_bytes(u64::from_le_bytes(word.try_into().expect("8"))) == 0)
}

/// The character of two to four bytes that starts at `index` in valid UTF-8: its code point,
/// its width, and its bytes as a big-endian word (first byte highest, zeros after the last).
#[inline]
fn decode(bytes: &[u8], index: usize) -> (u32, usize, u32) {
    let width = bytes[index].leading_ones() as usize;
    debug_assert!((2..=4).contains(&width), "a lead byte of UTF-8");
    // Four loads that cover the two to four bytes of any width: the first two, and the
    // last two placed where they belong (a load repeated for a short width lands on itself).
    let byte = |at: usize| u32::from(bytes[index + at]);
    let raw = byte(0) << 24
        | byte(1) << 16
        | byte(width - 2) << (8 * (5 - width))
        | byte(width - 1) << (8 * (4 - width));
    // The payload bits of each byte (the lead byte's marker bits, above its payload, are
    // masked out with the bits beyond the width's 11, 16 or 21).
    let word = raw >> (8 * (4 - width));
    let joined =
        (word & 0x3f) | (word >> 2 & 0xfc0) | (word >> 4 & 0x3_f000) | (word >> 6 & 0xfc_0000);
    let code = joined & ((1 << (5 * width + 1)) - 1);
    (code, width, raw)
}

/// `\uhhhh` for a UTF-16 unit, in lowercase hex, as the low six bytes of a little-endian word.
#[inline]
fn u_escape(unit: u32) -> u64 {
    let high = u64::from(HEX_PAIRS[(unit >> 8 & 0xff) as usize]);
    let low = u64::from(HEX_PAIRS[(unit & 0xff) as usize]);
    u64::from(u16::from_le_bytes(*b"\\u")) | high << 16 | low << 32
}

/// Two lowercase hex digits per byte value, the first in the low byte.
static HEX_PAIRS: [u16; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut pairs = [0u16; 256];
    let mut byte = 0;
    while byte < 256 {
        pairs[byte] = u16::from_le_bytes([HEX[byte >> 4], HEX[byte & 0xf]]);
        byte += 1;
    }
    pairs
};

/// What each ASCII byte is written as (`ensure_ascii` or not): its escape, or itself, in the
/// low bytes of the word, and its length in the top byte.
static ASCII_ESCAPES: [u64; 128] = {
    let mut escapes = [0u64; 128];
    let mut byte = 0;
    while byte < 128 {
        let short = match byte as u8 {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            0x08 => Some(b'b'),
            0x0c => Some(b'f'),
            _ => None,
        };
        escapes[byte] = match short {
            Some(letter) => b'\\' as u64 | (letter as u64) << 8 | 2 << 56,
            None if is_plain(byte as u8) => byte as u64 | 1 << 56,
            None => {
                let hex = b"0123456789abcdef";
                u16::from_le_bytes(*b"\\u") as u64
                    | (b'0' as u64) << 16
                    | (b'0' as u64) << 24
                    | (hex[byte >> 4] as u64) << 32
                    | (hex[byte & 0xf] as u64) << 40
                    | 6 << 56
            }
        };
        byte += 1;
    }
    escapes
};

/// Appends the leading bytes of `bytes` that are printable ASCII other than `"` and `\` (the
/// bytes that stand for themselves in every style) to `out`, and returns how many. Eight
/// bytes at a time (SWAR), each word stored as it is found: the scan and the copy are one
/// pass, with no `memcpy` call per run (a call per key and per value was a tenth of writing a
/// wide object, BENCHMARKS.md section 1). With `QUOTED`, also the opening quote before the
/// prefix and, when every byte is plain, the closing quote after it, in the same room: no
/// check of the capacity per quote.
#[inline(always)]
fn append_plain<const QUOTED: bool>(out: &mut String, bytes: &[u8]) -> usize {
    let quote = usize::from(QUOTED);
    // Room for every byte and for one word written past the last (a word is stored whole
    // even when only its first bytes are plain), and for the quotes.
    out.reserve(bytes.len() + 8 + 2 * quote);
    let len = out.len();
    // SAFETY: `reserve` made room for `bytes.len() + 8 + 2 * quote` bytes after `len`. The
    // opening quote is the first of them; every word store below starts at `quote + plain`
    // with `plain <= bytes.len()` and is 8 bytes long; the closing quote is stored at
    // `quote + plain`, within the same bounds. Only the quotes and plain bytes, which are
    // ASCII copied from `bytes`, are taken into the string's length; the rest of a stored
    // word stays spare capacity, never read.
    unsafe {
        let spare = out.as_mut_vec().as_mut_ptr().add(len);
        if QUOTED {
            *spare = b'"';
        }
        let words = spare.add(quote);
        let mut plain = 0;
        let mut chunks = bytes.chunks_exact(8);
        let mut tail = chunks.remainder();
        for chunk in chunks.by_ref() {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            words.add(plain).cast::<u64>().write_unaligned(word.to_le());
            let special = special_bytes(word);
            if special != 0 {
                plain += first_flagged(special);
                tail = &[];
                break;
            }
            plain += 8;
        }
        if !tail.is_empty() {
            let word = tail_word(tail);
            words.add(plain).cast::<u64>().write_unaligned(word.to_le());
            plain += first_flagged(special_bytes(word)).min(tail.len());
        }
        // Stored whatever the prefix, without a branch: it is only counted when it closes.
        let closed = QUOTED && plain == bytes.len();
        if QUOTED {
            *words.add(plain) = b'"';
        }
        out.as_mut_vec()
            .set_len(len + quote + plain + usize::from(closed));
        plain
    }
}

/// The bytes of `tail` (at most 7) as a little-endian word, padded with a plain byte. Read
/// as overlapping pieces: a `copy_from_slice` of a variable length is a call to `memcpy`,
/// and a loop a few instructions a byte, on every string written.
#[inline]
fn tail_word(tail: &[u8]) -> u64 {
    let n = tail.len();
    debug_assert!(n < 8);
    let padding = u64::from_le_bytes([b'a'; 8]) << (8 * n);
    let bytes = match n {
        4..=7 => {
            let head = u32::from_le_bytes(tail[..4].try_into().expect("4 bytes"));
            let last = u32::from_le_bytes(tail[n - 4..].try_into().expect("4 bytes"));
            u64::from(head) | u64::from(last) << (8 * (n - 4))
        }
        1..=3 => {
            // The first, middle and last bytes are every byte of 1 to 3.
            u64::from(tail[0])
                | u64::from(tail[n / 2]) << (8 * (n / 2))
                | u64::from(tail[n - 1]) << (8 * (n - 1))
        }
        _ => 0,
    };
    padding | bytes
}

/// Whether `byte` stands for itself in every style: printable ASCII other than `"` and `\`.
#[inline]
const fn is_plain(byte: u8) -> bool {
    byte >= b' ' && byte <= b'~' && byte != b'"' && byte != b'\\'
}

/// The index of the first byte whose high bit `flags` sets (8 when none).
fn first_flagged(flags: u64) -> usize {
    (flags.trailing_zeros() / 8) as usize
}

/// The high bit of each byte of `word` (little-endian) that is not plain: below space, above
/// `~`, `"` or `\`. The arithmetic can also flag bytes above a flagged one (a borrow or carry
/// runs upward), never below it, so the lowest flag is exactly the first special byte.
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let above_tilde = (word.wrapping_add(ONES) | word) & HIGHS;
    below_space
        | above_tilde
        | zero_byte(word ^ (ONES * u64::from(b'"')))
        | zero_byte(word ^ (ONES * u64::from(b'\\')))
}

#[cfg(test)]
mod tests {
    use super::{append_plain, decode, is_plain, string, tail_word};
    use proptest::prelude::*;

    /// The escapes written character by character, as the rules state them: the oracle.
    fn oracle(text: &str, ensure_ascii: bool) -> String {
        let mut out = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                ' '..='~' => out.push(c),
                _ if !ensure_ascii && !c.is_control() => out.push(c),
                _ => {
                    for unit in c.encode_utf16(&mut [0; 2]) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
        }
        out.push('"');
        out
    }

    fn tricky_text() -> impl Strategy<Value = String> {
        prop_oneof![
            crate::generate::values::tricky_string(40),
            // Long plain runs between escapes: the hand-over to the word-wise copy.
            "([a-z ]{0,20}[\"\\\\\n\u{7f}\u{80}\u{9f}é€😀]){0,6}[a-z ]{0,20}",
        ]
    }

    proptest! {
        #[test]
        fn a_string_is_written_as_the_escapes_character_by_character(
            before in "[ -~]{0,9}",
            text in tricky_text(),
            ensure_ascii in any::<bool>(),
        ) {
            let mut out = before.clone();
            string(&mut out, &text, ensure_ascii);
            prop_assert_eq!(out, before + &oracle(&text, ensure_ascii));
        }

        /// Any string at all, not only the tricky ones: the unsafe stores must leave the
        /// same bytes as the safe oracle, and those bytes must be UTF-8, as the checked
        /// conversion confirms.
        #[test]
        fn any_string_is_written_as_the_safe_oracle_writes_it(
            text in any::<String>(),
            ensure_ascii in any::<bool>(),
        ) {
            let mut out = String::new();
            string(&mut out, &text, ensure_ascii);
            let checked = String::from_utf8(out.into_bytes()).unwrap();
            prop_assert_eq!(checked, oracle(&text, ensure_ascii));
        }

        #[test]
        fn a_character_decodes_to_its_code_point(c in any::<char>().prop_filter("not ASCII", |c| !c.is_ascii()), after in ".{0,3}") {
            let text = format!("{c}{after}");
            let (code, width, raw) = decode(text.as_bytes(), 0);
            prop_assert_eq!((code, width), (u32::from(c), c.len_utf8()));
            let utf8 = c.to_string();
            prop_assert_eq!(&raw.to_be_bytes()[..width], utf8.as_bytes());
        }

        #[test]
        fn the_plain_prefix_is_appended_up_to_the_first_byte_to_escape(
            before in "[ -~]{0,20}",
            bytes in prop::collection::vec(prop_oneof![32u8..127, any::<u8>()], 0..40)
        ) {
            let expected = bytes.iter().position(|&b| !is_plain(b)).unwrap_or(bytes.len());
            let mut out = before.clone();
            prop_assert_eq!(append_plain::<false>(&mut out, &bytes), expected);
            prop_assert_eq!(out.as_bytes(), [before.as_bytes(), &bytes[..expected]].concat());
            // Quoted: the opening quote, and the closing one only after a wholly plain text.
            let mut quoted = before.clone();
            prop_assert_eq!(append_plain::<true>(&mut quoted, &bytes), expected);
            let closing: &[u8] = if expected == bytes.len() { b"\"" } else { b"" };
            prop_assert_eq!(
                quoted.as_bytes(),
                [before.as_bytes(), b"\"", &bytes[..expected], closing].concat()
            );
        }

        #[test]
        fn a_tail_word_holds_the_tail_then_plain_padding(tail in prop::collection::vec(any::<u8>(), 0..8)) {
            let mut expected = [b'a'; 8];
            expected[..tail.len()].copy_from_slice(&tail);
            prop_assert_eq!(tail_word(&tail), u64::from_le_bytes(expected));
        }
    }

    #[test]
    fn a_long_string_is_escaped_across_chunks() {
        // Characters of every width straddle the chunk's end somewhere in 3 * CHUNK bytes.
        let text: String = "a\u{1}é€😀\"".repeat(super::CHUNK * 3 / 13);
        for ensure_ascii in [true, false] {
            let mut out = String::new();
            string(&mut out, &text, ensure_ascii);
            assert_eq!(out, oracle(&text, ensure_ascii));
        }
    }
}
