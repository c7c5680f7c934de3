//! The Gemini `streamGenerateContent` call over reqwest.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use tokio::time::timeout;

use super::chunk::{self, StreamUpdate};
use super::error::{Phase, ProviderError};
use super::sse::Events;
use super::{ApiKey, ModelApi, Provider, Redactor};
use futures_util::FutureExt;
use futures_util::future::BoxFuture;

/// Longest error body kept for messages and diagnostics.
const MAX_ERROR_BODY: usize = 1024 * 1024;

/// Headers of an error response worth keeping (retry hints, content type, request ids).
const KEPT_HEADERS: &[&str] = &[
    "retry-after",
    "retry-after-ms",
    "content-type",
    "x-request-id",
    "server",
];

/// A client for one Gemini endpoint and model.
pub struct Gemini {
    http: reqwest::Client,
    url: String,
    api_key: Option<ApiKey>,
    idle_timeout: Duration,
    /// Strips the key from whatever the API says back.
    redactor: Redactor,
}

impl ModelApi for Gemini {
    /// The endpoint's URL (it never contains the key).
    fn url(&self) -> &str {
        &self.url
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
                .map_err(|error| error.redacted(&self.redactor))
        }
        .boxed()
    }
}

/// The HTTP client every provider shares (one connection pool).
pub fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .user_agent(concat!("omnid/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10))
        .build()
}

impl Gemini {
    /// A client for `model` at `provider`.
    pub fn new(http: reqwest::Client, provider: &Provider, model: &str, idle: Duration) -> Self {
        let url = format!(
            "{}/v1beta/models/{model}:streamGenerateContent?alt=sse",
            provider.base_url.trim_end_matches('/'),
        );
        Self {
            http,
            url,
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
            request = request.header("x-goog-api-key", key.header().clone());
        }
        let response = send(request, self.idle_timeout).await?;

        let mut events = Events::of(response, self.idle_timeout);
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

/// How a stream that ended cleanly ends the answer: it must have finished, with something
/// to show.
pub fn ended(finish_reason: Option<String>, visible: bool) -> Result<(), ProviderError> {
    match finish_reason {
        None => Err(ProviderError::NoFinishReason),
        Some(finish_reason) if !visible => Err(ProviderError::EmptyAnswer { finish_reason }),
        Some(_) => Ok(()),
    }
}

/// Whether a part counts as an answer (a thought alone does not).
pub fn is_visible(part: &crate::model::Part) -> bool {
    use crate::model::PartContent;
    match &part.content {
        PartContent::Text(text) => !text.is_empty(),
        PartContent::Thought(_) => false,
        PartContent::FunctionCall { .. }
        | PartContent::FunctionResponse { .. }
        | PartContent::Other { .. } => true,
    }
}

/// Sends a request and waits (at most `idle`) for its headers; a non-success status is
/// an error carrying what the API said.
pub async fn send(
    request: reqwest::RequestBuilder,
    idle: Duration,
) -> Result<reqwest::Response, ProviderError> {
    let mut response = timeout(idle, request.send())
        .await
        .map_err(|_| super::sse::idle_error(Phase::Connect, idle))?
        .map_err(|e| ProviderError::transport(Phase::Connect, &e))?;
    if !response.status().is_success() {
        return Err(status_error(&mut response, idle).await);
    }
    Ok(response)
}

/// The error for a response with a non-success status: its status, the headers worth
/// keeping, and its body (capped).
pub async fn status_error(response: &mut reqwest::Response, idle: Duration) -> ProviderError {
    let headers = KEPT_HEADERS
        .iter()
        .filter_map(|name| {
            let value = response.headers().get(*name)?.to_str().ok()?;
            Some((name.to_string(), value.to_string()))
        })
        .collect();
    let body = read_capped(response, idle).await;
    ProviderError::Status {
        status: response.status().as_u16(),
        headers,
        body,
    }
}

/// Reads an error body, keeping at most [`MAX_ERROR_BODY`] bytes; a body that fails to
/// arrive is reported as what did arrive.
async fn read_capped(response: &mut reqwest::Response, idle: Duration) -> String {
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY {
        match timeout(idle, response.chunk()).await {
            Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
            _ => break,
        }
    }
    body.truncate(MAX_ERROR_BODY);
    String::from_utf8_lossy(&body).into_owned()
}
