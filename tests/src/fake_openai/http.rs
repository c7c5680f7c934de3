//! The fake server's HTTP/1.1 handling: one request per connection, routed, checked as
//! the real API checks it, answered with an SSE stream (or an error, or a whole object)
//! whose end the script controls. Reading requests and writing chunks are
//! [`crate::fake_wire`]'s.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

use super::responses::{self, Written};
use super::script::{Answer, Reply, error_body};
use super::validate::{Valid, validate};
use super::{Shared, lock};
use crate::fake_wire::sse::{Ending, Pace, Pause, frame, stream_frames};
use crate::fake_wire::{RecordedRequest, accept_each, count_tokens, read_request, write_whole};

/// The models `GET /v1/models` lists (any model name is accepted).
pub const MODELS: &[&str] = &["fake-model", "fake-codex"];

pub(crate) async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    accept_each(listener, "openai", move |stream| {
        handle(stream, shared.clone())
    })
    .await;
}

/// What a request asks for.
enum Route {
    Chat,
    Responses,
    Models,
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else {
        return Ok(());
    };
    lock(&shared.requests).push(request.clone());
    let route = match accept(&request, shared.key.as_deref()) {
        Ok(route) => route,
        Err(refusal) => return write(&mut stream, Written::Plain(refusal), &shared).await,
    };
    let counted =
        (*lock(&shared.context_limit)).map(|limit| (limit, count_tokens(&request.json())));
    let over = counted.filter(|(limit, count)| count > limit);
    let written = match route {
        Route::Models => Written::Plain(models()),
        Route::Chat => match validate(&request.body) {
            Ok(_) if over.is_some() => Written::Plain(too_long(over, "messages")),
            Ok(valid) => {
                let scripted = lock(&shared.script).pop_front();
                let reply =
                    scripted.unwrap_or_else(|| Reply::Answer(Answer::echo(&valid.messages)));
                chat_written(reply, &valid, counted.map(|(_, count)| count))
            }
            Err(refusal) => Written::Plain(refusal),
        },
        Route::Responses => match responses::validate::validate(&request.body) {
            Ok(_) if over.is_some() => Written::Plain(too_long(over, "input")),
            Ok(valid) => {
                let scripted = lock(&shared.script).pop_front();
                let reply =
                    scripted.unwrap_or_else(|| Reply::Answer(responses::echo(&valid.input)));
                responses::written(reply, &valid)
            }
            Err(refusal) => Written::Plain(refusal),
        },
    };
    write(&mut stream, written, &shared).await
}

/// OpenAI's refusal of a conversation over the model's window (`over`: the limit and the
/// count), in the words of chat completions (`messages`) or the Responses API (`input`).
fn too_long(over: Option<(u64, u64)>, param: &str) -> Reply {
    let (limit, count) = over.unwrap_or_default();
    let message = if param == "messages" {
        format!(
            "This model's maximum context length is {limit} tokens. However, your messages \
             resulted in {count} tokens. Please reduce the length of the messages."
        )
    } else {
        "Your input exceeds the context window of this model. Please adjust your input and \
         try again."
            .to_string()
    };
    Reply::Status {
        status: 400,
        headers: Vec::new(),
        body: error_body(
            "invalid_request_error",
            Some("context_length_exceeded"),
            Some(param),
            &message,
        ),
    }
}

/// A chat chunk whose usage, if it has one, counts `tokens` of prompt.
fn with_prompt_tokens(payload: &str, tokens: Option<u64>) -> String {
    let Some(tokens) = tokens else {
        return payload.to_string();
    };
    let Ok(mut chunk) = serde_json::from_str::<Value>(payload) else {
        return payload.to_string();
    };
    if let Some(usage) = chunk.get_mut("usage").and_then(Value::as_object_mut) {
        let answer = usage
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        usage.insert("prompt_tokens".into(), tokens.into());
        usage.insert("total_tokens".into(), (tokens + answer).into());
    }
    chunk.to_string()
}

/// The route and the key, in the order the real API checks them; a refused request gets
/// OpenAI's error and consumes no scripted reply.
fn accept(request: &RecordedRequest, key: Option<&str>) -> Result<Route, Reply> {
    let path = request.path();
    let route = match (request.method.as_str(), path) {
        ("POST", "/v1/chat/completions") => Route::Chat,
        ("POST", "/v1/responses") => Route::Responses,
        ("GET", "/v1/models") => Route::Models,
        (method, _) => {
            return Err(Reply::Status {
                status: 404,
                headers: Vec::new(),
                body: error_body(
                    "invalid_request_error",
                    Some("unknown_url"),
                    None,
                    &format!(
                        "Unknown request URL: {method} {path}. Please check the URL for typos, \
                         or see the docs at https://platform.openai.com/docs/api-reference/."
                    ),
                ),
            });
        }
    };
    if let Some(key) = key {
        check_key(request.header("authorization"), key)?;
    }
    Ok(route)
}

