//! Finding damaged sessions: the current session at start-up is a healthy one, every
//! session is checked in the background, and a session is checked before it loads.

use uuid::Uuid;

use super::World;
use crate::model::SessionRecord;
use crate::session::SessionError;
use crate::session::registry::Registry;
use crate::store::Change;

/// A session with one turn, then a newer one whose record `edit` changes (and a minute
/// later): their ids, the healthy one first.
async fn healthy_then_newer(world: &World, edit: impl FnOnce(&mut SessionRecord)) -> (Uuid, Uuid) {
    let (healthy, actor) = world.session(None).await;
    world.send(&actor, "hello").await.0.unwrap();
    let (newer, _) = world.session(None).await;
    let mut record = world.stored(newer).0;
    edit(&mut record);
    record.updated_at_ms += 60_000;
    let change = Change::record_only(&record);
    world.services.store.commit(&change).await.unwrap();
    (healthy, newer)
}

#[tokio::test(start_paused = true)]
async fn a_record_that_counts_what_is_not_stored_is_found_wherever_it_is_met() {
    let world = World::new();
    // The most recently updated session's record counts a node that was never stored.
    let (healthy, broken) = healthy_then_newer(&world, |record| {
        record.nodes = 3;
        record.head = 3;
    })
    .await;

    // After a restart: the current session is the newest that agrees with the store.
    let restarted = Registry::new(world.services.clone());
    assert_eq!(restarted.current_at_start().await.unwrap(), Some(healthy));
    assert!(restarted.damaged().get(&broken).is_some());

    // A session met before the background check is checked as it loads.
    let early = Registry::new(world.services.clone());
    let refused = early.actor(broken).await.err().expect("refused");
    assert!(
        matches!(&refused, SessionError::Damaged { reason, .. } if reason.contains("node 3 is not stored")),
        "{refused}"
    );
    assert!(early.actor(healthy).await.is_ok());

    // The background check finds it without anyone asking.
    let checked = Registry::new(world.services.clone());
    checked.check_all().await.unwrap();
    assert_eq!(checked.damaged().all().len(), 1);
    assert!(checked.damaged().get(&broken).is_some());
}

#[tokio::test(start_paused = true)]
async fn at_start_a_newest_record_that_cannot_be_read_is_marked_and_passed_over() {
    let world = World::new();
    let (healthy, unreadable) = healthy_then_newer(&world, |_| {}).await;
    // Newest by its activity entry, but its record no longer decodes.
    world
        .services
        .store
        .damage_record(&unreadable, &[99, 1, 2, 3]);

    let restarted = Registry::new(world.services.clone());
    assert_eq!(restarted.current_at_start().await.unwrap(), Some(healthy));
    let reason = restarted
        .damaged()
        .get(&unreadable)
        .expect("marked damaged");
    assert!(reason.contains("cannot be read"), "{reason}");
}
