use std::io::ErrorKind;
use std::time::{Duration, SystemTime};

use serde_json::json;

use super::*;

const CAP: Duration = Duration::from_secs(60);

fn status(code: u16, body: serde_json::Value) -> ProviderError {
    ProviderError::Status {
        status: code,
        headers: vec![],
        body: body.to_string(),
    }
}

fn gemini(code: u16, api_status: &str, message: &str) -> ProviderError {
    status(
        code,
        json!({"error": {"code": code, "message": message, "status": api_status}}),
    )
}

fn transport(
    phase: Phase,
    chain: &str,
    timeout: bool,
    io_kind: Option<ErrorKind>,
) -> ProviderError {
    ProviderError::Transport {
        phase,
        chain: chain.into(),
        timeout,
        connect: phase == Phase::Connect,
        io_kind,
    }
}

fn quota(quota_id: &str, retry_delay: Option<&str>, message: &str) -> ProviderError {
    let mut details = vec![json!({
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": quota_id}]
    })];
    if let Some(delay) = retry_delay {
        details.push(
            json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}),
        );
    }
    status(
        429,
        json!({"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED", "details": details}}),
    )
}

#[test]
fn every_class_from_real_shaped_failures() {
    let secs = |s| Some(Duration::from_secs(s));
    let rows: Vec<(&str, ProviderError, FailureClass, Phase)> = vec![
        (
            "503 overloaded",
            gemini(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
            FailureClass::Overloaded { server_delay: None },
            Phase::Connect,
        ),
        (
            "500 internal",
            gemini(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"),
            FailureClass::ServerError { server_delay: None },
            Phase::Connect,
        ),
        (
            "502 from a gateway, HTML body",
            ProviderError::Status { status: 502, headers: vec![], body: "<html>Bad Gateway</html>".into() },
            FailureClass::ServerError { server_delay: None },
            Phase::Connect,
        ),
        (
            "504 deadline exceeded",
            gemini(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
            FailureClass::ServerError { server_delay: None },
            Phase::Connect,
        ),
        (
            "499 cancelled by the server",
            gemini(499, "CANCELLED", "The operation was cancelled."),
            FailureClass::ServerError { server_delay: None },
            Phase::Connect,
        ),
        (
            "429 per-minute with RetryInfo",
            quota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", Some("26s"),
                  "You exceeded your current quota, please check your plan and billing details."),
            FailureClass::RateLimited { server_delay: secs(26) },
            Phase::Connect,
        ),
        (
            "429 with Retry-After header",
            ProviderError::Status {
                status: 429,
                headers: vec![("retry-after".into(), "1".into())],
                body: json!({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}).to_string(),
            },
            FailureClass::RateLimited { server_delay: secs(1) },
            Phase::Connect,
        ),
        (
            "429 with the delay only in the message",
            gemini(429, "RESOURCE_EXHAUSTED", "Quota exceeded. Please retry in 48.17s."),
            FailureClass::RateLimited { server_delay: Some(Duration::from_millis(48170)) },
            Phase::Connect,
        ),
        (
            "429 daily quota",
            quota("GenerateRequestsPerDayPerProjectPerModel-FreeTier", None,
                  "You exceeded your current quota, please check your plan and billing details."),
            FailureClass::QuotaExhausted { resets_in: None },
            Phase::Connect,
        ),
        (
            "429 with limit: 0",
            gemini(429, "RESOURCE_EXHAUSTED",
                   "Quota exceeded for metric: generate_content_free_tier_input_token_count, limit: 0"),
            FailureClass::QuotaExhausted { resets_in: None },
            Phase::Connect,
        ),
        (
            "429 asking for longer than the cap",
            quota("GenerateRequestsPerHourPerProject", Some("3600s"), "Quota exceeded."),
            FailureClass::QuotaExhausted { resets_in: secs(3600) },
            Phase::Connect,
        ),
        (
            "400 invalid argument",
            gemini(400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
            FailureClass::BadRequest { mismatched_function_parts: false },
            Phase::Connect,
        ),
        (
            "400 function call after the wrong turn",
            gemini(400, "INVALID_ARGUMENT", "Please ensure that function call turn comes immediately after a user turn or after a function response turn."),
            FailureClass::BadRequest { mismatched_function_parts: true },
            Phase::Connect,
        ),
        (
            "400 response/call part counts differ",
            gemini(400, "INVALID_ARGUMENT", "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."),
            FailureClass::BadRequest { mismatched_function_parts: true },
            Phase::Connect,
        ),
        (
            "400 missing thought signature",
            gemini(400, "INVALID_ARGUMENT", "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly."),
            FailureClass::BadRequest { mismatched_function_parts: true },
            Phase::Connect,
        ),
        (
            "400 invalid API key",
            status(400, json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT",
                   "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}})),
            FailureClass::Auth,
            Phase::Connect,
        ),
        (
            "401 unauthenticated",
            gemini(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
            FailureClass::Auth,
            Phase::Connect,
        ),
        (
            "403 permission denied",
            gemini(403, "PERMISSION_DENIED", "The caller does not have permission"),
            FailureClass::Auth,
            Phase::Connect,
        ),
        (
            "404 unknown model",
            gemini(404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent."),
            FailureClass::ModelNotFound,
            Phase::Connect,
        ),
        (
            "array-wrapped 503 from a proxy",
            status(503, json!([{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}])),
            FailureClass::Overloaded { server_delay: None },
            Phase::Connect,
        ),
        (
            "connection refused",
            transport(Phase::Connect, "error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)", false, Some(ErrorKind::ConnectionRefused)),
            FailureClass::Network(NetworkCause::Refused),
            Phase::Connect,
        ),
        (
            "connection reset before any byte",
            transport(Phase::Connect, "error sending request: connection reset by peer", false, Some(ErrorKind::ConnectionReset)),
            FailureClass::Network(NetworkCause::Reset),
            Phase::Connect,
        ),
        (
            "connection aborted",
            transport(Phase::Connect, "software caused connection abort", false, Some(ErrorKind::ConnectionAborted)),
            FailureClass::Network(NetworkCause::Aborted),
            Phase::Connect,
        ),
        (
            "dns failure",
            transport(Phase::Connect, "error sending request: client error (Connect): dns error: failed to lookup address information: Name or service not known", false, None),
            FailureClass::Network(NetworkCause::Dns),
            Phase::Connect,
        ),
        (
            "tls failure",
            transport(Phase::Connect, "error sending request: client error (Connect): invalid peer certificate: UnknownIssuer", false, None),
            FailureClass::Network(NetworkCause::Tls),
            Phase::Connect,
        ),
        (
            "body cut mid-stream",
            transport(Phase::Stream, "error decoding response body: error reading a body from connection: end of file before message length reached", false, None),
            FailureClass::Network(NetworkCause::UnexpectedEof),
            Phase::Stream,
        ),
        (
            "unexpected eof",
            transport(Phase::Stream, "unexpected end of file", false, Some(ErrorKind::UnexpectedEof)),
            FailureClass::Network(NetworkCause::UnexpectedEof),
            Phase::Stream,
        ),
        (
            "broken pipe",
            transport(Phase::Connect, "error sending request: Broken pipe (os error 32)", false, Some(ErrorKind::BrokenPipe)),
            FailureClass::Network(NetworkCause::BrokenPipe),
            Phase::Connect,
        ),
        (
            "connect timeout",
            transport(Phase::Connect, "error sending request: operation timed out", true, None),
            FailureClass::Timeout,
            Phase::Connect,
        ),
        (
            "stall past the idle timeout",
            transport(Phase::Stream, "no data for 1 s", true, Some(ErrorKind::TimedOut)),
            FailureClass::Timeout,
            Phase::Stream,
        ),
        (
            "408 request timeout",
            gemini(408, "DEADLINE_EXCEEDED", "Request timed out."),
            FailureClass::Timeout,
            Phase::Connect,
        ),
        (
            "stream without a finish reason",
            ProviderError::NoFinishReason,
            FailureClass::InvalidStream,
            Phase::Stream,
        ),
        (
            "stream with nothing visible",
            ProviderError::EmptyAnswer { finish_reason: "STOP".into() },
            FailureClass::InvalidStream,
            Phase::Stream,
        ),
        (
            "stream cut inside an event",
            ProviderError::BrokenStream("the stream ended in the middle of an event".into()),
            FailureClass::InvalidStream,
            Phase::Stream,
        ),
        (
            "an error object inside the stream",
            ProviderError::InStream {
                message: "The model is overloaded.".into(),
                body: json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}).to_string(),
            },
            FailureClass::Overloaded { server_delay: None },
            Phase::Stream,
        ),
        (
            "a blocked prompt",
            ProviderError::Blocked { reason: "SAFETY".into() },
            FailureClass::Blocked,
            Phase::Connect,
        ),
    ];
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    for (what, error, class, phase) in rows {
        let failure = classify(&error, CAP, now);
        assert_eq!(failure.class, class, "{what}");
        assert_eq!(failure.phase, phase, "{what}");
    }
}

#[test]
fn messages_keep_the_apis_words_and_say_what_to_do() {
    let now = SystemTime::UNIX_EPOCH;
    let daily = classify(
        &quota(
            "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
            None,
            "You exceeded your current quota.",
        ),
        CAP,
        now,
    );
    assert!(
        daily.message.contains("You exceeded your current quota."),
        "{}",
        daily.message
    );
    assert!(
        daily.message.contains("midnight Pacific"),
        "{}",
        daily.message
    );
    let hourly = classify(
        &quota("PerHour", Some("7200s"), "Quota exceeded."),
        CAP,
        now,
    );
    assert!(
        hourly.message.contains("resets in 2h"),
        "{}",
        hourly.message
    );
    let auth = classify(&gemini(401, "UNAUTHENTICATED", "bad credentials"), CAP, now);
    assert!(
        auth.message.ends_with("check the provider's API key"),
        "{}",
        auth.message
    );
    assert_eq!(auth.status, Some(401));
}

#[test]
fn a_family_that_says_overloaded_is_waited_out_then_falls_back_whatever_its_number() {
    let overloaded = ErrorSigns {
        overloaded: true,
        ..ErrorSigns::default()
    };
    let delay = Some(Duration::from_secs(3));
    assert_eq!(
        class_of_status(529, &overloaded, delay, CAP),
        FailureClass::Overloaded {
            server_delay: delay
        }
    );
    assert_eq!(
        class_of_status(529, &ErrorSigns::default(), None, CAP),
        FailureClass::ServerError { server_delay: None }
    );
    assert_eq!(
        class_of_status(400, &overloaded, None, CAP),
        FailureClass::BadRequest {
            mismatched_function_parts: false
        },
        "a request that is wrong stays wrong"
    );
    assert_eq!(
        in_stream_class(&overloaded),
        FailureClass::Overloaded { server_delay: None }
    );
    assert_eq!(
        in_stream_class(&ErrorSigns::default()),
        FailureClass::ServerError { server_delay: None }
    );
}
