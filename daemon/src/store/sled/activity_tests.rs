//! The index by last activity: kept with every change, built for a store that lacks it,
//! and cleared of the stale entries a crash leaves.

use super::*;

async fn put(store: &SledStore, id: Uuid, updated_at_ms: u64) {
    let mut record = SessionRecord::new(id, 1);
    record.updated_at_ms = updated_at_ms;
    let change = Change::record_only(&record);
    store.commit(&change).await.unwrap();
}

fn order(store: &SledStore, before: Option<(u64, Uuid)>) -> Vec<(u64, Uuid)> {
    store
        .by_activity(before)
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[tokio::test]
async fn sessions_come_newest_first_and_a_change_moves_its_entry() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    put(&store, a, 10).await;
    put(&store, b, 30).await;
    put(&store, c, 20).await;
    assert_eq!(order(&store, None), vec![(30, b), (20, c), (10, a)]);
    put(&store, a, 40).await;
    assert_eq!(order(&store, None), vec![(40, a), (30, b), (20, c)]);
    assert_eq!(order(&store, Some((30, Uuid::nil()))), vec![(20, c)]);
}

#[tokio::test]
async fn sessions_of_one_millisecond_are_paged_by_id_and_none_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let mut ids: Vec<Uuid> = (0..5).map(|_| Uuid::new_v4()).collect();
    for id in &ids {
        put(&store, *id, 7).await;
    }
    ids.sort_unstable_by(|a, b| b.cmp(a));
    let all = order(&store, None);
    assert_eq!(all, ids.iter().map(|id| (7, *id)).collect::<Vec<_>>());
    // After the second entry: exactly the three that follow it.
    let rest = order(&store, Some((7, ids[1])));
    assert_eq!(rest, all[2..].to_vec());
}

#[tokio::test]
async fn a_store_without_the_index_gets_it_and_stale_entries_go_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    put(&store, a, 10).await;
    put(&store, b, 20).await;
    {
        let db = store.db.get().unwrap();
        // As a store written before the index existed: no entries, no mark.
        db.activity.clear().unwrap();
        db.db.remove(b"activity-index-built").unwrap();
    }
    store.close().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(order(&store, None), vec![(20, b), (10, a)]);
    {
        // What a crash between a record's new entry and the old one's removal leaves.
        let db = store.db.get().unwrap();
        db.activity
            .insert(activity::key(5, &a), sled::IVec::default())
            .unwrap();
    }
    assert_eq!(order(&store, None).len(), 3, "readers see it (and skip it)");
    store.close().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(order(&store, None), vec![(20, b), (10, a)]);
}

#[tokio::test]
async fn after_a_clean_shutdown_the_start_skips_the_pass_and_a_later_unclean_one_cleans() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path()).unwrap();
    let a = Uuid::new_v4();
    put(&store, a, 10).await;
    {
        // A stale entry, as a crash would leave it; then the store is stamped clean.
        let db = store.db.get().unwrap();
        db.activity
            .insert(activity::key(5, &a), sled::IVec::default())
            .unwrap();
    }
    store.sync().await.unwrap();
    store.mark_closed_cleanly();
    store.close().unwrap();
    // A clean shutdown left it: the start looks up no record (the entry stays; readers
    // skip it by the record's time).
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(
        order(&store, None).len(),
        2,
        "not looked for after a clean stop"
    );
    store.close().unwrap();
    // Not stamped this time: the next start makes the pass.
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(order(&store, None), vec![(10, a)]);
}
