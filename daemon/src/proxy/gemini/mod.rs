//! The Gemini API (`/v1beta/...` and `/v1/...`): its paths, where its clients carry a key,
//! its error shape and its streamed chunks. A generation request's history is checked
//! (and by policy repaired) before it goes upstream, to the configured Gemini provider.

mod check;
mod errors;
mod history;
mod keys;

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;

use super::api::{Api, Event, Read, ReadEvents, error_response, unread_body};
use super::pass::{self, Call as Forwarded};
use super::record::Placed;
use super::{BODY_LIMIT, Proxy, relay};
use crate::listeners;
use crate::provider::gemini::chunk;
use crate::provider::{ApiKey, ProviderError, Redactor};

pub use errors::JSON;

/// The Gemini API, as the proxy serves it.
pub struct Gemini;

/// The one value of [`Gemini`].
pub static GEMINI: Gemini = Gemini;

impl Api for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn error_body(&self, code: StatusCode, message: &str) -> String {
        errors::body(code, message)
    }

    fn error_type(&self) -> &'static str {
        JSON
    }

    fn reader(&self) -> Box<dyn ReadEvents> {
        Box::new(Chunks)
    }
}

/// Gemini's chunks stand alone: each is a `GenerateContentResponse`.
struct Chunks;

impl ReadEvents for Chunks {
    fn read(&mut self, event: &Event) -> Result<Option<Read>, ProviderError> {
        chunk::parse(&event.data).map(|update| Some(Read::parts(update)))
    }
}

/// API versions whose paths the proxy serves.
const VERSIONS: [&str; 2] = ["v1beta", "v1"];

/// The API's routes.
pub fn routes() -> Router<Arc<Proxy>> {
    Router::new()
        .route("/{version}/models", get(models))
        .route("/{version}/models/{call}", get(model).post(call))
}

/// A path the API does not have.
pub use errors::not_found;

/// What a request asks upstream for.
struct Call {
    method: reqwest::Method,
    path: String,
    query: Option<String>,
    /// The body, read only once the key is admitted (`None` for a GET).
    body: Option<Body>,
    streaming: bool,
    /// A generation request (streamed or not): its history is checked, and looked up.
    generates: bool,
}

async fn models(
    State(proxy): State<Arc<Proxy>>,
    Path(version): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    list_models(proxy, &version, query, &headers).await
}

/// `GET /{version}/models`, also reached through the path the APIs share (`/v1/models`).
pub async fn list_models(
    proxy: Arc<Proxy>,
    version: &str,
    query: Option<String>,
    headers: &HeaderMap,
) -> Response {
    let path = format!("/{version}/models");
    let call = Call {
        method: reqwest::Method::GET,
        path,
        query,
        body: None,
        streaming: false,
        generates: false,
    };
    pass(proxy, version, call, headers).await
}

