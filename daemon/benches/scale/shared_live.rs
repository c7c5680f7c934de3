//! Several omnid on one PostgreSQL: how late a follower on one instance hears a chunk
//! produced on another (its store's feed, against a bare `LISTEN`/`NOTIFY` between two
//! connections of the same server), and how many turns two instances commit together
//! against one alone (16 sessions sending at once, split over the two).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use omni_tests::postgres::PgCluster;
use omnid::model::SessionRecord;
use omnid::store::{FeedItem, Store};
use uuid::Uuid;

use crate::common::seed::commit_one;
use crate::common::{report, stats};
use crate::figure;

/// An instance named `name` on the cluster.
async fn instance(cluster: &PgCluster, name: &str) -> Arc<Store> {
    Arc::new(crate::shared::open_on(cluster, name).await)
}

/// A connection of the bench's own, its messages (notifications) handed to `heard`.
async fn listener(
    cluster: &PgCluster,
    heard: impl Fn(String) + Send + 'static,
) -> tokio_postgres::Client {
    let mut config: tokio_postgres::Config = cluster.url().parse().unwrap();
    config.password(cluster.password());
    let (client, mut connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(async move {
        while let Some(Ok(message)) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            if let tokio_postgres::AsyncMessage::Notification(note) = message {
                heard(note.payload().to_string());
            }
        }
    });
    client
}

/// `follower_delay_ms_p50`, `follower_delay_ms_p99` and `follower_ratio`: `chunks` chunks
/// published on one instance every 10 ms, each timed until the other hears it.
pub async fn follower_delay(chunks: usize) {
    let cluster = PgCluster::start();
    let start = Instant::now();
    let since = move |body: &[u8]| {
        let sent = u64::from_le_bytes(body.try_into().unwrap());
        start.elapsed().saturating_sub(Duration::from_nanos(sent))
    };
    let delays = Arc::new(Mutex::new(Vec::new()));
    let (a, b) = (instance(&cluster, "a").await, instance(&cluster, "b").await);
    let heard = delays.clone();
    b.follow(Box::new(move |items, _| {
        for item in items {
            if let FeedItem::Live { body, .. } = item {
                heard.lock().unwrap().push(since(&body));
            }
        }
    }));
    let outlet = a.live_outlet().unwrap();
    let session = Uuid::new_v4();
    for _ in 0..chunks {
        let now = start.elapsed().as_nanos() as u64;
        outlet.send(session, now.to_le_bytes().to_vec());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    wait_for(&delays, chunks).await;

    let bare = Arc::new(Mutex::new(Vec::new()));
    let noted = bare.clone();
    let listening = listener(&cluster, move |payload| {
        let sent: u64 = payload.parse().unwrap();
        let delay = start.elapsed().saturating_sub(Duration::from_nanos(sent));
        noted.lock().unwrap().push(delay);
    })
    .await;
    listening.batch_execute("LISTEN bench").await.unwrap();
    let notifier = listener(&cluster, |_| {}).await;
    for _ in 0..chunks {
        let now = (start.elapsed().as_nanos() as u64).to_string();
        notifier
            .execute("SELECT pg_notify('bench', $1)", &[&now])
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    wait_for(&bare, chunks).await;
    let follower = stats(delays.lock().unwrap().clone());
    let bare = stats(bare.lock().unwrap().clone());
    report(
        "chunk from A heard on B",
        "bare NOTIFY",
        &bare,
        "store feed",
        &follower,
    );
    figure("follower_delay_ms_p50", follower.p50.as_secs_f64() * 1000.0);
    figure("follower_delay_ms_p99", follower.p99.as_secs_f64() * 1000.0);
    figure("follower_ratio", crate::common::ratio(&follower, &bare));
}

async fn wait_for(samples: &Mutex<Vec<Duration>>, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while samples.lock().unwrap().len() < count {
        assert!(Instant::now() < deadline, "not everything was heard");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `sends_ratio_two_instances`: turns committed in `secs` by 16 sessions at once on two
/// instances (8 each) ÷ on one.
pub async fn two_instances(secs: u64) {
    let cluster = PgCluster::start();
    let one = instance(&cluster, "one").await;
    let alone = turns_in(&[one.clone(), one.clone()], secs).await;
    let two = [
        instance(&cluster, "two-a").await,
        instance(&cluster, "two-b").await,
    ];
    let together = turns_in(&two, secs).await;
    let per_second = |n: u64| n as f64 / secs as f64;
    println!(
        "{:<28} one instance: {:>8.0} turns/s | two instances: {:>8.0} turns/s",
        "16 sessions sending",
        per_second(alone),
        per_second(together)
    );
    figure("sends_ratio_two_instances", together as f64 / alone as f64);
}

/// Turns committed in `secs` by 16 sessions, half through each of `stores`.
async fn turns_in(stores: &[Arc<Store>; 2], secs: u64) -> u64 {
    let until = Instant::now() + Duration::from_secs(secs);
    let mut senders = Vec::new();
    for n in 0..16 {
        let store = stores[n % 2].clone();
        senders.push(tokio::spawn(async move {
            let mut record = SessionRecord::new(Uuid::new_v4(), 1);
            let mut turns = 0u64;
            while Instant::now() < until {
                commit_one(&store, &mut record).await;
                turns += 1;
            }
            turns
        }));
    }
    let mut total = 0;
    for sender in senders {
        total += sender.await.unwrap();
    }
    total
}
