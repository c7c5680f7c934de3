//! The index against a real store in a temporary directory: it follows durable commits,
//! indexes a session written at once, and forgets a session for good (its documents merged
//! away). Catching up at a start is tested end to end (`tests/tests/search.rs`).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::sync::Arc;

use uuid::Uuid;

use super::*;
use crate::model::{MoveKind, MoveRecord, NodeRecord, Part, Role, SessionRecord};
use crate::store::{Applied, Change};

/// Appends one node (and the move to it) to `record`'s session, durably or not.
async fn turn(store: &Store, record: &mut SessionRecord, text: &str, durable: bool) {
    let id = record.nodes + 1;
    record.nodes = id;
    record.moves = id;
    record.head = id;
    let node = NodeRecord {
        id,
        parent: id - 1,
        role: if id % 2 == 1 { Role::User } else { Role::Model },
        parts: vec![Part::text(text)],
        created_at_ms: 1_000 * id,
        model: None,
    };
    let mv = MoveRecord {
        seq: id,
        kind: MoveKind::Prompt,
        from: id - 1,
        to: id,
        at_ms: 1,
        prev_redoable: None,
        redoes: None,
    };
    let change = Change {
        session: record,
        node: Some(&node),
        mv: Some(&mv),
        recorded: None,
        fence: None,
    };
    if durable {
        store.commit(&change).await.unwrap();
    } else {
        store.apply(&change).await.unwrap();
    }
}

fn query(text: &str) -> Query {
    Query {
        text: text.into(),
        session: None,
        role: None,
        since_ms: None,
        limit: 10,
    }
}

fn nodes_found(search: &SearchIndex, text: &str) -> Vec<u64> {
    let hits = search.search(&query(text), |_| true).unwrap();
    hits.iter().map(|h| h.node).collect()
}

#[tokio::test]
async fn durable_commits_are_found_with_snippets_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    turn(&store, &mut record, "the aardvark digs", true).await;
    turn(&store, &mut record, "an aardvark answer", true).await;
    // Applied, then made durable by a later sync: the index hears of it then.
    turn(&store, &mut record, "aardvark pending", false).await;
    store.sync().await.unwrap();
    search.flush().unwrap();
    let mut found = nodes_found(&search, "aardvark");
    found.sort();
    assert_eq!(found, [1, 2, 3]);
    assert_eq!(nodes_found(&search, "pending"), [3]);
    let hit = &search.search(&query("digs"), |_| true).unwrap()[0];
    assert_eq!(&hit.snippet[hit.highlights[0].clone()], "digs");
    assert_eq!((hit.role.as_str(), hit.created_at_ms), ("user", 1_000));

    // Filters: role, time, session.
    let mut only = query("aardvark");
    only.role = Some("model".into());
    assert_eq!(search.search(&only, |_| true).unwrap().len(), 1);
    only.role = None;
    only.since_ms = Some(2_500);
    assert_eq!(search.search(&only, |_| true).unwrap()[0].node, 3);
    only.since_ms = None;
    only.session = Some(Uuid::new_v4());
    assert!(search.search(&only, |_| true).unwrap().is_empty());
    assert!(
        search
            .search(&query("aardvark"), |_| false)
            .unwrap()
            .is_empty(),
        "a session the caller does not keep is left out"
    );
}

/// What the indexer hears when `nodes` of `session` became durable: handed over as the
/// store's observer hands them.
fn heard(search: &SearchIndex, session: Uuid, nodes: Vec<NodeRecord>) {
    super::hand_over(
        &search.shared.handed,
        &search.jobs,
        vec![Applied { session, nodes }],
    );
}

/// A node as a commit hands it over: `text`, numbered `id`.
fn handed(id: u64, text: &str) -> NodeRecord {
    NodeRecord {
        id,
        parent: id - 1,
        role: Role::User,
        parts: vec![Part::text(text)],
        created_at_ms: 1,
        model: None,
    }
}

