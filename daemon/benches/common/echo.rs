//! A request's round trip through `omnid` (a `Ping`) against its floor: a raw Unix-socket
//! echo of a frame of the same size, by a plain thread that does nothing else.

use std::io::Write;

use omni_proto::{Ping, Reply, frame};
use tokio::net::UnixStream;

use super::{Daemon, Stats, stats, time_n};

/// (raw echo, omnid ping) over `rounds` round trips each.
pub async fn round_trips(rounds: usize) -> (Stats, Stats) {
    let dir = tempfile::tempdir().unwrap();
    let echo_path = dir.path().join("echo.sock");
    let listener = std::os::unix::net::UnixListener::bind(&echo_path).unwrap();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut prefix = [0u8; 4];
        while std::io::Read::read_exact(&mut stream, &mut prefix).is_ok() {
            let mut payload = vec![0u8; u32::from_be_bytes(prefix) as usize];
            std::io::Read::read_exact(&mut stream, &mut payload).unwrap();
            let mut out = prefix.to_vec();
            out.extend_from_slice(&payload);
            stream.write_all(&out).unwrap();
        }
    });
    let ping = frame::encode(&omni_proto::RequestFrame {
        id: 1,
        request: Ping.into(),
    })
    .unwrap();
    let mut echo = UnixStream::connect(&echo_path).await.unwrap();
    let mut one_echo = async || {
        let mut out = (ping.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&ping);
        tokio::io::AsyncWriteExt::write_all(&mut echo, &out)
            .await
            .unwrap();
        frame::read_payload(&mut echo).await.unwrap().unwrap();
    };
    time_n(rounds / 10, &mut one_echo).await;
    let base = stats(time_n(rounds, &mut one_echo).await);

    let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
    let mut client = daemon.client().await;
    let mut one_ping = async || {
        assert_eq!(client.call(Ping.into(), |_| {}).await.unwrap(), Reply::Pong);
    };
    time_n(rounds / 10, &mut one_ping).await;
    let measured = stats(time_n(rounds, &mut one_ping).await);
    (base, measured)
}
