//! The fakes' HTTP/1.1: one request per connection (head parsed with httparse, a
//! `Content-Length` body), answered with a chunked body and `connection: close`, so each
//! fake decides exactly how the connection ends (finished, cut, or reset).

use std::future::Future;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::RecordedRequest;

const MAX_HEAD: usize = 64 * 1024;

/// Accepts connections forever, handling each on a task of its own; a connection's error
/// ends only that connection (logged at debug under `name`).
pub(crate) async fn accept_each<F, Fut>(listener: TcpListener, name: &'static str, handle: F)
where
    F: Fn(TcpStream) -> Fut,
    Fut: Future<Output = std::io::Result<()>> + Send + 'static,
{
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let connection = handle(stream);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, fake = name, "fake connection ended");
            }
        });
    }
}

/// Reads one request: head (parsed with httparse) and a Content-Length body; `None` when
/// the client closed first.
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

/// The status line and headers of a chunked response that closes the connection after.
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

/// One chunk of the body, flushed at once (so a client sees each event as it is sent).
pub(crate) async fn write_chunk(stream: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    let mut chunk = format!("{:x}\r\n", data.len()).into_bytes();
    chunk.extend_from_slice(data);
    chunk.extend_from_slice(b"\r\n");
    stream.write_all(&chunk).await?;
    stream.flush().await
}

/// A whole reply: the head, the body (if any), the end.
pub(crate) async fn write_whole(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    write_head(stream, status, headers, content_type).await?;
    if !body.is_empty() {
        write_chunk(stream, body.as_bytes()).await?;
    }
    finish(stream).await
}

/// The terminating chunk, then the connection's orderly close.
pub(crate) async fn finish(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.write_all(b"0\r\n\r\n").await?;
    stream.flush().await?;
    stream.shutdown().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Site Overloaded",
        _ => "Unknown",
    }
}
