//! `sessions` at any size: the first page of the listing (10 sessions) with 100,000
//! sessions in the store ÷ the same with 10. Timed once the daemon has indexed the store,
//! as every start after a store's first finds it (`sessions_ratio_100k`), and apart, while
//! the first start's search catch-up indexes all 100,000 sessions on the same two cores
//! (`sessions_ratio_100k_catching_up`).

use std::time::Instant;

use omni_proto::{Reply, SessionQuery};
use omnid::model::{Role, SessionRecord};
use omnid::store::{Change, Store};
use uuid::Uuid;

use crate::common::seed::next_turn;
use crate::common::{Daemon, report, stats};
use crate::figure;

/// A store of `count` one-prompt sessions, each last active a millisecond after the one
/// before (as sessions made over time are).
async fn store_of(count: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).unwrap();
    for at in 1..=count {
        let mut record = SessionRecord::new(Uuid::new_v4(), at);
        let (node, mv) = next_turn(&mut record, Role::User, format!("session number {at}"));
        record.title = format!("session number {at}");
        let change = Change {
            session: &record,
            node: Some(&node),
            mv: Some(&mv),
            recorded: None,
            fence: None,
        };
        store.apply(&change).await.unwrap();
    }
    store.sync().await.unwrap();
    store.close().unwrap();
    dir
}

/// When a daemon's listings are timed: at once after its first start on a store never
/// indexed, or once its index has caught up.
#[derive(Clone, Copy, PartialEq)]
enum When {
    CatchingUp,
    Indexed,
}

/// Times `rounds` listings of the first page of 10 sessions (all of the small store) on
/// a daemon over `dir`: the same work asked of both stores.
async fn pages(dir: &tempfile::TempDir, rounds: usize, when: When) -> crate::common::Stats {
    let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
    if when == When::Indexed {
        daemon.indexed().await;
    }
    let mut client = daemon.client().await;
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let asked = Instant::now();
        let query = SessionQuery {
            limit: Some(10),
            ..SessionQuery::default()
        };
        match client.call(query.into(), |_| {}).await {
            Ok(Reply::Sessions(page)) => assert!(!page.sessions.is_empty()),
            other => panic!("a page of sessions, not {other:?}"),
        }
        samples.push(asked.elapsed());
    }
    daemon.stop();
    stats(samples)
}

/// `sessions_ratio_100k`: the first page at 100,000 sessions ÷ at 10, once indexed; and
/// `sessions_ratio_100k_catching_up`, the same during the first start's catch-up.
pub async fn sessions_at_any_size(rounds: usize) {
    let small = store_of(10).await;
    let built = Instant::now();
    let big = store_of(100_000).await;
    println!(
        "{:<28} built 100,000 sessions in {:.1} s",
        "store",
        built.elapsed().as_secs_f64()
    );
    let (early_few, early_many) = (
        pages(&small, rounds, When::CatchingUp).await,
        pages(&big, rounds, When::CatchingUp).await,
    );
    let (few, many) = (
        pages(&small, rounds, When::Indexed).await,
        pages(&big, rounds, When::Indexed).await,
    );
    let shown = [
        ("sessions (first page)", &few, &many),
        ("... during the catch-up", &early_few, &early_many),
    ];
    for (name, few, many) in shown {
        report(name, "10 sessions", few, "100,000 sessions", many);
    }
    figure("sessions_ratio_100k", crate::common::ratio(&many, &few));
    figure(
        "sessions_ratio_100k_catching_up",
        crate::common::ratio(&early_many, &early_few),
    );
}