#[tokio::test]
async fn nodes_handed_over_are_indexed_when_they_follow_and_read_from_the_store_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let id = record.id;
    turn(&store, &mut record, "alpha", true).await;
    search.flush().unwrap();

    // Nodes 2 and 3 are in the store; only 3 is heard of (out of order): the gap is read
    // from the store, not from what was handed over.
    turn(&store, &mut record, "beta", false).await;
    turn(&store, &mut record, "gamma", false).await;
    heard(&search, id, vec![handed(3, "gammahanded")]);
    search.flush().unwrap();
    assert_eq!(nodes_found(&search, "beta"), [2]);
    assert_eq!(nodes_found(&search, "gamma"), [3]);
    assert!(nodes_found(&search, "gammahanded").is_empty());

    // Node 4 follows what is indexed: it is indexed as handed over, the store not read.
    turn(&store, &mut record, "deltastored", false).await;
    heard(&search, id, vec![handed(4, "deltahanded")]);
    search.flush().unwrap();
    assert_eq!(nodes_found(&search, "deltahanded"), [4]);
    assert!(nodes_found(&search, "deltastored").is_empty());
    // Heard again (two syncs carried it): nothing is indexed twice.
    heard(&search, id, vec![handed(4, "deltahanded")]);
    search.flush().unwrap();
    assert_eq!(nodes_found(&search, "deltahanded"), [4]);

    // Purged, then a late word of a node: the store no longer has the session, so
    // nothing of it comes back.
    store.purge(&id).await.unwrap();
    search.forget_session(id).unwrap();
    heard(&search, id, vec![handed(5, "epsilon")]);
    search.flush().unwrap();
    assert!(nodes_found(&search, "epsilon").is_empty());
    assert!(nodes_found(&search, "alpha").is_empty());
    // The same for a session purged before the word of its first node came.
    let mut short = SessionRecord::new(Uuid::new_v4(), 1);
    turn(&store, &mut short, "zeta", false).await;
    store.purge(&short.id).await.unwrap();
    search.forget_session(short.id).unwrap();
    heard(&search, short.id, vec![handed(1, "zeta")]);
    search.flush().unwrap();
    assert!(nodes_found(&search, "zeta").is_empty());
}

#[tokio::test]
async fn forgetting_a_session_merges_its_documents_away() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    let mut kept = SessionRecord::new(Uuid::new_v4(), 1);
    let mut gone = SessionRecord::new(Uuid::new_v4(), 1);
    for n in 0..3 {
        turn(&store, &mut kept, &format!("kept pangolin {n}"), true).await;
        search.flush().unwrap(); // a segment per flush
        turn(&store, &mut gone, &format!("gone pangolin {n}"), true).await;
        search.flush().unwrap();
    }
    assert_eq!(nodes_found(&search, "gone").len(), 3);
    search.forget_session(gone.id).unwrap();
    assert!(nodes_found(&search, "gone").is_empty());
    assert_eq!(nodes_found(&search, "kept").len(), 3);
    let open = search.shared.opening.wait().unwrap();
    let searcher = open.reader.searcher();
    let term = tantivy::Term::from_field_text(open.fields.text, "gone");
    assert_eq!(
        searcher.doc_freq(&term).unwrap(),
        0,
        "no segment holds the word"
    );
    for segment in searcher.segment_readers() {
        assert_eq!(
            segment.num_deleted_docs(),
            0,
            "deleted documents merged away"
        );
    }

    // A session written at once is indexed whole on request.
    search.index_session(gone.id).unwrap();
    assert_eq!(nodes_found(&search, "gone").len(), 3);
}

#[test]
fn the_trash_is_never_searched_and_the_archive_only_when_asked() {
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    assert!(searchable(&record, false));
    record.archived_at_ms = Some(5);
    assert!(!searchable(&record, false));
    assert!(searchable(&record, true));
    record.deleted_at_ms = Some(6);
    assert!(!searchable(&record, true));
}

/// Queries at the bounds, and past them, on a thread with a quarter of a tokio worker's
/// stack: what is let through parses and runs with room to spare, the rest is refused.
#[tokio::test]
async fn hostile_queries_are_refused_or_run_on_a_small_stack() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    turn(&store, &mut record, "a word to find", true).await;
    search.flush().unwrap();
    let deepest = MAX_QUERY_NESTING;
    let at_the_bounds = [
        format!("{}word{}", "(".repeat(deepest), ")".repeat(deepest)),
        format!("{}word", "-(".repeat(deepest)),
        format!("{}word", "+(".repeat(deepest)),
        "word OR "
            .repeat(MAX_QUERY_CHARS / 8)
            .trim_end_matches(" OR ")
            .to_string(),
        "word AND -".repeat(MAX_QUERY_CHARS / 10),
        "-".repeat(MAX_QUERY_CHARS),
        "\"".repeat(MAX_QUERY_CHARS),
        "(a ".repeat(deepest) + &"b) ".repeat(MAX_QUERY_CHARS / 3 - deepest),
    ];
    let past_them = [
        format!("{}x{}", "(".repeat(1_000), ")".repeat(1_000)),
        "-(".repeat(3_000),
        format!("{}word", "(".repeat(deepest + 1)),
        "w".repeat(MAX_QUERY_CHARS + 1),
    ];
    let search = Arc::new(search);
    let on_small_stack = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            for text in &at_the_bounds {
                assert!(text.chars().count() <= MAX_QUERY_CHARS, "{text}");
                if let Err(error) = search.search(&query(text), |_| true) {
                    panic!("{text:.40}… refused: {error}");
                }
            }
            past_them.map(|text| match search.search(&query(&text), |_| true) {
                Err(SearchError::Refused(why)) => why.to_string(),
                other => panic!("{text:.40}… not refused: {other:?}"),
            })
        })
        .unwrap();
    let refusals = on_small_stack.join().unwrap();
    assert!(refusals[0].contains("at most 1000"), "{refusals:?}");
    assert!(refusals[2].contains("at most 8"), "{refusals:?}");
}

