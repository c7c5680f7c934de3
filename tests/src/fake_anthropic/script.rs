//! What the fake answers a `POST /v1/messages`: scripted replies (Anthropic-shaped errors,
//! resets, cut, broken, slow or held streams) before the default echo resumes.

use std::time::Duration;

use serde_json::json;

use super::Answer;
use crate::fake_wire::Gate;

/// One scripted reply to one accepted request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An answer: streamed events, or a `message` object when not streamed.
    Answer(Answer),
    /// An HTTP error: status, extra headers, body.
    Status {
        /// HTTP status code.
        status: u16,
        /// Extra response headers (e.g. `retry-after`).
        headers: Vec<(String, String)>,
        /// The body, usually an Anthropic error object.
        body: String,
    },
    /// Reset the connection before sending a single byte.
    Reset,
    /// Send the first `after` events of `answer`, then drop the connection (no end of
    /// body). Not streamed: half the `message` object, then the drop.
    Cut {
        /// The answer being cut.
        answer: Answer,
        /// Events sent before the drop.
        after: usize,
    },
    /// Send the first `after` events of `answer`, then an `error` event of this type and
    /// message, and end the body. Not streamed: a 529 with that error.
    ErrorEvent {
        /// The answer broken off.
        answer: Answer,
        /// Events sent before the error.
        after: usize,
        /// The error's `type`, e.g. `overloaded_error`.
        kind: String,
        /// The error's message.
        message: String,
    },
    /// The answer with `delay` before each event (not streamed: before the body).
    Slow {
        /// The answer.
        answer: Answer,
        /// Waited before each event.
        delay: Duration,
    },
    /// Send the first `after` events, wait for `gate`, then the rest; a client that hangs
    /// up meanwhile is counted in [`super::FakeAnthropic::hangups`].
    HoldAfter {
        /// The answer.
        answer: Answer,
        /// Events sent before holding.
        after: usize,
        /// Opened by the test.
        gate: Gate,
    },
}

/// Anthropic's error body: `{"type": "error", "error": {"type", "message"}, "request_id"}`.
pub(crate) fn error_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message},
           "request_id": "req_fake"})
    .to_string()
}

impl Reply {
    /// An HTTP error with an Anthropic-shaped body.
    pub fn error(status: u16, kind: &str, message: &str) -> Self {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: error_body(kind, message),
        }
    }

    /// A 429 `rate_limit_error` with `retry-after: <seconds>`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        let mut reply = Self::error(
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests \
             per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
        );
        if let Reply::Status { headers, .. } = &mut reply {
            headers.push(("retry-after".into(), retry_after_secs.to_string()));
        }
        reply
    }

    /// A 529 `overloaded_error`.
    pub fn overloaded() -> Self {
        Self::error(529, "overloaded_error", "Overloaded")
    }

    /// A 500 `api_error`.
    pub fn api_error() -> Self {
        Self::error(500, "api_error", "Internal server error")
    }

    /// A 401 `authentication_error`.
    pub fn unauthenticated() -> Self {
        Self::error(401, "authentication_error", "invalid x-api-key")
    }

    /// A 403 `permission_error`.
    pub fn forbidden() -> Self {
        Self::error(
            403,
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
        )
    }

    /// A 400 for a conversation longer than the model's context.
    pub fn prompt_too_long() -> Self {
        Self::error(
            400,
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
        )
    }

    /// `answer` broken off after `after` events by an `overloaded_error` event.
    pub fn overloaded_mid_stream(answer: Answer, after: usize) -> Self {
        Reply::ErrorEvent {
            answer,
            after,
            kind: "overloaded_error".into(),
            message: "Overloaded".into(),
        }
    }
}
