//! Model providers: a model context goes in, a stream of parts comes out.
//!
//! Two kinds speak to the outside: Gemini (`streamGenerateContent`) and OpenAI-compatible
//! servers (`/chat/completions`: OpenAI, Ollama, llama.cpp, vLLM, OpenRouter, ...). Stored
//! parts are provider-neutral; each kind renders them to its wire format and reads its
//! stream back into them. This module (and only this one) talks HTTP, and it is the one
//! boundary where what an API says enters the daemon: every provider error is stripped of
//! the key here (an API may echo it back), so no later path can leak it.

pub mod error;
mod fragment;
pub mod gemini;
mod http;
pub mod openai;
mod redact;
pub mod request;
pub mod sse;

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use reqwest::header::HeaderValue;

pub use error::{Phase, ProviderError};
pub use fragment::{Extras, Fragment, RequestOptions, WireRole};
pub use gemini::Gemini;
pub use gemini::chunk::StreamUpdate;
pub use http::{http_client, status_error};
pub use openai::OpenAi;
pub use redact::Redactor;
pub use request::{Target, assemble, body, fragment};

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

/// OpenAI's own API, for `--provider openai` without `--base-url`.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// An API key. Its `Debug` never shows the value, so it cannot leak into a log by accident,
/// and its header value is marked sensitive so HTTP tooling will not print it either.
#[derive(Clone)]
pub struct ApiKey {
    text: String,
    header: HeaderValue,
    bearer: HeaderValue,
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
        let sensitive = |value: String| {
            let mut value = HeaderValue::from_str(&value).map_err(|_| InvalidApiKey)?;
            value.set_sensitive(true);
            Ok::<_, InvalidApiKey>(value)
        };
        let header = sensitive(text.to_string())?;
        let bearer = sensitive(format!("Bearer {text}"))?;
        Ok(Self {
            text: text.to_string(),
            header,
            bearer,
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

    /// The `Authorization: Bearer` header value (OpenAI-compatible servers).
    pub fn bearer(&self) -> &HeaderValue {
        &self.bearer
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Gemini's `models/{model}:streamGenerateContent`.
    Gemini,
    /// OpenAI's `chat/completions` (and every server that copies it).
    OpenAi,
}

impl Kind {
    /// The name the configuration uses (`kind = "openai"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Gemini => "gemini",
            Kind::OpenAi => "openai",
        }
    }

    /// Parses a configuration's `kind`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "gemini" => Some(Kind::Gemini),
            "openai" => Some(Kind::OpenAi),
            _ => None,
        }
    }
}

/// One provider a model can be asked through: a named endpoint of one kind, with its key.
#[derive(Debug, Clone)]
pub struct Provider {
    /// Its name in model references (`local` in `local/qwen2.5:7b`).
    pub name: String,
    /// Its wire format.
    pub kind: Kind,
    /// Scheme, host, port and (for OpenAI-compatible servers) path prefix, e.g.
    /// `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Its key, if it needs one; never in a URL.
    pub api_key: Option<ApiKey>,
}

/// Every provider, the default model and the fallback chain.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// The provider that `--base-url` and the key settings describe; a model reference
    /// without a provider name goes to it. Named after its kind (`gemini`, `openai`).
    pub default: Provider,
    /// The configuration file's `[providers.NAME]`.
    pub named: Vec<Provider>,
    /// The model sessions ask unless they say otherwise (`MODEL` or `PROVIDER/MODEL`).
    pub model: String,
    /// Models asked, in order, when a send cannot be answered by its own.
    pub fallback: Vec<String>,
    /// Request settings that do not come from the conversation.
    pub request: RequestOptions,
    /// Longest wait for the response headers or for the next chunk of the stream.
    pub idle_timeout: Duration,
}

/// A model reference resolved: the provider to ask and the model's name there.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    /// The provider.
    pub provider: &'a Provider,
    /// The model's name at that provider.
    pub model: &'a str,
}

impl Resolved<'_> {
    /// The canonical reference, `PROVIDER/MODEL`.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider.name, self.model)
    }
}

/// A model reference that names no configured provider.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "no provider is named `{name}` (configured: {known}); name a model as MODEL or \
     PROVIDER/MODEL, with providers defined as [providers.NAME] in the configuration file"
)]
pub struct UnknownProvider {
    /// The name given.
    pub name: String,
    /// The names configured.
    pub known: String,
}

/// A model reference that cannot be asked.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BadReference {
    /// The text before the `/` names no provider.
    #[error(transparent)]
    UnknownProvider(#[from] UnknownProvider),
    /// Nothing names the model (`local/`, or blank).
    #[error("`{0}` names no model: write MODEL or PROVIDER/MODEL")]
    NoModel(String),
}

impl ProviderConfig {
    /// `reference` as sessions store it and clients see it, `PROVIDER/MODEL`, once it is
    /// known to name a model of a configured provider.
    pub fn canonical(&self, reference: &str) -> Result<String, BadReference> {
        let resolved = self.resolve(reference)?;
        if resolved.model.trim().is_empty() {
            return Err(BadReference::NoModel(reference.to_string()));
        }
        Ok(resolved.reference())
    }

    /// Every provider, the default first.
    pub fn all(&self) -> impl Iterator<Item = &Provider> {
        std::iter::once(&self.default).chain(&self.named)
    }

    /// The Gemini provider the proxy forwards to: the default one if it is Gemini, else the
    /// first named one that is.
    pub fn gemini(&self) -> Option<&Provider> {
        self.all().find(|p| p.kind == Kind::Gemini)
    }

    /// Resolves `MODEL` or `PROVIDER/MODEL`. Text before the first `/` that names a
    /// provider selects it; otherwise the whole text is a model of the default provider
    /// (OpenAI-compatible servers have models such as `meta-llama/llama-3-8b`). Gemini's
    /// model names never hold a `/`, so there an unknown prefix is an error, not a model.
    pub fn resolve<'a>(&'a self, reference: &'a str) -> Result<Resolved<'a>, UnknownProvider> {
        if let Some((name, model)) = reference.split_once('/') {
            if let Some(provider) = self.all().find(|p| p.name == name) {
                return Ok(Resolved { provider, model });
            }
            if self.default.kind == Kind::Gemini {
                return Err(UnknownProvider {
                    name: name.to_string(),
                    known: self
                        .all()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        Ok(Resolved {
            provider: &self.default,
            model: reference,
        })
    }
}