/// A marker's count is read back from its fast field, for the session it names only.
#[test]
fn a_markers_count_is_read_back_for_its_session_only() {
    let (schema, fields) = schema::Fields::schema();
    let index = tantivy::Index::create_in_ram(schema);
    let mut writer: tantivy::IndexWriter = index.writer(15_000_000).unwrap();
    let (one, two) = (Uuid::new_v4(), Uuid::new_v4());
    let node = NodeRecord {
        id: 1,
        parent: 0,
        role: Role::User,
        parts: vec![Part::text("a node before the markers")],
        created_at_ms: 1,
        model: None,
    };
    writer
        .add_document(fields.node_document(&one, &node))
        .unwrap();
    writer
        .add_document(fields.marker_document(&one, 7))
        .unwrap();
    writer
        .add_document(fields.marker_document(&two, 3))
        .unwrap();
    writer.commit().unwrap();
    let searcher = index.reader().unwrap().searcher();
    assert_eq!(fields.marker_count(&searcher, &one).unwrap(), Some(7));
    assert_eq!(fields.marker_count(&searcher, &two).unwrap(), Some(3));
    let unknown = Uuid::new_v4();
    assert_eq!(fields.marker_count(&searcher, &unknown).unwrap(), None);
}

/// An index of the layout before (version 1, a marker's count stored only) is made anew,
/// to be rebuilt from the store, rather than read with the wrong layout.
#[test]
fn an_index_of_the_last_layout_is_made_anew() {
    let dir = tempfile::tempdir().unwrap();
    let index_dir = dir.path().join("search");
    std::fs::create_dir(&index_dir).unwrap();
    let mut old = tantivy::schema::Schema::builder();
    old.add_text_field("marker", tantivy::schema::STRING);
    old.add_u64_field("indexed", tantivy::schema::STORED);
    tantivy::Index::create_in_dir(&index_dir, old.build()).unwrap();
    std::fs::write(index_dir.join("version"), "1\n").unwrap();
    let opened = open::open_or_rebuild(&index_dir).unwrap();
    assert_eq!(opened.index.schema(), schema::Fields::schema().0);
    let version = std::fs::read_to_string(index_dir.join("version")).unwrap();
    assert_eq!(version.trim(), INDEX_VERSION.to_string());
}

/// The index opens on the indexer's thread, not in the start: an index that cannot be
/// opened (its folder is a file) still lets the daemon start; a search is told why, and a
/// stop has nothing to commit.
#[tokio::test]
async fn an_index_that_cannot_be_opened_refuses_searches_and_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    std::fs::write(index_dir(dir.path()), "not a folder").unwrap();
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    match search.search(&query("anything"), |_| true) {
        Err(SearchError::Unavailable(why)) => assert!(!why.is_empty()),
        other => panic!("a search of an index that cannot open: {other:?}"),
    }
    assert!(!search.complete());
    search.stop().unwrap();
}

/// Once a stop is answered, nothing the index started holds the store: the daemon closes
/// the store right after, and a store still held then never writes what it acknowledged
/// (the next start would find a store that lost acknowledged commits). It catches a hold
/// that lasts (a cycle); the thread letting go a moment late is a race it may not see.
#[tokio::test]
async fn a_stopped_indexer_holds_the_store_no_longer() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    search.flush().unwrap();
    search.stop().unwrap();
    assert_eq!(
        Arc::strong_count(&store),
        2,
        "held by this test and by the handle alone"
    );
}
