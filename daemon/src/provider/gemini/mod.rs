//! Gemini: the `streamGenerateContent` call (this file), its typed wire format (`wire.rs`),
//! its stream read into neutral updates (`chunk.rs`, `parts.rs`), its request body
//! (`body.rs`), what its error bodies say (`errors.rs`), and what the rest of the daemon
//! asks of it as a family (`family.rs`).

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use reqwest::header::{HeaderName, HeaderValue};

pub mod body;
pub mod chunk;
mod errors;
pub mod family;
pub mod parts;
pub mod wire;

use crate::provider::error::ProviderError;
use crate::provider::family::Upstream;
use crate::provider::http::Endpoint;
use crate::provider::key::ApiKey;
use crate::provider::stream::ModelApi;
use crate::provider::stream::{StreamUpdate, ended, is_visible};

/// A client for one Gemini endpoint and model.
pub struct Gemini {
    endpoint: Endpoint,
}

/// Gemini's key header, `x-goog-api-key` (never the `?key=` query: URLs end up in logs).
fn auth(key: &ApiKey) -> (HeaderName, HeaderValue) {
    (
        HeaderName::from_static("x-goog-api-key"),
        key.header().clone(),
    )
}

impl ModelApi for Gemini {
    /// The endpoint's URL (it never contains the key).
    fn url(&self) -> &str {
        self.endpoint.url()
    }

    fn headers(&self) -> Vec<(String, String)> {
        self.endpoint.headers()
    }

    /// A failure comes back with the key removed from everything the API said.
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

impl Gemini {
    /// A client for the model at `upstream`.
    pub fn new(upstream: Upstream<'_>) -> Self {
        let url = format!(
            "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
            upstream.base_url.trim_end_matches('/'),
            upstream.model,
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
        let mut finish_reason = None;
        let mut visible = false;
        while let Some(data) = events.next_idle().await? {
            let update = chunk::parse(&data)?;
            visible |= update.parts.iter().any(is_visible);
            if update.finish_reason.is_some() {
                finish_reason.clone_from(&update.finish_reason);
            }
            on_update(update);
        }
        ended(finish_reason, visible)
    }
}
