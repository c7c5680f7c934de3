//! What idle sessions cost in memory: every session ever touched must not stay resident.

use std::time::{Duration, Instant};

use omni_proto::{SendPrompt, SessionRef};
use omni_tests::fake_gemini::FakeGemini;

use crate::common::Daemon;
use crate::figure;
use crate::send::plain_session;

/// `count` sessions created and sent one prompt each (16 clients at once), then left idle
/// past the idle time (1 s here): the daemon's resident memory once all have unloaded.
pub async fn idle_sessions(count: usize) {
    let fake = FakeGemini::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let daemon = Daemon::start_with(dir.path(), &fake.url(), &["--session-idle-secs", "1"]);
    let fresh = daemon.rss_mib();
    let clients = 16;
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let socket = daemon.socket().to_path_buf();
            tokio::spawn(async move {
                let mut client = omni_proto::Client::connect(&socket, "bench").await.unwrap();
                for _ in 0..count / clients {
                    let session = client
                        .request(plain_session(), |_| {})
                        .await
                        .unwrap()
                        .session;
                    let request = SendPrompt {
                        session: SessionRef::Id(session),
                        prompt: "hello".into(),
                        replace: false,
                    }
                    .into();
                    client.call(request, |_| {}).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let busy = daemon.rss_mib();
    let deadline = Instant::now() + Duration::from_secs(60);
    while daemon.status().await.sessions_loaded > 0 {
        assert!(Instant::now() < deadline, "sessions did not unload");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let idle = daemon.rss_mib();
    println!(
        "{:<28} fresh {fresh:.1} MiB | {count} sessions just touched {busy:.1} MiB | all idle {idle:.1} MiB",
        "resident memory"
    );
    figure("rss_mb_10k_idle", idle);
}
