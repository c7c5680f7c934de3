//! A real HTTP/1.1 client (hyper) for the daemon's HTTP API, over its Unix socket or
//! loopback TCP. Blocking, like the rest of the harness; server-sent events are read one
//! at a time as they arrive.

use std::net::SocketAddr;
use std::path::PathBuf;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::runtime::Runtime;

/// Where the API listens.
#[derive(Debug, Clone)]
pub enum Target {
    /// `api.sock`.
    Unix(PathBuf),
    /// `--http-listen`.
    Tcp(SocketAddr),
}

/// A client of the API; each request opens a connection of its own.
pub struct Api {
    target: Target,
    token: Option<String>,
    runtime: Runtime,
}

/// A whole response.
#[derive(Debug)]
pub struct HttpReply {
    /// The status code.
    pub status: u16,
    /// The `content-type` header.
    pub content_type: String,
    /// The response headers.
    pub headers: hyper::HeaderMap,
    /// The body as text.
    pub body: String,
}

impl HttpReply {
    /// The body as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    /// Asserts the status and that the body is an error of `kind`; returns the message.
    #[track_caller]
    pub fn error(&self, status: u16, kind: &str) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        let body = self.json();
        assert_eq!(body["error"]["kind"], kind, "{}", self.body);
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// One server-sent event: its name and its data as JSON.
#[derive(Debug, Clone)]
pub struct SseEvent {
    /// The `event:` line.
    pub name: String,
    /// The `data:` line, parsed.
    pub data: Value,
}

/// A response whose body is read as server-sent events while it streams.
pub struct EventStream<'a> {
    api: &'a Api,
    /// The status code.
    pub status: u16,
    body: Incoming,
    buffer: String,
}

impl EventStream<'_> {
    /// The next event, waiting for it; `None` once the stream ends.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse_event(&block) {
                    return Some(event);
                }
                continue;
            }
            let frame = self.api.runtime.block_on(self.body.frame())?.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }

    /// Reads events until one named `name` (returned last); panics if the stream ends.
    #[track_caller]
    pub fn until(&mut self, name: &str) -> Vec<SseEvent> {
        let mut seen = Vec::new();
        loop {
            let event = self
                .next_event()
                .unwrap_or_else(|| panic!("the stream ended before {name}: {seen:?}"));
            let found = event.name == name;
            seen.push(event);
            if found {
                return seen;
            }
        }
    }
}

/// An event block: `event:` and `data:` lines (comments and keep-alives are skipped).
fn parse_event(block: &str) -> Option<SseEvent> {
    let mut name = String::from("message");
    let mut data = String::new();
    for line in block.lines() {
        if let Some(value) = line.strip_prefix("event:") {
            name = value.trim().to_string();
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push_str(value.trim_start());
        }
    }
    let data = serde_json::from_str(&data).ok()?;
    Some(SseEvent { name, data })
}

impl Api {
    /// A client of the API at `target`, presenting `token` if given.
    pub fn new(target: Target, token: Option<String>) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the HTTP client");
        Self {
            target,
            token,
            runtime,
        }
    }

    /// Sends a request and returns the response head with its body unread.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> hyper::Response<Incoming> {
        self.runtime.block_on(async {
            let mut sender = match &self.target {
                Target::Unix(path) => {
                    let stream = tokio::net::UnixStream::connect(path)
                        .await
                        .expect("connect to api.sock");
                    handshake(stream).await
                }
                Target::Tcp(addr) => {
                    let stream = tokio::net::TcpStream::connect(addr)
                        .await
                        .expect("connect over TCP");
                    handshake(stream).await
                }
            };
            let mut request = hyper::Request::builder()
                .method(method)
                .uri(path)
                .header("content-type", "application/json");
            if !headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("host"))
            {
                request = request.header("host", "omnid");
            }
            if let Some(token) = &self.token {
                request = request.header("authorization", format!("Bearer {token}"));
            }
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            let request = request
                .body(Full::new(Bytes::from(body.to_string())))
                .expect("a request");
            sender.send_request(request).await.expect("a response")
        })
    }

    /// A request, read whole.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> HttpReply {
        let response = self.send(method, path, headers, body);
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let bytes = self
            .runtime
            .block_on(response.into_body().collect())
            .map(|collected| collected.to_bytes())
            .unwrap_or_default();
        HttpReply {
            status,
            content_type,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> HttpReply {
        self.request("GET", path, &[], "")
    }

    /// `POST path` with a JSON body.
    pub fn post(&self, path: &str, body: &str) -> HttpReply {
        self.request("POST", path, &[], body)
    }

    /// `POST path` (or `GET` for an empty body with `get`), read as server-sent events.
    pub fn events(&self, method: &str, path: &str, body: &str) -> EventStream<'_> {
        let response = self.send(method, path, &[], body);
        EventStream {
            api: self,
            status: response.status().as_u16(),
            body: response.into_body(),
            buffer: String::new(),
        }
    }
}

async fn handshake<S>(stream: S) -> http1::SendRequest<Full<Bytes>>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 handshake");
    tokio::spawn(connection);
    sender
}
