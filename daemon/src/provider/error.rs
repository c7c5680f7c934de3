//! What can go wrong talking to the model API, with everything retry logic and diagnostics
//! need kept: the phase, the HTTP status and headers, the raw body, the cause chain.

use std::error::Error as _;
use std::io;

use super::redact::Redactor;
use super::signs::error_object;

/// Where in the exchange a failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before any response byte: connecting, sending, waiting for headers.
    Connect,
    /// While the answer streamed.
    Stream,
}

/// A failure of one request to the model API.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The API answered with a non-success HTTP status.
    #[error("{}", describe_status(*status, body))]
    Status {
        /// The HTTP status.
        status: u16,
        /// The response headers that matter (`retry-after`, content type, ...).
        headers: Vec<(String, String)>,
        /// The raw body (capped at 1 MiB).
        body: String,
    },
    /// The connection failed or timed out.
    #[error("{}: {chain}", match phase {
        Phase::Connect => "could not reach the model API",
        Phase::Stream => "the connection to the model API broke while the answer streamed",
    })]
    Transport {
        /// Before or during the stream.
        phase: Phase,
        /// The error and its causes, outermost first, joined with ": ".
        chain: String,
        /// The transport reported a timeout.
        timeout: bool,
        /// The failure happened while connecting.
        connect: bool,
        /// The innermost I/O error kind, if any.
        io_kind: Option<io::ErrorKind>,
    },
    /// The stream was not valid (cut inside an event, bad UTF-8, a chunk that is not JSON).
    #[error("the answer stream broke off: {0}")]
    BrokenStream(String),
    /// The API sent an error object inside the stream.
    #[error("the model API reported an error in the middle of the answer: {message}")]
    InStream {
        /// The API's message.
        message: String,
        /// The raw event.
        body: String,
    },
    /// The API refused the prompt (`promptFeedback.blockReason`).
    #[error("the model API blocked the prompt ({reason}); rephrase it and send again")]
    Blocked {
        /// The block reason.
        reason: String,
    },
    /// The stream ended without a chunk carrying a finish reason.
    #[error("the answer stream ended before the model finished (no finish reason)")]
    NoFinishReason,
    /// The stream finished without anything visible and without a function call.
    #[error("the model finished ({finish_reason}) without any answer")]
    EmptyAnswer {
        /// The finish reason given.
        finish_reason: String,
    },
}

impl ProviderError {
    /// Builds a transport error from reqwest's, keeping its whole cause chain.
    pub fn transport(phase: Phase, error: &reqwest::Error) -> Self {
        let mut chain = error.to_string();
        let mut io_kind = None;
        let mut source = error.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            if !chain.contains(&text) {
                chain.push_str(": ");
                chain.push_str(&text);
            }
            if let Some(io) = cause.downcast_ref::<io::Error>() {
                io_kind = Some(io.kind());
            }
            source = cause.source();
        }
        ProviderError::Transport {
            phase,
            chain,
            timeout: error.is_timeout(),
            connect: error.is_connect(),
            io_kind,
        }
    }
}

impl ProviderError {
    /// The same error with every secret the redactor knows removed from its text: an API
    /// may echo the key it was sent in a message, a body or a header.
    pub fn redacted(self, redactor: &Redactor) -> Self {
        let clean = |text: String| redactor.text(&text);
        match self {
            ProviderError::Status {
                status,
                headers,
                body,
            } => ProviderError::Status {
                status,
                headers: headers
                    .into_iter()
                    .map(|(name, value)| {
                        let value = redactor.header(&name, &value);
                        (name, value)
                    })
                    .collect(),
                body: clean(body),
            },
            ProviderError::Transport {
                phase,
                chain,
                timeout,
                connect,
                io_kind,
            } => ProviderError::Transport {
                phase,
                chain: clean(chain),
                timeout,
                connect,
                io_kind,
            },
            ProviderError::BrokenStream(why) => ProviderError::BrokenStream(clean(why)),
            ProviderError::InStream { message, body } => ProviderError::InStream {
                message: clean(message),
                body: clean(body),
            },
            ProviderError::Blocked { reason } => ProviderError::Blocked {
                reason: clean(reason),
            },
            ProviderError::NoFinishReason => ProviderError::NoFinishReason,
            ProviderError::EmptyAnswer { finish_reason } => ProviderError::EmptyAnswer {
                finish_reason: clean(finish_reason),
            },
        }
    }
}

