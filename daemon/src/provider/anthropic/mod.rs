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

use reqwest::header::{HeaderName, HeaderValue};

use super::client::{Client, Read, ReadEvents};
use super::error::ProviderError;
use super::family::Upstream;
use super::http::Endpoint;
use super::key::ApiKey;

/// The API version every request names (the one the Messages API started with).
pub const VERSION: &str = "2023-06-01";

/// `x-api-key: KEY`.
fn auth(key: &ApiKey) -> (HeaderName, HeaderValue) {
    (HeaderName::from_static("x-api-key"), key.header().clone())
}

/// A client for the models at `upstream`: its base URL without `/v1`, as
/// `ANTHROPIC_BASE_URL` is written (the model travels in the body).
pub fn client(upstream: Upstream<'_>) -> Client {
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
    Client::new(endpoint, || Box::new(Assembler::default()))
}

impl ReadEvents for Assembler {
    /// An event's content; a ping adds nothing.
    fn read(&mut self, data: &str) -> Result<Read, ProviderError> {
        Ok(self.absorb(data)?.map_or(Read::Nothing, Read::Update))
    }
}
