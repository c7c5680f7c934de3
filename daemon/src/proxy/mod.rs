//! The Gemini-compatible endpoint: a Gemini client pointed at omnid (its base URL set to
//! `--proxy-listen`'s address) gets the same retries, breaker and diagnostics as a
//! session's send, with no code change. Requests keep the API's paths (`/v1beta/...` and
//! `/v1/...`); the client's key is admitted (`keys.rs`) and forwarded upstream; each
//! request runs through the one retry loop (`forward.rs`, streams in `relay.rs`).

mod check;
mod errors;
mod forward;
mod history;
mod keys;
mod record;
mod relay;
mod respond;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use tokio::sync::{mpsc, oneshot};

use crate::api::Daemon;
use crate::exchange::{self, Outcome, Setup};
use crate::listeners::{self, Busy, Rules};
use crate::provider::Redactor;
use crate::services::Services;
use forward::{Forward, Head, Whole};

/// The proxy's shared state.
pub struct Proxy {
    daemon: Arc<Daemon>,
    services: Arc<Services>,
    http: reqwest::Client,
    /// Recordings take their turn in the order their answers ended, so a follow-up
    /// request finds the conversation it continues.
    recording: tokio::sync::Mutex<()>,
}

/// The largest request body the proxy takes.
const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// API versions whose paths the proxy serves.
const VERSIONS: [&str; 2] = ["v1beta", "v1"];

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
            recording: tokio::sync::Mutex::new(()),
        }))
    }
}

/// Serves the proxy on `listener` until shutdown, at most `cap` connections at once.
pub fn serve(listener: tokio::net::TcpListener, proxy: Arc<Proxy>, cap: usize) {
    let services = proxy.services.clone();
    if let Ok(address) = listener.local_addr() {
        let _ = services.counters.proxy.address.set(address);
    }
    let router = Router::new()
        .route("/{version}/models", get(models))
        .route("/{version}/models/{call}", get(model).post(call))
        .fallback(|uri: axum::http::Uri| async move { errors::not_found(uri.path()) })
        .with_state(proxy);
    let head_timeout = {
        let services = services.clone();
        Arc::new(move || services.live.get().config.client_timeout)
    };
    let busy = errors::body(
        StatusCode::SERVICE_UNAVAILABLE,
        "UNAVAILABLE",
        &format!("omnid's proxy serves {cap} connections at once; try again shortly"),
    );
    let rules = Rules {
        name: "the Gemini-compatible proxy",
        head_timeout,
        cap: Some((cap, Busy::new("application/json; charset=UTF-8", &busy))),
    };
    listeners::spawn(
        listener,
        router,
        rules,
        &services.tracker,
        services.shutdown.clone(),
    );
}

/// What a request asks upstream for.
struct Call {
    method: reqwest::Method,
    path: String,
    query: Option<String>,
    body: Bytes,
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
    let path = format!("/{version}/models");
    let call = Call {
        method: reqwest::Method::GET,
        path,
        query,
        body: Bytes::new(),
        streaming: false,
        generates: false,
    };
    pass(proxy, &version, call, &headers).await
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
        body: Bytes::new(),
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
    let within = proxy.services.live.get().config.client_timeout;
    let body = match listeners::read_body(body, BODY_LIMIT, within).await {
        Ok(body) => body,
        Err(error) => return errors::unread_body(&error),
    };
    let streaming = call.ends_with(":streamGenerateContent");
    let generates = streaming || call.ends_with(":generateContent");
    let call = Call {
        method: reqwest::Method::POST,
        path: format!("/{version}/models/{call}"),
        query,
        body,
        streaming,
        generates,
    };
    pass(proxy, &version, call, &headers).await
}

/// Admits the request's key and forwards it.
async fn pass(proxy: Arc<Proxy>, version: &str, call: Call, headers: &HeaderMap) -> Response {
    if !VERSIONS.contains(&version) {
        return errors::not_found(&call.path);
    }
    let live = proxy.services.live.get();
    let Some(gemini) = live.config.provider.gemini() else {
        return errors::response(
            axum::http::StatusCode::NOT_IMPLEMENTED,
            "UNIMPLEMENTED",
            "omnid's proxy forwards to a Gemini provider, and none is configured (the default \
             provider is OpenAI-compatible and no [providers.NAME] has kind = \"gemini\")",
        );
    };
    let accept_any = live.config.settings.proxy_accept_any_key;
    let carried = keys::carried(headers, call.query.as_deref());
    let key = match keys::admit(carried, gemini.api_key.as_ref(), accept_any) {
        Ok(key) => key,
        Err(refusal) => return refusal.response(),
    };
    proxy
        .services
        .counters
        .proxy
        .requests
        .fetch_add(1, Ordering::Relaxed);
    let (url, framing) = upstream(&gemini.base_url, &call);
    let redactor = Redactor::new(key.as_ref().map(|k| k.expose()));
    let sent = if call.generates {
        history::Sent::parse(&call.body)
    } else {
        history::Sent::default()
    };
    let turns = history::turns(&sent);
    let continues = if call.generates {
        // A recording still under way (the previous answer's) is waited for, so the
        // conversation it records can be found.
        drop(proxy.recording.lock().await);
        record::place(&proxy.daemon, &turns)
    } else {
        None
    };
    let body = if call.generates {
        check::checked(&proxy, &live, &url, call.body, &sent, &redactor, continues).await
    } else {
        call.body
    };
    let (head_tx, head_rx) = oneshot::channel();
    let (events_tx, events_rx) = mpsc::channel::<Bytes>(64);
    let forward = Forward {
        http: proxy.http.clone(),
        live,
        url,
        method: call.method,
        body,
        key,
        redactor,
        head: Some(head_tx),
        events: call.streaming.then(|| events_tx.clone()),
        delivered: relay::Delivered::new(framing),
        complete: false,
        last_error: None,
        origin: origin(headers),
        turns,
        continues,
    };
    let services = proxy.services.clone();
    services
        .tracker
        .spawn(run(proxy.clone(), forward, events_tx));
    respond::respond(head_rx, events_rx).await
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

/// Where a recorded conversation came from: `proxy`, with the client's user agent.
fn origin(headers: &HeaderMap) -> String {
    match headers.get("user-agent").and_then(|v| v.to_str().ok()) {
        Some(agent) => format!("proxy ({})", agent.chars().take(120).collect::<String>()),
        None => "proxy".to_string(),
    }
}

/// Whether a query asks for server-sent events.
fn asks_for_sse(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|pair| pair == "alt=sse"))
}

