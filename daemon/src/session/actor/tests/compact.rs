//! Compaction: a summary node takes the covered nodes' place in the context, and nothing
//! leaves the tree; undo and redo move between the two contexts; a summary request that
//! fails or is cancelled changes nothing.

use std::sync::Arc;

use tokio::sync::{Notify, mpsc};

use super::{Step, World, asking};
use crate::model::Role;
use crate::provider::ProviderError;
use crate::session::SessionError;
use crate::session::actor::turn::Phase;
use crate::session::actor::{ActorHandle, RecoverOutcome};
use crate::session::outcome::{HeadOp, RecoveryChoice, SessionEvent};

/// A session of four rounds: prompts "q1".."q4", each answered "an answer".
async fn four_rounds(world: &World) -> (uuid::Uuid, ActorHandle) {
    let (id, actor) = world.session(None).await;
    for prompt in ["q1", "q2", "q3", "q4"] {
        world.send(&actor, prompt).await.0.unwrap();
    }
    (id, actor)
}

async fn compact(
    actor: &ActorHandle,
    keep: u32,
) -> Result<crate::session::outcome::Compacted, SessionError> {
    let (events, _) = mpsc::unbounded_channel();
    actor
        .compact(Some(keep), Some("keep the numbers".into()), events)
        .await
}

#[tokio::test(start_paused = true)]
async fn the_summary_stands_for_the_covered_rounds_and_undo_redo_move_between_contexts() {
    let world = World::new();
    let (id, actor) = four_rounds(&world).await;
    world
        .model
        .push([Step::Text(vec!["SUMMARY ", "of q1 and q2"])]);
    let done = compact(&actor, 2).await.unwrap();
    assert_eq!((done.node, done.from), (9, 8));
    assert_eq!(done.covers, vec![1, 2, 3, 4]);
    assert_eq!(done.resumes_at, Some(5));
    let asked = world.model.requests().pop().unwrap();
    assert!(asked.contains("q1") && asked.contains("q2"), "{asked}");
    assert!(
        !asked.contains("q3"),
        "kept rounds are not summarised: {asked}"
    );
    assert!(asked.contains("keep the numbers"), "{asked}");
    let (record, nodes) = world.stored(id);
    assert_eq!((record.head, nodes.len()), (9, 9), "nothing left the tree");
    assert_eq!(nodes[8].role, Role::Summary);
    assert_eq!(
        world.context(id),
        ["SUMMARY of q1 and q2", "q3", "an answer", "q4", "an answer"]
    );

    world.send(&actor, "q5").await.0.unwrap();
    let sent = world.model.requests().pop().unwrap();
    assert!(
        sent.contains("SUMMARY of q1 and q2") && sent.contains("q3"),
        "{sent}"
    );
    assert!(
        !sent.contains("q1\""),
        "covered prompts are not sent: {sent}"
    );

    actor.apply_move(HeadOp::Undo).await.unwrap(); // the answer to q5
    actor.apply_move(HeadOp::Back).await.unwrap(); // q5's round: back to the summary
    assert_eq!(world.stored(id).0.head, 9);
    let undone = actor.apply_move(HeadOp::Undo).await.unwrap();
    assert_eq!(
        undone.to, 8,
        "undo right after a compaction returns to the full context"
    );
    assert_eq!(world.context(id).len(), 8);
    let redone = actor.apply_move(HeadOp::Redo).await.unwrap();
    assert_eq!(redone.to, 9, "redo brings the compaction back");
}

