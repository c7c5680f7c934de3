//! The fake server's HTTP/1.1 handling: just enough to read one request per connection and
//! write a chunked SSE response, with full control over how the connection ends.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::script::{Answer, Reply};
use super::{RecordedRequest, Shared, lock};

const MAX_HEAD: usize = 64 * 1024;

pub async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            if let Err(error) = handle(stream, shared).await {
                tracing::debug!(%error, "fake gemini connection ended");
            }
        });
    }
}

/// Reads one request: head (parsed with httparse) and a Content-Length body.
pub(crate) async fn read_request(
    stream: &mut TcpStream,
) -> std::io::Result<Option<RecordedRequest>> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut request = httparse::Request::new(&mut headers);
        let head_len = match request.parse(&buffer) {
            Ok(httparse::Status::Complete(len)) => len,
            Ok(httparse::Status::Partial) if buffer.len() < MAX_HEAD => continue,
            _ => return Err(std::io::Error::other("bad request head")),
        };
        let headers: Vec<(String, String)> = request
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_ascii_lowercase(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.trim().parse().ok())
            .unwrap_or(0);
        let method = request.method.unwrap_or_default().to_string();
        let target = request.path.unwrap_or_default().to_string();
        let mut body = buffer[head_len..].to_vec();
        while body.len() < length {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(None);
            }
            body.extend_from_slice(&chunk[..n]);
        }
        return Ok(Some(RecordedRequest {
            method,
            target,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }));
    }
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
    gate: super::Gate,
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

pub(crate) async fn write_head(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    content_type: &str,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n",
        reason(status)
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await
}

pub(crate) async fn write_chunk(stream: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    let mut chunk = format!("{:x}\r\n", data.len()).into_bytes();
    chunk.extend_from_slice(data);
    chunk.extend_from_slice(b"\r\n");
    stream.write_all(&chunk).await?;
    stream.flush().await
}

async fn write_event(stream: &mut TcpStream, data: &str) -> std::io::Result<()> {
    write_chunk(stream, format!("data: {data}\r\n\r\n").as_bytes()).await
}

pub(crate) async fn finish(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.write_all(b"0\r\n\r\n").await?;
    stream.flush().await?;
    stream.shutdown().await
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

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}