/// `GET /v1/models`: OpenAI's list object.
fn models() -> Reply {
    let data: Vec<Value> = MODELS
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "fake"}))
        .collect();
    Reply::Status {
        status: 200,
        headers: Vec::new(),
        body: json!({"object": "list", "data": data}).to_string(),
    }
}

/// What a reply to a chat completion becomes on the wire; `prompt_tokens`, when the fake
/// counts them, replaces the usage's.
fn chat_written(reply: Reply, valid: &Valid, prompt_tokens: Option<u64>) -> Written {
    if !valid.stream {
        return chat_whole(reply, valid);
    }
    let data = |payloads: Vec<String>| {
        payloads
            .iter()
            .map(|p| frame(None, &with_prompt_tokens(p, prompt_tokens)))
            .collect()
    };
    match reply {
        Reply::Answer(answer) => Written::Stream(
            data(answer.events(&valid.model, valid.messages.len(), valid.usage)),
            Ending::Finish,
        ),
        Reply::Cut { answer, after } => {
            let deltas = answer
                .deltas(&valid.model)
                .into_iter()
                .take(after)
                .collect();
            Written::Stream(data(deltas), Ending::Finish)
        }
        Reply::FailAfter {
            answer,
            after,
            code,
            message,
        } => {
            let mut payloads: Vec<String> = answer
                .deltas(&valid.model)
                .into_iter()
                .take(after)
                .collect();
            payloads.push(error_body("server_error", Some(code), None, &message));
            Written::Stream(data(payloads), Ending::Finish)
        }
        Reply::Raw(frames) => Written::Stream(frames, Ending::Finish),
        Reply::HoldAfter {
            answer,
            after,
            gate,
        } => Written::Held(
            data(answer.events(&valid.model, valid.messages.len(), valid.usage)),
            after,
            gate,
        ),
        other @ (Reply::Status { .. } | Reply::Reset) => Written::Plain(other),
    }
}

/// `Authorization: Bearer <key>`, refused as OpenAI does (echoing the key sent masked).
fn check_key(authorization: Option<&str>, key: &str) -> Result<(), Reply> {
    let sent = authorization
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|sent| !sent.is_empty());
    match sent {
        Some(sent) if sent == key => Ok(()),
        Some(sent) => Err(Reply::error(
            401,
            "invalid_request_error",
            Some("invalid_api_key"),
            &format!(
                "Incorrect API key provided: {}. You can find your API key at \
                 https://platform.openai.com/account/api-keys.",
                mask(sent)
            ),
        )),
        None => Err(Reply::error(
            401,
            "invalid_request_error",
            None,
            "You didn't provide an API key. You need to provide your API key in an \
             Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You \
             can obtain an API key from https://platform.openai.com/account/api-keys.",
        )),
    }
}

/// A key as OpenAI echoes it: its first five and last four characters (`sk-lo****cret`),
/// or only stars when that would show most of it.
pub(crate) fn mask(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 12 {
        return "****".into();
    }
    let head: String = chars[..5].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}****{tail}")
}

/// What a reply to a chat completion without `stream` becomes: the whole object, half of
/// it (cut), or the error.
fn chat_whole(reply: Reply, valid: &Valid) -> Written {
    let whole = |answer: &Answer| answer.whole(&valid.model, valid.messages.len()).to_string();
    let ok = |body: String| Reply::Status {
        status: 200,
        headers: Vec::new(),
        body,
    };
    Written::Plain(match reply {
        Reply::Answer(answer) => ok(whole(&answer)),
        Reply::Cut { answer, .. } => {
            let body = whole(&answer);
            ok(body[..super::script::middle(&body)].to_string())
        }
        Reply::FailAfter { code, message, .. } => {
            Reply::error(500, "server_error", Some(code), &message)
        }
        Reply::Raw(frames) => return Written::Stream(frames, Ending::Finish),
        other => other,
    })
}

/// Writes a stream, a status reply, or a reset.
async fn write(stream: &mut TcpStream, written: Written, shared: &Shared) -> std::io::Result<()> {
    match written {
        Written::Stream(frames, ending) => {
            stream_frames(stream, &frames, Pace::default(), ending, &shared.hangups).await
        }
        Written::Held(frames, at, gate) => {
            let pace = Pace::pause_at(at, Pause::Gate(gate));
            stream_frames(stream, &frames, pace, Ending::Finish, &shared.hangups).await
        }
        Written::Plain(Reply::Status {
            status,
            headers,
            body,
        }) => write_whole(stream, status, &headers, "application/json", &body).await,
        Written::Plain(_) => stream.set_zero_linger(),
    }
}
