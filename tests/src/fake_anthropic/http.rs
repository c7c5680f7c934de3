//! The fake's routes, checked in the order the real API checks them (the key, the
//! `anthropic-version` header, the body), and how each reply is written. The HTTP/1.1
//! and the event stream's pacing are [`crate::fake_wire`]'s.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

use super::answer::prompt_tokens;
use super::events::{Event, error_event};
use super::script::{Reply, error_body};
use super::validate::{Endpoint, Refusal, Valid, invalid, validate};
use super::{Answer, Shared};
use crate::fake_wire::sse::{Ending, Pace, Pause, frame, stream_frames};
use crate::fake_wire::{
    RecordedRequest, accept_each, count_tokens, lock, read_request, write_chunk, write_head,
    write_whole,
};

/// The models `GET /v1/models` lists (any model name is accepted by `/v1/messages`).
pub const MODELS: &[&str] = &["claude-fake-opus", "claude-fake-haiku"];

pub(crate) async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    accept_each(listener, "anthropic", move |stream| {
        handle(stream, shared.clone())
    })
    .await;
}

/// What a request asks for.
enum Route {
    Messages,
    CountTokens,
    Models(Option<String>),
}

fn route(request: &RecordedRequest) -> Option<Route> {
    match (request.method.as_str(), request.path()) {
        ("POST", "/v1/messages") => Some(Route::Messages),
        ("POST", "/v1/messages/count_tokens") => Some(Route::CountTokens),
        ("GET", "/v1/models") => Some(Route::Models(None)),
        ("GET", path) => path
            .strip_prefix("/v1/models/")
            .filter(|id| !id.is_empty() && !id.contains('/'))
            .map(|id| Route::Models(Some(id.to_string()))),
        _ => None,
    }
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else {
        return Ok(());
    };
    lock(&shared.requests).push(request.clone());
    let betas = request.header("anthropic-beta").unwrap_or_default();
    let reply = match accept(&request, &shared.key) {
        Ok(Route::Messages) => match validate(&request.body, Endpoint::Messages, betas) {
            Ok(valid) => return answer(&mut stream, valid, &shared).await,
            Err(refusal) => refusal.into(),
        },
        Ok(Route::CountTokens) => match validate(&request.body, Endpoint::CountTokens, betas) {
            Ok(valid) => ok(json!({"input_tokens": prompt_tokens(&valid.body)})),
            Err(refusal) => refusal.into(),
        },
        Ok(Route::Models(id)) => models(id.as_deref()),
        Err(refusal) => refusal.into(),
    };
    write_json(&mut stream, reply).await
}

/// The route, the key and the version header, in the real API's order.
fn accept(request: &RecordedRequest, key: &str) -> Result<Route, Refusal> {
    let Some(route) = route(request) else {
        return Err(refusal(404, "not_found_error", "Not Found"));
    };
    let bearer = request
        .header("authorization")
        .and_then(|value| value.strip_prefix("Bearer "));
    match request.header("x-api-key").or(bearer).map(str::trim) {
        None | Some("") => {
            return Err(refusal(
                401,
                "authentication_error",
                "x-api-key header is required",
            ));
        }
        Some(sent) if sent != key => {
            return Err(refusal(401, "authentication_error", "invalid x-api-key"));
        }
        Some(_) => {}
    }
    if request.header("anthropic-version").is_none() {
        return Err(invalid("anthropic-version: header is required"));
    }
    Ok(route)
}

fn refusal(status: u16, kind: &'static str, message: &str) -> Refusal {
    Refusal {
        status,
        kind,
        message: message.to_string(),
    }
}

/// A 200 JSON reply.
fn ok(body: Value) -> Reply {
    Reply::Status {
        status: 200,
        headers: Vec::new(),
        body: body.to_string(),
    }
}

