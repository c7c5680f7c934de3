//! The Gemini `streamGenerateContent` call over reqwest.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use tokio::time::timeout;

use super::chunk::{self, StreamUpdate};
use super::error::{Phase, ProviderError};
use super::sse::SseParser;
use super::{ApiKey, ModelApi, ProviderConfig, Redactor};
use futures_util::FutureExt;
use futures_util::future::BoxFuture;

/// Longest error body kept for messages and diagnostics.
const MAX_ERROR_BODY: usize = 1024 * 1024;

/// Headers of an error response worth keeping (retry hints, content type, request ids).
const KEPT_HEADERS: &[&str] = &["retry-after", "content-type", "x-request-id", "server"];

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

impl Gemini {
    /// Builds the HTTP client for `config`.
    pub fn new(config: &ProviderConfig) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("omnid/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        let url = format!(
            "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
            config.base_url.trim_end_matches('/'),
            config.model
        );
        Ok(Self {
            http,
            url,
            api_key: config.api_key.clone(),
            idle_timeout: config.idle_timeout,
            redactor: Redactor::new(config.api_key.as_ref().map(ApiKey::expose)),
        })
    }

    fn idle_error(&self, phase: Phase) -> ProviderError {
        ProviderError::Transport {
            phase,
            chain: format!("no data for {} s", self.idle_timeout.as_secs_f32()),
            timeout: true,
            connect: false,
            io_kind: Some(std::io::ErrorKind::TimedOut),
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
        let mut response = timeout(self.idle_timeout, request.send())
            .await
            .map_err(|_| self.idle_error(Phase::Connect))?
            .map_err(|e| ProviderError::transport(Phase::Connect, &e))?;

        if !response.status().is_success() {
            return Err(status_error(&mut response, self.idle_timeout).await);
        }

        let mut parser = SseParser::new();
        let mut finish_reason = None;
        let mut visible = false;
        loop {
            let bytes = timeout(self.idle_timeout, response.chunk())
                .await
                .map_err(|_| self.idle_error(Phase::Stream))?
                .map_err(|e| ProviderError::transport(Phase::Stream, &e))?;
            let Some(bytes) = bytes else { break };
            let events = parser
                .push(&bytes)
                .map_err(|e| ProviderError::BrokenStream(e.to_string()))?;
            for data in events {
                let update = chunk::parse(&data)?;
                visible |= update.parts.iter().any(is_visible);
                if update.finish_reason.is_some() {
                    finish_reason.clone_from(&update.finish_reason);
                }
                on_update(update);
            }
        }
        parser
            .finish()
            .map_err(|e| ProviderError::BrokenStream(e.to_string()))?;
        match finish_reason {
            None => Err(ProviderError::NoFinishReason),
            Some(finish_reason) if !visible => Err(ProviderError::EmptyAnswer { finish_reason }),
            Some(_) => Ok(()),
        }
    }
}

fn is_visible(part: &crate::model::Part) -> bool {
    use crate::model::PartContent;
    match &part.content {
        PartContent::Text(text) => !text.is_empty(),
        PartContent::Thought(_) => false,
        PartContent::FunctionCall { .. }
        | PartContent::FunctionResponse { .. }
        | PartContent::Other { .. } => true,
    }
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
