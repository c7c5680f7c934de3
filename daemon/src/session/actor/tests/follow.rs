//! Cancel and attach: a client stops an answer and the partial answer stays out of the
//! context; another client follows everything a session does.

use std::sync::Arc;

use tokio::sync::{Notify, broadcast, mpsc};

use super::{Step, World};
use crate::session::SessionError;
use crate::session::actor::ActorHandle;
use crate::session::outcome::{HeadOp, SessionEvent};

/// Starts a send whose answer streams `pieces` and then holds; returns once the pieces
/// reached the client, with the task and its event receiver.
async fn held_send(
    actor: &ActorHandle,
    prompt: &'static str,
    pieces: Vec<&'static str>,
    world: &World,
) -> tokio::task::JoinHandle<Result<crate::session::outcome::Answer, SessionError>> {
    world
        .model
        .push([Step::Hold(pieces.clone(), Arc::new(Notify::new()))]);
    let (events, mut incoming) = mpsc::unbounded_channel();
    let sending = {
        let actor = actor.clone();
        tokio::spawn(async move { actor.send(prompt.into(), false, events).await })
    };
    let mut texts = 0;
    while texts < pieces.len() {
        if let Some(SessionEvent::Text(_)) = incoming.recv().await {
            texts += 1;
        }
    }
    sending
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_answer_is_kept_out_of_the_context_and_the_next_send_works_at_once() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    let sending = held_send(&actor, "long question", vec!["par", "tial"], &world).await;
    let cancelled = actor.cancel().await.unwrap();
    assert_eq!((cancelled.turn, cancelled.kept), (1, Some(2)));
    let error = sending.await.unwrap().unwrap_err();
    assert!(matches!(error, SessionError::Cancelled(_)), "{error}");
    assert!(error.to_string().contains("kept as node 2"), "{error}");
    let (record, nodes) = world.stored(id);
    assert_eq!(record.head, 1, "the head stays on the prompt");
    assert_eq!(nodes[1].text(), "partial");
    assert!(nodes[1].model.as_ref().unwrap().interrupted);
    assert_eq!(record.consecutive_failures, 0, "a cancel is not a failure");
    let next = world.send(&actor, "shorter").await.0.unwrap();
    assert_eq!(next.node, 4);
    let sent = &world.model.requests()[1];
    assert!(!sent.contains("partial"), "never sent to the model: {sent}");
    assert_eq!(world.context(id), ["long question", "shorter", "an answer"]);
}

#[tokio::test(start_paused = true)]
async fn cancelling_with_nothing_in_flight_is_a_wrong_state_error() {
    let world = World::new();
    let (_, actor) = world.session(None).await;
    let error = actor.cancel().await.unwrap_err();
    assert!(matches!(error, SessionError::WrongState(_)), "{error}");
    assert!(error.to_string().contains("nothing to cancel"), "{error}");
}

async fn next(watching: &mut broadcast::Receiver<SessionEvent>) -> SessionEvent {
    watching.recv().await.unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_follower_sees_another_clients_answer_stream_and_every_change() {
    let world = World::new();
    let (_, actor) = world.session(None).await;
    let mut watching = actor.watch().await.unwrap().events;
    world.model.push([Step::Text(vec!["hel", "lo"])]);
    world.send(&actor, "hi").await.0.unwrap();
    assert!(matches!(
        next(&mut watching).await,
        SessionEvent::PromptStored { node: 1, .. }
    ));
    assert_eq!(next(&mut watching).await, SessionEvent::Text("hel".into()));
    assert_eq!(next(&mut watching).await, SessionEvent::Text("lo".into()));
    match next(&mut watching).await {
        SessionEvent::Answered(answer) => assert_eq!(answer.text, "hello"),
        other => panic!("expected the stored answer, got {other:?}"),
    }
    actor.apply_move(HeadOp::Undo).await.unwrap();
    assert!(matches!(
        next(&mut watching).await,
        SessionEvent::Moved(moved) if moved.to == 1
    ));
    let sending = held_send(&actor, "again", vec!["cut"], &world).await;
    actor.cancel().await.unwrap();
    sending.await.unwrap().unwrap_err();
    let mut last = next(&mut watching).await;
    while !matches!(last, SessionEvent::Failed(_)) {
        assert!(
            matches!(
                last,
                SessionEvent::PromptStored { .. }
                    | SessionEvent::PromptsMerged { .. }
                    | SessionEvent::Text(_)
            ),
            "{last:?}"
        );
        last = next(&mut watching).await;
    }
    assert!(
        matches!(&last, SessionEvent::Failed(SessionError::Cancelled(_))),
        "{last:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_follower_who_comes_mid_answer_gets_the_answer_from_its_start() {
    let world = World::new();
    let (_, actor) = world.session(None).await;
    assert!(actor.watch().await.unwrap().so_far.is_empty(), "idle");
    let sending = held_send(&actor, "tell me", vec!["once ", "upon"], &world).await;
    let following = actor.watch().await.unwrap();
    assert!(
        matches!(
            following.so_far.as_slice(),
            [SessionEvent::PromptStored { node: 1, .. }, SessionEvent::Text(text)]
                if text == "once upon"
        ),
        "{:?}",
        following.so_far
    );
    actor.cancel().await.unwrap();
    sending.await.unwrap().unwrap_err();
    let after = actor.watch().await.unwrap();
    assert!(
        after.so_far.is_empty(),
        "the turn ended: {:?}",
        after.so_far
    );
}

#[tokio::test(start_paused = true)]
async fn a_followed_session_stays_loaded_while_idle() {
    let world = World::new();
    let (_, actor) = world.session(None).await;
    let watching = actor.watch().await.unwrap().events;
    tokio::time::sleep(crate::session::actor::IDLE_STOP * 2).await;
    assert!(!actor.is_closed(), "a follower keeps the session loaded");
    drop(watching);
    tokio::time::sleep(crate::session::actor::IDLE_STOP).await;
    while !actor.is_closed() {
        tokio::task::yield_now().await;
    }
}
