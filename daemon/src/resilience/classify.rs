//! One classifier for every failure of a request to the model API.
//!
//! It looks at the HTTP status, the error body (Gemini's `error.status`, `error.message`,
//! `error.details[]`: `RetryInfo`, `QuotaFailure`, `ErrorInfo`; OpenAI's `error.type` and
//! `error.code`), the retry headers and the transport error's cause chain, and decides once
//! what the failure *is* (`class.rs`). Whether to retry follows from the
//! class alone (see `retry.rs`).

use std::io;
use std::time::{Duration, SystemTime};

pub use super::class::{Failure, FailureClass, NetworkCause};
use super::delay;
use crate::provider::gemini::wire::{ApiError, ErrorDetail, api_error};
use crate::provider::{Phase, ProviderError};

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

/// Whether a 400's message is one of the API's "mismatched function parts" complaints.
pub fn is_mismatched_function_parts(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    MISMATCH_PATTERNS.iter().any(|p| lower.contains(p))
}

fn details<'a>(error: &'a ApiError, kind: &'a str) -> impl Iterator<Item = &'a ErrorDetail> + 'a {
    error.details.iter().filter(move |d| d.is(kind))
}

fn api_key_invalid(error: &ApiError, message: &str) -> bool {
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

fn status_class(
    status: u16,
    headers: &[(String, String)],
    body: &str,
    max_delay: Duration,
    now: SystemTime,
) -> FailureClass {
    let error = api_error(body).unwrap_or_default();
    let message = error.message.as_deref().unwrap_or_default();
    let header = |wanted: &str| {
        headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
            .map(|(_, value)| value.as_str())
    };
    let header_delay = header("retry-after-ms")
        .and_then(delay::parse_retry_after_ms)
        .or_else(|| header("retry-after").and_then(|v| delay::parse_retry_after(v, now)));
    let server_delay = header_delay
        .or_else(|| delay::retry_info(&error))
        .or_else(|| delay::from_message(message));
    match status {
        400 if api_key_invalid(&error, message) => FailureClass::Auth,
        400 | 413 if context_too_long(&error, message) => FailureClass::ContextTooLong,
        400 => FailureClass::BadRequest {
            mismatched_function_parts: is_mismatched_function_parts(message),
        },
        401 | 403 => FailureClass::Auth,
        404 => FailureClass::ModelNotFound,
        408 => FailureClass::Timeout,
        429 if quota_is_daily(&error, message)
            || error.is("insufficient_quota")
            || server_delay.is_some_and(|d| d > max_delay) =>
        {
            FailureClass::QuotaExhausted {
                resets_in: server_delay,
            }
        }
        429 => FailureClass::RateLimited { server_delay },
        503 => FailureClass::Overloaded { server_delay },
        499 | 500 | 502 | 504 => FailureClass::ServerError { server_delay },
        402 | 405..=407 | 409..=428 | 430..=498 => FailureClass::BadRequest {
            mismatched_function_parts: false,
        },
        501 | 505..=599 => FailureClass::ServerError { server_delay },
        // A success or redirect status where an error was expected: treat as server trouble.
        0..=399 | 600..=u16::MAX => FailureClass::ServerError { server_delay },
    }
}

fn network_cause(chain: &str, io_kind: Option<io::ErrorKind>) -> NetworkCause {
    match io_kind {
        Some(io::ErrorKind::ConnectionRefused) => return NetworkCause::Refused,
        Some(io::ErrorKind::ConnectionReset) => return NetworkCause::Reset,
        Some(io::ErrorKind::ConnectionAborted) => return NetworkCause::Aborted,
        Some(io::ErrorKind::BrokenPipe) => return NetworkCause::BrokenPipe,
        Some(io::ErrorKind::UnexpectedEof) => return NetworkCause::UnexpectedEof,
        _ => {}
    }
    let lower = chain.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["connection refused"]) {
        NetworkCause::Refused
    } else if has(&["connection reset", "reset by peer"]) {
        NetworkCause::Reset
    } else if has(&[
        "dns error",
        "failed to lookup address",
        "name or service not known",
    ]) {
        NetworkCause::Dns
    } else if has(&["tls", "certificate", "handshake"]) {
        NetworkCause::Tls
    } else if has(&[
        "unexpected eof",
        "end of file",
        "closed before message completed",
        "incomplete",
    ]) {
        NetworkCause::UnexpectedEof
    } else if has(&["broken pipe"]) {
        NetworkCause::BrokenPipe
    } else if has(&["connection aborted"]) {
        NetworkCause::Aborted
    } else {
        NetworkCause::Other
    }
}

