//! What Gemini's error bodies say, as [`ErrorSigns`]: `error.details[]` (`ErrorInfo`'s
//! `API_KEY_INVALID`, `QuotaFailure`'s daily quotas, `RetryInfo`'s delay), the `code` of an
//! error inside the stream, and the messages that name a refused key, a used-up quota, a
//! delay ("Please retry in 48.17s.") or a history whose function parts do not match.

use std::time::Duration;

use super::wire::{ApiError, ErrorDetail};
use crate::provider::signs::{ErrorSigns, error_object};

/// The Gemini messages that mean the history's function calls and responses do not match.
const MISMATCH_PATTERNS: &[&str] = &[
    "function call turn comes immediately after",
    "function response turn comes immediately after",
    "number of function response parts",
    "function call parts",
    "function response parts",
    "missing a thought_signature",
    "thought_signature",
    "function_response",
    "function response",
];

/// What a Gemini error body (a status's, or an error event's) says.
pub fn recognise(body: &str) -> ErrorSigns {
    let error: ApiError = error_object(body).unwrap_or_default();
    let message = error.message.as_deref().unwrap_or_default();
    ErrorSigns {
        code: error.number(),
        key_invalid: key_invalid(&error, message),
        context_too_long: context_too_long(message),
        quota_exhausted: quota_is_daily(&error, message),
        mismatched_function_parts: is_mismatched_function_parts(message),
        overloaded: false,
        retry_delay: retry_info(&error).or_else(|| delay_in_message(message)),
    }
}

/// Whether a message says the request holds more tokens than the model takes: "The input
/// token count (1200293) exceeds the maximum number of tokens allowed (1048576)."
fn context_too_long(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("input token count") && lower.contains("exceeds the maximum number of tokens")
}

/// Whether a message is one of the API's "mismatched function parts" complaints.
fn is_mismatched_function_parts(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    MISMATCH_PATTERNS.iter().any(|p| lower.contains(p))
}

fn details<'a>(error: &'a ApiError, kind: &'a str) -> impl Iterator<Item = &'a ErrorDetail> + 'a {
    error.details.iter().filter(move |d| d.is(kind))
}

fn key_invalid(error: &ApiError, message: &str) -> bool {
    details(error, "google.rpc.ErrorInfo").any(|d| d.reason.as_deref() == Some("API_KEY_INVALID"))
        || message.to_ascii_lowercase().contains("api key not valid")
}

fn quota_is_daily(error: &ApiError, message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    let per_day = |id: &Option<String>| {
        id.as_deref()
            .is_some_and(|id| id.to_ascii_lowercase().contains("perday"))
    };
    let daily_violation = details(error, "google.rpc.QuotaFailure")
        .flat_map(|d| &d.violations)
        .any(|v| per_day(&v.quota_id) || per_day(&v.quota_metric));
    daily_violation || lower.contains("limit: 0") || lower.contains("per day")
}

/// Parses a duration written as a number and a unit: `26s`, `0.9s`, `900ms`, `1.5m`, `2h`.
fn parse_duration(text: &str) -> Option<Duration> {
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

/// `RetryInfo.retryDelay` from an error object's `details`.
fn retry_info(error: &ApiError) -> Option<Duration> {
    details(error, "google.rpc.RetryInfo")
        .find_map(|d| d.retry_delay.as_deref().and_then(parse_duration))
}

/// "Please retry in 48.17s." in a message.
fn delay_in_message(message: &str) -> Option<Duration> {
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
    fn retry_info_and_messages() {
        let error: ApiError = serde_json::from_value(json!({"details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "26s"}
        ]}))
        .unwrap();
        assert_eq!(retry_info(&error), Some(Duration::from_secs(26)));
        assert_eq!(
            delay_in_message("You exceeded your current quota. Please retry in 48.17s."),
            Some(Duration::from_millis(48170))
        );
        assert_eq!(delay_in_message("try later"), None);
    }

    #[test]
    fn a_body_says_what_its_details_and_message_say() {
        let body = json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}});
        let signs = recognise(&body.to_string());
        assert!(signs.key_invalid && !signs.quota_exhausted);
        assert_eq!(signs.code, Some(400));
        assert_eq!(recognise("<html>"), ErrorSigns::default());
    }

    #[test]
    fn a_context_over_the_window_is_recognised_and_nothing_else_is() {
        let message = "The input token count (1200293) exceeds the maximum number of tokens \
                       allowed (1048576).";
        let body = json!({"error": {"code": 400, "message": message,
            "errors": [{"message": message, "domain": "global", "reason": "badRequest"}],
            "status": "INVALID_ARGUMENT"}});
        let signs = recognise(&body.to_string());
        assert!(signs.context_too_long && !signs.mismatched_function_parts);
        assert_eq!(signs.code, Some(400));
        let other = json!({"error": {"code": 400, "message": "Invalid JSON payload received.",
            "status": "INVALID_ARGUMENT"}});
        assert!(!recognise(&other.to_string()).context_too_long);
    }
}
