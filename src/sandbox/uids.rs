//! Submission uids: unique per submission and per concurrent run, and clear of every range
//! the system hands out. A run leases a block of [`UIDS_PER_RUN`] uids by holding an
//! exclusive `flock` on the block's lock file; the kernel drops the lock when the run dies,
//! however it dies, so a block is never shared by two live runs and never leaks.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// The first submission uid. 1879048192..=2147483647 (0x70000000..0x7fffffff) is the one
/// range systemd's UID allocation document leaves unused: above the container ranges, below
/// the uids that break software treating uid_t as signed. Nothing allocates there.
pub const FIRST_UID: u32 = 0x7000_0000;
/// The last submission uid.
pub const LAST_UID: u32 = 0x7fff_ffff;
/// Submissions one grading run can give a uid of its own.
pub const UIDS_PER_RUN: u32 = 1 << 16;
/// Blocks in the range: the number of runs that can grade at once on one machine.
pub const BLOCKS: u32 = (LAST_UID - FIRST_UID + 1) / UIDS_PER_RUN;

// Enough blocks that concurrent runs never run out.
const _: () = assert!(BLOCKS >= 4096);

/// Where the block lock files live (root-only, not world-writable).
pub const LEASE_DIR: &str = "/run/parcall-uids";

/// Why a block of uids could not be leased.
#[derive(Debug, thiserror::Error)]
pub enum UidError {
    #[error("cannot lease submission uids in {dir}: {source}")]
    Io { dir: String, source: io::Error },
    #[error("every block of submission uids is leased or overlaps /etc/subuid or /etc/subgid")]
    Exhausted,
    #[error("a run gives at most {UIDS_PER_RUN} submissions a uid of their own; {0} asked")]
    TooMany(usize),
}

/// A block of uids held for the life of the run.
#[derive(Debug)]
pub struct Lease {
    first: u32,
    /// Holds the flock; closing it (at drop or death) frees the block.
    _lock: File,
}

impl Lease {
    /// Leases a free block in `dir`, skipping blocks that overlap any subordinate-id range
    /// in `/etc/subuid` or `/etc/subgid`. The search starts at a random block, so concurrent
    /// runs rarely contend for the same lock and successive runs rarely reuse a block (a
    /// submission's keyrings die with its user namespace anyway).
    pub fn acquire(dir: &Path) -> Result<Lease, UidError> {
        let io_error = |source| UidError::Io {
            dir: dir.display().to_string(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io_error)?;
        let reserved: Vec<(u64, u64)> = ["/etc/subuid", "/etc/subgid"]
            .iter()
            .flat_map(|f| subordinate_ranges(&std::fs::read_to_string(f).unwrap_or_default()))
            .collect();
        let start = (crate::process::random::fresh().map_or(u64::from(std::process::id()), |r| r)
            % u64::from(BLOCKS)) as u32;
        for offset in 0..BLOCKS {
            let block = (start + offset) % BLOCKS;
            let first = FIRST_UID + block * UIDS_PER_RUN;
            if overlaps(first, &reserved) {
                continue;
            }
            let lock = File::create(dir.join(format!("block-{block}.lock"))).map_err(io_error)?;
            // SAFETY: flock(2) takes integers only; `lock` holds the fd open for the call.
            // LOCK_NB makes it return at once when another run holds the block.
            if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(Lease { first, _lock: lock });
            }
        }
        Err(UidError::Exhausted)
    }

    /// The uid of submission `index`: distinct for every index the block holds.
    pub fn uid(&self, index: usize) -> Result<u32, UidError> {
        u32::try_from(index)
            .ok()
            .filter(|i| *i < UIDS_PER_RUN)
            .map(|i| self.first + i)
            .ok_or(UidError::TooMany(index + 1))
    }

    /// Every uid of the block, the ones no submission was given included.
    pub fn block(&self) -> std::ops::RangeInclusive<u32> {
        self.first..=self.first + (UIDS_PER_RUN - 1)
    }
}

/// Whether the block starting at `first` meets any `(start, count)` range.
fn overlaps(first: u32, ranges: &[(u64, u64)]) -> bool {
    let (lo, hi) = (u64::from(first), u64::from(first) + u64::from(UIDS_PER_RUN));
    ranges
        .iter()
        .any(|&(start, count)| start < hi && start.saturating_add(count) > lo)
}

/// The `(start, count)` ranges of a subuid/subgid file (`name:start:count` per line).
fn subordinate_ranges(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.trim().split(':').skip(1);
            Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uids_are_unique_within_a_run_past_a_thousand_submissions() {
        let dir = tempfile::tempdir().unwrap();
        let lease = Lease::acquire(dir.path()).unwrap();
        let uids: std::collections::BTreeSet<u32> =
            (0..5000).map(|i| lease.uid(i).unwrap()).collect();
        assert_eq!(uids.len(), 5000);
        assert!(uids.iter().all(|u| (FIRST_UID..=LAST_UID).contains(u)));
        let last = lease.uid(UIDS_PER_RUN as usize - 1).unwrap();
        assert_eq!(lease.block(), lease.uid(0).unwrap()..=last);
        assert!(matches!(
            lease.uid(UIDS_PER_RUN as usize),
            Err(UidError::TooMany(_))
        ));
    }

    #[test]
    fn concurrent_runs_never_share_a_block() {
        let dir = tempfile::tempdir().unwrap();
        let leases: Vec<Lease> = (0..4)
            .map(|_| Lease::acquire(dir.path()).unwrap())
            .collect();
        let firsts: std::collections::BTreeSet<u32> =
            leases.iter().map(|l| *l.block().start()).collect();
        assert_eq!(firsts.len(), 4, "two live runs got the same block");
        let first = *leases[0].block().start();
        drop(leases);
        // A dead run's block is free again: its lock can be taken.
        let block = (first - FIRST_UID) / UIDS_PER_RUN;
        let lock = File::open(dir.path().join(format!("block-{block}.lock"))).unwrap();
        // SAFETY: flock(2) takes integers only; `lock` holds the fd open for the call.
        let taken = unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_eq!(taken, 0);
    }

    #[test]
    fn blocks_stay_clear_of_subordinate_ranges() {
        let usual = subordinate_ranges("alice:100000:65536\nbob:165536:65536\n");
        assert_eq!(usual, vec![(100_000, 65_536), (165_536, 65_536)]);
        assert!(!overlaps(FIRST_UID, &usual));
        let container = subordinate_ranges(&format!("lxc:{}:10", FIRST_UID + 5));
        assert!(overlaps(FIRST_UID, &container));
        assert!(!overlaps(FIRST_UID + UIDS_PER_RUN, &container));
    }
}