/// An error object that arrived inside the stream, classified by its `code`.
fn in_stream_class(body: &str, message: &str) -> FailureClass {
    let code = api_error(body).and_then(|e| e.number()).unwrap_or(500);
    match code {
        429 => FailureClass::RateLimited { server_delay: None },
        503 => FailureClass::Overloaded { server_delay: None },
        400 => FailureClass::BadRequest {
            mismatched_function_parts: is_mismatched_function_parts(message),
        },
        _ => FailureClass::ServerError { server_delay: None },
    }
}

/// What the user should do, for the classes where the answer is not "wait".
fn advice(class: &FailureClass) -> Option<String> {
    match class {
        FailureClass::QuotaExhausted {
            resets_in: Some(wait),
        } => Some(format!(
            "the quota will not recover by retrying; the API says it resets in {}",
            humantime::format_duration(Duration::from_secs(wait.as_secs().max(1)))
        )),
        FailureClass::QuotaExhausted { resets_in: None } => Some(
            "the quota will not recover by retrying (daily quotas reset at midnight Pacific time)"
                .to_string(),
        ),
        FailureClass::Auth => Some("check the provider's API key".to_string()),
        FailureClass::ModelNotFound => {
            Some("check the model's name (`omnictl model`, or omnid's --model)".to_string())
        }
        FailureClass::ContextTooLong => Some(
            "the conversation is too long for this model: go back to an earlier point \
             (`omnictl recover --deep`, `back`, `checkout`) or switch to a model with a \
             larger context (`omnictl model`)"
                .to_string(),
        ),
        FailureClass::Cancelled
        | FailureClass::Network(_)
        | FailureClass::Timeout
        | FailureClass::RateLimited { .. }
        | FailureClass::Overloaded { .. }
        | FailureClass::ServerError { .. }
        | FailureClass::BadRequest { .. }
        | FailureClass::InvalidStream
        | FailureClass::Blocked
        | FailureClass::CircuitOpen { .. } => None,
    }
}

/// Classifies a provider error. `max_delay` is the retry cap: a 429 asking for a longer
/// wait is treated as an exhausted quota.
pub fn classify(error: &ProviderError, max_delay: Duration, now: SystemTime) -> Failure {
    let (class, phase, status) = match error {
        ProviderError::Status {
            status,
            headers,
            body,
        } => (
            status_class(*status, headers, body, max_delay, now),
            Phase::Connect,
            Some(*status),
        ),
        ProviderError::Transport {
            phase,
            chain,
            timeout,
            io_kind,
            ..
        } => {
            let class = if *timeout || *io_kind == Some(io::ErrorKind::TimedOut) {
                FailureClass::Timeout
            } else {
                FailureClass::Network(network_cause(chain, *io_kind))
            };
            (class, *phase, None)
        }
        ProviderError::InStream { message, body } => {
            (in_stream_class(body, message), Phase::Stream, None)
        }
        ProviderError::BrokenStream(_)
        | ProviderError::NoFinishReason
        | ProviderError::EmptyAnswer { .. } => (FailureClass::InvalidStream, Phase::Stream, None),
        ProviderError::Blocked { .. } => (FailureClass::Blocked, Phase::Connect, None),
    };
    let mut message = error.to_string();
    if let Some(advice) = advice(&class) {
        message = format!("{message}; {advice}");
    }
    Failure {
        class,
        phase,
        status,
        message,
    }
}

#[cfg(test)]
mod openai_tests;
#[cfg(test)]
mod tests;
