//! A real HTTP client (hyper) for the fakes' own tests: one request, the whole response,
//! and its body read as server-sent events.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// A whole response; `body` is `Err` when the connection broke mid-body.
pub(crate) struct Response {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: Result<String, String>,
}

/// One server-sent event: its `event:` name (if any) and its `data:`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub name: Option<String>,
    pub data: String,
}

impl Event {
    /// The data as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

impl Response {
    /// The body (panics if the connection broke).
    pub fn text(&self) -> &str {
        self.body.as_ref().unwrap()
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.text()).unwrap()
    }

    /// The events of an SSE body received whole; every line must be `event:` or `data:`.
    pub fn events(&self) -> Vec<Event> {
        parse_events(self.text())
    }
}

/// The events of an SSE text, as a client parses them (a trailing event without its
/// blank line is dropped, as clients drop it).
pub(crate) fn parse_events(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut blocks: Vec<&str> = text.split("\n\n").collect();
    blocks.pop();
    for block in blocks.into_iter().filter(|b| !b.trim().is_empty()) {
        let mut event = Event {
            name: None,
            data: String::new(),
        };
        for line in block.lines() {
            if let Some(name) = line.strip_prefix("event: ") {
                event.name = Some(name.to_string());
            } else if let Some(data) = line.strip_prefix("data: ") {
                event.data.push_str(data);
            } else {
                panic!("not an SSE line: {line:?}");
            }
        }
        events.push(event);
    }
    events
}

/// Sends one request to `base` (`http://127.0.0.1:PORT...`); `Err` if no response came
/// back (e.g. the connection was reset).
pub(crate) fn send(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<Response, hyper::Error> {
    let authority = base
        .strip_prefix("http://")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(&authority).await.unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header("host", &authority)
            .header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        let response = sender.send_request(request).await?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = match response.into_body().collect().await {
            Ok(body) => Ok(String::from_utf8(body.to_bytes().to_vec()).unwrap()),
            Err(error) => Err(error.to_string()),
        };
        Ok(Response {
            status,
            headers,
            body,
        })
    })
}
