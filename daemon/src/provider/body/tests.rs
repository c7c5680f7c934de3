use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::provider::http::Endpoint;

/// A body of many pieces: pushes of every size, across piece boundaries and through
/// characters of several bytes.
fn long_body() -> (String, RequestBody) {
    let mut text = String::new();
    let mut writer = BodyWriter::with_capacity(1000);
    for i in 0..20_000 {
        let piece = format!("{{\"text\":\"turn {i} é😀 {}\"}},", "x".repeat(i % 37));
        writer.push_str(&piece);
        writer.push('\n');
        text.push_str(&piece);
        text.push('\n');
    }
    (text, writer.finish())
}

#[test]
fn a_body_written_in_pieces_reads_back_whole() {
    let (text, body) = long_body();
    assert!(text.len() > 3 * PIECE, "{} bytes", text.len());
    assert!(body.pieces.len() > 3);
    assert!(body.pieces.iter().all(|piece| piece.len() <= PIECE));
    assert_eq!(body.len(), text.len());
    assert_eq!(body.text(), text);
    let short = RequestBody::from("{}".to_string());
    assert_eq!((short.text().as_ref(), short.len()), ("{}", 2));
    assert!(BodyWriter::default().finish().is_empty());
}

/// Reads one HTTP request (headers, then as many bytes as `Content-Length` says) and
/// answers it with an empty event stream; returns the headers and the body.
async fn one_request(listener: tokio::net::TcpListener) -> (String, Vec<u8>) {
    let (mut socket, _) = listener.accept().await.unwrap();
    let mut raw = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let end = loop {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "the request ended before its headers");
        raw.extend_from_slice(&buf[..n]);
        if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .map_or(0, |n| n.trim().parse().unwrap());
    while raw.len() < end + length {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "the body ended early");
        raw.extend_from_slice(&buf[..n]);
    }
    let answer = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\n\r\n";
    socket.write_all(answer.as_bytes()).await.unwrap();
    (head, raw[end..].to_vec())
}

#[tokio::test]
async fn a_body_of_many_pieces_goes_out_whole_with_its_length() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/stream", listener.local_addr().unwrap());
    let server = tokio::spawn(one_request(listener));
    let endpoint = Endpoint::new(
        reqwest::Client::new(),
        url,
        None,
        |_| {
            (
                HeaderName::from_static("x-key"),
                HeaderValue::from_static("k"),
            )
        },
        Duration::from_secs(10),
    );
    let (text, body) = long_body();
    assert!(endpoint.stream(&body).await.is_ok());
    let (head, sent) = server.await.unwrap();
    assert!(
        head.contains(&format!("content-length: {}\r\n", text.len())),
        "{head}"
    );
    assert!(!head.contains("transfer-encoding"), "{head}");
    assert_eq!(sent, text.as_bytes());
}
