//! The fake server's HTTP/1.1 handling: one request per connection, checked as the real API
//! checks it, answered with a chunked SSE stream (or an error) whose end the script
//! controls. Reading requests and writing chunks are [`crate::fake_wire`]'s.

use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};

use super::script::{Answer, Reply, error_body};
use super::validate::{Valid, validate};
use super::{Shared, lock};
use crate::fake_wire::{
    RecordedRequest, accept_each, finish, read_request, write_chunk, write_head,
};

/// The one path the fake answers.
const PATH: &str = "/v1/chat/completions";

pub(crate) async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    accept_each(listener, "openai", move |stream| {
        handle(stream, shared.clone())
    })
    .await;
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else {
        return Ok(());
    };
    lock(&shared.requests).push(request.clone());
    let valid = match check(&request, shared.key.as_deref()) {
        Ok(valid) => valid,
        Err(refusal) => return respond(&mut stream, refusal, &[]).await,
    };
    let scripted = lock(&shared.script).pop_front();
    let reply = scripted.unwrap_or_else(|| Reply::Answer(Answer::echo(&valid.messages)));
    let events = match &reply {
        Reply::Answer(answer) => answer.events(&valid.model, valid.messages.len(), valid.usage),
        Reply::Cut { answer, after } => answer
            .deltas(&valid.model)
            .into_iter()
            .take(*after)
            .collect(),
        Reply::Status { .. } | Reply::Reset => Vec::new(),
    };
    respond(&mut stream, reply, &events).await
}

/// The URL, the key and the body, in the order the real API checks them; a refused
/// request gets OpenAI's error and consumes no scripted reply.
fn check(request: &RecordedRequest, key: Option<&str>) -> Result<Valid, Reply> {
    let path = request.target.split('?').next().unwrap_or_default();
    if request.method != "POST" || path != PATH {
        return Err(Reply::Status {
            status: 404,
            headers: Vec::new(),
            body: error_body(
                "invalid_request_error",
                Some("unknown_url"),
                None,
                &format!(
                    "Unknown request URL: {} {path}. Please check the URL for typos, or see \
                     the docs at https://platform.openai.com/docs/api-reference/.",
                    request.method
                ),
            ),
        });
    }
    if let Some(key) = key {
        check_key(request.header("authorization"), key)?;
    }
    validate(&request.body)
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

/// Writes `reply`; `events` are the SSE payloads of an answer or a cut one.
async fn respond(stream: &mut TcpStream, reply: Reply, events: &[String]) -> std::io::Result<()> {
    match reply {
        Reply::Answer(_) | Reply::Cut { .. } => {
            // A cut stream still ends cleanly: the client sees a body without a finish.
            write_head(stream, 200, &[], "text/event-stream").await?;
            for event in events {
                write_chunk(stream, format!("data: {event}\n\n").as_bytes()).await?;
            }
            finish(stream).await
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            write_head(stream, status, &headers, "application/json").await?;
            if !body.is_empty() {
                write_chunk(stream, body.as_bytes()).await?;
            }
            finish(stream).await
        }
        Reply::Reset => stream.set_zero_linger(),
    }
}
