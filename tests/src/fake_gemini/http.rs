//! The fake server's routes and how each reply is written (the HTTP/1.1 itself is
//! [`crate::fake_wire`]'s).

use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use super::Shared;
use super::script::{Answer, Reply};
use crate::fake_wire::sse::{Ending, Pace, Pause, stream_frames};
use crate::fake_wire::{accept_each, count_tokens, lock, read_request, write_whole};

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
    if let Some(Method::Models(Some(name))) = &method {
        let reply = lookup_reply(name, &shared);
        lock(&shared.lookups).push(request);
        return respond(&mut stream, reply, "", Duration::ZERO, &shared).await;
    }
    let body_json = request.json();
    lock(&shared.requests).push(request.clone());

    let model = match method {
        Some(Method::Stream(model)) => Some(model),
        Some(other) => {
            let counted = match &other {
                Method::Whole(model) => match wall(&shared, &body_json) {
                    Ok(counted) => counted,
                    Err(refusal) => {
                        return respond(&mut stream, *refusal, model, Duration::ZERO, &shared)
                            .await;
                    }
                },
                _ => None,
            };
            let scripted = lock(&shared.script).pop_front();
            let reply = scripted.unwrap_or_else(|| match other {
                Method::Whole(model) => json_reply(Answer::echo(&body_json).whole(&model)),
                Method::CountTokens => json_reply(
                    serde_json::json!({"totalTokens": request.body.len() / 4}).to_string(),
                ),
                Method::Models(None) => json_reply(
                    serde_json::json!({"models": [{"name": "models/fake-model"}]}).to_string(),
                ),
                Method::Models(Some(_)) | Method::Stream(_) => Reply::Reset,
            });
            let reply = match (reply, counted) {
                (Reply::Answer(answer), None) => json_reply(answer.whole("fake-model")),
                (Reply::Answer(answer), Some(count)) => {
                    json_reply(with_prompt_tokens(&answer.whole("fake-model"), count))
                }
                (
                    Reply::Status {
                        status: 200, body, ..
                    },
                    Some(count),
                ) => json_reply(with_prompt_tokens(&body, count)),
                (other, _) => other,
            };
            return respond(&mut stream, reply, "", Duration::ZERO, &shared).await;
        }
        None => None,
    };
    let Some(model) = model else {
        let reply = Reply::error(
            404,
            "NOT_FOUND",
            &format!("{} is not a known method", request.target),
        );
        return respond(&mut stream, reply, "", Duration::ZERO, &shared).await;
    };
    if body_json.is_null() {
        let reply = Reply::error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
        return respond(&mut stream, reply, &model, Duration::ZERO, &shared).await;
    }
    let counted = match wall(&shared, &body_json) {
        Ok(counted) => counted,
        Err(refusal) => {
            return respond(&mut stream, *refusal, &model, Duration::ZERO, &shared).await;
        }
    };
    let scripted = lock(&shared.script).pop_front();
    let reply = scripted.unwrap_or_else(|| Reply::Answer(Answer::echo(&body_json)));
    let reply = match (reply, counted) {
        (Reply::Answer(answer), Some(count)) => Reply::RawEvents(
            answer
                .events(&model)
                .iter()
                .map(|event| with_prompt_tokens(event, count))
                .collect(),
        ),
        (reply, _) => reply,
    };
    let delay = *lock(&shared.chunk_delay);
    respond(&mut stream, reply, &model, delay, &shared).await
}

/// The fake's context wall: with a limit set, the request's token count (`Ok(Some)`), or
/// Gemini's refusal of a request over it; `Ok(None)` without a limit.
fn wall(shared: &Shared, body: &serde_json::Value) -> Result<Option<u64>, Box<Reply>> {
    let Some(limit) = *lock(&shared.context_limit) else {
        return Ok(None);
    };
    let count = count_tokens(body);
    if count > limit {
        let message = format!(
            "The input token count ({count}) exceeds the maximum number of tokens allowed ({limit})."
        );
        return Err(Box::new(Reply::error(400, "INVALID_ARGUMENT", &message)));
    }
    Ok(Some(count))
}

/// A chunk (or a whole answer) whose usage, if it has one, counts `tokens` of prompt.
fn with_prompt_tokens(event: &str, tokens: u64) -> String {
    let Ok(mut chunk) = serde_json::from_str::<serde_json::Value>(event) else {
        return event.to_string();
    };
    if let Some(usage) = chunk
        .get_mut("usageMetadata")
        .and_then(|u| u.as_object_mut())
    {
        let answer = usage
            .get("candidatesTokenCount")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        usage.insert("promptTokenCount".into(), tokens.into());
        usage.insert("totalTokenCount".into(), (tokens + answer).into());
    }
    chunk.to_string()
}

/// The answer to `GET /v1beta/models/{name}`: the next reply scripted for lookups, else
/// the model resource as the real API shapes it, with the fake's input limit.
fn lookup_reply(name: &str, shared: &Shared) -> Reply {
    if let Some(reply) = lock(&shared.lookup_script).pop_front() {
        return reply;
    }
    let limit = *lock(&shared.input_token_limit);
    json_reply(
        serde_json::json!({
            "name": format!("models/{name}"),
            "version": "001",
            "displayName": name,
            "description": "A fake model over real HTTP.",
            "inputTokenLimit": limit,
            "outputTokenLimit": 65_536,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
        })
        .to_string(),
    )
}

/// Gemini's SSE frames (it ends each event with CRLF pairs).
fn frames(events: impl IntoIterator<Item = String>) -> Vec<String> {
    events
        .into_iter()
        .map(|event| format!("data: {event}\r\n\r\n"))
        .collect()
}

async fn respond(
    stream: &mut TcpStream,
    reply: Reply,
    model: &str,
    delay: Duration,
    shared: &Shared,
) -> std::io::Result<()> {
    let (frames, pace, ending) = match reply {
        Reply::Answer(answer) => (
            frames(answer.events(model)),
            Pace::every(delay),
            Ending::Finish,
        ),
        Reply::RawEvents(events) => (frames(events), Pace::default(), Ending::Finish),
        Reply::CutAfter { chunks, answer } => {
            let events = answer.events(model).into_iter().take(chunks);
            // No terminating chunk: the client sees the body end early.
            (frames(events), Pace::default(), Ending::Drop)
        }
        Reply::StallAfter {
            chunks,
            stall,
            answer,
        } => {
            let pace = Pace::pause_at(chunks, Pause::Sleep(stall));
            (frames(answer.events(model)), pace, Ending::Finish)
        }
        Reply::HoldAfter {
            chunks,
            gate,
            answer,
        } => {
            let pace = Pace::pause_at(chunks, Pause::Gate(gate));
            (frames(answer.events(model)), pace, Ending::Finish)
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let json = "application/json; charset=UTF-8";
            return write_whole(stream, status, &headers, json, &body).await;
        }
        Reply::Reset => return stream.set_zero_linger(),
    };
    stream_frames(stream, &frames, pace, ending, &shared.hangups).await
}
