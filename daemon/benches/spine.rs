//! `cargo bench -p omnid --bench spine`: the spine's costs, each as a ratio against a
//! baseline measured in the same run on the same machine.
//!
//! 1. Request round trip through `omnid` (a `Ping`) vs a raw Unix-socket echo of a frame
//!    of the same size.
//! 2. `undo` + `redo` on a 100,000-turn session vs a 10-turn session (the cost must not
//!    grow with the session's length).
//! 3. A committed turn vs a raw `write` + `fdatasync` loop in the same directory: the
//!    store's commit alone (node + move + session in one transaction, flushed and synced),
//!    and a whole `send` (prompt commit, HTTP to the fake model, answer commit).
//! 5. A `generateContent` request through the Gemini-compatible proxy vs the same request
//!    straight to the fake API (the proxy's cost: key check, history check, recording
//!    lookup, the retry loop's bookkeeping, one more HTTP hop on loopback).
//! 4. The whole transcript of a 10,000-turn session, which also reads the move log to say
//!    why each node is out of the context, vs its active path, which does not (every node
//!    is on the path, so both send the same entries).

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use omni_proto::{Client, MoveOp, Reply, Request, SessionRef, frame};
use omni_tests::fake_gemini::FakeGemini;
use omnid::model::{MoveKind, MoveRecord, NodeRecord, Part, Role, SessionRecord};
use omnid::store::{Change, Store};
use tokio::net::UnixStream;
use uuid::Uuid;

mod common;

use common::{Daemon, Stats, report, show, stats, time_n};

async fn round_trip(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    // Baseline: a plain blocking thread that echoes each frame back, nothing else.
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
        request: Request::Ping,
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
        assert_eq!(
            client.call(Request::Ping, |_| {}).await.unwrap(),
            Reply::Pong
        );
    };
    time_n(rounds / 10, &mut one_ping).await;
    let measured = stats(time_n(rounds, &mut one_ping).await);
    report(
        "request round trip",
        "raw socket echo",
        &base,
        "omnid ping",
        &measured,
    );
}

/// Appends node `id` (under node `id - 1`) and the move that makes it the head to
/// `record`; returns them for one [`Change`].
fn next_turn(record: &mut SessionRecord, role: Role, text: String) -> (NodeRecord, MoveRecord) {
    let id = record.nodes + 1;
    record.nodes = id;
    record.moves = id;
    record.head = id;
    let node = NodeRecord {
        id,
        parent: id - 1,
        role,
        parts: vec![Part::text(text)],
        created_at_ms: 1,
        model: None,
    };
    let mv = MoveRecord {
        seq: id,
        kind: if role == Role::User {
            MoveKind::Prompt
        } else {
            MoveKind::Answer
        },
        from: id - 1,
        to: id,
        at_ms: 1,
        prev_redoable: None,
        redoes: None,
    };
    (node, mv)
}

/// Writes a linear session of `turns` nodes (alternating prompt and answer) straight into
/// a store, then syncs once.
async fn seed(data_dir: &Path, turns: u64) -> Uuid {
    let store = Store::open(data_dir).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    for id in 1..=turns {
        let role = if id % 2 == 1 { Role::User } else { Role::Model };
        let text = format!("turn {id}: some words that make this a realistic, short line");
        let (node, mv) = next_turn(&mut record, role, text);
        store
            .apply(&Change {
                session: &record,
                node: Some(&node),
                mv: Some(&mv),
            })
            .unwrap();
    }
    store.sync().await.unwrap();
    store.close().unwrap();
    record.id
}

/// One undo followed by one redo on a session; returns how long the pair took.
async fn undo_redo_pair(client: &mut Client, session: &SessionRef) -> Duration {
    let start = Instant::now();
    for op in [MoveOp::Undo, MoveOp::Redo] {
        let request = Request::Move {
            session: session.clone(),
            op,
        };
        client.call(request, |_| {}).await.unwrap();
    }
    start.elapsed()
}

/// Undo+redo on a 10-turn and a 100,000-turn session in one daemon, alternating between
/// them sample by sample, so that drifting disk latency (each move is synced) hits both
/// alike. Also returns each session's first change, which loads its tree.
async fn undo_redo(pairs: usize) -> (Stats, Stats, Duration, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let short = SessionRef::Id(seed(&data, 10).await.to_string());
    let long = SessionRef::Id(seed(&data, 100_000).await.to_string());
    let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
    let mut client = daemon.client().await;
    let short_first = undo_redo_pair(&mut client, &short).await;
    let long_first = undo_redo_pair(&mut client, &long).await;
    let (mut short_samples, mut long_samples) = (Vec::new(), Vec::new());
    for _ in 0..pairs {
        short_samples.push(undo_redo_pair(&mut client, &short).await);
        long_samples.push(undo_redo_pair(&mut client, &long).await);
    }
    (
        stats(short_samples),
        stats(long_samples),
        short_first,
        long_first,
    )
}

