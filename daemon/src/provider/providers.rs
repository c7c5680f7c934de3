//! The providers a daemon is configured with: each a named endpoint of one family with its
//! key, the default one, the default model and its fallbacks, and how a model reference
//! (`MODEL` or `PROVIDER/MODEL`) names one of them.

use std::sync::Arc;
use std::time::Duration;

use super::family::Upstream;
use super::fragment::RequestOptions;
use super::key::ApiKey;
use super::kind::Kind;
use super::stream::ModelApi;

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

impl Provider {
    /// A client for `model` here, its family's.
    pub fn client(&self, http: &reqwest::Client, model: &str, idle: Duration) -> Arc<dyn ModelApi> {
        self.kind.family().client(Upstream {
            http,
            base_url: &self.base_url,
            api_key: self.api_key.as_ref(),
            model,
            idle,
        })
    }
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
    /// (OpenAI-compatible servers have models such as `meta-llama/llama-3-8b`). Where the
    /// default provider's family never puts a `/` in a model's name (Gemini), an unknown
    /// prefix is an error, not a model.
    pub fn resolve<'a>(&'a self, reference: &'a str) -> Result<Resolved<'a>, UnknownProvider> {
        if let Some((name, model)) = reference.split_once('/') {
            if let Some(provider) = self.all().find(|p| p.name == name) {
                return Ok(Resolved { provider, model });
            }
            if !self.default.kind.family().slash_in_model_names() {
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
