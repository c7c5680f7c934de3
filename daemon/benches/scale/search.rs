//! What full-text search costs and gives: a search over 1,000,000 nodes, and a committed
//! turn with the index following the store against one without it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use omnid::model::SessionRecord;
use omnid::search::{Query, SearchIndex};
use omnid::store::Store;
use uuid::Uuid;

use crate::common::seed::{self, SHORT, commit_one};
use crate::common::{ratio, report, show, stats, time_n};
use crate::figure;

/// The words searched for: common ones (in most nodes), two together, a phrase, and rare
/// ones (a turn's own number).
const QUERIES: [&str; 8] = [
    "session",
    "model keeps",
    "\"every turn\"",
    "disk OR again",
    "777",
    "999",
    "replying before",
    "turn 500",
];

/// 1,000 sessions of 1,000 short turns written through the store, indexed by the daemon's
/// own indexer (as a start with no index does), then each query asked `rounds` times:
/// the median time to the top 20 hits with their snippets.
pub async fn search_1m(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let started = Instant::now();
    for _ in 0..1000 {
        seed::session(&store, 1000, SHORT);
    }
    store.sync().await.unwrap();
    println!(
        "seeded 1,000,000 nodes in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let search = SearchIndex::start(dir.path(), store.clone()).unwrap();
    while !search.complete() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!("indexed them in {:.1} s", started.elapsed().as_secs_f64());
    let mut samples = Vec::new();
    for _ in 0..rounds {
        for words in QUERIES {
            let query = Query {
                text: words.into(),
                session: None,
                role: None,
                since_ms: None,
                limit: 20,
            };
            let asked = Instant::now();
            let hits = search.search(&query, |_| true).unwrap();
            samples.push(asked.elapsed());
            assert!(!hits.is_empty(), "{words}");
        }
    }
    let found = stats(samples);
    println!(
        "search over 1,000,000 nodes: p50 {} p99 {}",
        show(found.p50),
        show(found.p99)
    );
    figure("search_p50_ms_1m", found.p50.as_secs_f64() * 1000.0);
}

/// A committed turn with the search index following the store vs without, alternating in
/// blocks (two stores in the same file system) so drifting disk latency hits both alike.
pub async fn commit_with_index(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let plain = Store::open(&dir.path().join("plain")).unwrap();
    let indexed_dir = dir.path().join("indexed");
    let indexed = Arc::new(Store::open(&indexed_dir).unwrap());
    let search = SearchIndex::start(&indexed_dir, indexed.clone()).unwrap();
    let mut plain_record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut indexed_record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut commit_plain = async || commit_one(&plain, &mut plain_record).await;
    let mut commit_indexed = async || commit_one(&indexed, &mut indexed_record).await;
    time_n(rounds / 10, &mut commit_plain).await;
    time_n(rounds / 10, &mut commit_indexed).await;
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        off.extend(time_n(rounds / 10, &mut commit_plain).await);
        on.extend(time_n(rounds / 10, &mut commit_indexed).await);
    }
    search.flush().unwrap();
    assert!(search.commits() > 0, "the index followed the commits");
    let (off, on) = (stats(off), stats(on));
    report("committed turn", "search off", &off, "search on", &on);
    figure("commit_ratio_search", ratio(&on, &off));
}
