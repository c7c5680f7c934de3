//! What a failure is, once classified: its class (which decides whether it is retried,
//! counts toward the circuit breaker, or needs recovery) and the message the client sees.

use std::time::Duration;

use crate::provider::Phase;

/// What kind of network failure (for messages; all are treated alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkCause {
    /// Connection refused.
    Refused,
    /// Connection reset by the peer.
    Reset,
    /// Connection aborted.
    Aborted,
    /// The host name did not resolve.
    Dns,
    /// The TLS handshake failed.
    Tls,
    /// The connection ended in the middle of a response.
    UnexpectedEof,
    /// Writing to a closed connection.
    BrokenPipe,
    /// Anything else the transport reported.
    Other,
}

/// What a failure is. Every class is handled explicitly wherever it matters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureClass {
    /// The send was cancelled (shutdown).
    Cancelled,
    /// The connection failed.
    Network(NetworkCause),
    /// No answer in time (connect, headers, idle stream, or the request deadline).
    Timeout,
    /// 429 that heals by waiting; the server's delay if it gave one.
    RateLimited {
        /// The server's requested delay.
        server_delay: Option<Duration>,
    },
    /// 429 that will not heal soon (daily quota, `limit: 0`, or a delay beyond the cap).
    QuotaExhausted {
        /// When the API says the quota resets, if it does.
        resets_in: Option<Duration>,
    },
    /// 503: the model is overloaded.
    Overloaded {
        /// The server's requested delay.
        server_delay: Option<Duration>,
    },
    /// 500, 502, 504, 499 and other server-side failures.
    ServerError {
        /// The server's requested delay.
        server_delay: Option<Duration>,
    },
    /// 400 (and other client errors): the request itself is wrong.
    BadRequest {
        /// The API rejected the history's function call/response structure.
        mismatched_function_parts: bool,
    },
    /// The conversation is longer than the model's context window (a 400 that says so):
    /// the request cannot succeed as it is.
    ContextTooLong,
    /// 401/403 or an invalid API key.
    Auth,
    /// 404: the model does not exist.
    ModelNotFound,
    /// The stream ended without a finish reason, or with nothing visible, or broke.
    InvalidStream,
    /// The API refused the prompt (`promptFeedback.blockReason`).
    Blocked,
    /// The circuit breaker is open: nothing was sent.
    CircuitOpen {
        /// When a probe will be let through.
        retry_in: Duration,
    },
}

impl FailureClass {
    /// The class's name, as shown to users and in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            FailureClass::Cancelled => "cancelled",
            FailureClass::Network(_) => "network",
            FailureClass::Timeout => "timeout",
            FailureClass::RateLimited { .. } => "rate_limited",
            FailureClass::QuotaExhausted { .. } => "quota_exhausted",
            FailureClass::Overloaded { .. } => "overloaded",
            FailureClass::ServerError { .. } => "server_error",
            FailureClass::BadRequest {
                mismatched_function_parts: true,
            } => "mismatched_function_parts",
            FailureClass::BadRequest {
                mismatched_function_parts: false,
            } => "bad_request",
            FailureClass::ContextTooLong => "context_too_long",
            FailureClass::Auth => "auth",
            FailureClass::ModelNotFound => "model_not_found",
            FailureClass::InvalidStream => "invalid_stream",
            FailureClass::Blocked => "blocked",
            FailureClass::CircuitOpen { .. } => "circuit_open",
        }
    }

    /// The delay the server asked for, to honour as the minimum wait.
    pub fn server_delay(&self) -> Option<Duration> {
        match self {
            FailureClass::RateLimited { server_delay }
            | FailureClass::Overloaded { server_delay }
            | FailureClass::ServerError { server_delay } => *server_delay,
            FailureClass::Cancelled
            | FailureClass::Network(_)
            | FailureClass::Timeout
            | FailureClass::QuotaExhausted { .. }
            | FailureClass::BadRequest { .. }
            | FailureClass::ContextTooLong
            | FailureClass::Auth
            | FailureClass::ModelNotFound
            | FailureClass::InvalidStream
            | FailureClass::Blocked
            | FailureClass::CircuitOpen { .. } => None,
        }
    }

    /// Whether the request itself is at fault (retrying, or asking another model, cannot
    /// help): the session stops and asks how to recover.
    pub fn needs_recovery(&self) -> bool {
        matches!(
            self,
            FailureClass::BadRequest { .. } | FailureClass::ContextTooLong
        )
    }

    /// Whether this failure may heal by itself: the endpoint is having trouble (so it also
    /// counts toward opening its circuit breaker). A bad request, by contrast, proves the
    /// endpoint is up and will fail the same way again.
    pub fn is_transient(&self) -> bool {
        match self {
            FailureClass::Network(_)
            | FailureClass::Timeout
            | FailureClass::RateLimited { .. }
            | FailureClass::Overloaded { .. }
            | FailureClass::ServerError { .. }
            | FailureClass::InvalidStream => true,
            FailureClass::Cancelled
            | FailureClass::QuotaExhausted { .. }
            | FailureClass::BadRequest { .. }
            | FailureClass::ContextTooLong
            | FailureClass::Auth
            | FailureClass::ModelNotFound
            | FailureClass::Blocked
            | FailureClass::CircuitOpen { .. } => false,
        }
    }
}

/// A classified failure of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What it is.
    pub class: FailureClass,
    /// Before any response byte, or during the stream.
    pub phase: Phase,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// What went wrong, with the API's own message, and what to do if anything.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
