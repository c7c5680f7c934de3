//! What a restart costs: start to the first answer with a big store, and the first request on a big
//! session after it.

use std::time::{Duration, Instant};

use omni_proto::{Move, MoveOp, SessionRef};
use omnid::store::Store;
use tempfile::TempDir;

use crate::common::seed::{self, SHORT};
use crate::common::{Daemon, Stats, show, stats};
use crate::figure;

/// From spawning `omnid` on the store in `dir` to its first answered request (`status`,
/// which reads the store): the sockets are bound before the store opens, so a socket
/// that accepts is not yet a daemon that answers. With it, how long the store's open took
/// in that start, as omnid logged it.
async fn first_answer(dir: &std::path::Path) -> (Duration, Duration) {
    let spawned = Instant::now();
    let daemon = Daemon::start(dir, "http://127.0.0.1:9");
    daemon.status().await;
    let took = spawned.elapsed();
    daemon.stop();
    (took, store_open_logged(dir))
}

/// The store's open in the last start in `dir`: its log's `the store is open took_ms=N`.
fn store_open_logged(dir: &std::path::Path) -> Duration {
    let log = std::fs::read_to_string(dir.join("omnid.log")).unwrap();
    let line = log.lines().find(|l| l.contains("the store is open"));
    let ms = line
        .and_then(|l| l.split("took_ms=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("omnid logged no store open: {log}"));
    Duration::from_millis(ms)
}

/// A store in a temporary directory with `sessions` sessions of `turns` turns, synced and
/// closed, and an empty one; `what` names the big one in what is printed. The daemon has
/// started on each once and indexed it, as it would have a store it wrote itself: no
/// measured start shares its CPU with indexing a whole store from scratch.
async fn stores(sessions: usize, turns: u64, what: &str) -> (TempDir, TempDir) {
    let empty = tempfile::tempdir().unwrap();
    let big = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let store = Store::open(&big.path().join("data")).unwrap();
    for _ in 0..sessions {
        seed::session(&store, turns, SHORT);
    }
    store.sync().await.unwrap();
    store.close().unwrap();
    println!(
        "{:<28} built {what} in {:.1} s",
        "store",
        started.elapsed().as_secs_f64()
    );
    for dir in [&empty, &big] {
        let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
        daemon.indexed().await;
        daemon.stop();
    }
    (empty, big)
}

/// A store's starts: start to first answer, the store's open in it, and the rest.
struct Starts {
    first: Stats,
    open: Stats,
    beside: Stats,
}

/// Start to the first answer on the empty store and on the big one, `rounds` restarts of
/// each, alternating; prints the medians of the whole start, of the store's open in it (as
/// omnid logs it) and of the rest.
async fn first_answers(
    empty: &TempDir,
    big: &TempDir,
    rounds: usize,
    what: &str,
) -> (Starts, Starts) {
    let mut samples = [
        (Vec::new(), Vec::new(), Vec::new()),
        (Vec::new(), Vec::new(), Vec::new()),
    ];
    for _ in 0..rounds {
        for (dir, (first, open, beside)) in [empty, big].into_iter().zip(samples.iter_mut()) {
            let (took, opened) = first_answer(dir.path()).await;
            first.push(took);
            open.push(opened);
            beside.push(took.saturating_sub(opened));
        }
    }
    let [small, large] = samples.map(|(first, open, beside)| Starts {
        first: stats(first),
        open: stats(open),
        beside: stats(beside),
    });
    for (name, small, large) in [
        ("start to first answer", &small.first, &large.first),
        ("of which the store's open", &small.open, &large.open),
        ("the rest of the start", &small.beside, &large.beside),
    ] {
        let (empty, big) = (show(small.p50), show(large.p50));
        println!("{name:<28} empty store: p50 {empty} | {what}: p50 {big}");
    }
    (small, large)
}

/// Start to the first answer with 1,000,000 nodes in 1,000 sessions, against an
/// empty store; and apart, the store's open in those starts (sled loading its page table),
/// and what the start costs beside it.
pub async fn cold_start(rounds: usize) {
    let what = "1,000,000 nodes in 1,000 sessions";
    let (empty, big) = stores(1000, 1000, what).await;
    let (small, large) = first_answers(&empty, &big, rounds, what).await;
    figure(
        "cold_start_ratio",
        crate::common::ratio(&large.first, &small.first),
    );
    figure("store_open_ms_1m", large.open.p50.as_secs_f64() * 1000.0);
    figure(
        "cold_start_ratio_beside_open",
        crate::common::ratio(&large.beside, &small.beside),
    );
}

/// Start to the first answered request with 100,000 sessions of two turns each, against
/// an empty store: what a client waits for after a restart when a store holds many
/// sessions.
pub async fn many_sessions(rounds: usize) {
    let what = "100,000 sessions";
    let (empty, big) = stores(100_000, 2, what).await;
    let (small, large) = first_answers(&empty, &big, rounds, what).await;
    figure(
        "first_answer_ms_100k_sessions",
        large.first.p50.as_secs_f64() * 1000.0,
    );
    figure(
        "first_answer_ratio_100k_sessions",
        crate::common::ratio(&large.first, &small.first),
    );
}

/// Times an undo; a redo (untimed) puts the head back for the next round.
async fn undo(daemon: &Daemon, session: &str) -> Duration {
    let mut client = daemon.client().await;
    let session = SessionRef::Id(session.to_string());
    let request = |op| {
        Move {
            session: session.clone(),
            op,
        }
        .into()
    };
    let start = Instant::now();
    client.call(request(MoveOp::Undo), |_| {}).await.unwrap();
    let took = start.elapsed();
    client.call(request(MoveOp::Redo), |_| {}).await.unwrap();
    took
}

/// The first request (an undo, which loads the session and commits a move) on a
/// 100,000-turn session after a restart, and on a 10-turn one for comparison.
pub async fn first_touch_100k(restarts: usize) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let store = Store::open(&data).unwrap();
    let (short, _) = seed::session(&store, 10, SHORT);
    let (long, _) = seed::session(&store, 100_000, SHORT);
    store.sync().await.unwrap();
    store.close().unwrap();
    let (mut small, mut large) = (Vec::new(), Vec::new());
    for _ in 0..restarts {
        let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
        small.push(undo(&daemon, &short.to_string()).await);
        large.push(undo(&daemon, &long.to_string()).await);
        daemon.stop();
    }
    let (small, large) = (stats(small), stats(large));
    println!(
        "{:<28} 10 turns: p50 {} | 100,000 turns: p50 {}",
        "first request after start",
        show(small.p50),
        show(large.p50)
    );
    figure("first_touch_ms_100k", large.p50.as_secs_f64() * 1000.0);
}
