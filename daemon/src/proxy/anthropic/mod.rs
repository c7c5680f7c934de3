//! The Anthropic Messages API as Claude Code and Anthropic's SDKs speak it
//! (`ANTHROPIC_BASE_URL` set to the proxy's address): `POST /v1/messages` streamed and
//! not, `POST /v1/messages/count_tokens`, and `GET /v1/models` when the client's headers
//! are Anthropic's. Keys come in `x-api-key` or `Authorization: Bearer`; `anthropic-version`
//! and `anthropic-beta` go upstream unchanged. Upstream is the Anthropic provider the
//! model names (`NAME/MODEL`), else the first one configured.

mod messages;

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::api::{Api, Event, Read, ReadEvents, error_response, unread_body};
use super::pass::{self, Call};
use super::{BODY_LIMIT, Proxy, relay, upstream};
use crate::listeners;
use crate::provider::anthropic::Assembler;
use crate::provider::{ApiKey, Provider, ProviderError, Redactor};

/// The Anthropic API, as the proxy serves it.
pub struct Anthropic;

/// The one value of [`Anthropic`].
pub static ANTHROPIC: Anthropic = Anthropic;

/// The provider kind this API's requests go to.
const KIND: &str = "anthropic";

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

/// Where a client of this API passes its key.
const WHERE_TO: &str = "the x-api-key header";

/// `POST /v1/messages`.
pub async fn messages(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    post(proxy.0, headers, body, "/v1/messages").await
}

/// `POST /v1/messages/count_tokens`.
pub async fn count_tokens(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    post(proxy.0, headers, body, "/v1/messages/count_tokens").await
}

async fn post(proxy: Arc<Proxy>, headers: HeaderMap, body: Body, path: &str) -> Response {
    let within = proxy.services.live.get().config.client_timeout;
    let body = match listeners::read_body(body, BODY_LIMIT, within).await {
        Ok(body) => body,
        Err(error) => return unread_body(&ANTHROPIC, &error),
    };
    let Ok(mut request) = serde_json::from_slice::<Value>(&body) else {
        return error_response(
            &ANTHROPIC,
            StatusCode::BAD_REQUEST,
            "The request body is not valid JSON.",
        );
    };
    let live = proxy.services.live.get();
    let model = request["model"].as_str().unwrap_or_default().to_string();
    let Some((provider, upstream_model)) =
        upstream::provider_for(&live.config.provider, KIND, &model)
    else {
        return none_configured();
    };
    let key = match admitted(&proxy, &headers, provider) {
        Ok(key) => key,
        Err(refused) => return refused.response(&ANTHROPIC),
    };
    let body = if upstream_model == model {
        body
    } else {
        request["model"] = Value::String(upstream_model.to_string());
        Bytes::from(request.to_string())
    };
    let generates = path == "/v1/messages";
    let streaming = generates && request["stream"].as_bool().unwrap_or(false);
    let turns = if streaming {
        messages::turns(&request)
    } else {
        Vec::new()
    };
    let continues = if streaming {
        proxy.place(&turns).await
    } else {
        None
    };
    let call = Call {
        api: &ANTHROPIC,
        url: format!("{}{path}", provider.base_url.trim_end_matches('/')),
        headers: upstream_headers(&headers, key.as_ref()),
        redactor: Redactor::new(key.as_ref().map(|k| k.expose())),
        live,
        method: reqwest::Method::POST,
        body,
        stream: streaming.then_some(relay::Framing::Sse),
        turns,
        continues,
        origin: pass::origin(&ANTHROPIC, &headers),
    };
    pass::forward(&proxy, call).await
}

/// `GET /v1/models`: the upstream provider's list, as it gives it.
pub async fn models(proxy: Arc<Proxy>, headers: &HeaderMap) -> Response {
    let live = proxy.services.live.get();
    let Some((provider, _)) = upstream::provider_for(&live.config.provider, KIND, "") else {
        return none_configured();
    };
    let key = match admitted(&proxy, headers, provider) {
        Ok(key) => key,
        Err(refused) => return refused.response(&ANTHROPIC),
    };
    let call = Call {
        api: &ANTHROPIC,
        url: format!("{}/v1/models", provider.base_url.trim_end_matches('/')),
        headers: upstream_headers(headers, key.as_ref()),
        redactor: Redactor::new(key.as_ref().map(|k| k.expose())),
        live,
        method: reqwest::Method::GET,
        body: Bytes::new(),
        stream: None,
        turns: Vec::new(),
        continues: None,
        origin: pass::origin(&ANTHROPIC, headers),
    };
    pass::forward(&proxy, call).await
}

/// Whether a request's headers are an Anthropic client's (its SDK sends its key as a
/// bearer token beside `anthropic-version`).
pub fn is_client(headers: &HeaderMap) -> bool {
    headers.contains_key("anthropic-version") || headers.contains_key("x-api-key")
}

/// The key the request carries (`x-api-key`, else a bearer token), admitted for
/// `provider`, or why not.
fn admitted(
    proxy: &Proxy,
    headers: &HeaderMap,
    provider: &Provider,
) -> Result<Option<ApiKey>, super::keys::Refused> {
    let accept_any = proxy
        .services
        .live
        .get()
        .config
        .settings
        .proxy_accept_any_key;
    let carried = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(|key| key.trim().to_string())
        .or_else(|| upstream::bearer_of(headers));
    super::keys::admit(carried, provider.api_key.as_ref(), accept_any, WHERE_TO)
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

/// The answer when no Anthropic provider is configured.
fn none_configured() -> Response {
    error_response(
        &ANTHROPIC,
        StatusCode::NOT_IMPLEMENTED,
        "omnid's Anthropic-compatible endpoint forwards to an Anthropic provider, and none \
         is configured (set --provider anthropic, or add [providers.NAME] with kind = \
         \"anthropic\")",
    )
}