fn model(id: &str) -> Value {
    json!({"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
}

/// `GET /v1/models` (the list) or `GET /v1/models/{id}`.
fn models(id: Option<&str>) -> Reply {
    match id {
        None => ok(
            json!({"data": MODELS.iter().map(|id| model(id)).collect::<Vec<_>>(),
                          "has_more": false, "first_id": MODELS[0],
                          "last_id": MODELS[MODELS.len() - 1]}),
        ),
        Some(id) if MODELS.contains(&id) => ok(model(id)),
        Some(id) => Reply::error(404, "not_found_error", &format!("model: {id}")),
    }
}

/// The scripted reply (else the echo) to an accepted `POST /v1/messages`.
async fn answer(stream: &mut TcpStream, valid: Valid, shared: &Shared) -> std::io::Result<()> {
    let limit = *lock(&shared.context_limit);
    let tokens = match limit {
        None => prompt_tokens(&valid.body),
        Some(limit) => match count_tokens(&valid.body) {
            count if count > limit => {
                let message = format!("prompt is too long: {count} tokens > {limit} maximum");
                let refusal = Reply::error(400, "invalid_request_error", &message);
                return write_json(stream, refusal).await;
            }
            count => count,
        },
    };
    let scripted = lock(&shared.script).pop_front();
    let reply = scripted.unwrap_or_else(|| Reply::Answer(Answer::echo(&valid.body)));
    if !valid.stream {
        return whole(stream, reply, &valid.model, tokens).await;
    }
    let frames = |answer: &Answer, after: usize| -> Vec<String> {
        let events = answer.events(&valid.model, tokens);
        events.iter().take(after).map(to_frame).collect()
    };
    let (frames, pace, ending) = match reply {
        Reply::Answer(a) => (frames(&a, usize::MAX), Pace::default(), Ending::Finish),
        Reply::Cut { answer, after } => (frames(&answer, after), Pace::default(), Ending::Drop),
        Reply::ErrorEvent {
            answer,
            after,
            kind,
            message,
        } => {
            let mut frames = frames(&answer, after);
            frames.push(to_frame(&error_event(&kind, &message)));
            (frames, Pace::default(), Ending::Finish)
        }
        Reply::Slow { answer, delay } => {
            let pace = Pace::every(delay);
            (frames(&answer, usize::MAX), pace, Ending::Finish)
        }
        Reply::HoldAfter {
            answer,
            after,
            gate,
        } => {
            let pace = Pace::pause_at(after, Pause::Gate(gate));
            (frames(&answer, usize::MAX), pace, Ending::Finish)
        }
        other @ (Reply::Status { .. } | Reply::Reset) => return write_json(stream, other).await,
    };
    stream_frames(stream, &frames, pace, ending, &shared.hangups).await
}

fn to_frame((name, data): &Event) -> String {
    frame(Some(name), &data.to_string())
}

/// A reply to a request that did not ask to stream: the `message` object, or the error.
async fn whole(
    stream: &mut TcpStream,
    reply: Reply,
    model: &str,
    tokens: u64,
) -> std::io::Result<()> {
    let reply = match reply {
        Reply::Answer(answer) => ok(answer.message(model, tokens)),
        Reply::Slow { answer, delay } => {
            tokio::time::sleep(delay).await;
            ok(answer.message(model, tokens))
        }
        Reply::HoldAfter { answer, gate, .. } => {
            gate.wait().await;
            ok(answer.message(model, tokens))
        }
        Reply::ErrorEvent { kind, message, .. } => {
            let status = if kind == "overloaded_error" { 529 } else { 500 };
            Reply::error(status, &kind, &message)
        }
        Reply::Cut { answer, .. } => {
            let body = answer.message(model, tokens).to_string();
            write_head(stream, 200, &[], "application/json").await?;
            write_chunk(stream, &body.as_bytes()[..body.len() / 2]).await?;
            return stream.set_zero_linger();
        }
        other @ (Reply::Status { .. } | Reply::Reset) => other,
    };
    write_json(stream, reply).await
}

/// Writes a status reply (a JSON body), or resets for [`Reply::Reset`].
async fn write_json(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    let (status, headers, body) = match reply {
        Reply::Status {
            status,
            headers,
            body,
        } => (status, headers, body),
        Reply::Reset => return stream.set_zero_linger(),
        _ => (500, Vec::new(), error_body("api_error", "unexpected reply")),
    };
    write_whole(stream, status, &headers, "application/json", &body).await
}
