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
}

impl Execution {
    /// Concurrent with enough threads that tools which wait (latency, I/O) overlap.
    pub const CONCURRENT: Execution = Execution::Concurrent { threads: 16 };

    /// Runs `job` on every item and returns the results in item order.
    pub fn map<T: Sync, R: Send>(self, items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
        match self {
            Execution::Concurrent { threads } if threads > 1 && items.len() > 1 => {
                use rayon::prelude::*;
                // A pool kept per thread count: spawning threads for every batch would cost
                // more than the batch itself (tens of microseconds per thread).
                pool(threads).install(|| items.par_iter().with_max_len(1).map(&job).collect())
            }
            _ => items.iter().map(job).collect(),
        }
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
    }
}
