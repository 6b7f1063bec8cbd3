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
  3  the run could not complete
  130, 143, 129  interrupted by SIGINT, SIGTERM or SIGHUP (temporary folders removed)";

/// Interrupted by SIGINT (Ctrl-C): the implementation's processes killed and the temporary
/// folders removed first (`process::interrupt`), as for the two below.
pub const INTERRUPTED: i32 = 130;
/// Ended by SIGTERM.
pub const TERMINATED: i32 = 143;
/// Ended by SIGHUP (the terminal went away).
pub const HUNG_UP: i32 = 129;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::interrupt::exit_status;

    #[test]
    fn the_signal_codes_are_what_the_clean_up_exits_with() {
        assert_eq!(INTERRUPTED, exit_status(libc::SIGINT));
        assert_eq!(TERMINATED, exit_status(libc::SIGTERM));
        assert_eq!(HUNG_UP, exit_status(libc::SIGHUP));
    }
}
