//! Points in time as users write them (`--since 2026-11-01`, `--since 7d`, `?since=today`)
//! and calendar days in the user's time zone, read the same way by omnictl and by the
//! HTTP API, so `--since` means one thing everywhere.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};

/// Why a `--since` value cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot read {0:?} as a time: give a date (2026-11-01), a date and time \
     (2026-11-01T14:30), `today`, `yesterday`, milliseconds since the epoch, or an age \
     such as 30m, 24h, 7d or 2w"
)]
pub struct SinceError(pub String);

/// Reads a point in time: a local date or date and time, `today` or `yesterday` (local
/// midnight), an age back from `now_ms` (`30m`, `24h`, `7d`, `2w`), or milliseconds since
/// the epoch. Returns milliseconds since the epoch.
pub fn parse_since(text: &str, now_ms: u64) -> Result<u64, SinceError> {
    let error = || SinceError(text.to_string());
    let text = text.trim();
    let now = timestamp(now_ms).ok_or_else(error)?;
    let zone = TimeZone::system();
    let today = now.to_zoned_datetime(zone.clone()).date();
    let midnight = |date: Date| local_ms(date.to_datetime(jiff::civil::Time::midnight()), &zone);
    match text {
        "today" => return midnight(today).ok_or_else(error),
        "yesterday" => {
            let day = today.yesterday().map_err(|_| error())?;
            return midnight(day).ok_or_else(error);
        }
        _ => {}
    }
    if let Some(ms) = age(text).and_then(|span| now_ms.checked_sub(span)) {
        return Ok(ms);
    }
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()) {
        return text.parse().map_err(|_| error());
    }
    if let Ok(date) = text.parse::<Date>() {
        return midnight(date).ok_or_else(error);
    }
    if let Ok(datetime) = text.parse::<DateTime>() {
        return local_ms(datetime, &zone).ok_or_else(error);
    }
    if let Ok(instant) = text.parse::<Timestamp>() {
        return u64::try_from(instant.as_millisecond()).map_err(|_| error());
    }
    Err(error())
}

/// The local calendar day (`2026-11-25`) a time falls on.
pub fn local_day(ms: u64) -> String {
    timestamp(ms)
        .map(|t| t.to_zoned_datetime(TimeZone::system()).date().to_string())
        .unwrap_or_default()
}

/// Local midnight at the start of the day `ms` falls on.
pub fn start_of_local_day(ms: u64) -> u64 {
    let zone = TimeZone::system();
    timestamp(ms)
        .and_then(|t| {
            let day: ZonedDateTime = t.to_zoned_datetime(zone.clone());
            local_ms(day.date().to_datetime(jiff::civil::Time::midnight()), &zone)
        })
        .unwrap_or(0)
}

/// An age such as `30m`, `24h`, `7d` or `2w`, in milliseconds.
fn age(text: &str) -> Option<u64> {
    let unit = text.chars().last()?;
    let count: u64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    let ms = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        'w' => 7 * 86_400_000,
        _ => return None,
    };
    count.checked_mul(ms)
}

fn timestamp(ms: u64) -> Option<Timestamp> {
    Timestamp::from_millisecond(i64::try_from(ms).ok()?).ok()
}

fn local_ms(datetime: DateTime, zone: &TimeZone) -> Option<u64> {
    let zoned = datetime.to_zoned_datetime(zone.clone()).ok()?;
    u64::try_from(zoned.timestamp().as_millisecond()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_795_000_000_000;

    #[test]
    fn ages_count_back_from_now() {
        assert_eq!(parse_since("30m", NOW), Ok(NOW - 30 * 60_000));
        assert_eq!(parse_since("7d", NOW), Ok(NOW - 7 * 86_400_000));
        assert_eq!(parse_since("2w", NOW), Ok(NOW - 14 * 86_400_000));
    }

    #[test]
    fn dates_are_local_midnights_and_today_is_the_start_of_now_s_day() {
        let today = parse_since("today", NOW).unwrap();
        assert_eq!(today, start_of_local_day(NOW));
        assert!(today <= NOW && NOW - today < 86_400_000);
        let date = parse_since(&local_day(NOW), NOW).unwrap();
        assert_eq!(date, today);
        let yesterday = parse_since("yesterday", NOW).unwrap();
        assert!(today - yesterday >= 23 * 3_600_000 && today - yesterday <= 25 * 3_600_000);
    }

    #[test]
    fn milliseconds_and_instants_are_taken_as_they_are() {
        assert_eq!(parse_since("1790000000000", NOW), Ok(1_790_000_000_000));
        assert_eq!(
            parse_since("2026-09-21T14:13:20Z", NOW),
            Ok(1_790_000_000_000)
        );
    }

    #[test]
    fn anything_else_is_refused_with_the_forms_it_takes() {
        let error = parse_since("last tuesday", NOW).unwrap_err();
        assert!(error.to_string().contains("2026-11-01"), "{error}");
        assert!(parse_since("", NOW).is_err());
        assert!(parse_since("5y", NOW).is_err());
    }
}