#[tokio::test(start_paused = true)]
async fn a_failed_or_empty_summary_changes_nothing() {
    let world = World::new();
    let (id, actor) = four_rounds(&world).await;
    let before = world.stored(id);
    world.model.push([Step::Fail(ProviderError::Status {
        status: 400,
        headers: Vec::new(),
        body: r#"{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}"#.into(),
    })]);
    let error = compact(&actor, 1).await.unwrap_err();
    assert!(error.to_string().contains("Nothing changed"), "{error}");
    assert_eq!(world.stored(id), before);
    world.model.push([Step::Calls(vec![("f", "{}", "c1")])]);
    let error = compact(&actor, 1).await.unwrap_err();
    assert!(error.to_string().contains("wrote no summary"), "{error}");
    assert_eq!(world.stored(id), before);
    assert!(world.send(&actor, "still fine").await.0.is_ok());
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_compaction_changes_nothing() {
    let world = World::new();
    let (id, actor) = four_rounds(&world).await;
    let before = world.stored(id);
    world
        .model
        .push([Step::Hold(vec!["half a summ"], Arc::new(Notify::new()))]);
    let (events, mut incoming) = mpsc::unbounded_channel();
    let compacting = {
        let actor = actor.clone();
        tokio::spawn(async move { actor.compact(None, None, events).await })
    };
    while !matches!(incoming.recv().await, Some(SessionEvent::Compacting(_))) {}
    let cancelled = actor.cancel().await.unwrap();
    assert_eq!(cancelled.kept, None);
    let error = compacting.await.unwrap().unwrap_err();
    assert!(error.to_string().contains("cancelled"), "{error}");
    assert_eq!(world.stored(id), before);
}

#[tokio::test(start_paused = true)]
async fn nothing_to_cover_is_refused_and_a_context_too_long_recovers_by_compacting() {
    let world = World::new();
    let (id, actor) = world.session(None).await;
    world.send(&actor, "q1").await.0.unwrap();
    let error = compact(&actor, 2).await.unwrap_err();
    assert!(error.to_string().contains("nothing to compact"), "{error}");
    world.send(&actor, "q2").await.0.unwrap();
    world.model.push([Step::Fail(ProviderError::Status {
        status: 400,
        headers: Vec::new(),
        body: r#"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#.into(),
    })]);
    let failed = world.send(&actor, "q3 is huge").await.0.unwrap_err();
    assert!(
        matches!(failed, SessionError::NeedsRecovery { .. }),
        "{failed}"
    );
    world.model.push([
        Step::Text(vec!["SUMMARY"]),
        Step::Text(vec!["the answer to q3"]),
    ]);
    let (events, _) = mpsc::unbounded_channel();
    let outcome = actor
        .recover(RecoveryChoice::Compact, events)
        .await
        .unwrap();
    let RecoverOutcome::Answered(answer) = outcome else {
        panic!("compaction then an answer");
    };
    assert_eq!(answer.text, "the answer to q3");
    assert_eq!(
        actor.last_life().await,
        [
            Phase::Compacting { pieces_left: 1 },
            asking("gemini/gemini-2.5-flash", 1),
            Phase::Storing,
            Phase::Preparing,
            asking("gemini/gemini-2.5-flash", 1),
            Phase::Storing,
        ],
        "the compaction is a step of the turn it makes room for"
    );
    let (record, _) = world.stored(id);
    assert!(record.needs_recovery.is_none());
    assert_eq!(
        world.context(id),
        [
            "SUMMARY",
            "q2",
            "an answer",
            "q3 is huge",
            "the answer to q3"
        ],
        "the two latest rounds kept, the waiting prompt's among them"
    );
}

#[tokio::test(start_paused = true)]
async fn a_summary_request_too_long_for_the_model_is_summarised_in_two_pieces() {
    let world = World::new();
    let (id, actor) = four_rounds(&world).await;
    world.model.push([
        Step::Fail(ProviderError::Status {
            status: 400,
            headers: Vec::new(),
            body: r#"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#.into(),
        }),
        Step::Text(vec!["PART ONE"]),
        Step::Text(vec!["WHOLE SUMMARY"]),
    ]);
    let done = compact(&actor, 1).await.unwrap();
    assert_eq!(done.covers, vec![1, 2, 3, 4, 5, 6]);
    let requests = world.model.requests();
    let (first, second) = (&requests[5], &requests[6]);
    assert!(first.contains("q1") && !first.contains("q3"), "{first}");
    assert!(
        second.contains("PART ONE") && second.contains("q3"),
        "{second}"
    );
    assert!(
        !second.contains("q1"),
        "the first half travels as its summary: {second}"
    );
    assert_eq!(done.model.attempts, 2, "both pieces' requests count");
    assert_eq!(world.context(id), ["WHOLE SUMMARY", "q4", "an answer"]);
}
