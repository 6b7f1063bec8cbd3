//! A bounded byte buffer that keeps the last bytes written: the tail of what a process
//! printed, however much it printed.

use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct Tail {
    bytes: VecDeque<u8>,
    capacity: usize,
    total: u64,
}

impl Tail {
    pub fn new(capacity: usize) -> Tail {
        Tail {
            bytes: VecDeque::with_capacity(capacity.min(64 * 1024)),
            capacity,
            total: 0,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let keep = &chunk[chunk.len().saturating_sub(self.capacity)..];
        let overflow = (self.bytes.len() + keep.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow);
        self.bytes.extend(keep);
    }

    /// The kept bytes as text, with a note when earlier bytes were dropped.
    pub fn text(&self) -> String {
        let (front, back) = self.bytes.as_slices();
        let mut kept = front.to_vec();
        kept.extend_from_slice(back);
        let text = String::from_utf8_lossy(&kept).into_owned();
        let dropped = self.total - self.bytes.len() as u64;
        if dropped > 0 {
            format!("[{dropped} earlier bytes not shown]\n{text}")
        } else {
            text
        }
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.total = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Tail;

    #[test]
    fn keeps_the_last_bytes() {
        let mut tail = Tail::new(4);
        tail.push(b"abc");
        tail.push(b"defg");
        assert_eq!(tail.text(), "[3 earlier bytes not shown]\ndefg");
        tail.push(b"0123456789");
        assert!(tail.text().ends_with("6789"));
    }
}