/// What every family's error object says for a message: its text, Gemini's canonical
/// status (`INVALID_ARGUMENT`) where the family gives one, else its type
/// (`overloaded_error`).
#[derive(Debug, serde::Deserialize)]
struct Described {
    message: Option<String>,
    status: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

fn describe_status(status: u16, body: &str) -> String {
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    let answered = |label: &str| match label {
        "" => format!("the model API answered HTTP {status}"),
        label => format!("the model API answered HTTP {status} {label}"),
    };
    match error_object::<Described>(body) {
        Some(error) => {
            // A status outside the standard (Anthropic's 529) has no reason: its type says.
            let label = match (error.status.as_deref(), reason) {
                (Some(api_status), _) => api_status,
                (None, "") => error.kind.as_deref().unwrap_or(""),
                (None, reason) => reason,
            };
            let message = error.message.as_deref().unwrap_or("(no message)");
            format!("{}: {message}", answered(label))
        }
        None => {
            let excerpt: String = body.trim().chars().take(200).collect();
            if excerpt.is_empty() {
                answered(reason)
            } else {
                format!("{}: {excerpt}", answered(reason))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_errors_carry_the_apis_own_message() {
        let body = r#"{"error": {"code": 400, "message": "Please ensure that function call turn comes immediately after a user turn or after a function response turn.", "status": "INVALID_ARGUMENT"}}"#;
        let err = ProviderError::Status {
            status: 400,
            headers: vec![],
            body: body.into(),
        };
        assert_eq!(
            err.to_string(),
            "the model API answered HTTP 400 INVALID_ARGUMENT: Please ensure that function call \
             turn comes immediately after a user turn or after a function response turn."
        );
    }

    #[test]
    fn a_key_the_api_echoes_back_is_redacted_everywhere_in_the_error() {
        let key = "AIza-echoed-0123";
        let err = ProviderError::Status {
            status: 400,
            headers: vec![("x-echo".into(), format!("got {key}"))],
            body: format!(
                r#"{{"error": {{"code": 400, "message": "API key {key} not valid", "status": "INVALID_ARGUMENT"}}}}"#
            ),
        }
        .redacted(&Redactor::new(Some(key)));
        assert!(!format!("{err:?}").contains(key), "{err:?}");
        assert!(
            err.to_string().contains("API key [REDACTED] not valid"),
            "{err}"
        );
        let err = ProviderError::InStream {
            message: format!("bad key {key}"),
            body: key.into(),
        }
        .redacted(&Redactor::new(Some(key)));
        assert!(!format!("{err:?}").contains(key), "{err:?}");
    }

    #[test]
    fn array_wrapped_and_non_json_bodies_are_understood() {
        let wrapped = r#"[{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}]"#;
        assert!(describe_status(503, wrapped).ends_with("UNAVAILABLE: The model is overloaded."));
        assert_eq!(
            describe_status(502, "<html>bad gateway</html>"),
            "the model API answered HTTP 502 Bad Gateway: <html>bad gateway</html>"
        );
    }

    #[test]
    fn a_status_without_a_standard_reason_is_named_by_the_errors_type() {
        let overloaded =
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        assert_eq!(
            describe_status(529, overloaded),
            "the model API answered HTTP 529 overloaded_error: Overloaded"
        );
        assert_eq!(describe_status(529, ""), "the model API answered HTTP 529");
    }
}
