//! Big nodes live in files of their own: the nodes tree holds only small values, a big node
//! reads back whole after a reopen, damage to its file is named, and purge removes it.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use super::tests::commit_prompt as commit_node;
use super::*;

#[tokio::test]
async fn a_big_node_is_kept_apart_read_back_whole_and_purged_with_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let big = "b".repeat(3 * 1024 * 1024);
    {
        let store = SledStore::open(dir.path()).unwrap();
        commit_node(&store, &mut record, "small").await;
        commit_node(&store, &mut record, &big).await;
        commit_node(&store, &mut record, "small again").await;
        let db = store.db.get().unwrap();
        let largest = db.nodes.iter().values().map(|v| v.unwrap().len()).max();
        assert!(largest.unwrap() <= apart::APART_OVER, "{largest:?}");
        drop(db);
        store.close().unwrap();
    }
    let file = apart::dir_of(dir.path(), &record.id).join("2");
    assert!(file.metadata().unwrap().len() > 3 * 1024 * 1024);
    let store = SledStore::open(dir.path()).unwrap();
    let read = store.node(&record.id, 2).unwrap();
    assert_eq!(read.parts, vec![crate::model::Part::text(big.clone())]);
    assert_eq!(store.nodes(&record.id).unwrap().len(), 3);

    // A file that is not what was stored is named, not read as the node.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let error = store.node(&record.id, 2).unwrap_err().to_string();
    assert!(error.contains("is not what was stored"), "{error}");
    let (readable, problems) = store.readable_nodes(&record.id).unwrap();
    assert_eq!((readable.len(), problems.len()), (2, 1));

    store.purge(&record.id).await.unwrap();
    assert!(!apart::dir_of(dir.path(), &record.id).exists());
}
