//! Gemini: the `streamGenerateContent` call (this file), its typed wire format (`wire.rs`),
//! its stream read into neutral updates (`chunk.rs`, `parts.rs`), its request body
//! (`body.rs`), what its error bodies say (`errors.rs`), and what the rest of the daemon
//! asks of it as a family (`family.rs`).

use reqwest::header::{HeaderName, HeaderValue};

pub mod body;
pub mod chunk;
mod errors;
pub mod family;
pub mod parts;
pub mod wire;

use crate::provider::client::{Client, LimitLookup, Read, ReadEvents};
use crate::provider::error::ProviderError;
use crate::provider::family::Upstream;
use crate::provider::http::Endpoint;
use crate::provider::key::ApiKey;

/// Gemini's key header, `x-goog-api-key` (never the `?key=` query: URLs end up in logs).
fn auth(key: &ApiKey) -> (HeaderName, HeaderValue) {
    (
        HeaderName::from_static("x-goog-api-key"),
        key.header().clone(),
    )
}

/// A client for one Gemini endpoint and model; it can ask the model's resource
/// (`GET /v1beta/models/{model}`) for its `inputTokenLimit`.
pub fn client(upstream: Upstream<'_>) -> Client {
    let model_url = format!(
        "{}/v1beta/models/{}",
        upstream.base_url.trim_end_matches('/'),
        upstream.model,
    );
    let url = format!("{model_url}:streamGenerateContent?alt=sse");
    let Upstream {
        http,
        api_key,
        idle,
        ..
    } = upstream;
    let endpoint = Endpoint::new(http.clone(), url, api_key, auth, idle);
    Client::new(endpoint, || Box::new(Chunks)).with_limit_lookup(LimitLookup {
        url: model_url,
        read: wire::input_token_limit,
    })
}

/// Gemini's chunks stand alone: each is a `GenerateContentResponse`.
struct Chunks;

impl ReadEvents for Chunks {
    fn read(&mut self, data: &str) -> Result<Read, ProviderError> {
        chunk::parse(data).map(Read::Update)
    }
}
