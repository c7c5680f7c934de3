//! The server's own idea of when to retry, as its headers say it: `Retry-After` (seconds or
//! an HTTP-date) and `retry-after-ms`. What an error body says (Gemini's
//! `RetryInfo.retryDelay`, "Please retry in 48.17s.") is read by the family's recogniser.

use std::time::{Duration, SystemTime};

/// The `Retry-After` header: delay-seconds or an HTTP-date (relative to `now`).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// OpenAI's `retry-after-ms` header: milliseconds, possibly fractional.
pub fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    let ms: f64 = value.trim().parse().ok()?;
    Duration::try_from_secs_f64(ms / 1000.0).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_as_seconds_or_an_http_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("1", now), Some(Duration::from_secs(1)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(90));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(90))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(5));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("whenever", now), None);
    }
}
