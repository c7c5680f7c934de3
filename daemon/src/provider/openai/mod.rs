//! OpenAI-compatible chat completions: `POST {base}/chat/completions` with `stream: true`.
//! Spoken by OpenAI and by most servers that host models elsewhere (Ollama, llama.cpp's
//! server, vLLM, LM Studio, OpenRouter, Groq, DeepSeek, Mistral).
//!
//! The request is rendered from the neutral context (`render.rs`); the stream's deltas are
//! read back into neutral parts, tool calls assembled from their fragments (`stream.rs`).
//! Errors come back as [`ProviderError`]s like Gemini's, so one classifier serves both.

mod render;
mod stream;

use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};

pub use render::render;

use super::chunk::StreamUpdate;
use super::error::ProviderError;
use super::gemini::{ended, is_visible, send};
use super::sse::Events;
use super::{ApiKey, ModelApi, Provider, Redactor};
use stream::Assembler;

/// A client for one model at one OpenAI-compatible server.
pub struct OpenAi {
    http: reqwest::Client,
    url: String,
    api_key: Option<ApiKey>,
    idle_timeout: Duration,
    redactor: Redactor,
}

impl OpenAi {
    /// A client for models at `provider`.
    pub fn new(http: reqwest::Client, provider: &Provider, idle: Duration) -> Self {
        Self {
            http,
            url: format!(
                "{}/chat/completions",
                provider.base_url.trim_end_matches('/')
            ),
            api_key: provider.api_key.clone(),
            idle_timeout: idle,
            redactor: Redactor::new(provider.api_key.as_ref().map(ApiKey::expose)),
        }
    }

    async fn stream_raw(
        &self,
        body: &str,
        on_update: &mut (dyn FnMut(StreamUpdate) + Send),
    ) -> Result<(), ProviderError> {
        let mut request = self
            .http
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(key) = &self.api_key {
            request = request.header(AUTHORIZATION, key.bearer());
        }
        let response = send(request, self.idle_timeout).await?;
        let mut events = Events::of(response, self.idle_timeout);
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
    /// `{base}/chat/completions` (the model travels in the body).
    fn url(&self) -> &str {
        &self.url
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
                .map_err(|error| error.redacted(&self.redactor))
        }
        .boxed()
    }
}
