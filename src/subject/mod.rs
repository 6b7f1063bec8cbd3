//! Subjects: the implementations a case runs against. The reference runs in-process, or
//! serves itself over the protocol; anything else runs as a supervised process.

pub mod adapters;
pub mod environment;
pub mod expected;
pub mod reference;
pub mod server;
