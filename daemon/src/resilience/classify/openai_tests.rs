//! The OpenAI error shape through the one classifier: `{"error": {"message", "type",
//! "param", "code"}}`, `retry-after-ms`, and the names that say what went wrong.

use std::time::{Duration, SystemTime};

use serde_json::json;

use super::*;

const CAP: Duration = Duration::from_secs(60);

fn openai(status: u16, kind: &str, code: Option<&str>, message: &str) -> ProviderError {
    with_headers(status, kind, code, message, vec![])
}

fn with_headers(
    status: u16,
    kind: &str,
    code: Option<&str>,
    message: &str,
    headers: Vec<(String, String)>,
) -> ProviderError {
    ProviderError::Status {
        status,
        headers,
        body: json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
            .to_string(),
    }
}

fn class_of(error: &ProviderError) -> FailureClass {
    classify(error, CAP, SystemTime::now()).class
}

#[test]
fn quota_and_rate_limits_are_told_apart() {
    let quota = openai(
        429,
        "insufficient_quota",
        Some("insufficient_quota"),
        "You exceeded your current quota, please check your plan and billing details.",
    );
    assert_eq!(
        class_of(&quota),
        FailureClass::QuotaExhausted { resets_in: None }
    );
    let header = |name: &str, value: &str| vec![(name.to_string(), value.to_string())];
    let limited = with_headers(
        429,
        "requests",
        Some("rate_limit_exceeded"),
        "Rate limit reached for requests",
        header("retry-after-ms", "1500"),
    );
    assert_eq!(
        class_of(&limited),
        FailureClass::RateLimited {
            server_delay: Some(Duration::from_millis(1500))
        }
    );
    let plain = with_headers(
        429,
        "requests",
        None,
        "slow down",
        header("retry-after", "2"),
    );
    assert_eq!(
        class_of(&plain),
        FailureClass::RateLimited {
            server_delay: Some(Duration::from_secs(2))
        }
    );
}

#[test]
fn a_context_too_long_needs_recovery_and_says_why() {
    let long = openai(
        400,
        "invalid_request_error",
        Some("context_length_exceeded"),
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    );
    let failure = classify(&long, CAP, SystemTime::now());
    assert_eq!(failure.class, FailureClass::ContextTooLong);
    assert!(failure.class.needs_recovery());
    assert!(
        failure.message.contains("maximum context length is 8192")
            && failure.message.contains("too long for this model"),
        "{}",
        failure.message
    );
    // Ollama and llama.cpp word it their own way, without a code.
    let ollama = openai(
        400,
        "invalid_request_error",
        None,
        "the request exceeds the context window",
    );
    assert_eq!(class_of(&ollama), FailureClass::ContextTooLong);
}

#[test]
fn other_openai_failures_fall_into_the_usual_classes() {
    let bad = openai(
        400,
        "invalid_request_error",
        None,
        "Invalid 'messages[2].role'",
    );
    assert!(matches!(class_of(&bad), FailureClass::BadRequest { .. }));
    let key = openai(
        401,
        "invalid_request_error",
        Some("invalid_api_key"),
        "Incorrect API key provided",
    );
    assert_eq!(class_of(&key), FailureClass::Auth);
    let missing = openai(
        404,
        "invalid_request_error",
        Some("model_not_found"),
        "The model `x` does not exist",
    );
    assert_eq!(class_of(&missing), FailureClass::ModelNotFound);
    let overloaded = openai(
        503,
        "server_error",
        None,
        "The server is overloaded or not ready yet.",
    );
    assert_eq!(
        class_of(&overloaded),
        FailureClass::Overloaded { server_delay: None }
    );
    let broken = openai(500, "server_error", None, "The server had an error");
    assert!(matches!(
        class_of(&broken),
        FailureClass::ServerError { .. }
    ));
}
