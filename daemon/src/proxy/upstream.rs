//! The requests of the APIs whose clients name a model in the body (OpenAI's,
//! Anthropic's): which configured provider each goes to, the key admitted for it and the
//! headers it travels in, and the request read and handed to the core (`pass.rs`). Each
//! API module says only its [`Route`] and how its body reads as turns.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;

use super::api::{Api, error_response, unread_body};
use super::pass::{self, Call};
use super::record::{Placed, Turn};
use super::{BODY_LIMIT, Proxy, relay};
use crate::listeners;
use crate::provider::{ApiKey, Provider, ProviderConfig, Redactor};
use crate::services::Live;

/// The provider of `kind` a model goes to, and the model's name there: `NAME/MODEL`
/// names a provider of that kind (the prefix is not sent on), otherwise the first
/// provider of that kind, the default provider first.
pub fn provider_for<'a>(
    providers: &'a ProviderConfig,
    kind: &str,
    model: &'a str,
) -> Option<(&'a Provider, &'a str)> {
    let of_kind = |p: &&Provider| p.kind.as_str() == kind;
    if let Some((name, rest)) = model.split_once('/')
        && let Some(provider) = providers.all().filter(of_kind).find(|p| p.name == name)
    {
        return Some((provider, rest));
    }
    providers
        .all()
        .find(of_kind)
        .map(|provider| (provider, model))
}

/// The key a request carries as `Authorization: Bearer KEY`.
pub fn bearer_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(crate::provider::bearer_token)
        .map(str::to_string)
}

/// Headers for upstream holding the admitted key, if any, as `name` (the value marked
/// sensitive, so no debug print shows it).
pub fn key_headers(
    name: reqwest::header::HeaderName,
    value: Option<&ApiKey>,
    bearer: bool,
) -> reqwest::header::HeaderMap {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = value {
        let value = if bearer { key.bearer() } else { key.header() };
        headers.insert(name, value.clone());
    }
    headers
}

/// How the requests of an API whose body names its model (OpenAI's, Anthropic's) reach a
/// provider: the provider kind, where its clients carry their key, and which headers go
/// upstream.
pub struct Route {
    /// The API the client speaks.
    pub api: &'static dyn Api,
    /// The provider kind its requests go to (`openai`).
    pub kind: &'static str,
    /// Where its clients pass their key, for the refusal ("the x-api-key header").
    pub where_to: &'static str,
    /// The key a request carries.
    pub carried: fn(&HeaderMap) -> Option<String>,
    /// The headers that go upstream: the admitted key, and what the API passes on.
    pub headers: fn(&HeaderMap, Option<&ApiKey>) -> reqwest::header::HeaderMap,
}

