//! Validating parsers for numeric flags: a value out of range is a usage error (exit 2) that
//! says what is accepted, never a panic later (`Duration::from_secs_f64(-1.0)` panics, a
//! MiB count shifted into bytes overflows, a count sizes an allocation).

use std::time::Duration;

/// The longest duration a flag accepts: a week.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;
/// The largest memory limit a flag accepts, in MiB (1 TiB): `MIB << 20` cannot overflow.
pub const MAX_MIB: u64 = 1 << 20;
/// The most generated cases per function a flag accepts.
pub const MAX_GENERATED: usize = 1_000_000;
/// The most submissions graded at once.
pub const MAX_JOBS: usize = 1024;

/// A flag's value that is not accepted, with what would be; clap shows it as a usage error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("`{text}` is not a number of seconds (like 5 or 0.5)")]
    NotSeconds { text: String },
    #[error(
        "`{text}` is out of range: seconds must be above 0 and at most {}",
        MAX_SECONDS
    )]
    SecondsOutOfRange { text: String },
    #[error("`{text}` is not a whole number of {unit}")]
    NotWhole { text: String, unit: &'static str },
    /// A negative number: clap would otherwise take `-1` for a flag and suggest `-- -1`,
    /// which makes it a positional path.
    #[error("{text} is negative; {accepted}")]
    Negative { text: String, accepted: String },
    #[error("`{text}` is out of range: {unit} from {min} to {max}")]
    OutOfRange {
        text: String,
        unit: &'static str,
        min: u64,
        max: u64,
    },
}

/// A folder that exists, made absolute: a sandbox binds it at its place.
pub fn existing_folder(text: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::Path::new(text);
    if !path.is_dir() {
        return Err(format!("{text}: no such folder"));
    }
    std::path::absolute(path).map_err(|e| format!("{text}: {e}"))
}

/// `--runtime NAME=PATH`: a program the caller declares (see
/// [`crate::sandbox::Runtimes`]), found when the runtimes are declared.
pub fn runtime(text: &str) -> Result<(String, std::ffi::OsString), String> {
    crate::sandbox::Runtimes::parse_flag(text).map_err(|e| e.to_string())
}

/// `--runtimes FILE`: the runtimes a file of the caller's declares, one `NAME=PATH` a line as
/// `--runtime` takes it (blank lines and lines starting with `#` skipped): a class's
/// toolchains written once.
pub fn runtimes_file(text: &str) -> Result<RuntimesFile, String> {
    const MAX_BYTES: u64 = 64 << 10;
    let path = std::path::Path::new(text);
    let metadata = std::fs::metadata(path).map_err(|e| format!("{text}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!("{text}: not a regular file"));
    }
    if metadata.len() > MAX_BYTES {
        return Err(format!("{text}: larger than {MAX_BYTES} bytes"));
    }
    let contents = std::fs::read_to_string(path).map_err(|e| format!("{text}: {e}"))?;
    let mut declared = Vec::new();
    for (number, line) in contents.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let runtime = crate::sandbox::Runtimes::parse_flag(line)
            .map_err(|e| format!("{text}:{}: {e}", number + 1))?;
        declared.push(runtime);
    }
    Ok(RuntimesFile(declared))
}

/// What a `--runtimes FILE` declares, in its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimesFile(pub Vec<(String, std::ffi::OsString)>);

/// Seconds, as a finite positive decimal no larger than [`MAX_SECONDS`] (`2`, `0.5`).
pub fn seconds(text: &str) -> Result<Duration, ValueError> {
    refuse_negative(
        text,
        format!("seconds must be above 0 and at most {MAX_SECONDS}"),
    )?;
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| ValueError::NotSeconds { text: text.into() })?;
    if !value.is_finite() || value <= 0.0 || value > MAX_SECONDS {
        return Err(ValueError::SecondsOutOfRange { text: text.into() });
    }
    Ok(Duration::from_secs_f64(value))
}

