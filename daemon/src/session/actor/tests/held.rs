//! The context a session holds between sends: whatever the session went through (sends,
//! function calls and their results, undo, back, redo, checkout, a model switch), every
//! request is exactly the body rendered from scratch from the stored path.

use tokio::sync::mpsc;

use super::{Step, World};
use crate::model::NodeRecord;
use crate::provider::{Extras, Kind, RequestOptions, Target, body};
use crate::session::actor::{ActorHandle, ToolOutcome};
use crate::session::outcome::HeadOp;
use uuid::Uuid;

const TOOLS: &str = r#"[{"name":"get_weather"}]"#;

/// The body rendered from the store for the path to `turn`, for `model` at Gemini.
fn from_scratch(world: &World, id: Uuid, turn: u64, model: &str) -> String {
    let (record, nodes) = world.stored(id);
    let tree = crate::session::build_tree(&record, crate::session::places(&nodes)).unwrap();
    let path: Vec<NodeRecord> = tree
        .path_to(turn)
        .into_iter()
        .map(|n| nodes[n as usize - 1].clone())
        .collect();
    let target = Target {
        provider: "gemini",
        kind: Kind::Gemini,
        model,
        max_tool_result: 0,
    };
    let options = RequestOptions::default();
    let extras = Extras {
        tools_json: Some(TOOLS),
        system: None,
        options: &options,
    };
    body(&target, &path, extras).text().into_owned()
}

/// Asserts that the latest request is the body from scratch for `turn`.
fn sent_as_from_scratch(world: &World, id: Uuid, turn: u64, step: usize) {
    let sent = world.model.requests().pop().unwrap();
    assert_eq!(
        sent,
        from_scratch(world, id, turn, "any"),
        "step {step}: the held context drifted from the store"
    );
}

async fn answer_calls(world: &World, actor: &ActorHandle, id: Uuid, step: usize) {
    let (events, _) = mpsc::unbounded_channel();
    let outcome = actor
        .tool_result(
            Some("c1".into()),
            "get_weather".into(),
            "{\"t\":1}".into(),
            events,
        )
        .await;
    if let Ok(ToolOutcome::Answered(answer)) = outcome {
        sent_as_from_scratch(world, id, answer.prompt_node, step);
    }
}

#[tokio::test(start_paused = true)]
async fn every_request_equals_the_context_rendered_from_the_store() {
    let world = World::new();
    let (id, actor) = world.session(Some(TOOLS)).await;
    let mut rng = fastrand::Rng::with_seed(14);
    let mut sends = 0;
    for step in 0..300 {
        match rng.u8(0..12) {
            0..=4 => {
                if rng.bool() {
                    world
                        .model
                        .push([Step::Calls(vec![("get_weather", "{}", "c1")])]);
                }
                let prompt = format!("prompt {step}");
                if let Ok(answer) = world.send(&actor, &prompt).await.0 {
                    sends += 1;
                    sent_as_from_scratch(&world, id, answer.prompt_node, step);
                    if !answer.pending_calls.is_empty() && rng.bool() {
                        answer_calls(&world, &actor, id, step).await;
                    }
                }
            }
            5 => answer_calls(&world, &actor, id, step).await,
            6 => drop(actor.apply_move(HeadOp::Undo).await),
            7 => drop(actor.apply_move(HeadOp::Back).await),
            8 => drop(actor.apply_move(HeadOp::Redo).await),
            9 | 10 => {
                let nodes = world.stored(id).0.nodes;
                let to = rng.u64(0..=nodes);
                drop(actor.apply_move(HeadOp::Checkout(to)).await);
            }
            _ => {
                let model = if rng.bool() { "gemini/a" } else { "gemini/b" };
                drop(actor.set_model(model.into()).await);
            }
        }
    }
    assert!(sends > 50, "only {sends} sends went through");
}
