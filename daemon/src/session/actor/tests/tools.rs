//! Function calls: results are stored as they come, and sent together, in call order,
//! with ids and signatures kept, when the last one is in.

use tokio::sync::mpsc;

use super::{Step, World};
use crate::model::Role;
use crate::session::SessionError;
use crate::session::actor::ToolOutcome;

const TOOLS: &str = r#"[{"name":"get_weather"},{"name":"get_time"}]"#;

async fn submit(
    actor: &crate::session::actor::ActorHandle,
    id: Option<&str>,
    name: &str,
    json: &str,
) -> Result<ToolOutcome, SessionError> {
    let (events, _) = mpsc::unbounded_channel();
    actor
        .tool_result(id.map(str::to_string), name.into(), json.into(), events)
        .await
}

#[tokio::test(start_paused = true)]
async fn results_are_kept_one_by_one_and_sent_together_in_call_order() {
    let world = World::new();
    let (id, actor) = world.session(Some(TOOLS)).await;
    world.model.push([Step::Calls(vec![
        ("get_weather", r#"{"city":"Paris"}"#, "c1"),
        ("get_time", r#"{"tz":"CET"}"#, "c2"),
    ])]);
    let answer = world.send(&actor, "weather and time?").await.0.unwrap();
    assert_eq!(answer.pending_calls.len(), 2);
    let busy = world.send(&actor, "hello?").await.0.unwrap_err();
    assert!(matches!(busy, SessionError::WrongState(_)), "{busy}");

    match submit(&actor, Some("c2"), "get_time", "\"noon\"")
        .await
        .unwrap()
    {
        ToolOutcome::Stored(calls) => {
            let answered: Vec<bool> = calls.iter().map(|c| c.answered).collect();
            assert_eq!(answered, [false, true]);
        }
        ToolOutcome::Answered(_) => panic!("one call still waits"),
    }
    let twice = submit(&actor, Some("c2"), "get_time", "{}")
        .await
        .unwrap_err();
    assert!(matches!(twice, SessionError::WrongState(_)), "{twice}");
    let ToolOutcome::Answered(continued) =
        submit(&actor, None, "get_weather", r#"{"output":"sunny"}"#)
            .await
            .unwrap()
    else {
        panic!("the last result sends them all");
    };
    assert_eq!(continued.prompt_node, 3);
    let (_, nodes) = world.stored(id);
    assert_eq!(nodes[2].role, Role::Tool);
    let sent = world.model.requests().pop().unwrap();
    let weather = sent
        .find(r#""functionResponse":{"name":"get_weather","id":"c1""#)
        .unwrap();
    let time = sent
        .find(r#""functionResponse":{"name":"get_time","id":"c2""#)
        .unwrap();
    assert!(weather < time, "in call order: {sent}");
    assert!(sent.contains(r#""response":{"output":"noon"}"#), "{sent}");
    assert!(
        sent.contains(r#""thoughtSignature":"sig-get_weather""#),
        "{sent}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_result_for_no_call_is_refused() {
    let world = World::new();
    let (_, actor) = world.session(Some(TOOLS)).await;
    world.send(&actor, "hi").await.0.unwrap();
    let none = submit(&actor, None, "get_weather", "{}").await.unwrap_err();
    assert!(matches!(none, SessionError::WrongState(_)), "{none}");
}
