//! Sequential or concurrent execution of independent jobs, results kept in input order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// How the accepted calls (`execute_tool_calls`) or the distinct keys (`run_parallel_calls`)
/// are run. Both modes give identical results; concurrency only changes wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Execution {
    /// One job after another, in input order.
    #[default]
    Sequential,
    /// Up to `threads` jobs at once, on a pool of worker threads kept for the process.
    Concurrent { threads: usize },
    /// One job after another, in an order drawn from `seed` (RULES A6: any order is
    /// allowed, and the suite must accept every one; the property tests run this).
    Shuffled { seed: u64 },
}

impl Execution {
    /// Concurrent with enough threads that tools which wait (latency, I/O) overlap.
    pub const CONCURRENT: Execution = Execution::Concurrent { threads: 16 };

    /// Whether jobs may run at the same time: only then can one job run while another
    /// waits.
    pub fn overlaps(self) -> bool {
        matches!(self, Execution::Concurrent { threads } if threads > 1)
    }

    /// Runs `job` on every item and returns the results in item order.
    pub fn map<T: Sync, R: Send>(self, items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
        match self {
            Execution::Concurrent { threads } if threads > 1 && items.len() > 1 => {
                use rayon::prelude::*;
                // A pool kept per thread count: spawning threads for every batch would cost
                // more than the batch itself.
                pool(threads).install(|| items.par_iter().with_max_len(1).map(&job).collect())
            }
            Execution::Shuffled { seed } => {
                let mut order: Vec<usize> = (0..items.len()).collect();
                shuffle(&mut order, seed);
                let mut results: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
                for index in order {
                    results[index] = Some(job(&items[index]));
                }
                results
                    .into_iter()
                    .map(|r| r.expect("every index was run once"))
                    .collect()
            }
            _ => items.iter().map(job).collect(),
        }
    }
}

/// Fisher-Yates with SplitMix64: deterministic per seed, no dependency on a random crate.
fn shuffle(items: &mut [usize], mut seed: u64) {
    let mut next = || {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// The worker pool for `threads` threads, built on first use and kept for the process.
fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(Mutex::default);
    let mut pools = pools
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pools
        .entry(threads)
        .or_insert_with(|| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("parcall-worker-{i}"))
                .build()
                .expect("the OS lets parcall start its worker threads");
            Arc::new(pool)
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::Execution;

    #[test]
    fn both_modes_keep_item_order() {
        let items: Vec<u32> = (0..100).collect();
        let square = |n: &u32| n * n;
        let expected: Vec<u32> = items.iter().map(square).collect();
        assert_eq!(Execution::Sequential.map(&items, square), expected);
        assert_eq!(Execution::CONCURRENT.map(&items, square), expected);
        assert!(Execution::CONCURRENT.map(&[] as &[u32], square).is_empty());
        assert_eq!(
            Execution::Shuffled { seed: 7 }.map(&items, square),
            expected
        );
    }

    #[test]
    fn shuffled_runs_every_job_once_in_another_order() {
        let items: Vec<usize> = (0..50).collect();
        let ran = std::sync::Mutex::new(Vec::new());
        Execution::Shuffled { seed: 3 }.map(&items, |i| ran.lock().unwrap().push(*i));
        let ran = ran.into_inner().unwrap();
        assert_ne!(ran, items, "50 jobs kept their order");
        let mut sorted = ran.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, items);
    }
}
