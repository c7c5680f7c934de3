//! What a family recognises in an error body, in words every family shares, so that the
//! one classifier (`resilience/classify.rs`) decides what a failure is without knowing any
//! family's error shape. Each family reads its own shape (`gemini/errors.rs`,
//! `openai/errors.rs`); the signs of all of them are joined ([`Kind::error_signs`]), since
//! an error carries no family and gateways relay other families' bodies.
//!
//! [`Kind::error_signs`]: super::Kind::error_signs

use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// What an error body says, beyond its HTTP status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorSigns {
    /// The HTTP-like number the error object gives (Gemini's `code`): how an error that
    /// arrives inside a stream, with no status of its own, is classified.
    pub code: Option<u64>,
    /// The key was refused, whatever the status says (Gemini's 400 `API_KEY_INVALID`).
    pub key_invalid: bool,
    /// The conversation is longer than the model's context window.
    pub context_too_long: bool,
    /// A quota that waiting a moment will not restore (a daily one, or no credit left).
    pub quota_exhausted: bool,
    /// The API rejected the history's function calls and responses as not matching.
    pub mismatched_function_parts: bool,
    /// The API says the model is overloaded, whatever number it gives (a status other
    /// than 503, or an error event with none): as a 503 it is waited out, then the next
    /// model of the chain is asked.
    pub overloaded: bool,
    /// How long the body asks the client to wait before retrying.
    pub retry_delay: Option<Duration>,
}

impl ErrorSigns {
    /// Everything either recognised: flags joined, the first number and delay kept.
    pub fn or(self, other: ErrorSigns) -> ErrorSigns {
        ErrorSigns {
            code: self.code.or(other.code),
            key_invalid: self.key_invalid || other.key_invalid,
            context_too_long: self.context_too_long || other.context_too_long,
            quota_exhausted: self.quota_exhausted || other.quota_exhausted,
            mismatched_function_parts: self.mismatched_function_parts
                || other.mismatched_function_parts,
            overloaded: self.overloaded || other.overloaded,
            retry_delay: self.retry_delay.or(other.retry_delay),
        }
    }
}

/// An error body: `{"error": {...}}`, or that inside a JSON array as some gateways send it.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ErrorBody<T> {
    One { error: T },
    Many(Vec<ErrorBody<T>>),
}

/// The `error` object of an error body, read as `T` (each family's shape), if it has one.
pub fn error_object<T: DeserializeOwned>(body: &str) -> Option<T> {
    match serde_json::from_str::<ErrorBody<T>>(body).ok()? {
        ErrorBody::One { error } => Some(error),
        ErrorBody::Many(mut items) if !items.is_empty() => match items.swap_remove(0) {
            ErrorBody::One { error } => Some(error),
            ErrorBody::Many(_) => None,
        },
        ErrorBody::Many(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Message {
        message: Option<String>,
    }

    #[test]
    fn error_objects_plain_and_wrapped_in_an_array() {
        let plain = r#"{"error": {"code": 429, "message": "slow down"}}"#;
        let read = |body| error_object::<Message>(body).and_then(|e| e.message);
        assert_eq!(read(plain).as_deref(), Some("slow down"));
        let wrapped = r#"[{"error": {"code": 503, "message": "overloaded"}}]"#;
        assert_eq!(read(wrapped).as_deref(), Some("overloaded"));
        assert!(read("<html>").is_none());
        assert!(error_object::<Message>(r#"{"other": 1}"#).is_none());
        assert!(error_object::<Message>("[]").is_none());
    }

    #[test]
    fn signs_are_joined_flag_by_flag_and_the_first_number_and_delay_win() {
        let gemini = ErrorSigns {
            code: Some(400),
            mismatched_function_parts: true,
            retry_delay: Some(Duration::from_secs(2)),
            ..ErrorSigns::default()
        };
        let openai = ErrorSigns {
            code: Some(500),
            context_too_long: true,
            retry_delay: Some(Duration::from_secs(9)),
            ..ErrorSigns::default()
        };
        let joined = gemini.or(openai);
        assert_eq!(joined.code, Some(400));
        assert!(joined.mismatched_function_parts && joined.context_too_long);
        assert!(!joined.key_invalid && !joined.quota_exhausted && !joined.overloaded);
        assert_eq!(joined.retry_delay, Some(Duration::from_secs(2)));
    }
}
