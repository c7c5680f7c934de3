//! The server's own idea of when to retry: the `Retry-After` header (seconds or an
//! HTTP-date), `google.rpc.RetryInfo.retryDelay` in the error body ("26s", "0.9s",
//! "900ms"), or a message saying "Please retry in 48.17s."

use std::time::{Duration, SystemTime};

use crate::provider::gemini::wire::ApiError;

/// Parses a duration written as a number and a unit: `26s`, `0.9s`, `900ms`, `1.5m`, `2h`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "ms" => value / 1000.0,
        "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
}

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

/// `RetryInfo.retryDelay` from an error object's `details`.
pub fn retry_info(error: &ApiError) -> Option<Duration> {
    error
        .details
        .iter()
        .filter(|d| d.is("google.rpc.RetryInfo"))
        .find_map(|d| d.retry_delay.as_deref().and_then(parse_duration))
}

/// "Please retry in 48.17s." in a message.
pub fn from_message(message: &str) -> Option<Duration> {
    let lower = message.to_ascii_lowercase();
    let at = lower.find("retry in ")? + "retry in ".len();
    let rest = &lower[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .unwrap_or(rest.len());
    parse_duration(rest[..end].trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn durations_in_the_forms_the_api_uses() {
        assert_eq!(parse_duration("26s"), Some(Duration::from_secs(26)));
        assert_eq!(parse_duration("0.9s"), Some(Duration::from_millis(900)));
        assert_eq!(parse_duration("900ms"), Some(Duration::from_millis(900)));
        assert_eq!(parse_duration("2h"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration("12"), None, "a unit is required");
    }

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

    #[test]
    fn retry_info_and_messages() {
        let error: ApiError = serde_json::from_value(json!({"details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "26s"}
        ]}))
        .unwrap();
        assert_eq!(retry_info(&error), Some(Duration::from_secs(26)));
        assert_eq!(
            from_message("You exceeded your current quota. Please retry in 48.17s."),
            Some(Duration::from_millis(48170))
        );
        assert_eq!(from_message("try later"), None);
    }
}
