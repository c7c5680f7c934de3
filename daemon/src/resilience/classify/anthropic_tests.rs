//! Anthropic's error shape through the one classifier: `{"type": "error", "error":
//! {"type", "message"}}` behind a status or in an `error` event, with `retry-after`.

use std::time::{Duration, SystemTime};

use serde_json::json;

use super::*;

const CAP: Duration = Duration::from_secs(60);

fn body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"})
        .to_string()
}

fn anthropic(status: u16, kind: &str, message: &str, headers: &[(&str, &str)]) -> ProviderError {
    ProviderError::Status {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        body: body(kind, message),
    }
}

fn class_of(error: &ProviderError) -> FailureClass {
    classify(error, CAP, SystemTime::now()).class
}

#[test]
fn every_status_anthropic_sends_is_classed_as_the_others_are() {
    let rows = [
        (
            anthropic(
                429,
                "rate_limit_error",
                "rate limit",
                &[("retry-after", "7")],
            ),
            FailureClass::RateLimited {
                server_delay: Some(Duration::from_secs(7)),
            },
        ),
        (
            anthropic(529, "overloaded_error", "Overloaded", &[]),
            FailureClass::Overloaded { server_delay: None },
        ),
        (
            anthropic(500, "api_error", "Internal server error", &[]),
            FailureClass::ServerError { server_delay: None },
        ),
        (
            anthropic(401, "authentication_error", "invalid x-api-key", &[]),
            FailureClass::Auth,
        ),
        (
            anthropic(403, "permission_error", "no permission", &[]),
            FailureClass::Auth,
        ),
        (
            anthropic(
                400,
                "invalid_request_error",
                "prompt is too long: 210000 tokens > 200000 maximum",
                &[],
            ),
            FailureClass::ContextTooLong,
        ),
        (
            anthropic(
                400,
                "invalid_request_error",
                "messages.1: `tool_use` ids were found without `tool_result` blocks \
                 immediately after: toolu_1.",
                &[],
            ),
            FailureClass::BadRequest {
                mismatched_function_parts: true,
            },
        ),
        (
            anthropic(
                400,
                "invalid_request_error",
                "max_tokens: Field required",
                &[],
            ),
            FailureClass::BadRequest {
                mismatched_function_parts: false,
            },
        ),
    ];
    for (error, class) in rows {
        assert_eq!(class_of(&error), class, "{error:?}");
    }
}

#[test]
fn an_error_event_mid_stream_is_transient() {
    let event = |kind: &str, message: &str| ProviderError::InStream {
        message: message.into(),
        body: body(kind, message),
    };
    assert_eq!(
        class_of(&event("overloaded_error", "Overloaded")),
        FailureClass::Overloaded { server_delay: None }
    );
    assert_eq!(
        class_of(&event("api_error", "Internal server error")),
        FailureClass::ServerError { server_delay: None }
    );
    assert_eq!(
        class_of(&event("rate_limit_error", "slow down")),
        FailureClass::RateLimited { server_delay: None }
    );
}
