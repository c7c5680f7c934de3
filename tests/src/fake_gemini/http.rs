//! The fake server's routes and how each reply is written (the HTTP/1.1 itself is
//! [`crate::fake_wire`]'s).

use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

use super::Shared;
use super::script::{Answer, Reply};
use crate::fake_wire::{accept_each, finish, lock, read_request, write_chunk, write_head};

pub async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    accept_each(listener, "gemini", move |stream| {
        handle(stream, shared.clone())
    })
    .await;
}

/// What a request asks for.
enum Method {
    /// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
    Stream(String),
    /// `POST .../{model}:generateContent`.
    Whole(String),
    /// `POST .../{model}:countTokens`.
    CountTokens,
    /// `GET /v1beta/models` or `GET /v1beta/models/{model}`.
    Models(Option<String>),
}

/// The method a request's line names; `None` for anything else.
fn method_of(method: &str, target: &str) -> Option<Method> {
    let path = target.split('?').next().unwrap_or_default();
    let rest = path
        .strip_prefix("/v1beta/models")
        .or_else(|| path.strip_prefix("/v1/models"))?;
    if method == "GET" {
        return match rest.strip_prefix('/') {
            None if rest.is_empty() => Some(Method::Models(None)),
            Some(name) if !name.is_empty() => Some(Method::Models(Some(name.to_string()))),
            _ => None,
        };
    }
    let (model, action) = rest.strip_prefix('/')?.split_once(':')?;
    match (method, action) {
        ("POST", "streamGenerateContent") => Some(Method::Stream(model.to_string())),
        ("POST", "generateContent") => Some(Method::Whole(model.to_string())),
        ("POST", "countTokens") => Some(Method::CountTokens),
        _ => None,
    }
}

/// A 200 JSON answer.
fn json_reply(body: String) -> Reply {
    Reply::Status {
        status: 200,
        headers: Vec::new(),
        body,
    }
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else {
        return Ok(());
    };
    let method = method_of(&request.method, &request.target);
    let body_json = request.json();
    lock(&shared.requests).push(request.clone());

    let model = match method {
        Some(Method::Stream(model)) => Some(model),
        Some(other) => {
            let scripted = lock(&shared.script).pop_front();
            let reply = scripted.unwrap_or_else(|| match other {
                Method::Whole(model) => json_reply(Answer::echo(&body_json).whole(&model)),
                Method::CountTokens => json_reply(
                    serde_json::json!({"totalTokens": request.body.len() / 4}).to_string(),
                ),
                Method::Models(None) => json_reply(
                    serde_json::json!({"models": [{"name": "models/fake-model"}]}).to_string(),
                ),
                Method::Models(Some(name)) => {
                    json_reply(serde_json::json!({"name": format!("models/{name}")}).to_string())
                }
                Method::Stream(_) => Reply::Reset,
            });
            let reply = match reply {
                Reply::Answer(answer) => json_reply(answer.whole("fake-model")),
                other => other,
            };
            return respond(&mut stream, reply, "", Duration::ZERO).await;
        }
        None => None,
    };
    let Some(model) = model else {
        let reply = Reply::error(
            404,
            "NOT_FOUND",
            &format!("{} is not a known method", request.target),
        );
        return respond(&mut stream, reply, "", Duration::ZERO).await;
    };
    if body_json.is_null() {
        let reply = Reply::error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
        return respond(&mut stream, reply, &model, Duration::ZERO).await;
    }
    let scripted = lock(&shared.script).pop_front();
    let reply = scripted.unwrap_or_else(|| Reply::Answer(Answer::echo(&body_json)));
    let delay = *lock(&shared.chunk_delay);
    if let Reply::HoldAfter {
        chunks,
        gate,
        answer,
    } = reply
    {
        return hold(&mut stream, answer.events(&model), chunks, gate, &shared).await;
    }
    respond(&mut stream, reply, &model, delay).await
}

/// Streams `events`, holding before event number `at` until the gate opens; a client that
/// closes its connection meanwhile is counted (and nothing more is sent).
async fn hold(
    stream: &mut TcpStream,
    events: Vec<String>,
    at: usize,
    gate: crate::fake_wire::Gate,
    shared: &Shared,
) -> std::io::Result<()> {
    write_head(stream, 200, &[], "text/event-stream").await?;
    for (i, event) in events.iter().enumerate() {
        if i == at {
            let mut byte = [0u8; 1];
            tokio::select! {
                () = gate.wait() => {}
                read = stream.read(&mut byte) => {
                    if matches!(read, Ok(0) | Err(_)) {
                        shared.hangups.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        return Ok(());
                    }
                }
            }
        }
        write_event(stream, event).await?;
    }
    finish(stream).await
}

async fn write_event(stream: &mut TcpStream, data: &str) -> std::io::Result<()> {
    write_chunk(stream, format!("data: {data}\r\n\r\n").as_bytes()).await
}

async fn respond(
    stream: &mut TcpStream,
    reply: Reply,
    model: &str,
    delay: Duration,
) -> std::io::Result<()> {
    match reply {
        Reply::Answer(answer) => {
            write_head(stream, 200, &[], "text/event-stream").await?;
            for event in answer.events(model) {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                write_event(stream, &event).await?;
            }
            finish(stream).await
        }
        Reply::RawEvents(events) => {
            write_head(stream, 200, &[], "text/event-stream").await?;
            for event in events {
                write_event(stream, &event).await?;
            }
            finish(stream).await
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            write_head(stream, status, &headers, "application/json; charset=UTF-8").await?;
            if !body.is_empty() {
                write_chunk(stream, body.as_bytes()).await?;
            }
            finish(stream).await
        }
        Reply::Reset => {
            stream.set_zero_linger()?;
            Ok(())
        }
        Reply::CutAfter { chunks, answer } => {
            write_head(stream, 200, &[], "text/event-stream").await?;
            for event in answer.events(model).into_iter().take(chunks) {
                write_event(stream, &event).await?;
            }
            // No terminating chunk: the client sees the body end early.
            stream.set_zero_linger()?;
            Ok(())
        }
        Reply::StallAfter {
            chunks,
            stall,
            answer,
        } => {
            stream_with_pause(
                stream,
                answer.events(model),
                chunks,
                tokio::time::sleep(stall),
            )
            .await
        }
        Reply::HoldAfter {
            chunks,
            gate,
            answer,
        } => stream_with_pause(stream, answer.events(model), chunks, gate.wait()).await,
    }
}

/// Streams `events`, pausing before event number `at` until `pause` completes.
async fn stream_with_pause(
    stream: &mut TcpStream,
    events: Vec<String>,
    at: usize,
    pause: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    write_head(stream, 200, &[], "text/event-stream").await?;
    let mut pause = Some(pause);
    for (i, event) in events.iter().enumerate() {
        if i == at
            && let Some(pause) = pause.take()
        {
            pause.await;
        }
        write_event(stream, event).await?;
    }
    finish(stream).await
}
