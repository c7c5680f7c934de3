//! What every provider does over HTTP: one shared client, a POST of a request body to an
//! endpoint with its key in a header, a wait for the response headers bounded by the idle
//! timeout, an error that keeps what the API said (status, the headers that matter, the
//! body, capped), and the key stripped from whatever comes back.

use std::time::Duration;

use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue};
use tokio::time::timeout;

use super::body::RequestBody;
use super::error::{Phase, ProviderError};
use super::key::ApiKey;
use super::redact::Redactor;
use super::sse::{Events, idle_error};

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

/// The HTTP client every provider shares (one connection pool).
pub fn http_client() -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .user_agent(concat!("omnid/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10))
        .build()
}

/// One endpoint a provider streams answers from.
pub struct Endpoint {
    http: reqwest::Client,
    url: String,
    /// The header that carries the key, and its value (marked sensitive).
    auth: Option<(HeaderName, HeaderValue)>,
    /// Headers every request carries besides the key (Anthropic's `anthropic-version`).
    fixed: Vec<(HeaderName, HeaderValue)>,
    idle: Duration,
    /// Strips the key from whatever the API says back.
    redactor: Redactor,
}

impl Endpoint {
    /// `url`, reached through `http`, with `key` sent as `auth(key)`; `idle` bounds every
    /// wait for the server.
    pub fn new(
        http: reqwest::Client,
        url: String,
        key: Option<&ApiKey>,
        auth: fn(&ApiKey) -> (HeaderName, HeaderValue),
        idle: Duration,
    ) -> Self {
        Self {
            http,
            url,
            auth: key.map(auth),
            fixed: Vec::new(),
            idle,
            redactor: Redactor::new(key.map(ApiKey::expose)),
        }
    }

    /// The same endpoint with `name: value` on every request (an API version).
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.fixed.push((name, value));
        self
    }

    /// Where requests go (never with the key).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The headers each request carries, for diagnostics: the key's header is named, its
    /// value left out.
    pub fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        if let Some((name, _)) = &self.auth {
            headers.push((name.to_string(), "[REDACTED]".to_string()));
        }
        for (name, value) in &self.fixed {
            let value = value.to_str().unwrap_or("[not text]");
            headers.push((name.to_string(), value.to_string()));
        }
        headers
    }

    /// Posts `body` and returns the answer's event stream; a non-success status is an
    /// error carrying what the API said.
    pub async fn stream(&self, body: &RequestBody) -> Result<Events, ProviderError> {
        let mut request = self
            .http
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(CONTENT_LENGTH, body.len())
            .body(body.to_http());
        for (name, value) in self.auth.iter().chain(&self.fixed) {
            request = request.header(name, value);
        }
        let response = send(request, self.idle).await?;
        Ok(Events::of(response, self.idle))
    }

    /// Gets `url` (a description the API serves beside this endpoint, such as a model's)
    /// with this endpoint's key and headers, and returns its body; a non-success status is
    /// an error carrying what the API said.
    pub async fn get(&self, url: &str) -> Result<String, ProviderError> {
        let mut request = self.http.get(url);
        for (name, value) in self.auth.iter().chain(&self.fixed) {
            request = request.header(name, value);
        }
        let mut response = send(request, self.idle).await?;
        Ok(read_capped(&mut response, self.idle).await)
    }

    /// `error` with the key removed from everything the API said.
    pub fn redacted(&self, error: ProviderError) -> ProviderError {
        error.redacted(&self.redactor)
    }
}

/// Sends a request and waits (at most `idle`) for its headers; a non-success status is
/// an error carrying what the API said.
async fn send(
    request: reqwest::RequestBuilder,
    idle: Duration,
) -> Result<reqwest::Response, ProviderError> {
    let mut response = timeout(idle, request.send())
        .await
        .map_err(|_| idle_error(Phase::Connect, idle))?
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
