//! *Needs recovery*: a 400 stops the session and asks; every way out is a move.

use tokio::sync::mpsc;

use super::{Step, World};
use crate::provider::ProviderError;
use crate::session::SessionError;
use crate::session::actor::RecoverOutcome;
use crate::session::outcome::{HeadOp, RecoveryChoice};

fn rejected() -> Step {
    Step::Fail(ProviderError::Status {
        status: 400,
        headers: Vec::new(),
        body: r#"{"error":{"code":400,"message":"Please ensure that function response parts match.","status":"INVALID_ARGUMENT"}}"#.into(),
    })
}

/// A session whose second prompt the API rejected: nodes 1-2 are a round, node 3 the
/// rejected prompt at the head.
async fn poisoned(world: &World) -> (uuid::Uuid, crate::session::actor::ActorHandle) {
    let (id, actor) = world.session(None).await;
    world.send(&actor, "fine").await.0.unwrap();
    world.model.push([rejected()]);
    let error = world.send(&actor, "rejected").await.0.unwrap_err();
    assert!(
        matches!(error, SessionError::NeedsRecovery { .. }),
        "{error}"
    );
    (id, actor)
}

async fn recover(
    actor: &crate::session::actor::ActorHandle,
    choice: RecoveryChoice,
) -> Result<RecoverOutcome, SessionError> {
    let (events, _) = mpsc::unbounded_channel();
    actor.recover(choice, events).await
}

fn moved_to(outcome: RecoverOutcome) -> u64 {
    match outcome {
        RecoverOutcome::Moved(recovered) => recovered.to,
        RecoverOutcome::Answered(answer) => answer.node,
    }
}

#[tokio::test(start_paused = true)]
async fn sends_are_refused_until_a_choice_and_the_state_is_kept_durably() {
    let world = World::new();
    let (id, actor) = poisoned(&world).await;
    let refused = world.send(&actor, "more").await.0.unwrap_err();
    assert!(
        matches!(refused, SessionError::NeedsRecovery { .. }),
        "{refused}"
    );
    assert_eq!(
        world.model.requests().len(),
        2,
        "nothing more reached the API"
    );
    assert!(world.stored(id).0.needs_recovery.is_some());
}

#[tokio::test(start_paused = true)]
async fn deep_rollback_drops_the_round_and_redo_takes_it_back() {
    let world = World::new();
    let (id, actor) = poisoned(&world).await;
    assert_eq!(
        moved_to(recover(&actor, RecoveryChoice::Deep).await.unwrap()),
        2
    );
    assert_eq!(world.context(id), ["fine", "an answer"]);
    assert!(world.stored(id).0.needs_recovery.is_none());
    assert_eq!(actor.apply_move(HeadOp::Redo).await.unwrap().to, 3);
}

#[tokio::test(start_paused = true)]
async fn clear_turn_drops_only_the_last_node() {
    let world = World::new();
    let (id, actor) = poisoned(&world).await;
    assert_eq!(
        moved_to(recover(&actor, RecoveryChoice::Clear).await.unwrap()),
        2
    );
    assert_eq!(world.context(id).len(), 2);
}

#[tokio::test(start_paused = true)]
async fn ignore_keeps_the_history_and_retry_sends_the_same_context_again() {
    let world = World::new();
    let (id, actor) = poisoned(&world).await;
    assert_eq!(
        moved_to(recover(&actor, RecoveryChoice::Ignore).await.unwrap()),
        3
    );
    assert_eq!(world.context(id), ["fine", "an answer", "rejected"]);

    let (id, actor) = poisoned(&world).await;
    let failed_body = world.model.requests().pop().unwrap();
    let retried = recover(&actor, RecoveryChoice::Retry).await.unwrap();
    assert!(matches!(retried, RecoverOutcome::Answered(_)));
    assert_eq!(
        world.model.requests().pop().unwrap(),
        failed_body,
        "exactly the same"
    );
    assert_eq!(world.context(id).len(), 4);
    let nothing = recover(&actor, RecoveryChoice::Ignore).await.unwrap_err();
    assert!(matches!(nothing, SessionError::WrongState(_)), "{nothing}");
}

/// While the session needs recovery its head stays on what failed: a move is refused, so
/// the choices offered never take out healthy turns.
#[tokio::test(start_paused = true)]
async fn moves_are_refused_while_a_recovery_choice_is_pending() {
    let world = World::new();
    let (id, actor) = poisoned(&world).await;
    for op in [HeadOp::Back, HeadOp::Undo, HeadOp::Checkout(2)] {
        let refused = actor.apply_move(op).await.unwrap_err();
        assert!(
            matches!(refused, SessionError::NeedsRecovery { .. }),
            "{op:?}: {refused}"
        );
    }
    let (record, _) = world.stored(id);
    assert_eq!(record.head, 3, "the head stays on the rejected prompt");
    assert_eq!(
        moved_to(recover(&actor, RecoveryChoice::Deep).await.unwrap()),
        2,
        "deep rollback takes out only the rejected prompt"
    );
}

/// A new prompt sent in place of the rejected one is stored first, in the same commit
/// that ends *needs recovery*, and answered; a prompt sent beside it is refused and
/// nothing is stored.
#[tokio::test(start_paused = true)]
async fn a_prompt_sent_in_place_of_the_rejected_one_is_stored_and_answered() {
    let world = World::new();
    let (id, actor) = poisoned(&world).await;
    let kept = world
        .send_as(&actor, "beside it", false)
        .await
        .0
        .unwrap_err();
    assert!(matches!(kept, SessionError::NeedsRecovery { .. }), "{kept}");
    assert_eq!(world.stored(id).1.len(), 3, "nothing stored");

    let answer = world.send_as(&actor, "hello again", true).await.0.unwrap();
    assert_eq!(answer.prompt_node, 4);
    assert_eq!(answer.prompts, [4]);
    assert_eq!(
        world.context(id),
        ["fine", "an answer", "hello again", "an answer"]
    );
    let (record, nodes) = world.stored(id);
    assert!(record.needs_recovery.is_none());
    assert_eq!(
        nodes[2].text(),
        "rejected",
        "the rejected prompt stays in the tree"
    );
}
