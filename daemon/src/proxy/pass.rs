//! The proxy's core, shared by every API it serves: a request an API module has read and
//! admitted (a [`Call`]) runs through the one retry loop as an [`Exchange`](forward.rs);
//! the client gets its answer whole or streamed, a failure in its API's shape, and a
//! generation request's complete answer (whole or streamed) is recorded, durably, before
//! the client has it all.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use tokio::sync::{mpsc, oneshot};

use super::Proxy;
use super::api::Api;
use super::forward::{Forward, Head, Whole};
use super::record::{Placed, Source, Turn};
use super::{record, relay, respond};
use crate::exchange::{self, Outcome, Setup};
use crate::model::ModelInfo;
use crate::provider::Redactor;
use crate::services::{Live, ProxyTally};

/// A request as an API module hands it to the core: read, admitted, and addressed.
pub struct Call {
    /// The API the client speaks.
    pub api: &'static dyn Api,
    /// The settings in effect when it arrived.
    pub live: Arc<Live>,
    pub method: reqwest::Method,
    /// The upstream URL (never with a key).
    pub url: String,
    /// Headers for upstream: the admitted key (sensitive) and what the API forwards.
    pub headers: reqwest::header::HeaderMap,
    pub body: Bytes,
    /// How a streamed answer reaches the client; `None` for a plain request.
    pub stream: Option<relay::Framing>,
    /// A generation request: its answer, whole or streamed, is recorded.
    pub records: bool,
    /// A generation request's conversation, as turns (what a complete answer records).
    pub turns: Vec<Turn>,
    /// Where it stands among the recorded conversations (where its failures are filed).
    pub placed: Placed,
    /// Removes the forwarded key (and omnid's own) from what is written down.
    pub redactor: Redactor,
    /// Where it came from, for a recorded session: the API, the client, the model.
    pub source: Source,
    /// The room its body holds in the bodies' budget, until its last attempt is done.
    pub held: crate::listeners::Held,
}

/// Where a conversation of `api` comes from: the API's proxy with the client's user agent
/// (`gemini proxy (gemini-cli/1.0)`), and `model`, the model it asks as a session names it.
pub fn source(api: &dyn Api, headers: &HeaderMap, model: Option<String>) -> Source {
    let name = api.name();
    let origin = match headers.get("user-agent").and_then(|v| v.to_str().ok()) {
        Some(agent) => format!(
            "{name} proxy ({})",
            agent.chars().take(120).collect::<String>()
        ),
        None => format!("{name} proxy"),
    };
    Source {
        api: name,
        origin,
        model,
    }
}

impl Proxy {
    /// The recorded conversation that `turns` continue, if any.
    pub async fn place(&self, api: &dyn Api, turns: &[Turn]) -> Placed {
        record::place(&self.daemon, api.name(), turns).await
    }
}

/// Forwards `call` upstream through the retry loop; the client's response.
pub async fn forward(proxy: &Arc<Proxy>, call: Call) -> Response {
    let counters = &proxy.services.counters.proxy;
    counters.add(call.api.name(), ProxyTally::Request);
    let (head_tx, head_rx) = oneshot::channel();
    let (events_tx, events_rx) = mpsc::channel::<Bytes>(64);
    let api = call.api;
    let records = call.records && call.live.config.settings.proxy_record;
    let forward = Forward {
        api,
        http: proxy.http.clone(),
        live: call.live,
        url: call.url,
        method: call.method,
        body: call.body,
        headers: call.headers,
        redactor: call.redactor,
        head: Some(head_tx),
        events: call.stream.is_some().then(|| events_tx.clone()),
        delivered: relay::Delivered::new(call.stream.unwrap_or_default()),
        records,
        complete: false,
        diverged: false,
        last_error: None,
        source: call.source,
        turns: call.turns,
        placed: call.placed,
        held: call.held,
    };
    proxy
        .services
        .tracker
        .spawn(run(proxy.clone(), forward, events_tx));
    respond::respond(api, head_rx, events_rx).await
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
    let client_gone = matches!(outcome, Outcome::Interrupted(()));
    let attempts = match &outcome {
        Outcome::Completed { attempts, .. } | Outcome::Failed { attempts, .. } => *attempts,
        Outcome::Interrupted(()) => 0,
    };
    let head = settle(&proxy, &mut forward, outcome, started, &events).await;
    if forward.complete && forward.records {
        // Recordings run side by side and share syncs. The conversation's next request
        // cannot come before this one is recorded: the client has the whole answer only
        // once it is on disk.
        keep(&proxy, &mut forward, Made { attempts, started }).await;
    }
    if let (Some(head), Some(sender)) = (head, forward.head.take()) {
        let _ = sender.send(head);
    }
    end_stream(forward, &events, client_gone).await;
}

