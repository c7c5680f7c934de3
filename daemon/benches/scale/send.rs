//! What a send costs the daemon as its session grows, and how syncs are shared when many
//! sessions send at once.

use std::time::{Duration, Instant};

use omni_proto::{NewSession, Reply, SendPrompt, SessionRef};
use omni_tests::fake_gemini::FakeGemini;
use omnid::store::Store;
use serde_json::json;

use crate::common::seed::{self, SHORT};
use crate::common::{Daemon, show};
use crate::figure;

async fn send(client: &mut omni_proto::Client, session: &str) {
    let request = SendPrompt {
        session: SessionRef::Id(session.to_string()),
        prompt: "one more line of prompt".into(),
        replace: false,
    }
    .into();
    let reply = client.call(request, |_| {}).await.unwrap();
    assert!(matches!(reply, Reply::Answered(_)), "{reply:?}");
}

/// The daemon's CPU time (from the kernel) per send on a 10,000-turn session against a
/// 10-turn one, the model answering at once: `sends` of each, in alternating blocks.
pub async fn cpu_per_send(sends: usize) {
    let fake = FakeGemini::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).unwrap();
    let (short, _) = seed::session(&store, 10, SHORT);
    let (long, _) = seed::session(&store, 10_000, SHORT);
    store.sync().await.unwrap();
    store.close().unwrap();
    let (short, long) = (short.to_string(), long.to_string());
    let daemon = Daemon::start(dir.path(), &fake.url());
    let mut client = daemon.client().await;
    daemon.indexed().await;
    for session in [&short, &long] {
        send(&mut client, session).await;
    }
    let (mut small, mut large) = (Duration::ZERO, Duration::ZERO);
    let block = 10;
    for _ in 0..sends / block {
        for (session, total) in [(&short, &mut small), (&long, &mut large)] {
            let before = daemon.cpu();
            for _ in 0..block {
                send(&mut client, session).await;
            }
            *total += daemon.cpu() - before;
        }
    }
    let per = |total: Duration| total / sends as u32;
    println!(
        "{:<28} 10 turns: {} | 10,000 turns: {} (daemon CPU per send)",
        "send",
        show(per(small)),
        show(per(large))
    );
    figure(
        "send_cpu_ratio_10k",
        large.as_secs_f64() / small.as_secs_f64(),
    );
}

/// Serialising a 10,000-turn context as a Gemini request body, once, with `serde_json`:
/// the cost that grows with the context whatever the daemon does.
pub fn body_cost() {
    let contents: Vec<serde_json::Value> = (1..=10_000u64)
        .map(|id| {
            let role = if id % 2 == 1 { "user" } else { "model" };
            json!({"role": role, "parts": [{"text": format!("turn {id}: some words that make this a realistic, short line")}]})
        })
        .collect();
    let mut samples = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let body = serde_json::to_string(&json!({ "contents": contents })).unwrap();
        samples.push(start.elapsed());
        assert!(body.len() > 500_000);
    }
    let took = crate::common::stats(samples).p50;
    println!(
        "{:<28} {} (serde_json, once)",
        "body of 10,000 turns",
        show(took)
    );
    figure("send_body_ms_10k", took.as_secs_f64() * 1000.0);
}

/// `sessions` clients each sending `each` prompts to their own session at once: file
/// syncs (as the daemon counts them) per committed turn.
pub async fn syncs_per_turn(sessions: usize, each: usize) {
    let fake = FakeGemini::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let most = (sessions + 8).to_string();
    let daemon = Daemon::start_with(dir.path(), &fake.url(), &["--max-connections", &most]);
    let mut clients = Vec::new();
    for _ in 0..sessions {
        let mut client = daemon.client().await;
        let session = client
            .request(plain_session(), |_| {})
            .await
            .unwrap()
            .session;
        clients.push((client, session));
    }
    let before = daemon.status().await;
    let started = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|(mut client, session)| {
            tokio::spawn(async move {
                for _ in 0..each {
                    send(&mut client, &session).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let took = started.elapsed();
    let after = daemon.status().await;
    let turns = (sessions * each) as f64;
    let syncs = (after.store_syncs - before.store_syncs) as f64;
    let commits = (after.store_commits - before.store_commits) as f64;
    println!(
        "{:<28} {turns} turns, {commits} commits, {syncs} syncs in {:.2} s",
        format!("{sessions} sessions at once"),
        took.as_secs_f64()
    );
    figure("syncs_per_turn_64", syncs / turns);
}

/// A session with nothing of its own.
pub fn plain_session() -> NewSession {
    NewSession::default()
}
