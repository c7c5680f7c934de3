use omni_proto::{Part, Role};

use super::*;
use crate::session::record::MoveKind;

fn prompt(id: u64, text: &str) -> NodeRecord {
    NodeRecord {
        id,
        parent: id - 1,
        role: Role::User,
        parts: vec![Part::text(text)],
        created_at_ms: 1,
        model: None,
    }
}

fn change_with_node(record: &mut SessionRecord, node: &NodeRecord) -> MoveRecord {
    record.nodes = node.id;
    record.moves += 1;
    record.head = node.id;
    MoveRecord {
        seq: record.moves,
        kind: MoveKind::Prompt,
        from: node.parent,
        to: node.id,
        at_ms: 1,
        prev_redoable: None,
        redoes: None,
    }
}

#[tokio::test]
async fn a_committed_change_is_there_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    // Big enough to be stored as a sled blob, which takes its own sync path.
    let big = "x".repeat(300 * 1024);
    let nodes = [prompt(1, "hello"), prompt(2, &big)];
    {
        let store = Store::open(dir.path()).unwrap();
        for node in &nodes {
            let mv = change_with_node(&mut record, node);
            let change = Change {
                session: &record,
                node: Some(node),
                mv: Some(&mv),
            };
            store.commit(&change).await.unwrap();
        }
        assert!(store.sync_runs() >= 2);
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.session(&record.id).unwrap(), Some(record.clone()));
    assert_eq!(store.sessions().unwrap(), vec![record.clone()]);
    assert_eq!(store.nodes(&record.id).unwrap(), nodes.to_vec());
    assert_eq!(store.node(&record.id, 2).unwrap().text(), big);
    let mv = store.move_record(&record.id, 2).unwrap().unwrap();
    assert_eq!((mv.from, mv.to), (1, 2));
    assert!(store.move_record(&record.id, 3).unwrap().is_none());
    assert!(matches!(
        store.node(&record.id, 3),
        Err(StoreError::Corrupt(_))
    ));
}

#[tokio::test]
async fn a_second_open_of_the_same_directory_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let _first = Store::open(dir.path()).unwrap();
    match Store::open(dir.path()) {
        Err(StoreError::Locked(path)) => assert_eq!(path, dir.path()),
        Err(other) => panic!("expected Locked, got {other}"),
        Ok(_) => panic!("a second open must fail"),
    }
}

#[tokio::test]
async fn sessions_do_not_see_each_others_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut a = SessionRecord::new(Uuid::new_v4(), 1);
    let mut b = SessionRecord::new(Uuid::new_v4(), 1);
    for (record, text) in [(&mut a, "in a"), (&mut b, "in b")] {
        let node = prompt(1, text);
        let mv = change_with_node(record, &node);
        let change = Change {
            session: record,
            node: Some(&node),
            mv: Some(&mv),
        };
        store.commit(&change).await.unwrap();
    }
    assert_eq!(store.nodes(&a.id).unwrap()[0].text(), "in a");
    assert_eq!(store.nodes(&b.id).unwrap()[0].text(), "in b");
    assert_eq!(store.session_count(), 2);
}

#[test]
fn format_1_and_2_session_records_are_migrated_when_read() {
    use super::legacy::{SessionRecordV1, SessionRecordV2};
    let id = Uuid::new_v4();
    let v1 = SessionRecordV1 {
        id,
        title: "old".into(),
        created_at_ms: 5,
        updated_at_ms: 6,
        head: 2,
        nodes: 2,
        moves: 2,
        redo_top: Some(1),
    };
    let record = decode_session(&codec::encode(&v1, 1).unwrap()).unwrap();
    assert_eq!(
        (
            record.id,
            record.title.as_str(),
            record.head,
            record.redo_top
        ),
        (id, "old", 2, Some(1))
    );
    assert_eq!((record.consecutive_failures, record.suspended), (0, None));

    let suspension = crate::session::record::Suspension {
        at_ms: 9,
        last_error: "boom".into(),
    };
    let v2 = SessionRecordV2 {
        v1: SessionRecordV1 {
            title: "two".into(),
            ..v1.clone()
        },
        consecutive_failures: 3,
        suspended: Some(suspension.clone()),
    };
    let record = decode_session(&codec::encode(&v2, 2).unwrap()).unwrap();
    assert_eq!(
        (record.title.as_str(), record.consecutive_failures),
        ("two", 3)
    );
    assert_eq!(record.suspended, Some(suspension));
    assert_eq!(
        (
            record.tools_json,
            record.needs_recovery,
            record.tool_results
        ),
        (None, None, None)
    );

    let future = codec::encode(&v1, 9).unwrap();
    assert!(matches!(
        decode_session(&future),
        Err(StoreError::UnknownFormat {
            version: 9,
            current: 3,
            ..
        })
    ));
}
