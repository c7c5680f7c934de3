//! Bad input on the socket: the daemon answers clearly, closes only that connection, and
//! keeps serving everyone else.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::Write;
use std::os::unix::net::UnixStream;

use omni_proto::{
    ErrorKind, Hello, HelloReply, History, MAX_FRAME_LEN, PROTOCOL_VERSION, Ping, Reply, Response,
    ResponseFrame, frame,
};
use omni_tests::harness::Omni;
use omni_tests::raw::{self, assert_closed, error_of, read_frame, write_frame};

fn connect_with_hello(omni: &Omni) -> UnixStream {
    raw::connect_with_hello(&omni.socket)
}

fn assert_still_serving(omni: &Omni) {
    let (_, result) = omni.call(Ping.into());
    assert_eq!(result.unwrap(), Reply::Pong);
}

#[test]
fn a_garbage_frame_gets_an_error_and_only_that_connection_closes() {
    let omni = Omni::start();
    let mut bystander = connect_with_hello(&omni);
    let mut stream = connect_with_hello(&omni);
    write_frame(&mut stream, &[0xff, 0x13, 0x37, 0x00, 0x42]);
    let (kind, message) = error_of(&read_frame(&mut stream).expect("an error reply"));
    assert_eq!(kind, ErrorKind::InvalidRequest);
    assert!(message.contains("malformed frame"), "{message}");
    assert_closed(&mut stream);

    // Another connection that was open all along still works.
    let ping = frame::encode(&omni_proto::RequestFrame {
        id: 9,
        request: Ping.into(),
    })
    .unwrap();
    write_frame(&mut bystander, &ping);
    let frame: ResponseFrame = frame::decode(&read_frame(&mut bystander).unwrap()).unwrap();
    assert_eq!(frame.id, 9);
    assert_eq!(frame.response, Response::Reply(Reply::Pong));
    assert_still_serving(&omni);
}

#[test]
fn an_oversized_frame_is_refused_before_its_body_arrives() {
    let omni = Omni::start();
    let mut stream = connect_with_hello(&omni);
    // Announce 1 byte over the limit and send nothing else.
    stream
        .write_all(&((MAX_FRAME_LEN + 1) as u32).to_be_bytes())
        .unwrap();
    let (kind, message) = error_of(&read_frame(&mut stream).expect("an error reply"));
    assert_eq!(kind, ErrorKind::InvalidRequest);
    assert!(
        message.contains("exceeds the 16777216-byte limit"),
        "{message}"
    );
    assert_closed(&mut stream);
    assert_still_serving(&omni);
}

#[test]
fn a_truncated_frame_closes_the_connection_and_nothing_else() {
    let omni = Omni::start();
    let mut stream = connect_with_hello(&omni);
    stream.write_all(&100u32.to_be_bytes()).unwrap();
    stream.write_all(&[1, 2, 3]).unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    // The daemon may answer with an error frame; either way it closes the connection.
    let _ = read_frame(&mut stream);
    assert_closed(&mut stream);
    assert_still_serving(&omni);
}

#[test]
fn a_small_frame_claiming_a_huge_string_does_not_hurt_the_daemon() {
    let omni = Omni::start();
    let mut stream = connect_with_hello(&omni);
    // RequestFrame { id: 1, Send { Current, prompt: <2^40-byte string> } }: 13 bytes.
    let mut payload = vec![0x01, 0x02, 0x00, 0xfd];
    payload.extend_from_slice(&(1u64 << 40).to_le_bytes());
    write_frame(&mut stream, &payload);
    let (kind, _) = error_of(&read_frame(&mut stream).expect("an error reply"));
    assert_eq!(kind, ErrorKind::InvalidRequest);
    assert_still_serving(&omni);
}

#[test]
fn garbage_instead_of_a_hello_is_rejected_clearly() {
    let omni = Omni::start();
    let mut stream = UnixStream::connect(&omni.socket).unwrap();
    write_frame(&mut stream, b"GET / HTTP/1.1\r\n\r\n");
    let reply: HelloReply = frame::decode(&read_frame(&mut stream).unwrap()).unwrap();
    match reply {
        HelloReply::Rejected { message, .. } => {
            assert!(message.contains("expected a Hello frame"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_closed(&mut stream);
    assert_still_serving(&omni);
}

#[test]
fn a_protocol_mismatch_is_named_in_the_rejection() {
    let omni = Omni::start();
    let mut stream = UnixStream::connect(&omni.socket).unwrap();
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION + 1,
        client: "omnictl 9.9.9".into(),
    };
    write_frame(&mut stream, &frame::encode(&hello).unwrap());
    let reply: HelloReply = frame::decode(&read_frame(&mut stream).unwrap()).unwrap();
    match reply {
        HelloReply::Rejected {
            protocol_version,
            message,
        } => {
            assert_eq!(protocol_version, PROTOCOL_VERSION);
            assert!(
                message.contains(&format!("protocol version {}", PROTOCOL_VERSION + 1)),
                "{message}"
            );
            assert!(message.contains("same release"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_closed(&mut stream);
}

#[test]
fn an_unknown_session_is_a_typed_not_found() {
    let omni = Omni::start();
    let (_, result) = omni.call(
        History {
            session: omni_proto::SessionRef::Id("deadbeef".into()),
            active_only: false,
        }
        .into(),
    );
    match result {
        Err(omni_proto::ClientError::Daemon(error)) => {
            assert_eq!(error.kind, ErrorKind::NotFound);
            assert!(error.message.contains("deadbeef"), "{}", error.message);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_socket_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let omni = Omni::start();
    let mode = std::fs::metadata(&omni.socket)
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let dir_mode = std::fs::metadata(omni.socket.parent().unwrap())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(dir_mode, 0o700);
}

#[test]
fn connections_over_the_cap_are_refused_with_a_clear_message() {
    let omni = Omni::builder().args(&["--max-connections", "1"]).start();
    // The harness's readiness probe may still hold the slot for a moment; once a
    // connection is welcomed, it holds the only one.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let _held = loop {
        let mut stream = UnixStream::connect(&omni.socket).unwrap();
        let hello = Hello {
            protocol_version: PROTOCOL_VERSION,
            client: "slot-holder".into(),
        };
        write_frame(&mut stream, &frame::encode(&hello).unwrap());
        let reply: HelloReply = frame::decode(&read_frame(&mut stream).unwrap()).unwrap();
        if matches!(reply, HelloReply::Welcome { .. }) {
            break stream;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the slot never freed up"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let out = omni.ctl(&["status"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("maximum of 1 connections"),
        "{}",
        out.stderr
    );
    drop(_held);
}
