//! The model APIs' endpoint: a client of a model API pointed at omnid (its base URL set
//! to `--proxy-listen`'s address) gets the same retries, breaker and diagnostics as a
//! session's send, with no code change, and its conversations (whole answers and streamed
//! ones) recorded as sessions. One core (`pass.rs`: the retry loop through `forward.rs`, streams joined
//! after a cut in `relay.rs`, recording in `record.rs`, keys admitted in `keys.rs`) serves
//! a small module per API that knows only its paths, bodies, events and error shapes
//! (`api.rs` says what it must know; `gemini/`, `openai/`, `anthropic/`); `upstream.rs`
//! picks the provider a model names.

mod anthropic;
mod api;
mod forward;
mod gemini;
mod keys;
mod openai;
mod pass;
mod record;
mod relay;
mod respond;
mod upstream;
mod whole;

use std::sync::Arc;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};

use crate::api::Daemon;
use crate::listeners::{self, Busy, Rules};
use crate::services::Services;

/// The proxy's shared state.
pub struct Proxy {
    daemon: Arc<Daemon>,
    services: Arc<Services>,
    http: reqwest::Client,
}

/// Every API the proxy serves, in the order `omnictl status` lists their counts.
const ENDPOINTS: [&dyn api::Api; 4] = [
    &gemini::GEMINI,
    &openai::CHAT,
    &openai::RESPONSES,
    &anthropic::ANTHROPIC,
];

/// The largest request body the proxy takes: Anthropic's own limit, so an agent's long
/// context (Claude Code's, Codex's) passes as it would straight to the API. No body is
/// read before the request's key is admitted.
const BODY_LIMIT: usize = 32 * 1024 * 1024;

impl Proxy {
    /// The proxy of this daemon.
    pub fn new(daemon: Arc<Daemon>) -> anyhow::Result<Arc<Self>> {
        let services = daemon.services.clone();
        let http = reqwest::Client::builder()
            .user_agent(concat!("omnid-proxy/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .build()?;
        Ok(Arc::new(Self {
            daemon,
            services,
            http,
        }))
    }
}

/// Serves the proxy on `listener` until shutdown, at most `cap` connections at once.
pub fn serve(listener: tokio::net::TcpListener, proxy: Arc<Proxy>, cap: usize) {
    let services = proxy.services.clone();
    if let Ok(address) = listener.local_addr() {
        let _ = services.counters.proxy.address.set(address);
    }
    let endpoints = ENDPOINTS.iter().map(|api| (api.name(), Default::default()));
    let _ = services.counters.proxy.endpoints.set(endpoints.collect());
    let router = Router::new()
        .merge(gemini::routes())
        .route("/v1/chat/completions", post(openai::chat))
        .route("/v1/responses", post(openai::responses))
        .route("/v1/messages", post(anthropic::messages))
        .route("/v1/messages/count_tokens", post(anthropic::count_tokens))
        .route("/v1/models", get(shared_models))
        .fallback(|uri: axum::http::Uri| async move { gemini::not_found(uri.path()) })
        .with_state(proxy);
    let head_timeout = {
        let services = services.clone();
        Arc::new(move || services.live.get().config.client_timeout)
    };
    let busy = api::Api::error_body(
        &gemini::GEMINI,
        StatusCode::SERVICE_UNAVAILABLE,
        &format!("omnid's proxy serves {cap} connections at once; try again shortly"),
    );
    let rules = Rules {
        name: "the model APIs' proxy",
        head_timeout,
        cap: Some((cap, Busy::new(gemini::JSON, &busy))),
    };
    listeners::spawn(
        listener,
        router,
        rules,
        &services.tracker,
        services.shutdown.clone(),
    );
}

/// `GET /v1/models`, a path more than one API has: the request's own headers say whose
/// client asks (`anthropic-version` or `x-api-key` mean Anthropic's, a bearer token
/// without Gemini's key OpenAI's).
async fn shared_models(
    State(proxy): State<Arc<Proxy>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let gemini_key = headers.contains_key("x-goog-api-key")
        || query
            .as_deref()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("key=")));
    if anthropic::is_client(&headers) {
        anthropic::models(proxy, &headers).await
    } else if headers.contains_key("authorization") && !gemini_key {
        openai::models(proxy, &headers).await
    } else {
        gemini::list_models(proxy, "v1", query, &headers).await
    }
}
