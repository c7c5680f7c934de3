//! Talking to omnid frame by frame over a plain Unix socket, as a broken or hostile
//! client would: the tests of the protocol's edges need exactly the bytes they send.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;

use omni_proto::{ErrorKind, Hello, HelloReply, PROTOCOL_VERSION, Response, ResponseFrame, frame};

/// Writes one frame: the 4-byte length, then `payload`.
pub fn write_frame(stream: &mut UnixStream, payload: &[u8]) {
    stream
        .write_all(&(payload.len() as u32).to_be_bytes())
        .expect("write a frame's length");
    stream.write_all(payload).expect("write a frame's payload");
}

/// Reads one frame's payload; `None` if the daemon closed the connection.
pub fn read_frame(stream: &mut UnixStream) -> Option<Vec<u8>> {
    let mut prefix = [0u8; 4];
    stream.read_exact(&mut prefix).ok()?;
    let mut payload = vec![0u8; u32::from_be_bytes(prefix) as usize];
    stream.read_exact(&mut payload).ok()?;
    Some(payload)
}

/// Sends a Hello and returns the daemon's answer.
pub fn hello(stream: &mut UnixStream, client: &str) -> HelloReply {
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        client: client.into(),
    };
    write_frame(stream, &frame::encode(&hello).expect("encode a Hello"));
    let reply = read_frame(stream).expect("a reply to Hello");
    frame::decode(&reply).expect("a HelloReply")
}

/// Connects and completes the handshake.
#[track_caller]
pub fn connect_with_hello(socket: &Path) -> UnixStream {
    let mut stream = UnixStream::connect(socket).expect("connect to omnid");
    let reply = hello(&mut stream, "raw-test");
    assert!(matches!(reply, HelloReply::Welcome { .. }), "{reply:?}");
    stream
}

/// Asserts the daemon closed the connection (nothing more arrives).
#[track_caller]
pub fn assert_closed(stream: &mut UnixStream) {
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    assert!(rest.is_empty(), "nothing more after the error frame");
}

/// The kind and message of an error frame.
#[track_caller]
pub fn error_of(payload: &[u8]) -> (ErrorKind, String) {
    let frame: ResponseFrame = frame::decode(payload).expect("a response frame");
    match frame.response {
        Response::Error(error) => (error.kind, error.message),
        other => panic!("expected an error, got {other:?}"),
    }
}
