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
//! 5. Per API the proxy serves (Gemini, OpenAI Chat Completions, the Responses API,
//!    Anthropic Messages), a
//!    whole answer through the proxy vs the same request straight to the same fake API
//!    (the proxy's cost: key check, history check, recording lookup, the retry loop's
//!    bookkeeping, one more HTTP hop on loopback), and the time to the first byte of a
//!    streamed answer through the proxy vs straight (a response head and its first event
//!    are two writes: without `TCP_NODELAY` the second waits for the client's delayed
//!    acknowledgement); each as a ratio and as milliseconds added.
//!
//! `cargo bench -p omnid --bench spine -- proxy` runs only the proxy's figures (the
//! sections are `ping`, `undo`, `commit`, `history`, `proxy`).
//! 4. The whole transcript of a 10,000-turn session, which also reads the move log to say
//!    why each node is out of the context, vs its active path, which does not (every node
//!    is on the path, so both send the same entries).

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

use std::time::{Duration, Instant};

use omni_proto::{Client, History, Move, MoveOp, NewSession, Reply, SendPrompt, SessionRef};
use omni_tests::fake_gemini::FakeGemini;
use omnid::model::SessionRecord;
use omnid::store::Store;
use uuid::Uuid;

#[path = "../common/mod.rs"]
mod common;
mod proxy;

use common::seed::{commit_one, seed};
use common::{Daemon, Stats, fsync_loop, report, show, stats, time_n};

/// One undo followed by one redo on a session; returns how long the pair took.
async fn undo_redo_pair(client: &mut Client, session: &SessionRef) -> Duration {
    let start = Instant::now();
    for op in [MoveOp::Undo, MoveOp::Redo] {
        let request = Move {
            session: session.clone(),
            op,
        }
        .into();
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
        let request = History {
            session: session.clone(),
            active_only,
        }
        .into();
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

async fn commits(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    fsync_loop(dir.path(), rounds / 10);
    let base = fsync_loop(dir.path(), rounds);

    let store = Store::open(&dir.path().join("store")).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut commit_turn = async || commit_one(&store, &mut record).await;
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
            NewSession {
                tools_json: None,
                model: None,
                fallback: Vec::new(),
                system: None,
            }
            .into(),
            |_| {},
        )
        .await
        .unwrap();
    let mut send = async || {
        let request = SendPrompt {
            session: SessionRef::Current,
            prompt: "hello".into(),
            replace: false,
        }
        .into();
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
    // The sections named after `--` (cargo passes `--bench` too), or all of them.
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let runs = |section: &str| named.is_empty() || named.iter().any(|name| name == section);
    runtime.block_on(async {
        println!("omni spine bench: each figure is a ratio against a baseline from this run\n");
        if runs("ping") {
            let (echo, ping) = common::echo::round_trips(5000).await;
            report(
                "request round trip",
                "raw socket echo",
                &echo,
                "omnid ping",
                &ping,
            );
        }
        if runs("undo") {
            let (small, large, small_first, large_first) = undo_redo(500).await;
            report("undo+redo", "10 turns", &small, "100,000 turns", &large);
            println!(
                "{:<28} first undo+redo after start-up (loads the tree): 10 turns {}, 100,000 turns {}",
                "",
                show(small_first),
                show(large_first)
            );
        }
        if runs("commit") {
            commits(300).await;
        }
        if runs("history") {
            history_with_reasons(40).await;
        }
        if runs("proxy") {
            proxy::overhead(500).await;
        }
    });
}
