//! What a compaction costs on a long session, and what it saves: the time to compact a
//! 10,000-turn session against a plain send on it, the summary request's size, and the
//! context the next send carries after it against before.

use std::time::Instant;

use omni_proto::{Compact, Reply, Request, SendPrompt, SessionRef};
use omni_tests::fake_gemini::FakeGemini;
use omnid::store::Store;

use crate::common::seed::{self, SHORT};
use crate::common::{Daemon, show};
use crate::figure;

async fn call(client: &mut omni_proto::Client, request: Request) -> Reply {
    let reply = client.call(request, |_| {}).await.unwrap();
    assert!(
        matches!(reply, Reply::Answered(_) | Reply::Compacted(_)),
        "{reply:?}"
    );
    reply
}

fn send(session: &str) -> Request {
    SendPrompt {
        session: SessionRef::Id(session.to_string()),
        prompt: "one more line of prompt".into(),
        replace: false,
    }
    .into()
}

/// The size of the body of the fake's latest request.
fn last_body(fake: &FakeGemini) -> usize {
    fake.requests().last().map_or(0, |r| r.body.len())
}

/// Compacts a 10,000-turn session, the fake answering at once: time against a send on the
/// same session just before (the context rendered and sent whole both times), and bytes.
pub async fn compact_10k() {
    let fake = FakeGemini::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).unwrap();
    let (session, _) = seed::session(&store, 10_000, SHORT);
    store.sync().await.unwrap();
    store.close().unwrap();
    let session = session.to_string();
    let daemon = Daemon::start(dir.path(), &fake.url());
    let mut client = daemon.client().await;
    call(&mut client, send(&session)).await;
    let started = Instant::now();
    call(&mut client, send(&session)).await;
    let send_took = started.elapsed();
    let before = last_body(&fake);
    let compact = Compact {
        session: SessionRef::Id(session.clone()),
        keep: Some(2),
        instructions: None,
    }
    .into();
    let started = Instant::now();
    call(&mut client, compact).await;
    let compact_took = started.elapsed();
    let summary_request = last_body(&fake);
    call(&mut client, send(&session)).await;
    let after = last_body(&fake);
    println!(
        "{:<28} send: {} | compact: {} (10,000 turns, the model answering at once)",
        "compaction",
        show(send_took),
        show(compact_took)
    );
    println!(
        "{:<28} before: {before} B | summary request: {summary_request} B | after: {after} B",
        "request bodies"
    );
    figure("compact_ms_10k", compact_took.as_secs_f64() * 1000.0);
    figure(
        "compact_ratio_10k",
        compact_took.as_secs_f64() / send_took.as_secs_f64(),
    );
    figure("summary_request_kb_10k", summary_request as f64 / 1024.0);
    figure("context_ratio_after_compact", after as f64 / before as f64);
}
