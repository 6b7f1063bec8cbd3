//! When and where a report was made, for the formats that record it (JUnit): read once,
//! at the edge, so the renderers stay functions of their inputs.

use super::junit::Stamp;
use super::model::Report;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The stamp of a run that ended now, on this machine.
pub(super) fn now(report: &Report) -> Stamp {
    let ended = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    let took = Duration::try_from_secs_f64(report.duration_ms / 1e3).unwrap_or(Duration::ZERO);
    Stamp {
        timestamp: utc(ended.saturating_sub(took).as_secs()),
        hostname: hostname(),
    }
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SS` in UTC: the form the Ant JUnit schema
/// requires (no zone).
pub(super) fn utc(seconds: u64) -> String {
    let days = seconds / 86_400;
    let time = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        time / 3600,
        time / 60 % 60,
        time % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, restricted to days after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// The machine's name, as JUnit consumers group results by it; `localhost` (the schema's
/// own fallback) when it has none or it is not text.
fn hostname() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the pointer and length describe `buffer`, which outlives the call;
    // gethostname writes at most that many bytes.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    match std::str::from_utf8(&buffer[..end]) {
        Ok(name) if status == 0 && !name.trim().is_empty() => name.trim().to_owned(),
        _ => "localhost".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_cross_months_leap_days_and_centuries() {
        assert_eq!(utc(0), "1970-01-01T00:00:00");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00");
        assert_eq!(utc(951_868_799), "2000-02-29T23:59:59");
        assert_eq!(utc(951_868_800), "2000-03-01T00:00:00");
        assert_eq!(utc(4_107_542_400), "2100-03-01T00:00:00");
        assert_eq!(utc(1_709_251_199), "2024-02-29T23:59:59");
    }
}
