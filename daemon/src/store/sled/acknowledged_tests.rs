//! The check on acknowledged commits never stops the daemon itself: its copy holds what
//! sled keeps apart (blobs), and a panic while comparing is a comparison not made.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use super::*;
use crate::store::sled::SledStore;

#[tokio::test]
async fn the_copy_holds_sleds_blobs_and_a_store_of_big_values_is_compared_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let store = SledStore::open(dir.path()).unwrap();
    for id in 1..=3u64 {
        crate::store::sled::tests::commit_prompt(&store, &mut record, &format!("node {id}")).await;
    }
    // A value over sled's blob threshold (nodes are kept apart before they get there, but
    // sled's files may hold blobs of any tree, or of a store written before).
    {
        let db = store.db.get().unwrap();
        db.db
            .insert(b"big-value", vec![7u8; 2 * 1024 * 1024])
            .unwrap();
        db.db.flush().unwrap();
    }
    store.close().unwrap();
    let blobs: Vec<_> = std::fs::read_dir(dir.path().join("blobs"))
        .unwrap()
        .collect();
    assert!(!blobs.is_empty(), "sled keeps the big values apart");

    let copy = copy_of(dir.path()).unwrap();
    for blob in blobs {
        let name = blob.unwrap().file_name();
        assert!(
            copy.0.join("blobs").join(&name).is_file(),
            "{name:?} in the copy"
        );
    }
    drop(copy);
    let counts = read(&dir.path().join(FILE)).unwrap().unwrap();
    assert_eq!(compare_on_copy(dir.path(), &counts), Ok(Vec::new()));
    assert!(
        !dir.path().join(".acknowledged-check").exists(),
        "the copy is removed"
    );
    check_before_opening(dir.path()).unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(store.node(&record.id, 3).unwrap().parts.len(), 1);
    assert_eq!(
        store
            .db
            .get()
            .unwrap()
            .db
            .get(b"big-value")
            .unwrap()
            .unwrap()
            .len(),
        2 * 1024 * 1024
    );
}

#[test]
fn a_panic_while_comparing_says_what_could_not_be_verified() {
    let said = unpanicked(|| panic!("tried to serialize Uninitialized"));
    assert_eq!(
        said,
        Err("sled failed reading the copy: tried to serialize Uninitialized".into())
    );
    assert_eq!(
        unpanicked(|| Ok(vec!["gone".into()])),
        Ok(vec!["gone".into()])
    );
}
