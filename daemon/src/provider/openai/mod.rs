//! OpenAI-compatible chat completions: `POST {base}/chat/completions` with `stream: true`.
//! Spoken by OpenAI and by most servers that host models elsewhere (Ollama, llama.cpp's
//! server, vLLM, LM Studio, OpenRouter, Groq, DeepSeek, Mistral).
//!
//! The request is rendered from the neutral context (`render.rs`); the stream's deltas are
//! read back into neutral parts, tool calls assembled from their fragments (`stream.rs`).
//! Errors come back as [`ProviderError`]s like Gemini's, so one classifier serves both;
//! what their bodies say is read in `errors.rs`. `family.rs` is what the rest of the
//! daemon asks of it.

mod errors;
pub mod family;
mod render;
mod stream;

pub use stream::Assembler;

use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use super::client::{Client, Read, ReadEvents};
use super::error::ProviderError;
use super::family::Upstream;
use super::http::Endpoint;
use super::key::ApiKey;

/// `Authorization: Bearer KEY`.
fn auth(key: &ApiKey) -> (HeaderName, HeaderValue) {
    (AUTHORIZATION, key.bearer().clone())
}

/// A client for the models at `upstream` of one OpenAI-compatible server (the model
/// travels in the body).
pub fn client(upstream: Upstream<'_>) -> Client {
    let url = format!(
        "{}/chat/completions",
        upstream.base_url.trim_end_matches('/')
    );
    let Upstream {
        http,
        api_key,
        idle,
        ..
    } = upstream;
    let endpoint = Endpoint::new(http.clone(), url, api_key, auth, idle);
    Client::new(endpoint, || Box::new(Assembler::default()))
}

impl ReadEvents for Assembler {
    /// A chunk's deltas; `[DONE]` ends the stream.
    fn read(&mut self, data: &str) -> Result<Read, ProviderError> {
        if data.trim() == "[DONE]" {
            return Ok(Read::Done);
        }
        self.absorb(data).map(Read::Update)
    }
}
