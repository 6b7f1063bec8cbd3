//! proptest strategies for values, texts, batches and whole cases: one source of truth
//! shared by the property tests in `tests/` and by the generated cases run against
//! implementations.

pub mod calls;
pub mod cases;
pub mod values;