/// Runs the request's attempts; the head goes to the client once known, a stream's events
/// as they come. The client going away cancels the upstream request.
async fn run(proxy: Arc<Proxy>, mut forward: Forward, events: mpsc::Sender<Bytes>) {
    let cancel = proxy.services.shutdown.child_token();
    let watcher = {
        let (cancel, events) = (cancel.clone(), events.clone());
        tokio::spawn(async move {
            events.closed().await;
            cancel.cancel();
        })
    };
    let setup = Setup {
        breaker: forward.live.breaker(&forward.url),
        live: forward.live.clone(),
        diag: proxy.services.diag.clone(),
        cancel,
        wait_for_probe: true,
    };
    let started = std::time::Instant::now();
    let outcome = exchange::run(&mut forward, &setup).await;
    watcher.abort();
    let (ended, attempts) = match &outcome {
        Outcome::Completed { attempts, .. } => ("answered", *attempts),
        Outcome::Failed { attempts, .. } => ("failed", *attempts),
        Outcome::Interrupted(()) => ("cancelled", 0),
    };
    tracing::info!(
        url = %forward.url,
        ended,
        attempts,
        ms = started.elapsed().as_millis() as u64,
        "proxy request"
    );
    let counters = &proxy.services.counters.proxy;
    let client_gone = matches!(outcome, Outcome::Interrupted(()));
    let head = match outcome {
        Outcome::Completed { done, attempts } => {
            if attempts > 1 {
                counters.healed.fetch_add(1, Ordering::Relaxed);
            }
            done.map(Head::Whole)
        }
        Outcome::Failed { failure, .. } => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            let whole = forward
                .last_error
                .take()
                .unwrap_or_else(|| Whole::unreachable(&failure.class, &failure.message));
            if forward.head.is_none() {
                // The stream had begun: it ends with the error in the API's shape.
                let error = String::from_utf8_lossy(&whole.body).into_owned();
                forward.delivered.send(&events, &error).await;
                None
            } else {
                Some(Head::Whole(whole))
            }
        }
        Outcome::Interrupted(()) => None,
    };
    if let (Some(head), Some(sender)) = (head, forward.head.take()) {
        let _ = sender.send(head);
    }
    end_stream(&proxy, forward, &events, client_gone).await;
}

/// Ends a streamed answer: a complete one is recorded, durably, before the client gets
/// its end (held back until then), so an answer a client has whole is never lost.
async fn end_stream(
    proxy: &Proxy,
    mut forward: Forward,
    events: &mpsc::Sender<Bytes>,
    client_gone: bool,
) {
    let streamed = forward.events.is_some() && forward.head.is_none();
    if forward.complete {
        // Recordings take their turn in the order their answers ended; the next request
        // of the conversation waits for this one to be recorded.
        let turn = proxy.recording.lock().await;
        keep(proxy, &mut forward).await;
        drop(turn);
        forward.delivered.release(events).await;
    }
    if streamed && !client_gone {
        forward.delivered.end(events).await;
    }
}

/// Records a streamed conversation that completed, and returns once it is durable. A
/// failure is logged, and the client still gets its answer: what the model said is not
/// withheld because omnid could not keep a copy.
async fn keep(proxy: &Proxy, forward: &mut Forward) {
    let answer = forward.delivered.answer.parts.clone();
    let turns = std::mem::take(&mut forward.turns);
    match record::record(&proxy.daemon, &forward.origin, turns, answer).await {
        Ok((session, nodes)) => {
            tracing::debug!(%session, ?nodes, "recorded a conversation through the proxy")
        }
        Err(error) => tracing::warn!(
            "a conversation through the proxy was answered but could not be recorded: {error}"
        ),
    }
}
