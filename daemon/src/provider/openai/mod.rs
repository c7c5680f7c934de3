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

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use super::error::ProviderError;
use super::family::Upstream;
use super::http::Endpoint;
use super::key::ApiKey;
use super::stream::{ModelApi, StreamUpdate, ended, is_visible};

/// A client for the models of one OpenAI-compatible server (the model travels in the body).
pub struct OpenAi {
    endpoint: Endpoint,
}

/// `Authorization: Bearer KEY`.
fn auth(key: &ApiKey) -> (HeaderName, HeaderValue) {
    (AUTHORIZATION, key.bearer().clone())
}

impl OpenAi {
    /// A client for the models at `upstream` (the model travels in the body).
    pub fn new(upstream: Upstream<'_>) -> Self {
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
        Self {
            endpoint: Endpoint::new(http.clone(), url, api_key, auth, idle),
        }
    }

    async fn stream_raw(
        &self,
        body: &str,
        on_update: &mut (dyn FnMut(StreamUpdate) + Send),
    ) -> Result<(), ProviderError> {
        let mut events = self.endpoint.stream(body).await?;
        let mut assembler = Assembler::default();
        let mut visible = false;
        while let Some(data) = events.next_idle().await? {
            if data.trim() == "[DONE]" {
                break;
            }
            let update = assembler.absorb(&data)?;
            visible |= update.parts.iter().any(is_visible);
            on_update(update);
        }
        ended(assembler.finish_reason(), visible)
    }
}

impl ModelApi for OpenAi {
    /// `{base}/chat/completions`.
    fn url(&self) -> &str {
        self.endpoint.url()
    }

    fn headers(&self) -> Vec<(String, String)> {
        self.endpoint.headers()
    }

    /// A failure comes back with the key removed from everything the server said.
    fn stream<'a>(
        &'a self,
        body: &'a str,
        on_update: &'a mut (dyn FnMut(StreamUpdate) + Send),
    ) -> BoxFuture<'a, Result<(), ProviderError>> {
        async move {
            self.stream_raw(body, on_update)
                .await
                .map_err(|error| self.endpoint.redacted(error))
        }
        .boxed()
    }
}