async fn model(
    State(proxy): State<Arc<Proxy>>,
    Path((version, name)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let call = Call {
        method: reqwest::Method::GET,
        path: format!("/{version}/models/{name}"),
        query,
        body: None,
        streaming: false,
        generates: false,
    };
    pass(proxy, &version, call, &headers).await
}

async fn call(
    State(proxy): State<Arc<Proxy>>,
    Path((version, call)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let streaming = call.ends_with(":streamGenerateContent");
    let generates = streaming || call.ends_with(":generateContent");
    let call = Call {
        method: reqwest::Method::POST,
        path: format!("/{version}/models/{call}"),
        query,
        body: Some(body),
        streaming,
        generates,
    };
    pass(proxy, &version, call, &headers).await
}

/// Admits the request's key, then reads its body (none is read for a client whose key
/// would be refused), checks a generation request's history, and forwards it.
async fn pass(proxy: Arc<Proxy>, version: &str, mut call: Call, headers: &HeaderMap) -> Response {
    if !VERSIONS.contains(&version) {
        return errors::not_found(&call.path);
    }
    let live = proxy.services.live.get();
    let key = match admit(&proxy, headers, call.query.as_deref()) {
        Ok(key) => key,
        Err(refusal) => return refusal,
    };
    let Some(gemini) = live.config.provider.gemini() else {
        return none_configured();
    };
    let (body, held) = match call.body.take() {
        Some(body) => {
            let within = live.config.client_timeout;
            match listeners::read_body(body, BODY_LIMIT, within).await {
                Ok(read) => read,
                Err(error) => return unread_body(&GEMINI, &error),
            }
        }
        None => (Bytes::new(), listeners::Held::none()),
    };
    let (url, framing) = upstream(&gemini.base_url, &call);
    let redactor = Redactor::new(key.as_ref().map(|k| k.expose()));
    let sent = if call.generates {
        history::Sent::parse(&body)
    } else {
        history::Sent::default()
    };
    let turns = history::turns(&sent);
    let placed = if call.generates {
        proxy.place(&GEMINI, &turns).await
    } else {
        Placed::default()
    };
    let body = if call.generates {
        check::checked(&proxy, &live, &url, body, &sent, &redactor, placed.at).await
    } else {
        body
    };
    let model = model_of(&call.path).map(|model| format!("{}/{model}", gemini.name));
    let forwarded = Forwarded {
        api: &GEMINI,
        live,
        method: call.method,
        url,
        headers: key_header(key.as_ref()),
        body,
        stream: call.streaming.then_some(framing),
        records: call.generates,
        turns,
        placed,
        redactor,
        source: pass::source(&GEMINI, headers, model),
        held,
    };
    pass::forward(&proxy, forwarded).await
}

/// The key the request carries, admitted for the Gemini provider; else the answer.
#[allow(clippy::result_large_err)] // the error is the response itself, built once
fn admit(
    proxy: &Proxy,
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<Option<ApiKey>, Response> {
    let live = proxy.services.live.get();
    let Some(gemini) = live.config.provider.gemini() else {
        return Err(none_configured());
    };
    let accept_any = live.config.settings.proxy_accept_any_key;
    let carried = keys::carried(headers, query);
    let where_to = "the x-goog-api-key header";
    super::keys::admit(carried, gemini.api_key.as_ref(), accept_any, where_to)
        .map_err(|refusal| refusal.response(&GEMINI))
}

/// The answer when no Gemini provider is configured.
fn none_configured() -> Response {
    error_response(
        &GEMINI,
        StatusCode::NOT_IMPLEMENTED,
        "omnid's proxy forwards to a Gemini provider, and none is configured (the default \
         provider is not Gemini and no [providers.NAME] has kind = \"gemini\")",
    )
}

/// The admitted key as Gemini takes it upstream.
fn key_header(key: Option<&ApiKey>) -> reqwest::header::HeaderMap {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = key {
        headers.insert("x-goog-api-key", key.header().clone());
    }
    headers
}

/// Where the request goes upstream (its key left out), and how a stream reaches the
/// client: upstream always streams server-sent events; a client that did not ask for them
/// gets the JSON array the API would have sent it.
fn upstream(base_url: &str, call: &Call) -> (String, relay::Framing) {
    let mut query = keys::without_key(call.query.as_deref());
    let framing = if call.streaming && !asks_for_sse(query.as_deref()) {
        query = Some(match query {
            Some(query) => format!("{query}&alt=sse"),
            None => "alt=sse".to_string(),
        });
        relay::Framing::JsonArray
    } else {
        relay::Framing::Sse
    };
    let base = base_url.trim_end_matches('/');
    let url = match query {
        Some(query) => format!("{base}{}?{query}", call.path),
        None => format!("{base}{}", call.path),
    };
    (url, framing)
}

/// The model a path names (`/v1beta/models/MODEL:streamGenerateContent`).
fn model_of(path: &str) -> Option<&str> {
    let (_, rest) = path.split_once("/models/")?;
    Some(rest.split_once(':').map_or(rest, |(model, _)| model))
}

/// Whether a query asks for server-sent events.
fn asks_for_sse(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|pair| pair == "alt=sse"))
}
