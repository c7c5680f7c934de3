//! Running a route's request through the one request set and answering over HTTP: JSON,
//! server-sent events, or a download. The request runs in a task of its own, so a client
//! that disconnects mid-answer loses nothing: the answer is still stored (cancel is
//! explicit).

use std::convert::Infallible;
use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use omni_proto::{ErrorKind, ErrorReply, Event, ExportFormat, Reply, Request, json};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::route::Answer;
use crate::api::{Daemon, Responder, dispatch};

/// Events a request may have waiting for a slow reader before it waits for them.
const EVENT_BACKLOG: usize = 256;

/// The HTTP status that fits an error's kind.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::InvalidRequest => StatusCode::BAD_REQUEST,
        ErrorKind::Busy
        | ErrorKind::WrongState
        | ErrorKind::NeedsRecovery
        | ErrorKind::Damaged
        | ErrorKind::Cancelled => StatusCode::CONFLICT,
        ErrorKind::Suspended => StatusCode::LOCKED,
        ErrorKind::UpstreamFailure => StatusCode::BAD_GATEWAY,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorKind::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Storage => StatusCode::INSUFFICIENT_STORAGE,
    }
}

/// An error's JSON body: `{"error": {"kind", "message"}}`, and for a session that needs
/// recovery the choices it offers.
fn error_body(error: &ErrorReply) -> Value {
    let mut body = json::error(error);
    if error.kind == ErrorKind::NeedsRecovery {
        body["error"]["options"] = serde_json::json!(super::input::recovery_actions());
    }
    body
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let headers = [(header::CONTENT_TYPE, "application/json")];
    (status, headers, body.to_string()).into_response()
}

/// An error as an HTTP response with the status its kind calls for.
pub fn error_response(error: &ErrorReply) -> Response {
    json_response(status_of(error.kind), &error_body(error))
}

/// A request running in its own task: its events as they come, then its outcome.
struct Running {
    events: mpsc::Receiver<Event>,
    outcome: oneshot::Receiver<Result<Reply, ErrorReply>>,
}

fn start(daemon: &Arc<Daemon>, request: Request) -> Running {
    let (sender, events) = mpsc::channel(EVENT_BACKLOG);
    let (done, outcome) = oneshot::channel();
    let daemon = daemon.clone();
    daemon.services.tracker.clone().spawn(async move {
        let mut responder = Responder::channel(sender);
        let result = dispatch(&daemon, request, &mut responder).await;
        drop(responder);
        let _ = done.send(result);
    });
    Running { events, outcome }
}

impl Running {
    /// The outcome, the events skipped (or, for a download, collected into bytes).
    async fn finish(mut self, collect: &mut Vec<u8>) -> Result<Reply, ErrorReply> {
        while let Some(event) = self.events.recv().await {
            if let Event::BundleData(piece) | Event::ExportData(piece) = event {
                collect.extend_from_slice(&piece);
            }
        }
        self.outcome.await.unwrap_or_else(|_| {
            Err(ErrorReply::new(
                ErrorKind::ShuttingDown,
                "omnid is shutting down",
            ))
        })
    }

    /// Every event as a server-sent event, then one final `result` or `error`.
    fn into_stream(self) -> impl Stream<Item = Result<SseEvent, Infallible>> {
        stream::unfold(Some(self), |running| async move {
            let mut running = running?;
            if let Some(event) = running.events.recv().await {
                let sse = SseEvent::default()
                    .event(json::event_name(&event))
                    .data(json::event(&event).to_string());
                return Some((Ok(sse), Some(running)));
            }
            let last = match running.outcome.await {
                Ok(Ok(reply)) => SseEvent::default()
                    .event("result")
                    .data(json::reply(&reply).to_string()),
                Ok(Err(error)) => SseEvent::default()
                    .event("error")
                    .data(error_body(&error).to_string()),
                Err(_) => SseEvent::default().event("error").data(
                    error_body(&ErrorReply::new(
                        ErrorKind::ShuttingDown,
                        "omnid is shutting down",
                    ))
                    .to_string(),
                ),
            };
            Some((Ok(last), None))
        })
    }
}

/// Runs `request` and answers the way the route does.
pub async fn answer(
    daemon: &Arc<Daemon>,
    request: Request,
    how: Answer,
    wants_json: bool,
) -> Response {
    let running = start(daemon, request);
    let as_events = match how {
        Answer::Follows => true,
        Answer::Streams => !wants_json,
        Answer::Json(_) | Answer::Download => false,
    };
    if as_events {
        return Sse::new(running.into_stream())
            .keep_alive(KeepAlive::default())
            .into_response();
    }
    match how {
        Answer::Download => {
            let mut bundle = Vec::new();
            match running.finish(&mut bundle).await {
                Ok(Reply::Bundle(omni_proto::Bundle { name, .. })) => {
                    download(&name, "application/json", bundle)
                }
                Ok(Reply::Exported(omni_proto::Exported { name, .. })) => {
                    let format = name.rsplit('.').next().and_then(ExportFormat::parse);
                    let media = format.map_or("application/json", ExportFormat::media_type);
                    download(&name, media, bundle)
                }
                Ok(other) => json_response(StatusCode::OK, &json::reply(&other)),
                Err(error) => error_response(&error),
            }
        }
        _ => {
            let status = match how {
                Answer::Json(status) => StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                _ => StatusCode::OK,
            };
            match running.finish(&mut Vec::new()).await {
                Ok(reply) => json_response(status, &json::reply(&reply)),
                Err(error) => error_response(&error),
            }
        }
    }
}

/// The OpenAPI document, pretty-printed as it is checked in.
pub fn document(document: Value) -> Response {
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

fn download(name: &str, media_type: &'static str, bytes: Vec<u8>) -> Response {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(media_type)),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response()
}