/// Whole history (with the move log) vs the active path, alternating sample by sample.
async fn history_with_reasons(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let session = SessionRef::Id(seed(&data, 10_000).await.to_string());
    let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
    let mut client = daemon.client().await;
    let mut read = async |active_only: bool| {
        let start = Instant::now();
        let request = Request::History {
            session: session.clone(),
            active_only,
        };
        let reply = client.call(request, |_| {}).await.unwrap();
        assert!(matches!(reply, Reply::History(view) if view.entries.len() == 10_000));
        start.elapsed()
    };
    let (mut active, mut whole) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        active.push(read(true).await);
        whole.push(read(false).await);
    }
    report(
        "history, 10,000 turns",
        "active path",
        &stats(active),
        "whole, with reasons",
        &stats(whole),
    );
}

/// `generateContent` through the proxy vs straight to the fake API, alternating.
async fn proxy_overhead(rounds: usize) {
    let fake = FakeGemini::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let listen = address.to_string();
    let args = ["--proxy-listen", listen.as_str(), "--proxy-accept-any-key"];
    let _daemon = Daemon::start_with(dir.path(), &fake.url(), &args);
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(address).is_err() {
        assert!(Instant::now() < deadline, "the proxy did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    let http = reqwest::Client::new();
    let body = r#"{"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}"#;
    let path = "/v1beta/models/fake-model:generateContent";
    let time = async |base: &str| {
        let start = Instant::now();
        let reply = http
            .post(format!("{base}{path}"))
            .header("x-goog-api-key", "bench-key")
            .body(body)
            .send()
            .await
            .unwrap();
        assert!(reply.status().is_success());
        reply.bytes().await.unwrap();
        start.elapsed()
    };
    let proxy = format!("http://{address}");
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        direct.push(time(&fake.url()).await);
        through.push(time(&proxy).await);
    }
    report(
        "generateContent",
        "straight to the API",
        &stats(direct),
        "through the proxy",
        &stats(through),
    );
}

fn fsync_loop(dir: &Path, rounds: usize) -> Stats {
    let mut file = std::fs::File::create(dir.join("fsync-baseline")).unwrap();
    let record = [7u8; 256];
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        file.write_all(&record).unwrap();
        file.sync_data().unwrap();
        samples.push(start.elapsed());
    }
    stats(samples)
}

async fn commits(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    fsync_loop(dir.path(), rounds / 10);
    let base = fsync_loop(dir.path(), rounds);

    let store = Store::open(&dir.path().join("store")).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut commit_turn = async || {
        let text = "a prompt of ordinary length, about one line".to_string();
        let (node, mv) = next_turn(&mut record, Role::User, text);
        let change = Change {
            session: &record,
            node: Some(&node),
            mv: Some(&mv),
        };
        store.commit(&change).await.unwrap();
    };
    time_n(rounds / 10, &mut commit_turn).await;
    let store_commit = stats(time_n(rounds, &mut commit_turn).await);
    report(
        "committed turn (store)",
        "write+fdatasync",
        &base,
        "store commit",
        &store_commit,
    );

    let fake = FakeGemini::start().unwrap();
    let daemon = Daemon::start(dir.path(), &fake.url());
    let mut client = daemon.client().await;
    client
        .call(
            Request::NewSession {
                tools_json: None,
                model: None,
                fallback: Vec::new(),
                system: None,
            },
            |_| {},
        )
        .await
        .unwrap();
    let mut send = async || {
        let request = Request::Send {
            session: SessionRef::Current,
            prompt: "hello".into(),
        };
        client.call(request, |_| {}).await.unwrap();
    };
    let sends = rounds / 2;
    time_n(sends / 10, &mut send).await;
    let whole_send = stats(time_n(sends, &mut send).await);
    report(
        "committed turn (send)",
        "write+fdatasync",
        &base,
        "whole send",
        &whole_send,
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        println!("omni spine bench: each figure is a ratio against a baseline from this run\n");
        round_trip(5000).await;
        let (small, large, small_first, large_first) = undo_redo(500).await;
        report("undo+redo", "10 turns", &small, "100,000 turns", &large);
        println!(
            "{:<28} first undo+redo after start-up (loads the tree): 10 turns {}, 100,000 turns {}",
            "",
            show(small_first),
            show(large_first)
        );
        commits(300).await;
        history_with_reasons(40).await;
        proxy_overhead(500).await;
    });
}
