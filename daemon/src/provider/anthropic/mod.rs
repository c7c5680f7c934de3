//! Anthropic's Messages API: `POST {base}/v1/messages` with `stream: true`, the key in
//! `x-api-key` and `anthropic-version: 2023-06-01`. Shared by sessions asking Claude
//! models and by the proxy's Anthropic endpoint (which reads the stream with
//! [`Assembler`]).
//!
//! The request is rendered from the neutral context (`render.rs`); the stream's events
//! are read back into neutral parts, tool uses assembled from their input fragments
//! (`stream.rs`). Errors come back as [`ProviderError`]s like the other families', so one
//! classifier serves all; what their bodies say is read in `errors.rs`. `family.rs` is
//! what the rest of the daemon asks of it.

mod errors;
pub mod family;
mod render;
pub mod stream;

pub use stream::Assembler;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use reqwest::header::{HeaderName, HeaderValue};

use super::error::ProviderError;
use super::family::Upstream;
use super::http::Endpoint;
use super::key::ApiKey;
use super::stream::{ModelApi, StreamUpdate, ended, is_visible};

/// The API version every request names (the one the Messages API started with).
pub const VERSION: &str = "2023-06-01";

/// A client for the models of one Anthropic endpoint (the model travels in the body).
pub struct Anthropic {
    endpoint: Endpoint,
}

/// `x-api-key: KEY`.
fn auth(key: &ApiKey) -> (HeaderName, HeaderValue) {
    (HeaderName::from_static("x-api-key"), key.header().clone())
}

impl Anthropic {
    /// A client for the models at `upstream`: its base URL without `/v1`, as
    /// `ANTHROPIC_BASE_URL` is written.
    pub fn new(upstream: Upstream<'_>) -> Self {
        let url = format!("{}/v1/messages", upstream.base_url.trim_end_matches('/'));
        let Upstream {
            http,
            api_key,
            idle,
            ..
        } = upstream;
        let endpoint = Endpoint::new(http.clone(), url, api_key, auth, idle).with_header(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(VERSION),
        );
        Self { endpoint }
    }

    async fn stream_raw(
        &self,
        body: &str,
        on_update: &mut (dyn FnMut(StreamUpdate) + Send),
    ) -> Result<(), ProviderError> {
        let mut events = self.endpoint.stream(body).await?;
        let mut assembler = Assembler::default();
        let (mut visible, mut finish_reason) = (false, None);
        while let Some(data) = events.next_idle().await? {
            let Some(update) = assembler.absorb(&data)? else {
                continue;
            };
            visible |= update.parts.iter().any(is_visible);
            if update.finish_reason.is_some() {
                finish_reason.clone_from(&update.finish_reason);
            }
            on_update(update);
        }
        ended(finish_reason, visible)
    }
}

impl ModelApi for Anthropic {
    /// `{base}/v1/messages`.
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