/// Whole seconds, from 1 to [`MAX_SECONDS`].
pub fn whole_seconds(text: &str) -> Result<u64, ValueError> {
    bounded(text, 1, MAX_SECONDS as u64, "whole seconds")
}

/// MiB of memory, from 0 (no limit, where a flag allows it) to [`MAX_MIB`].
pub fn mib(text: &str) -> Result<u64, ValueError> {
    bounded(text, 0, MAX_MIB, "MiB")
}

/// MiB of memory where 0 would leave nothing to run in: from 16 to [`MAX_MIB`].
pub fn mib_at_least_16(text: &str) -> Result<u64, ValueError> {
    bounded(text, 16, MAX_MIB, "MiB")
}

/// Generated cases per function, from 0 to [`MAX_GENERATED`].
pub fn generated(text: &str) -> Result<usize, ValueError> {
    bounded(text, 0, MAX_GENERATED as u64, "cases").map(|n| n as usize)
}

/// Submissions at once, from 1 to [`MAX_JOBS`].
pub fn jobs(text: &str) -> Result<usize, ValueError> {
    bounded(text, 1, MAX_JOBS as u64, "jobs").map(|n| n as usize)
}

/// A seed: any whole number from 0 to 2^64-1.
pub fn seed(text: &str) -> Result<u64, ValueError> {
    refuse_negative(text, "seeds are 0 to 2^64-1".into())?;
    text.trim().parse().map_err(|_| ValueError::NotWhole {
        text: text.into(),
        unit: "a seed (0 to 2^64-1)",
    })
}

/// Seconds one submission may take in all, from 1 to a day.
pub fn submission_seconds(text: &str) -> Result<u64, ValueError> {
    bounded(text, 1, 86_400, "whole seconds")
}

/// Refuses a number below zero, saying what is `accepted` instead.
fn refuse_negative(text: &str, accepted: String) -> Result<(), ValueError> {
    let trimmed = text.trim();
    let negative = trimmed
        .strip_prefix('-')
        .is_some_and(|rest| rest.parse::<f64>().is_ok_and(|v| v > 0.0));
    if negative {
        return Err(ValueError::Negative {
            text: trimmed.into(),
            accepted,
        });
    }
    Ok(())
}

fn bounded(text: &str, min: u64, max: u64, unit: &'static str) -> Result<u64, ValueError> {
    refuse_negative(text, format!("{unit} from {min} to {max}"))?;
    let value: u64 = text.trim().parse().map_err(|_| ValueError::NotWhole {
        text: text.into(),
        unit,
    })?;
    if !(min..=max).contains(&value) {
        return Err(ValueError::OutOfRange {
            text: text.into(),
            unit,
            min,
            max,
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[rstest::rstest]
    #[case("-1")]
    #[case("0")]
    #[case("NaN")]
    #[case("inf")]
    #[case("-inf")]
    #[case("1e309")]
    #[case("18446744073709551615")]
    #[case("")]
    #[case("abc")]
    fn absurd_seconds_are_refused(#[case] text: &str) {
        assert!(seconds(text).is_err(), "{text}");
    }

    #[test]
    fn plain_seconds_are_accepted() {
        assert_eq!(seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(seconds("604800"), Ok(Duration::from_secs(604_800)));
    }

    #[rstest::rstest]
    #[case("-1")]
    #[case("NaN")]
    #[case("18446744073709551615")]
    #[case("17592186044416")]
    #[case("1.5")]
    fn absurd_counts_are_refused(#[case] text: &str) {
        assert!(mib(text).is_err(), "{text}");
        assert!(generated(text).is_err(), "{text}");
        assert!(jobs(text).is_err(), "{text}");
        assert!(whole_seconds(text).is_err(), "{text}");
    }

    #[test]
    fn the_largest_memory_limit_fits_in_bytes() {
        assert!(mib(&MAX_MIB.to_string()).unwrap().checked_shl(20).is_some());
        assert_eq!(
            mib_at_least_16("0").unwrap_err().to_string(),
            "`0` is out of range: MiB from 16 to 1048576"
        );
    }
}
