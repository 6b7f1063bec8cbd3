//! Subjects: the implementations a case runs against. The reference runs in-process.

pub mod reference;
