//! A request passing through the proxy as an [`Exchange`]: every attempt sends exactly the
//! same body upstream with the admitted key. A plain request's answer is read whole (and
//! a generation's read as content, to record: `whole.rs`); a streamed one is relayed as
//! it arrives (`relay.rs`). Failures are written down like a
//! session's, with the request's contents as the history snapshot.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::StatusCode;
use reqwest::header::CONTENT_TYPE;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, timeout_at};
use tokio_util::sync::CancellationToken;

use super::api::Api;
use super::relay::{self, Delivered, Relayed};
use crate::diag::{AttemptTrace, Report};
use crate::exchange::{Attempt, Exchange, RetryNotice, Sent, attempt_report, failure_of};
use crate::provider::{Phase, ProviderError, Redactor, status_error};
use crate::resilience::{Failure, FailureClass};
use crate::services::Live;

/// Largest answer to a plain request that is passed on (64 MiB).
const MAX_ANSWER: usize = 64 * 1024 * 1024;

/// A whole upstream answer, passed to the client as it came.
#[derive(Debug)]
pub struct Whole {
    /// Its status.
    pub status: u16,
    /// Headers passed on (content type, `Retry-After`).
    pub headers: Vec<(String, String)>,
    /// Its body.
    pub body: Bytes,
}

impl Whole {
    /// The answer for a failure that upstream never answered (it could not be reached, or
    /// the breaker is open), in the client's API's error shape.
    pub fn unreachable(api: &dyn Api, class: &FailureClass, message: &str) -> Self {
        let code = match class {
            FailureClass::CircuitOpen { .. } => StatusCode::SERVICE_UNAVAILABLE,
            FailureClass::Timeout => StatusCode::GATEWAY_TIMEOUT,
            _ => StatusCode::BAD_GATEWAY,
        };
        Whole {
            status: code.as_u16(),
            headers: vec![("content-type".into(), api.error_type().into())],
            body: Bytes::from(api.error_body(code, &format!("omnid: {message}"))),
        }
    }
}

/// How the client's response begins: whole, or as a stream whose events follow.
#[derive(Debug)]
pub enum Head {
    /// The whole answer (a plain request, or a failure before anything streamed).
    Whole(Whole),
    /// A 200 stream of this content type; its items follow on the body channel.
    Stream(&'static str),
}

/// One request passing through.
pub struct Forward {
    /// The API the client speaks (and upstream too).
    pub api: &'static dyn Api,
    pub http: reqwest::Client,
    pub live: Arc<Live>,
    /// The upstream URL (never with a key).
    pub url: String,
    pub method: reqwest::Method,
    pub body: Bytes,
    /// Headers sent upstream: the admitted key (marked sensitive) and what the API forwards.
    pub headers: reqwest::header::HeaderMap,
    /// Removes the forwarded key (and omnid's own) from what is written down.
    pub redactor: Redactor,
    /// Where a streamed answer's head goes, once.
    pub head: Option<oneshot::Sender<Head>>,
    /// Where a streamed answer's events go; `None` for a plain request.
    pub events: Option<mpsc::Sender<Bytes>>,
    pub delivered: Delivered,
    /// A generation request: its answer is recorded.
    pub records: bool,
    /// The answer is complete and read (`delivered.answer`), to be recorded before the
    /// client has it all: a stream's end is held back, a whole answer's head too.
    pub complete: bool,
    /// A stream broke and its retry could not be joined to what the client had: it ended
    /// with an error event, so the request failed although its last attempt answered.
    pub diverged: bool,
    /// Where the request came from, for the recorded session.
    pub source: super::record::Source,
    /// The request's contents as the client sent them (what is recorded).
    pub turns: Vec<super::record::Turn>,
    /// The recorded conversation this request continues (its session and last node), if
    /// any: where its failures are filed.
    pub placed: super::record::Placed,
    /// The last error answer upstream gave, passed on when retrying cannot heal.
    pub last_error: Option<Whole>,
    /// The room the request's body holds in the bodies' budget, kept for what dropping
    /// it does: given back when the request is done.
    #[allow(dead_code)]
    pub held: crate::listeners::Held,
}

impl Forward {
    /// The headers sent upstream, for diagnostics: a sensitive value (the key) left out.
    fn sent_headers(&self) -> Vec<(String, String)> {
        let mut sent = Vec::new();
        if self.method == reqwest::Method::POST {
            sent.push(("content-type".to_string(), "application/json".to_string()));
        }
        for (name, value) in &self.headers {
            let value = match value.to_str() {
                Ok(text) if !value.is_sensitive() => text,
                _ => "[REDACTED]",
            };
            sent.push((name.to_string(), value.to_string()));
        }
        sent
    }

    fn idle(&self) -> Duration {
        self.live.config.provider.idle_timeout
    }

    async fn send(&self) -> Result<reqwest::Response, ProviderError> {
        let mut request = self.http.request(self.method.clone(), &self.url);
        if self.method == reqwest::Method::POST {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(self.body.clone());
        }
        request = request.headers(self.headers.clone());
        match tokio::time::timeout(self.idle(), request.send()).await {
            Err(_) => Err(ProviderError::Transport {
                phase: Phase::Connect,
                chain: format!("no response for {} s", self.idle().as_secs_f32()),
                timeout: true,
                connect: false,
                io_kind: Some(std::io::ErrorKind::TimedOut),
            }),
            Ok(result) => result.map_err(|e| ProviderError::transport(Phase::Connect, &e)),
        }
    }

