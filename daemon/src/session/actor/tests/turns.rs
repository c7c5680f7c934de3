//! Sending and moving the head: every change is a node or a move, nothing is deleted.

use super::{Step, World};
use crate::session::SessionError;
use crate::session::outcome::{HeadOp, SessionEvent};

#[tokio::test(start_paused = true)]
async fn a_send_stores_the_prompt_then_the_answer_and_streams_between() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    world.model.push([Step::Text(vec!["hel", "lo"])]);
    let (answer, events) = world.send(&actor, "hi").await;
    let answer = answer.unwrap();
    assert_eq!(
        (answer.prompt_node, answer.node, answer.text.as_str()),
        (1, 2, "hello")
    );
    assert!(matches!(
        events[0],
        SessionEvent::PromptStored { node: 1, .. }
    ));
    let texts: Vec<&SessionEvent> = events
        .iter()
        .filter(|e| matches!(e, SessionEvent::Text(_)))
        .collect();
    assert_eq!(texts.len(), 2, "each piece streams as it arrives");
    let (record, nodes) = world.stored(id);
    assert_eq!((record.head, record.nodes, record.moves), (2, 2, 2));
    assert_eq!(nodes[0].text(), "hi");
    assert_eq!(record.title, "hi");
    assert!(world.model.requests()[0].contains("\"hi\""));
}

#[tokio::test(start_paused = true)]
async fn undo_back_redo_and_checkout_move_the_head_and_keep_every_node() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    for prompt in ["one", "two"] {
        world.send(&actor, prompt).await.0.unwrap();
    }
    let undone = actor.apply_move(HeadOp::Undo).await.unwrap();
    assert_eq!((undone.from, undone.to), (4, 3));
    assert_eq!(world.context(id), ["one", "an answer", "two"]);
    let back = actor.apply_move(HeadOp::Back).await.unwrap();
    assert_eq!(back.to, 2);
    assert_eq!(world.context(id), ["one", "an answer"]);
    // Redo takes back the last undo-type move, then the one before it.
    assert_eq!(actor.apply_move(HeadOp::Redo).await.unwrap().to, 3);
    assert_eq!(actor.apply_move(HeadOp::Redo).await.unwrap().to, 4);
    let nothing = actor.apply_move(HeadOp::Redo).await.unwrap_err();
    assert!(matches!(nothing, SessionError::WrongState(_)), "{nothing}");
    // Checkout continues from any node; a new prompt forks a branch; nothing is deleted.
    assert_eq!(actor.apply_move(HeadOp::Checkout(2)).await.unwrap().to, 2);
    world.send(&actor, "three").await.0.unwrap();
    assert_eq!(
        world.context(id),
        ["one", "an answer", "three", "an answer"]
    );
    let (record, nodes) = world.stored(id);
    assert_eq!((record.nodes, nodes.len()), (6, 6));
    let missing = actor.apply_move(HeadOp::Checkout(99)).await.unwrap_err();
    assert!(matches!(missing, SessionError::NotFound(_)), "{missing}");
}

#[tokio::test(start_paused = true)]
async fn back_at_the_start_and_undo_without_an_answer_are_refused_and_change_nothing() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    let at_start = actor.apply_move(HeadOp::Back).await.unwrap_err();
    assert!(
        matches!(at_start, SessionError::WrongState(_)),
        "{at_start}"
    );
    assert_eq!(world.stored(id).0.moves, 0);
    let empty = world.send(&actor, "   ").await.0.unwrap_err();
    assert!(matches!(empty, SessionError::Invalid(_)), "{empty}");
    assert_eq!(world.stored(id).0.nodes, 0);
}

#[tokio::test(start_paused = true)]
async fn a_second_request_while_answering_is_busy_not_queued() {
    let world = World::new();
    let (_, actor) = world.session(None).await;
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    world
        .model
        .push([Step::Hold(vec!["slow"], release.clone())]);
    let sending = {
        let actor = actor.clone();
        let (events, _keep) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move { actor.send("wait".into(), false, events).await })
    };
    // Let the send reach the model.
    while world.model.requests().is_empty() {
        tokio::task::yield_now().await;
    }
    let busy = actor.apply_move(HeadOp::Undo).await.unwrap_err();
    assert!(matches!(busy, SessionError::Busy(_)), "{busy}");
    release.notify_one();
    assert_eq!(sending.await.unwrap().unwrap().text, "slow.");
}

#[tokio::test(start_paused = true)]
async fn an_idle_session_is_unloaded_and_the_next_request_loads_it_again() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    world.send(&actor, "one").await.0.unwrap();
    assert_eq!(world.sessions.loaded_count(), 1);
    tokio::time::sleep(crate::session::actor::IDLE_STOP).await;
    while !actor.is_closed() {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        world.sessions.loaded_count(),
        0,
        "memory follows the sessions in use"
    );
    let again = world.sessions.actor(id).await.unwrap();
    world.send(&again, "two").await.0.unwrap();
    assert_eq!(world.context(id), ["one", "an answer", "two", "an answer"]);
    assert_eq!(world.sessions.loaded_count(), 1);
}

#[tokio::test(start_paused = true)]
async fn session_idle_secs_sets_how_long_an_idle_session_stays_loaded() {
    let world = World::with(crate::config::SettingFlags {
        session_idle_secs: Some(2.0),
        ..crate::config::SettingFlags::default()
    });
    let (_, actor) = world.session(None).await;
    world.send(&actor, "one").await.0.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert!(!actor.is_closed(), "still within the idle time");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    for _ in 0..100 {
        if actor.is_closed() {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(
        actor.is_closed(),
        "unloaded after 2 s idle, not the default 300 s"
    );
    assert_eq!(world.sessions.loaded_count(), 0);
}

fn internal() -> Step {
    Step::Fail(crate::provider::ProviderError::Status {
        status: 500,
        headers: Vec::new(),
        body: r#"{"error":{"code":500,"message":"Internal error.","status":"INTERNAL"}}"#.into(),
    })
}

/// A prompt a failed send left pending is kept by default, and the event and the answer
/// name both prompts; `replace` sends the new one in its place.
#[tokio::test(start_paused = true)]
async fn a_pending_prompt_is_kept_and_named_or_replaced_on_request() {
    let flags = crate::config::SettingFlags {
        retry_max_attempts: Some(1),
        ..crate::config::SettingFlags::default()
    };
    let world = World::with(flags);
    let (id, actor) = world.session(None).await;
    world.model.push([internal()]);
    world.send(&actor, "slow one").await.0.unwrap_err();
    let (answer, events) = world.send(&actor, "second").await;
    let answer = answer.unwrap();
    assert_eq!(answer.prompts, [1, 2]);
    let merged = events
        .iter()
        .any(|e| matches!(e, SessionEvent::PromptsMerged { prompts, .. } if prompts == &[1, 2]));
    assert!(merged, "{events:?}");

    world.model.push([internal()]);
    world.send(&actor, "fails too").await.0.unwrap_err();
    let (answer, events) = world.send_as(&actor, "instead", true).await;
    let answer = answer.unwrap();
    assert_eq!(answer.prompts, [answer.prompt_node]);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SessionEvent::PromptsMerged { .. })),
        "{events:?}"
    );
    let context = world.context(id);
    assert_eq!(context[context.len() - 2..], ["instead", "an answer"]);
    assert!(
        !context.iter().any(|text| text == "fails too"),
        "{context:?}"
    );
}
