//! proptest strategies for values, texts and batches: one source of truth shared by the
//! property tests in `tests/` and by the generated cases run against implementations.

pub mod calls;
pub mod values;
