//! One classifier for every failure of a request to the model API.
//!
//! It looks at the HTTP status, what the families recognise in the error body (each
//! family's error shape is read beside its provider, `provider/*/errors.rs`, and told here
//! as neutral [`ErrorSigns`]), the retry headers and the transport error's cause chain,
//! and decides once what the failure *is* (`class.rs`). Whether to retry follows from the
//! class alone (see `retry.rs`).

use std::io;
use std::time::{Duration, SystemTime};

pub use super::class::{Failure, FailureClass, NetworkCause};
use super::delay;
use crate::provider::signs::ErrorSigns;
use crate::provider::{Kind, Phase, ProviderError};

fn status_class(
    status: u16,
    headers: &[(String, String)],
    body: &str,
    max_delay: Duration,
    now: SystemTime,
) -> FailureClass {
    let signs = Kind::error_signs(body);
    let header = |wanted: &str| {
        headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
            .map(|(_, value)| value.as_str())
    };
    let header_delay = header("retry-after-ms")
        .and_then(delay::parse_retry_after_ms)
        .or_else(|| header("retry-after").and_then(|v| delay::parse_retry_after(v, now)));
    let server_delay = header_delay.or(signs.retry_delay);
    class_of_status(status, &signs, server_delay, max_delay)
}

/// The class of an HTTP status, given what the body says and the delay asked for.
fn class_of_status(
    status: u16,
    signs: &ErrorSigns,
    server_delay: Option<Duration>,
    max_delay: Duration,
) -> FailureClass {
    match status {
        400 if signs.key_invalid => FailureClass::Auth,
        400 | 413 if signs.context_too_long => FailureClass::ContextTooLong,
        400 => FailureClass::BadRequest {
            mismatched_function_parts: signs.mismatched_function_parts,
        },
        401 | 403 => FailureClass::Auth,
        404 => FailureClass::ModelNotFound,
        408 => FailureClass::Timeout,
        429 if signs.quota_exhausted || server_delay.is_some_and(|d| d > max_delay) => {
            FailureClass::QuotaExhausted {
                resets_in: server_delay,
            }
        }
        429 => FailureClass::RateLimited { server_delay },
        503 => FailureClass::Overloaded { server_delay },
        500..=599 if signs.overloaded => FailureClass::Overloaded { server_delay },
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
fn in_stream_class(signs: &ErrorSigns) -> FailureClass {
    match signs.code.unwrap_or(500) {
        429 => FailureClass::RateLimited { server_delay: None },
        503 => FailureClass::Overloaded { server_delay: None },
        400 => FailureClass::BadRequest {
            mismatched_function_parts: signs.mismatched_function_parts,
        },
        _ if signs.overloaded => FailureClass::Overloaded { server_delay: None },
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
        ProviderError::InStream { body, .. } => (
            in_stream_class(&Kind::error_signs(body)),
            Phase::Stream,
            None,
        ),
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
mod anthropic_tests;
#[cfg(test)]
mod openai_tests;
#[cfg(test)]
mod tests;
