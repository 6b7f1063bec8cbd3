//! Exit codes: every way the process can end, named.

/// The implementation conforms / the command succeeded.
pub const SUCCESS: i32 = 0;
/// The implementation does not conform: a case failed, or the module cannot be loaded or
/// defines neither function.
pub const DOES_NOT_CONFORM: i32 = 1;
/// Usage or set-up error: bad flags, no such file, invalid spec.
pub const USAGE: i32 = 2;
/// The run could not complete (the runner itself failed).
pub const INCOMPLETE: i32 = 3;

/// The exit codes as `--help` lists them.
pub const HELP: &str = "\
Exit codes:
  0  conforms (or the command succeeded)
  1  does not conform: a case failed, or the implementation cannot be loaded or defines neither function
  2  usage or set-up error: bad flags, no such file, invalid spec
  3  the run could not complete";
