//! The views' memory of measured contexts against a real store: a session whose answers
//! report no usage is walked once, not at every view.

use uuid::Uuid;

use super::World;
use crate::model::{NodeRecord, Part, Role, SessionRecord};
use crate::session::measured::Measured;
use crate::store::Import;

/// A session of `turns` nodes, user and model in turn, none reporting usage (an import).
fn imported(turns: u64) -> (SessionRecord, Vec<NodeRecord>) {
    let nodes: Vec<NodeRecord> = (1..=turns)
        .map(|id| NodeRecord {
            id,
            parent: id - 1,
            role: if id % 2 == 1 { Role::User } else { Role::Model },
            parts: vec![Part::text("forty bytes of text, ten tokens or so..")],
            created_at_ms: id,
            model: None,
        })
        .collect();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    (record.nodes, record.head) = (turns, turns);
    (record, nodes)
}

#[tokio::test]
async fn a_context_measured_once_is_not_walked_again() {
    let world = World::new();
    let (record, nodes) = imported(200);
    let import = Import {
        session: &record,
        nodes: &nodes,
        moves: &[],
        origin: Some("import (test)"),
        hash: None,
        chains: &[],
    };
    world.services.store.import(&import).await.unwrap();
    let live = world.services.live.get();
    let measured = Measured::default();
    let first = measured.at_head(&world.services, &live, &record).await;
    assert_eq!(first.size.tokens, 200 * 10, "every node estimated");

    // With the nodes gone from the store, only what was remembered can answer.
    world.services.store.purge(&record.id).await.unwrap();
    let again = measured.at_head(&world.services, &live, &record).await;
    assert_eq!(again.size, first.size, "the second view walked nothing");
    let fresh = Measured::default();
    let unremembered = fresh.at_head(&world.services, &live, &record).await;
    assert_eq!(
        unremembered.size.tokens, 0,
        "a walk of a purged session reads nothing"
    );
}
