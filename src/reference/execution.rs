//! Sequential or concurrent execution of independent jobs, results kept in input order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// How the accepted calls (`execute_tool_calls`) or the distinct keys (`run_parallel_calls`)
/// are run. Both modes give identical results; concurrency only changes wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Execution {
    /// One job after another, in input order.
    #[default]
    Sequential,
    /// Up to `threads` jobs at once on scoped threads.
    Concurrent { threads: usize },
}

impl Execution {
    /// Concurrent with enough threads that tools which wait (latency, I/O) overlap.
    pub const CONCURRENT: Execution = Execution::Concurrent { threads: 16 };

    /// Runs `job` on every item and returns the results in item order.
    pub fn map<T: Sync, R: Send>(self, items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
        let threads = match self {
            Execution::Concurrent { threads } => threads.min(items.len()),
            Execution::Sequential => 0,
        };
        if threads <= 1 {
            return items.iter().map(job).collect();
        }
        // Workers claim the next index from a shared counter, so a slow job never holds up
        // the others, and every index is claimed exactly once.
        let next = AtomicUsize::new(0);
        let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
        thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let index = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(index) else { break };
                            done.push((index, job(item)));
                        }
                        done
                    })
                })
                .collect();
            for worker in workers {
                let done = worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                for (index, result) in done {
                    slots[index] = Some(result);
                }
            }
        });
        slots
            .into_iter()
            .map(|slot| slot.expect("every index is claimed by exactly one worker"))
            .collect()
    }
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
