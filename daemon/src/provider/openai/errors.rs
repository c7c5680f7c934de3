//! What OpenAI-compatible servers' error bodies say, as [`ErrorSigns`]: `{"error":
//! {"message", "type", "param", "code"}}`, whose `type` or `code` names what went wrong
//! (`insufficient_quota`, `context_length_exceeded`), and the words Ollama, vLLM and
//! llama.cpp use for a context that is too long.

use serde::Deserialize;

use crate::provider::signs::{ErrorSigns, error_object};

/// The `error` object, read leniently (a numeric `code` is kept but not used).
#[derive(Debug, Default, Deserialize)]
struct ApiError {
    /// The error's name (`context_length_exceeded`), when it is a name.
    code: Option<serde_json::Value>,
    /// The error's type (`insufficient_quota`, `invalid_request_error`, ...).
    #[serde(rename = "type")]
    kind: Option<String>,
    /// The server's message.
    message: Option<String>,
}

impl ApiError {
    /// Whether the code or the type is `name`.
    fn is(&self, name: &str) -> bool {
        self.code.as_ref().and_then(serde_json::Value::as_str) == Some(name)
            || self.kind.as_deref() == Some(name)
    }
}

/// What an OpenAI-compatible error body says.
pub fn recognise(body: &str) -> ErrorSigns {
    let error: ApiError = error_object(body).unwrap_or_default();
    let message = error.message.as_deref().unwrap_or_default();
    ErrorSigns {
        context_too_long: context_too_long(&error, message),
        quota_exhausted: error.is("insufficient_quota"),
        ..ErrorSigns::default()
    }
}

/// OpenAI's `context_length_exceeded` (or a message that says the same: Ollama, vLLM and
/// llama.cpp word it their own way).
fn context_too_long(error: &ApiError, message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    error.is("context_length_exceeded")
        || lower.contains("maximum context length")
        || lower.contains("context length exceeded")
        || lower.contains("exceeds the context")
        || lower.contains("context window")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_the_code_or_the_type_say_what_went_wrong() {
        let quota = r#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#;
        let signs = recognise(quota);
        assert!(signs.quota_exhausted && !signs.context_too_long);
        let long = r#"{"error": {"message": "too long", "type": "invalid_request_error", "code": "context_length_exceeded"}}"#;
        assert!(recognise(long).context_too_long);
        let ollama = r#"{"error": {"message": "input exceeds the context window", "code": 400}}"#;
        assert!(recognise(ollama).context_too_long);
        assert_eq!(recognise("<html>"), ErrorSigns::default());
    }
}
