//! What the shared store pays: a committed turn on PostgreSQL (node, move and record in
//! one transaction) against a bare `INSERT` + `COMMIT` of the same bytes on the same
//! server, over the same loopback connection kind.

use omni_tests::postgres::PgCluster;
use omnid::model::SessionRecord;
use omnid::store::{SharedStore, Store, StoreOptions};
use uuid::Uuid;

use crate::common::seed::commit_one;
use crate::common::{ratio, report, stats, time_n};
use crate::figure;

/// The store of an instance named `name` on the cluster (it keeps nothing in its data
/// directory that a bench reads).
pub async fn open_on(cluster: &PgCluster, name: &str) -> Store {
    let options = StoreOptions {
        shared: Some(SharedStore {
            url: cluster.url(),
            password: Some(cluster.password().to_string()),
            shown: cluster.url(),
            instance: name.into(),
            lease: std::time::Duration::from_secs(10),
        }),
        ..StoreOptions::default()
    };
    Store::open_configured(&std::env::temp_dir(), options)
        .await
        .unwrap()
}

/// A client of the cluster, its connection running beside.
async fn connect(cluster: &PgCluster) -> tokio_postgres::Client {
    let mut config: tokio_postgres::Config = cluster.url().parse().unwrap();
    config.password(cluster.password());
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}

/// Bytes one committed turn writes (the node, the move and the record), on average.
async fn bytes_per_turn(client: &tokio_postgres::Client) -> usize {
    let sql = "SELECT (SELECT avg(octet_length(value)) FROM nodes)::float8
                    + (SELECT avg(octet_length(value)) FROM moves)::float8
                    + (SELECT avg(octet_length(record)) FROM sessions)::float8";
    let row = client.query_one(sql, &[]).await.unwrap();
    row.get::<_, f64>(0).round() as usize
}

/// `commit_ratio_postgres`: the two alternate in blocks so that drifting latency hits
/// both alike.
pub async fn commit_ratio(rounds: usize) {
    let cluster = PgCluster::start();
    let store = open_on(&cluster, "bench").await;
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut commit_turn = async || commit_one(&store, &mut record).await;
    time_n(rounds / 10, &mut commit_turn).await;

    let client = connect(&cluster).await;
    client
        .batch_execute("CREATE TABLE bare (value bytea NOT NULL)")
        .await
        .unwrap();
    let bytes = vec![7u8; bytes_per_turn(&client).await];
    let mut insert = async || {
        let sql = "INSERT INTO bare (value) VALUES ($1)";
        client.execute(sql, &[&bytes]).await.unwrap();
    };
    time_n(rounds / 10, &mut insert).await;
    let (mut bare, mut commits) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        bare.extend(time_n(rounds / 10, &mut insert).await);
        commits.extend(time_n(rounds / 10, &mut commit_turn).await);
    }
    let (bare, commits) = (stats(bare), stats(commits));
    let what = format!("turn on PostgreSQL ({} B)", bytes.len());
    report(&what, "INSERT+COMMIT", &bare, "store commit", &commits);
    figure("commit_ratio_postgres", ratio(&commits, &bare));
}