/// How a relayed answer was made: the attempts it took and when the first began.
struct Made {
    attempts: u32,
    started: std::time::Instant,
}

/// What a request's outcome tells: it is logged and counted, and the client's head is
/// the whole answer or upstream's error; a stream that had begun ends with the error in
/// the API's shape instead.
async fn settle(
    proxy: &Proxy,
    forward: &mut Forward,
    outcome: Outcome<Option<Whole>, ()>,
    started: std::time::Instant,
    events: &mpsc::Sender<Bytes>,
) -> Option<Head> {
    let (ended, attempts) = match &outcome {
        Outcome::Completed { attempts, .. } if forward.diverged => ("diverged", *attempts),
        Outcome::Completed { attempts, .. } => ("answered", *attempts),
        Outcome::Failed { attempts, .. } => ("failed", *attempts),
        Outcome::Interrupted(()) => ("cancelled", 0),
    };
    let api = forward.api.name();
    tracing::info!(
        api,
        url = %forward.url,
        ended,
        attempts,
        ms = started.elapsed().as_millis() as u64,
        "proxy request"
    );
    let counters = &proxy.services.counters.proxy;
    match outcome {
        Outcome::Completed { done, attempts } => {
            if forward.diverged {
                counters.add(api, ProxyTally::Failed);
            } else if attempts > 1 {
                counters.add(api, ProxyTally::Healed);
            }
            done.map(Head::Whole)
        }
        Outcome::Failed { failure, .. } => {
            counters.add(api, ProxyTally::Failed);
            let whole = forward.last_error.take().unwrap_or_else(|| {
                Whole::unreachable(forward.api, &failure.class, &failure.message)
            });
            if forward.head.is_some() {
                return Some(Head::Whole(whole));
            }
            // The stream had begun: it ends with the error in the API's shape.
            let error = forward
                .api
                .error_event(&String::from_utf8_lossy(&whole.body));
            forward.delivered.send(events, &error).await;
            None
        }
        Outcome::Interrupted(()) => None,
    }
}

/// Ends a streamed answer: a complete one's end, held back until it was recorded, goes
/// to the client now, so an answer a client has whole is never lost.
async fn end_stream(mut forward: Forward, events: &mpsc::Sender<Bytes>, client_gone: bool) {
    let streamed = forward.events.is_some() && forward.head.is_none();
    if forward.complete {
        forward.delivered.release(events).await;
    }
    if streamed && !client_gone {
        forward.delivered.end(events).await;
    }
}

/// Records a conversation whose answer completed (whole, or streamed and held back at its
/// end), and returns once it is durable. A failure is logged, and the client still gets
/// its answer: what the model said is not withheld because omnid could not keep a copy.
async fn keep(proxy: &Proxy, forward: &mut Forward, made: Made) {
    let answer = forward.delivered.answer.parts.clone();
    let turns = std::mem::take(&mut forward.turns);
    let hashes = std::mem::take(&mut forward.placed.hashes);
    let info = answer_info(forward, &made);
    let recorded = record::record(
        &proxy.daemon,
        &forward.source,
        (turns, hashes),
        answer,
        info,
    );
    match recorded.await {
        Ok((session, nodes)) => {
            tracing::debug!(%session, ?nodes, "recorded a conversation through the proxy")
        }
        Err(error) => tracing::warn!(
            "a conversation through the proxy was answered but could not be recorded: {error}"
        ),
    }
}

/// The relayed answer's model, usage, attempts and time, as a node keeps them.
fn answer_info(forward: &Forward, made: &Made) -> ModelInfo {
    let answer = &forward.delivered.answer;
    let source = &forward.source;
    let (provider, model) = match source.model.as_deref().and_then(|m| m.split_once('/')) {
        Some((provider, model)) => (provider.to_string(), model.to_string()),
        None => (
            source.api.to_string(),
            source.model.clone().unwrap_or_default(),
        ),
    };
    ModelInfo {
        model,
        model_version: answer.model_version.clone(),
        finish_reason: answer.finish_reason.clone(),
        usage: answer.usage,
        attempts: made.attempts,
        latency_ms: made.started.elapsed().as_millis() as u64,
        interrupted: false,
        provider,
    }
}
