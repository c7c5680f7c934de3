//! What Anthropic's error bodies say, as [`ErrorSigns`]: `{"type": "error", "error":
//! {"type", "message"}}`, whose `type` names what went wrong (`overloaded_error`, a 529;
//! `rate_limit_error`; `api_error`; `authentication_error`), and the messages of a 400
//! `invalid_request_error` that mean a prompt too long for the model or a history whose
//! `tool_use` and `tool_result` blocks do not pair.

use serde::Deserialize;

use crate::provider::signs::{ErrorSigns, error_object};

/// The `error` object, read leniently.
#[derive(Debug, Default, Deserialize)]
struct ApiError {
    /// The error's type (`overloaded_error`, `invalid_request_error`, ...).
    #[serde(rename = "type")]
    kind: Option<String>,
    /// The API's message.
    message: Option<String>,
}

/// What an Anthropic error body (a status's, or an `error` event's data) says.
pub fn recognise(body: &str) -> ErrorSigns {
    let error: ApiError = error_object(body).unwrap_or_default();
    let kind = error.kind.as_deref().unwrap_or_default();
    let message = error.message.as_deref().unwrap_or_default();
    let invalid_request = kind == "invalid_request_error";
    ErrorSigns {
        code: code(kind),
        key_invalid: kind == "authentication_error",
        context_too_long: invalid_request && context_too_long(message),
        quota_exhausted: false,
        mismatched_function_parts: invalid_request && mismatched_tools(message),
        overloaded: kind == "overloaded_error",
        retry_delay: None,
    }
}

/// The status an error type stands for, for an `error` event that has none of its own
/// (only the types no other family uses, so another family's body is not misread).
fn code(kind: &str) -> Option<u64> {
    match kind {
        "rate_limit_error" => Some(429),
        "overloaded_error" => Some(529),
        "api_error" => Some(500),
        _ => None,
    }
}

/// "prompt is too long: 210000 tokens > 200000 maximum", or the input and `max_tokens`
/// together over the context window.
fn context_too_long(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("prompt is too long") || lower.contains("exceed context limit")
}

/// A `tool_use` without its `tool_result` in the next turn, or a `tool_result` answering
/// no `tool_use` of the turn before.
fn mismatched_tools(message: &str) -> bool {
    message.contains("tool_use") || message.contains("tool_result")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(kind: &str, message: &str) -> String {
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "r"})
            .to_string()
    }

    #[test]
    fn each_error_type_says_what_went_wrong() {
        let overloaded = recognise(&body("overloaded_error", "Overloaded"));
        assert!(overloaded.overloaded && overloaded.code == Some(529));
        assert_eq!(recognise(&body("rate_limit_error", "slow")).code, Some(429));
        assert_eq!(recognise(&body("api_error", "oops")).code, Some(500));
        assert!(recognise(&body("authentication_error", "invalid x-api-key")).key_invalid);
        let long = recognise(&body(
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
        ));
        assert!(long.context_too_long && !long.mismatched_function_parts);
        assert_eq!(long.code, None, "a 400 in a stream is not guessed");
        let unanswered = recognise(&body(
            "invalid_request_error",
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately \
             after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` \
             block in the next message.",
        ));
        assert!(unanswered.mismatched_function_parts && !unanswered.context_too_long);
        let stray = recognise(&body(
            "invalid_request_error",
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: x.",
        ));
        assert!(stray.mismatched_function_parts);
        assert_eq!(recognise("<html>"), ErrorSigns::default());
    }

    #[test]
    fn another_familys_body_is_not_misread() {
        let openai = json!({"error": {"message": "bad tool_calls", "type": "invalid_request_error",
            "code": "context_length_exceeded"}});
        let signs = recognise(&openai.to_string());
        assert!(!signs.overloaded && !signs.context_too_long && signs.code.is_none());
    }
}
