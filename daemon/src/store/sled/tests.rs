use crate::model::{Part, Role};

use super::formats::decode_session;
use super::*;
use crate::model::MoveKind;

pub(super) fn prompt(id: u64, text: &str) -> NodeRecord {
    NodeRecord {
        id,
        parent: id - 1,
        role: Role::User,
        parts: vec![Part::text(text)],
        created_at_ms: 1,
        model: None,
    }
}

/// Waits until no sled instance of this process holds the directory's lock any more (sled
/// lets go a moment after its last handle drops).
fn released(dir: &std::path::Path) {
    open::wait_unlocked(dir, open::LOCK_PATIENCE).unwrap();
}

pub(super) fn change_with_node(record: &mut SessionRecord, node: &NodeRecord) -> MoveRecord {
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

/// Commits a prompt of `text` as the session's next node (and the move to it).
pub(super) async fn commit_prompt(store: &SledStore, record: &mut SessionRecord, text: &str) {
    let node = prompt(record.nodes + 1, text);
    let mv = change_with_node(record, &node);
    let change = Change {
        session: record,
        node: Some(&node),
        mv: Some(&mv),
        recorded: None,
        fence: None,
    };
    store.commit(&change).await.unwrap();
}

#[tokio::test]
async fn a_committed_change_is_there_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    // Big enough to be stored as a sled blob, which takes its own sync path.
    let big = "x".repeat(300 * 1024);
    let nodes = [prompt(1, "hello"), prompt(2, &big)];
    {
        let store = SledStore::open(dir.path()).unwrap();
        for node in &nodes {
            let mv = change_with_node(&mut record, node);
            let change = Change {
                session: &record,
                node: Some(node),
                mv: Some(&mv),
                recorded: None,
                fence: None,
            };
            store.commit(&change).await.unwrap();
        }
        assert!(store.sync_runs() >= 2);
        store.close().unwrap();
    }
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(store.session(&record.id).unwrap(), Some(record.clone()));
    let all = store.sessions().unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].record.as_ref().unwrap(), &record);
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
    let _first = SledStore::open(dir.path()).unwrap();
    match SledStore::open(dir.path()) {
        Err(StoreError::Locked(path)) => assert_eq!(path, dir.path()),
        Err(other) => panic!("expected Locked, got {other}"),
        Ok(_) => panic!("a second open must fail"),
    }
}

#[tokio::test]
async fn sessions_do_not_see_each_others_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let mut a = SessionRecord::new(Uuid::new_v4(), 1);
    let mut b = SessionRecord::new(Uuid::new_v4(), 1);
    for (record, text) in [(&mut a, "in a"), (&mut b, "in b")] {
        commit_prompt(&store, record, text).await;
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

    let suspension = crate::model::Suspension {
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
            current: 5,
            ..
        })
    ));
}

fn expect_not_omni(dir: &std::path::Path) -> String {
    match SledStore::open(dir) {
        Err(error @ StoreError::NotOmni { .. }) => error.to_string(),
        Err(other) => panic!("expected NotOmni, got {other}"),
        Ok(_) => panic!("a store that is not an Omni store must not open"),
    }
}

#[test]
fn a_json_or_random_db_is_refused_and_left_as_it_was() {
    for junk in [b"{\"sessions\": []}\n".to_vec(), vec![0xa5; 100_000]] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("db"), &junk).unwrap();
        let message = expect_not_omni(dir.path());
        assert!(message.contains("is not an Omni store"), "{message}");
        assert!(message.contains("Nothing in it was changed"), "{message}");
        assert!(
            std::fs::read(dir.path().join("db")).unwrap() == junk,
            "db changed"
        );

        // The same junk beside sled's own `conf`: sled cannot read it.
        let with_conf = tempfile::tempdir().unwrap();
        SledStore::open(with_conf.path()).unwrap().close().unwrap();
        std::fs::write(with_conf.path().join("db"), &junk).unwrap();
        expect_not_omni(with_conf.path());
        assert!(
            std::fs::read(with_conf.path().join("db")).unwrap() == junk,
            "db changed"
        );
    }
}

#[test]
fn a_sled_database_of_another_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let other = sled::open(dir.path()).unwrap();
        other.insert(b"their", b"data").unwrap();
        other.flush().unwrap();
    }
    released(dir.path());
    let message = expect_not_omni(dir.path());
    assert!(message.contains("without Omni's store marker"), "{message}");
    released(dir.path());
    let other = sled::open(dir.path()).unwrap();
    assert_eq!(other.get(b"their").unwrap().as_deref(), Some(&b"data"[..]));
    assert!(
        other.get(b"omni-store").unwrap().is_none(),
        "nothing written"
    );
}

