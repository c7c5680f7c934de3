//! The session index and the order of writes: a session's shape is read without its
//! nodes, an index a store lacks is rebuilt, and what a crash cuts short before the
//! session's record is written stays invisible and is written over.

use super::links::PER_CHUNK;
use super::tests::{change_with_node, prompt};
use super::*;
use crate::model::Role;

/// A store with one linear session of `count` prompts, committed one by one.
async fn session_of(store: &SledStore, count: u64) -> SessionRecord {
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    for id in 1..=count {
        let node = prompt(id, "hello");
        let mv = change_with_node(&mut record, &node);
        let change = Change {
            session: &record,
            node: Some(&node),
            mv: Some(&mv),
            recorded: None,
            fence: None,
        };
        store.apply(&change).unwrap();
    }
    store.sync().await.unwrap();
    record
}

fn linear(count: u64) -> Vec<Link> {
    (1..=count)
        .map(|id| Link {
            parent: id - 1,
            role: Role::User,
        })
        .collect()
}

#[tokio::test]
async fn a_session_s_shape_is_read_from_its_index_across_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let count = PER_CHUNK * 2 + 3;
    let record = session_of(&store, count).await;
    assert_eq!(store.links(&record.id, count).unwrap(), linear(count));
    // Reading fewer than the index holds (a snapshot taken before a later change).
    assert_eq!(store.links(&record.id, 5).unwrap(), linear(5));
    let chunks = store
        .db
        .get()
        .unwrap()
        .links
        .scan_prefix(record.id.as_bytes())
        .count();
    assert_eq!(chunks, 3);
}

#[tokio::test]
async fn a_store_without_the_index_has_it_rebuilt_from_the_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let count = PER_CHUNK + 10;
    let record = session_of(&store, count).await;
    store.db.get().unwrap().links.clear().unwrap();
    assert_eq!(store.links(&record.id, count).unwrap(), linear(count));
    // Rebuilt, so the next node's entry goes where it belongs.
    let mut record = record;
    let node = prompt(count + 1, "one more");
    let mv = change_with_node(&mut record, &node);
    let change = Change {
        session: &record,
        node: Some(&node),
        mv: Some(&mv),
        recorded: None,
        fence: None,
    };
    store.commit(&change).await.unwrap();
    store.db.get().unwrap().nodes.clear().unwrap();
    assert_eq!(
        store.links(&record.id, count + 1).unwrap(),
        linear(count + 1)
    );
}

#[tokio::test]
async fn a_change_cut_short_before_its_record_is_invisible_and_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let record = session_of(&store, 3).await;
    // A node, its index entry and its move reached the store; the record did not (the
    // record written is the old one, as after a crash between the writes).
    let mut ahead = record.clone();
    let cut = NodeRecord {
        parent: 1,
        ..prompt(4, "never acknowledged")
    };
    let mv = change_with_node(&mut ahead, &cut);
    store
        .apply(&Change {
            session: &record,
            node: Some(&cut),
            mv: Some(&mv),
            recorded: None,
            fence: None,
        })
        .unwrap();
    assert_eq!(store.session(&record.id).unwrap(), Some(record.clone()));
    // Stored past the record's counts: what readers leave out (see `check_record`).
    assert_eq!(store.holds(&record.id, 4, 4).unwrap(), (true, true));
    assert_eq!(store.links(&record.id, 3).unwrap(), linear(3));

    // The next change writes node 4 over it, parent and all.
    let mut next = record.clone();
    let node = prompt(4, "acknowledged");
    let mv = change_with_node(&mut next, &node);
    store
        .commit(&Change {
            session: &next,
            node: Some(&node),
            mv: Some(&mv),
            recorded: None,
            fence: None,
        })
        .await
        .unwrap();
    assert_eq!(store.links(&next.id, 4).unwrap(), linear(4));
    assert_eq!(store.node(&next.id, 4).unwrap().text(), "acknowledged");
}

#[tokio::test]
async fn a_recorded_conversation_s_entries_come_with_its_change() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    // A new conversation is written whole, with its origin and each node's chain entry.
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let first = prompt(1, "hi");
    let first_move = change_with_node(&mut record, &first);
    let created = Import {
        session: &record,
        nodes: std::slice::from_ref(&first),
        moves: std::slice::from_ref(&first_move),
        origin: Some("proxy (test)"),
        hash: None,
        chains: &[([6u8; 32], 1)],
    };
    store.import(&created).await.unwrap();
    assert_eq!(store.origin(&record.id).as_deref(), Some("proxy (test)"));
    assert_eq!(store.chain(&[6u8; 32]).unwrap(), Some((record.id, 1)));
    assert_eq!(store.imported(&[6u8; 32]).unwrap(), None, "not an import");

    // A turn that continues it comes with its entry in the same change.
    let node = prompt(2, "hello");
    let mv = change_with_node(&mut record, &node);
    let hash = [7u8; 32];
    let turn = Change {
        session: &record,
        node: Some(&node),
        mv: Some(&mv),
        recorded: Some(Recorded::Chain(hash)),
        fence: None,
    };
    store.commit(&turn).await.unwrap();
    assert_eq!(store.chain(&hash).unwrap(), Some((record.id, 2)));

    // A chain entry names the change's node: a change without one is refused whole.
    let nothing = Change {
        session: &record,
        node: None,
        mv: None,
        recorded: Some(Recorded::Chain([8u8; 32])),
        fence: None,
    };
    assert!(store.commit(&nothing).await.is_err());
    assert_eq!(store.chain(&[8u8; 32]).unwrap(), None);
}
