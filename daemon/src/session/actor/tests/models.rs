//! Which model answers: the session's own, a fallback when its own cannot, another after
//! `model REF`; and what never falls back.

use super::{Step, World, asking};
use crate::config::{ModelList, SettingFlags};
use crate::provider::ProviderError;
use crate::session::SessionError;
use crate::session::actor::turn::Phase;
use crate::session::outcome::SessionEvent;

fn with_fallback() -> SettingFlags {
    SettingFlags {
        fallback: Some(ModelList(vec!["gemini/backup".into()])),
        ..SettingFlags::default()
    }
}

fn failing(status: u16, body: &str) -> Step {
    Step::Fail(ProviderError::Status {
        status,
        headers: Vec::new(),
        body: body.into(),
    })
}

fn daily_quota() -> Step {
    failing(
        429,
        r#"{"error":{"code":429,"message":"Quota exceeded, limit: 0","status":"RESOURCE_EXHAUSTED"}}"#,
    )
}

#[tokio::test(start_paused = true)]
async fn an_exhausted_quota_sends_the_same_context_to_the_next_model() {
    let world = World::with(with_fallback());
    let (_, actor) = world.session(None).await;
    world.model.push([daily_quota()]);
    let (answer, events) = world.send(&actor, "hello").await;
    let answer = answer.unwrap();
    assert_eq!(
        (answer.model.provider.as_str(), answer.model.model.as_str()),
        ("gemini", "backup")
    );
    let notices: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Retrying(notice) => Some(notice),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].fallback_to.as_deref(), Some("gemini/backup"));
    let requests = world.model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0], requests[1], "exactly the same context");

    // The next send asks the session's own model first again.
    let (answer, _) = world.send(&actor, "again").await;
    assert_eq!(answer.unwrap().model.model, "gemini-2.5-flash");
}

#[tokio::test(start_paused = true)]
async fn a_turns_life_names_each_attempt_and_the_fallback_in_order() {
    let world = World::with(with_fallback());
    let (_, actor) = world.session(None).await;
    world
        .model
        .push([failing(503, "overloaded"), daily_quota()]);
    world.send(&actor, "hello").await.0.unwrap();
    let own = "gemini/gemini-2.5-flash";
    assert_eq!(
        actor.last_life().await,
        [
            Phase::Preparing,
            asking(own, 1),
            asking(own, 2),
            Phase::FallingBack {
                from: own.into(),
                to: "gemini/backup".into()
            },
            asking("gemini/backup", 1),
            Phase::Storing,
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_rejected_request_stops_and_asks_instead_of_falling_back() {
    let world = World::with(with_fallback());
    let (_, actor) = world.session(None).await;
    world.model.push([failing(
        400,
        r#"{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}"#,
    )]);
    let error = world.send(&actor, "hello").await.0.unwrap_err();
    assert!(
        matches!(error, SessionError::NeedsRecovery { .. }),
        "{error}"
    );
    assert_eq!(world.model.requests().len(), 1, "no fallback after a 400");
}

#[tokio::test(start_paused = true)]
async fn a_switched_model_answers_from_the_next_send_on() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    actor
        .set_model("gemini/gemini-2.5-pro".into())
        .await
        .unwrap();
    assert_eq!(
        world.stored(id).0.model.as_deref(),
        Some("gemini/gemini-2.5-pro")
    );
    let (answer, _) = world.send(&actor, "hello").await;
    assert_eq!(answer.unwrap().model.model, "gemini-2.5-pro");
    let refused = actor.set_model("nowhere/x".into()).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("no provider is named `nowhere`"),
        "{refused}"
    );
}