#[tokio::test]
async fn a_store_from_before_markers_is_recognised_and_marked() {
    let dir = tempfile::tempdir().unwrap();
    let record = SessionRecord::new(Uuid::new_v4(), 1);
    {
        // What an older omnid left: its three trees, no marker.
        let old = sled::open(dir.path()).unwrap();
        let sessions = old.open_tree("sessions").unwrap();
        sessions
            .insert(
                record.id.as_bytes(),
                codec::encode(&record, SESSION_FORMAT).unwrap(),
            )
            .unwrap();
        old.open_tree("nodes").unwrap();
        old.open_tree("moves").unwrap();
        old.flush().unwrap();
    }
    released(dir.path());
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(store.session(&record.id).unwrap(), Some(record));
    store.close().unwrap();
    let marked = sled::open(dir.path()).unwrap();
    let marker = marked.get(b"omni-store").unwrap().unwrap();
    assert!(String::from_utf8_lossy(&marker).contains("\"format\":1"));
}

#[test]
fn a_marker_that_cannot_be_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    SledStore::open(dir.path()).unwrap().close().unwrap();
    {
        let db = sled::open(dir.path()).unwrap();
        db.insert(b"omni-store", &b"\x00not json"[..]).unwrap();
        db.flush().unwrap();
    }
    released(dir.path());
    let message = expect_not_omni(dir.path());
    assert!(
        message.contains("its store marker cannot be read"),
        "{message}"
    );
}

#[test]
fn a_store_of_a_newer_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    SledStore::open(dir.path()).unwrap().close().unwrap();
    {
        let db = sled::open(dir.path()).unwrap();
        db.insert(
            b"omni-store",
            &br#"{"store":"omni","format":99,"created_by":"omnid 9.0.0"}"#[..],
        )
        .unwrap();
        db.flush().unwrap();
    }
    released(dir.path());
    let message = match SledStore::open(dir.path()) {
        Err(error) => error.to_string(),
        Ok(_) => panic!("a newer format must not open"),
    };
    assert!(
        message.contains("store format 99 by omnid 9.0.0"),
        "{message}"
    );
    assert!(message.contains("upgrade omnid"), "{message}");
}

#[test]
fn the_data_directory_and_its_files_are_private_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    SledStore::open(&dir).unwrap().close().unwrap();
    // As an older omnid under umask 022 would have left them.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let mode = if path.is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    SledStore::open(&dir).unwrap().close().unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    for name in ["db", "conf"] {
        assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
    }
    assert_eq!(mode(&dir.join("blobs")), 0o700);
}

#[tokio::test]
async fn a_failed_write_retires_the_database_and_the_next_use_opens_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    commit_prompt(&store, &mut record, "kept").await;

    // What sled's failed flush on a full disk leads to.
    let failed = store.db.get().unwrap();
    let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
    let error = store.failed(&failed, StoreError::Sync(full));
    assert!(error.is_disk_full());
    assert!(
        store
            .health()
            .is_some_and(|f| f.reason.contains("could not flush"))
    );
    // While the failed opening is still in use, nothing opens the directory twice.
    assert!(matches!(
        store.session(&record.id),
        Err(StoreError::Unavailable(_))
    ));
    drop(failed);

    // The next use opens it again: reads and writes work, and the store is healthy.
    assert_eq!(store.session(&record.id).unwrap(), Some(record.clone()));
    record.title = "after".into();
    let change = Change::record_only(&record);
    store.commit(&change).await.unwrap();
    assert!(store.health().is_none());
    assert!(store.sync_runs() >= 2);
}

#[tokio::test]
async fn only_a_record_from_before_usage_totals_is_counted_from_its_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let old = uuid::Uuid::new_v4();
    let v4_bytes =
        crate::store::encoding::golden::unhex(include_str!("../encoding/golden/session-v4.hex"));
    store
        .db
        .get()
        .unwrap()
        .sessions
        .insert(old.as_bytes(), v4_bytes)
        .unwrap();
    assert!(store.session_predates_usage(&old).unwrap());

    let new = SessionRecord::new(uuid::Uuid::new_v4(), 1);
    let change = Change::record_only(&new);
    store.commit(&change).await.unwrap();
    assert!(!store.session_predates_usage(&new.id).unwrap());
    assert!(!store.session_predates_usage(&uuid::Uuid::new_v4()).unwrap());
}