/// A JSON request to `path` under its provider's base URL: read, sent to the provider the
/// model names (renamed there), with the key admitted; if the request generates (`turns`
/// reads its body's conversation), its answer, whole or streamed (`stream: true`), is
/// recorded.
pub async fn post(
    proxy: Arc<Proxy>,
    route: &Route,
    path: &str,
    headers: HeaderMap,
    body: Body,
    turns: Option<fn(&Value) -> Vec<Turn>>,
) -> Response {
    let api = route.api;
    // No body is read for a client whose key no provider of the kind would take.
    if let Err(refusal) = plausible_key(route, &proxy.services.live.get(), &headers) {
        return refusal;
    }
    let within = proxy.services.live.get().config.client_timeout;
    let (body, held) = match listeners::read_body(body, BODY_LIMIT, within).await {
        Ok(read) => read,
        Err(error) => return unread_body(api, &error),
    };
    let Ok(mut request) = serde_json::from_slice::<Value>(&body) else {
        let message = "The request body is not valid JSON.";
        return error_response(api, StatusCode::BAD_REQUEST, message);
    };
    let live = proxy.services.live.get();
    let model = request["model"].as_str().unwrap_or_default().to_string();
    let (provider, key) = match admitted(route, &live, &model, &headers) {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let (provider, upstream_model) = provider;
    let body = if upstream_model == model {
        body
    } else {
        request["model"] = Value::String(upstream_model.to_string());
        Bytes::from(request.to_string())
    };
    let records = turns.is_some();
    let streaming = records && request["stream"].as_bool().unwrap_or(false);
    let turns = turns.map_or_else(Vec::new, |read| read(&request));
    let placed = if records {
        proxy.place(api, &turns).await
    } else {
        Placed::default()
    };
    let mut call = call(route, &live, provider, path, &headers, key.as_ref());
    call.source.model = Some(format!("{}/{upstream_model}", provider.name));
    call.method = reqwest::Method::POST;
    call.body = body;
    call.stream = streaming.then_some(relay::Framing::Sse);
    call.records = records;
    call.turns = turns;
    call.placed = placed;
    call.live = live.clone();
    call.held = held;
    pass::forward(&proxy, call).await
}

/// A GET of `path` under the provider's base URL (the model listings), passed on as the
/// provider answers it.
pub async fn get(proxy: Arc<Proxy>, route: &Route, path: &str, headers: &HeaderMap) -> Response {
    let live = proxy.services.live.get();
    match admitted(route, &live, "", headers) {
        Ok(((provider, _), key)) => {
            let call = call(route, &live, provider, path, headers, key.as_ref());
            pass::forward(&proxy, call).await
        }
        Err(refusal) => refusal,
    }
}

/// Whether some provider of the route's kind would take the request's key (which one
/// asks depends on the body's model); else the answer the client gets.
#[allow(clippy::result_large_err)] // the error is the response itself, built once
fn plausible_key(route: &Route, live: &Live, headers: &HeaderMap) -> Result<(), Response> {
    let providers = &live.config.provider;
    let accept_any = live.config.settings.proxy_accept_any_key;
    let mut refusal = None;
    for provider in providers.all().filter(|p| p.kind.as_str() == route.kind) {
        let carried = (route.carried)(headers);
        match super::keys::admit(
            carried,
            provider.api_key.as_ref(),
            accept_any,
            route.where_to,
        ) {
            Ok(_) => return Ok(()),
            Err(refused) => refusal = Some(refused),
        }
    }
    match refusal {
        Some(refused) => Err(refused.response(route.api)),
        // No provider of the kind: the request itself says so once read.
        None => Ok(()),
    }
}

/// The provider `model` goes to (and its name there) with the request's key admitted for
/// it; else the answer the client gets.
#[allow(clippy::result_large_err)] // the error is the response itself, built once
fn admitted<'a>(
    route: &Route,
    live: &'a Live,
    model: &'a str,
    headers: &HeaderMap,
) -> Result<((&'a Provider, &'a str), Option<ApiKey>), Response> {
    let Some(found) = provider_for(&live.config.provider, route.kind, model) else {
        let message = format!(
            "omnid's {api} endpoint forwards to a provider of kind \"{kind}\", and none is \
             configured (set --provider {kind}, or add [providers.NAME] with kind = \"{kind}\")",
            api = route.api.name(),
            kind = route.kind,
        );
        return Err(error_response(
            route.api,
            StatusCode::NOT_IMPLEMENTED,
            &message,
        ));
    };
    let accept_any = live.config.settings.proxy_accept_any_key;
    let carried = (route.carried)(headers);
    let configured = found.0.api_key.as_ref();
    match super::keys::admit(carried, configured, accept_any, route.where_to) {
        Ok(key) => Ok((found, key)),
        Err(refused) => Err(refused.response(route.api)),
    }
}

/// A call to `path` of `provider`, with nothing in it yet.
fn call(
    route: &Route,
    live: &Arc<Live>,
    provider: &Provider,
    path: &str,
    headers: &HeaderMap,
    key: Option<&ApiKey>,
) -> Call {
    Call {
        api: route.api,
        live: live.clone(),
        method: reqwest::Method::GET,
        url: format!("{}{path}", provider.base_url.trim_end_matches('/')),
        headers: (route.headers)(headers, key),
        body: Bytes::new(),
        stream: None,
        records: false,
        turns: Vec::new(),
        placed: Placed::default(),
        redactor: Redactor::new(key.map(|k| k.expose())),
        source: pass::source(route.api, headers, None),
        held: listeners::Held::none(),
    }
}
