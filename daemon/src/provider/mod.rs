//! Model providers: a model context goes in, a stream of parts comes out.
//!
//! Gemini is the only provider so far. This module (and only this one) talks HTTP, and it
//! is the one boundary where what the API says enters the daemon: every provider error is
//! stripped of the key here (an API may echo it back), so no later path can leak it.

pub mod chunk;
pub mod error;
mod gemini;
pub mod parts;
mod redact;
pub mod request;
pub mod sse;
pub mod wire;

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use reqwest::header::HeaderValue;

pub use chunk::StreamUpdate;
pub use error::{Phase, ProviderError};
pub use gemini::{Gemini, status_error};
pub use redact::Redactor;
pub use request::{Content, RequestOptions, SourcedPart, WireRole, contents, render};

/// A model API: a request body in, a stream of updates out. Gemini is the one the daemon
/// talks to; the session layer's tests answer through scripted ones.
pub trait ModelApi: Send + Sync {
    /// Where requests go (for the breaker, the logs and diagnostics); never holds a key.
    fn url(&self) -> &str;

    /// Sends `body` and calls `on_update` for every chunk as it arrives. Succeeds only if
    /// the stream ended cleanly with a finish reason and something visible. Errors come
    /// back with every secret removed.
    fn stream<'a>(
        &'a self,
        body: &'a str,
        on_update: &'a mut (dyn FnMut(StreamUpdate) + Send),
    ) -> BoxFuture<'a, Result<(), ProviderError>>;
}

/// The production endpoint.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// An API key. Its `Debug` never shows the value, so it cannot leak into a log by accident,
/// and its header value is marked sensitive so HTTP tooling will not print it either.
#[derive(Clone)]
pub struct ApiKey {
    text: String,
    header: HeaderValue,
}

/// A key that cannot be sent (blank, or characters a header cannot carry).
#[derive(Debug, thiserror::Error)]
#[error("the API key is empty or contains characters an HTTP header cannot carry")]
pub struct InvalidApiKey;

impl ApiKey {
    /// Validates and wraps a key (surrounding whitespace, such as a file's newline, is
    /// dropped).
    pub fn new(key: &str) -> Result<Self, InvalidApiKey> {
        let text = key.trim();
        if text.is_empty() {
            return Err(InvalidApiKey);
        }
        let mut header = HeaderValue::from_str(text).map_err(|_| InvalidApiKey)?;
        header.set_sensitive(true);
        Ok(Self {
            text: text.to_string(),
            header,
        })
    }

    /// The key itself, for redacting it from text.
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// The `x-goog-api-key` header value.
    pub fn header(&self) -> &HeaderValue {
        &self.header
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// How to reach the model API.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// Scheme, host and port, e.g. `https://generativelanguage.googleapis.com`.
    pub base_url: String,
    /// The model name, e.g. `gemini-2.5-flash`.
    pub model: String,
    /// Sent as `x-goog-api-key`; never in the URL.
    pub api_key: Option<ApiKey>,
    /// Request settings that do not come from the conversation.
    pub request: RequestOptions,
    /// Longest wait for the response headers or for the next chunk of the stream.
    pub idle_timeout: Duration,
}
