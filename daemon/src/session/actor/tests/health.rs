//! Failures: suspension after three failed sends, the breaker's wait, and a shutdown that
//! cuts an answer short.

use std::sync::Arc;

use tokio::sync::Notify;

use super::{Step, World};
use crate::config::SettingFlags;
use crate::provider::ProviderError;
use crate::session::SessionError;
use crate::session::outcome::SessionEvent;

fn internal() -> Step {
    Step::Fail(ProviderError::Status {
        status: 500,
        headers: Vec::new(),
        body: r#"{"error":{"code":500,"message":"Internal error.","status":"INTERNAL"}}"#.into(),
    })
}

fn one_attempt() -> SettingFlags {
    SettingFlags {
        retry_max_attempts: Some(1),
        ..SettingFlags::default()
    }
}

#[tokio::test(start_paused = true)]
async fn three_failed_sends_suspend_and_resume_lifts_it() {
    let world = World::with(one_attempt());
    let (id, actor) = world.session(None).await;
    world.model.push([internal(), internal(), internal()]);
    for _ in 0..2 {
        let error = world.send(&actor, "try").await.0.unwrap_err();
        assert!(matches!(error, SessionError::Upstream(_)), "{error}");
    }
    let third = world.send(&actor, "try").await.0.unwrap_err();
    assert!(matches!(third, SessionError::Suspended(_)), "{third}");
    let refused = world.send(&actor, "again").await.0.unwrap_err();
    assert!(matches!(refused, SessionError::Suspended(_)), "{refused}");
    assert_eq!(world.model.requests().len(), 3);
    assert!(actor.resume().await.unwrap(), "it was suspended");
    world.send(&actor, "works").await.0.unwrap();
    assert_eq!(world.stored(id).0.consecutive_failures, 0);
}

#[tokio::test(start_paused = true)]
async fn an_open_breaker_is_waited_for_within_the_deadline_and_otherwise_not_counted() {
    let flags = SettingFlags {
        breaker_failures: Some(1),
        breaker_cooldown_ms: Some(5_000),
        ..one_attempt()
    };
    let world = World::with(flags);
    let (_, actor) = world.session(None).await;
    world.model.push([internal()]);
    world
        .send(&actor, "fails and opens it")
        .await
        .0
        .unwrap_err();
    let (answer, events) = world.send(&actor, "waits for the probe").await;
    answer.unwrap();
    let waited = events.iter().any(|e| {
        matches!(e, SessionEvent::Retrying(notice) if notice.class == "circuit_open" && notice.wait_ms > 0)
    });
    assert!(waited, "{events:?}");

    let flags = SettingFlags {
        breaker_failures: Some(1),
        breaker_cooldown_ms: Some(60_000),
        request_deadline_secs: Some(2.0),
        ..one_attempt()
    };
    let world = World::with(flags);
    let (id2, actor) = world.session(None).await;
    world.model.push([internal()]);
    world
        .send(&actor, "fails and opens it")
        .await
        .0
        .unwrap_err();
    for _ in 0..3 {
        let error = world.send(&actor, "again").await.0.unwrap_err();
        assert!(error.to_string().contains("does not count"), "{error}");
    }
    assert_eq!(world.stored(id2).0.consecutive_failures, 1);
    assert!(world.stored(id2).0.suspended.is_none());
    assert_eq!(world.model.requests().len(), 1);
}

fn unavailable() -> Step {
    Step::Fail(ProviderError::Status {
        status: 503,
        headers: Vec::new(),
        body: r#"{"error":{"code":503,"message":"The service is unavailable.","status":"UNAVAILABLE"}}"#
            .into(),
    })
}

/// A persistent outage with the default settings (5 attempts, the breaker opening after 5
/// failures, 30 s cool-down): a send that meets the open breaker waits for one probe, and
/// when that fails it fails at once, counted; the third send suspends the session within
/// about two cool-downs.
#[tokio::test(start_paused = true)]
async fn in_an_outage_a_send_waits_for_one_probe_and_the_third_suspends() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    world.model.push((0..40).map(|_| unavailable()));
    let cooldown = std::time::Duration::from_secs(30);
    let started = tokio::time::Instant::now();
    let first = world.send(&actor, "one").await.0.unwrap_err();
    assert!(matches!(first, SessionError::Upstream(_)), "{first}");
    assert_eq!(world.model.requests().len(), 5, "the whole budget");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));

    let second_started = tokio::time::Instant::now();
    let second = world.send(&actor, "two").await.0.unwrap_err();
    assert!(matches!(second, SessionError::Upstream(_)), "{second}");
    assert!(second.to_string().contains("probe failed"), "{second}");
    assert!(
        second_started.elapsed() <= cooldown + std::time::Duration::from_secs(1),
        "the second send took {:?}",
        second_started.elapsed()
    );
    assert_eq!(world.model.requests().len(), 6, "one probe, no more");
    assert_eq!(
        world.stored(id).0.consecutive_failures,
        2,
        "the probe counts"
    );

    let third = world.send(&actor, "three").await.0.unwrap_err();
    assert!(matches!(third, SessionError::Suspended(_)), "{third}");
    assert_eq!(world.model.requests().len(), 7);
    assert!(
        started.elapsed() <= 2 * cooldown + std::time::Duration::from_secs(5),
        "suspended after {:?}",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn a_shutdown_mid_answer_keeps_the_partial_answer_out_of_the_context() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    world.send(&actor, "first").await.0.unwrap();
    world.model.push([Step::Hold(
        vec!["partial ", "answer"],
        Arc::new(Notify::new()),
    )]);
    let sending = {
        let actor = actor.clone();
        let (events, _keep) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move { actor.send("cut short".into(), false, events).await })
    };
    while world.model.requests().len() < 2 {
        tokio::task::yield_now().await;
    }
    world.services.shutdown.cancel();
    let error = sending.await.unwrap().unwrap_err();
    assert!(matches!(error, SessionError::ShuttingDown(_)), "{error}");
    assert!(error.to_string().contains("interrupted"), "{error}");
    let (record, nodes) = world.stored(id);
    assert_eq!(record.head, 3, "the prompt stays at the head");
    let partial = &nodes[3];
    assert_eq!(partial.text(), "partial answer");
    assert!(partial.model.as_ref().unwrap().interrupted);
    assert_eq!(world.context(id), ["first", "an answer", "cut short"]);
}
