//! The seed of a class's hidden cases, when the teacher gives none: drawn from the operating
//! system's random source, never from the clock. A clock seed is narrowed by what a
//! submission can observe (when the run started, its pid) to few enough candidates to
//! regenerate the hidden cases offline.

/// Why no seed could be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw a random seed from the operating system (getrandom, /dev/urandom): {0}; pass --seed")]
pub struct SeedError(std::io::Error);

/// 64 random bits from getrandom(2), or /dev/urandom where the call is missing.
pub fn fresh() -> Result<u64, SeedError> {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom(2) writes at most `bytes.len()` bytes into `bytes`, a live local.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n == bytes.len() as isize {
        return Ok(u64::from_ne_bytes(bytes));
    }
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(SeedError)?;
    Ok(u64::from_ne_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock seed mixed with the pid keeps its high bits for seconds: two seeds drawn in a
    /// row shared them. Random ones share them once in 2^32.
    #[test]
    fn seeds_drawn_in_a_row_share_nothing_a_clock_would_give_away() {
        let seeds: Vec<u64> = (0..4).map(|_| fresh().unwrap()).collect();
        let shared_high = seeds
            .windows(2)
            .filter(|w| w[0] >> 32 == w[1] >> 32)
            .count();
        assert_eq!(shared_high, 0, "{seeds:x?}");
        let close = seeds
            .windows(2)
            .filter(|w| w[0].abs_diff(w[1]) < 1 << 40)
            .count();
        assert_eq!(close, 0, "{seeds:x?}");
    }
}