    /// Reads a plain answer whole.
    async fn read_whole(
        &self,
        mut response: reqwest::Response,
        deadline: Instant,
    ) -> Result<Whole, ProviderError> {
        let status = response.status().as_u16();
        let headers = pass_on(&response);
        let mut body = Vec::new();
        loop {
            let next = timeout_at(deadline.min(Instant::now() + self.idle()), response.chunk());
            match next.await {
                Err(_) => {
                    return Err(ProviderError::BrokenStream(
                        "the answer stopped arriving".into(),
                    ));
                }
                Ok(Err(error)) => return Err(ProviderError::transport(Phase::Stream, &error)),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(bytes))) if body.len() + bytes.len() > MAX_ANSWER => {
                    return Err(ProviderError::BrokenStream(
                        "the answer is over 64 MiB".into(),
                    ));
                }
                Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
            }
        }
        Ok(Whole {
            status,
            headers,
            body: Bytes::from(body),
        })
    }

    /// A generation request's whole answer, read to be recorded; one that cannot be read
    /// still reaches the client as it came.
    fn read_answer(&mut self, whole: &Whole) {
        if !self.records {
            return;
        }
        match super::whole::read(self.api, &whole.body) {
            Ok(answer) => {
                self.delivered.answer = answer;
                self.complete = true;
            }
            Err(error) => tracing::warn!(
                api = self.api.name(),
                "a whole answer through the proxy could not be read to be recorded: {}",
                self.redactor.text(&error.to_string())
            ),
        }
    }

    /// One attempt, without the cancel.
    async fn once(&mut self, deadline: Instant) -> Attempt<Option<Whole>, ()> {
        let failed = |this: &mut Self, error: ProviderError| {
            let failure = failure_of(&error, &this.live.config.retry);
            this.last_error = answered(&error);
            Attempt::Failed {
                failure,
                error: Some(error),
                partial: this.delivered.any(),
            }
        };
        let mut response = match self.send().await {
            Ok(response) => response,
            Err(error) => return failed(self, error),
        };
        if !response.status().is_success() {
            let error = status_error(&mut response, self.idle()).await;
            return failed(self, error);
        }
        let Some(events) = self.events.clone() else {
            return match self.read_whole(response, deadline).await {
                Ok(whole) => {
                    self.read_answer(&whole);
                    Attempt::Done(Some(whole))
                }
                Err(error) => failed(self, error),
            };
        };
        if let Some(head) = self.head.take() {
            let _ = head.send(Head::Stream(self.delivered.framing.content_type()));
        }
        let idle = self.idle();
        let relayed = relay::relay(
            self.api,
            response,
            &mut self.delivered,
            &events,
            idle,
            deadline,
        );
        match relayed.await {
            Relayed::Complete => {
                self.complete = true;
                Attempt::Done(None)
            }
            Relayed::ClientGone => Attempt::Cancelled(()),
            Relayed::Diverged => {
                self.diverged = true;
                let event = self.api.error_event(&diverged(self.api));
                self.delivered.send(&events, &event).await;
                Attempt::Done(None)
            }
            Relayed::Failed(error) => failed(self, error),
        }
    }
}

/// The error event that ends a stream whose retry cannot be joined to what was sent.
fn diverged(api: &dyn Api) -> String {
    api.error_body(
        StatusCode::BAD_GATEWAY,
        "The stream broke and the model's retried answer began differently from what you \
         already received, so omnid cannot continue it seamlessly. Send the request again.",
    )
}

/// An error answer upstream gave, as the client gets it if retrying cannot heal.
fn answered(error: &ProviderError) -> Option<Whole> {
    let ProviderError::Status {
        status,
        headers,
        body,
    } = error
    else {
        return None;
    };
    let headers = headers
        .iter()
        .filter(|(name, _)| name == "content-type" || name == "retry-after")
        .cloned()
        .collect();
    Some(Whole {
        status: *status,
        headers,
        body: Bytes::from(body.clone()),
    })
}

/// The headers of an upstream answer the client gets too.
fn pass_on(response: &reqwest::Response) -> Vec<(String, String)> {
    ["content-type", "retry-after"]
        .iter()
        .filter_map(|name| {
            let value = response.headers().get(*name)?.to_str().ok()?;
            Some((name.to_string(), value.to_string()))
        })
        .collect()
}

impl Exchange for Forward {
    type Done = Option<Whole>;
    type Partial = ();

    async fn attempt(
        &mut self,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Attempt<Option<Whole>, ()> {
        tokio::select! {
            attempt = self.once(deadline) => attempt,
            _ = cancel.cancelled() => Attempt::Cancelled(()),
        }
    }

    /// A proxy client speaks the model's API: retries are invisible to it.
    fn retrying(&mut self, _notice: RetryNotice) {}

    fn report(
        &self,
        attempt: u32,
        failure: &Failure,
        error: Option<&ProviderError>,
        timeline: &[AttemptTrace],
    ) -> Report {
        let body = String::from_utf8_lossy(&self.body);
        let sent = Sent {
            session: self.placed.at.map(|(session, _)| session),
            node: self.placed.at.map_or(0, |(_, node)| node),
            url: &self.url,
            headers: self.sent_headers(),
            body: &body,
        };
        let max = self.live.config.retry.max_attempts;
        let mut report = attempt_report(sent, max, attempt, failure, error, timeline);
        // The forwarded key may be a client's own, which omnid's redaction does not know.
        report.message = self.redactor.text(&report.message);
        if let Some(response) = &mut report.response {
            response.body = self.redactor.text(&response.body);
        }
        report
    }
}
