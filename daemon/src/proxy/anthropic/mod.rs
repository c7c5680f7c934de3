//! The Anthropic Messages API as Claude Code and Anthropic's SDKs speak it
//! (`ANTHROPIC_BASE_URL` set to the proxy's address): `POST /v1/messages` streamed and
//! not, `POST /v1/messages/count_tokens`, and `GET /v1/models` when the client's headers
//! are Anthropic's. Keys come in `x-api-key` or `Authorization: Bearer`; `anthropic-version`
//! and `anthropic-beta` go upstream unchanged. Upstream is the Anthropic provider the
//! model names (`NAME/MODEL`), else the first one configured.

mod messages;
mod whole;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::Proxy;
use super::api::{Api, Event, Read, ReadEvents};
use super::record::Turn;
use super::upstream::{self, Route};
use crate::provider::anthropic::Assembler;
use crate::provider::{ApiKey, ProviderError};

/// The Anthropic API, as the proxy serves it.
pub struct Anthropic;

/// The one value of [`Anthropic`].
pub static ANTHROPIC: Anthropic = Anthropic;

/// Headers a client sends that go upstream as they are.
const FORWARDED: [&str; 2] = ["anthropic-version", "anthropic-beta"];

impl Api for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn error_body(&self, code: StatusCode, message: &str) -> String {
        let kind = match code.as_u16() {
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            413 => "request_too_large",
            429 => "rate_limit_error",
            400..=499 => "invalid_request_error",
            503 | 529 => "overloaded_error",
            _ => "api_error",
        };
        json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
    }

    fn reader(&self) -> Box<dyn ReadEvents> {
        Box::new(Events::default())
    }

    fn error_event(&self, body: &str) -> Event {
        Event {
            name: Some("error".into()),
            data: body.to_string(),
        }
    }

    fn whole_events(&self, answer: Value) -> Vec<Event> {
        whole::events(answer)
    }
}

/// A Messages stream, read as a session's provider reads it; each event's kind and block
/// index (and a tool use's input fragment) are what a retried stream must repeat.
#[derive(Default)]
struct Events(Assembler);

impl ReadEvents for Events {
    fn read(&mut self, event: &Event) -> Result<Option<Read>, ProviderError> {
        let Some(update) = self.0.absorb(&event.data)? else {
            return Ok(None);
        };
        let value: Value = serde_json::from_str(&event.data).unwrap_or_default();
        let mark = format!(
            "{} {} {} {}",
            value["type"].as_str().unwrap_or_default(),
            value["index"],
            value["content_block"]["type"].as_str().unwrap_or_default(),
            value["delta"]["partial_json"].as_str().unwrap_or_default(),
        );
        Ok(Some(Read { update, mark }))
    }
}

/// How Anthropic's requests reach a provider of kind `anthropic`: the key in
/// `x-api-key` (or a bearer token, as its SDK sends it), `anthropic-version` and
/// `anthropic-beta` passed on.
static ROUTE: Route = Route {
    api: &ANTHROPIC,
    kind: "anthropic",
    where_to: "the x-api-key header",
    carried,
    headers: upstream_headers,
};

/// `POST /v1/messages`: its answers, whole or streamed, are recorded.
pub async fn messages(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    let turns: fn(&Value) -> Vec<Turn> = messages::turns;
    upstream::post(proxy.0, &ROUTE, "/v1/messages", headers, body, Some(turns)).await
}

/// `POST /v1/messages/count_tokens`.
pub async fn count_tokens(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    upstream::post(
        proxy.0,
        &ROUTE,
        "/v1/messages/count_tokens",
        headers,
        body,
        None,
    )
    .await
}

/// `GET /v1/models`: the upstream provider's list, as it gives it.
pub async fn models(proxy: Arc<Proxy>, headers: &HeaderMap) -> Response {
    upstream::get(proxy, &ROUTE, "/v1/models", headers).await
}

/// Whether a request's headers are an Anthropic client's (its SDK sends its key as a
/// bearer token beside `anthropic-version`).
pub fn is_client(headers: &HeaderMap) -> bool {
    headers.contains_key("anthropic-version") || headers.contains_key("x-api-key")
}

/// The key a request carries: `x-api-key`, else a bearer token.
fn carried(headers: &HeaderMap) -> Option<String> {
    headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(|key| key.trim().to_string())
        .or_else(|| upstream::bearer_of(headers))
}

/// The key as Anthropic takes it, and the client's version and beta headers.
fn upstream_headers(client: &HeaderMap, key: Option<&ApiKey>) -> reqwest::header::HeaderMap {
    let mut headers = upstream::key_headers(
        reqwest::header::HeaderName::from_static("x-api-key"),
        key,
        false,
    );
    for name in FORWARDED {
        if let Some(value) = client.get(name)
            && let Ok(value) = reqwest::header::HeaderValue::from_bytes(value.as_bytes())
        {
            headers.insert(name, value);
        }
    }
    headers
}
