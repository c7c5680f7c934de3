//! An instance's cold start on a shared store: start to the first answer of an omnid on a
//! PostgreSQL database holding 1,000,000 nodes in 1,000 sessions, against one on an empty
//! database. Each instance has started once before (its search index is built), as it
//! would have on a database it follows.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use omni_tests::postgres::PgCluster;
use omnid::store::Store;

use crate::common::seed::{self, SHORT};
use crate::common::{Daemon, ratio, report, stats};
use crate::figure;

/// The flags that put an omnid on `cluster`, its password in a private file in `dir`.
fn on(cluster: &PgCluster, dir: &Path) -> Vec<String> {
    let password: PathBuf = dir.join("store-password");
    std::fs::write(&password, cluster.password()).unwrap();
    std::fs::set_permissions(&password, std::fs::Permissions::from_mode(0o600)).unwrap();
    let password = password.display().to_string();
    [
        "--store-url",
        &cluster.url(),
        "--store-password-file",
        &password,
    ]
    .map(String::from)
    .into()
}

/// `sessions` sessions of `turns` nodes written into `cluster`'s database (seeded in a
/// data directory, then copied as `omnid store copy` does).
async fn fill(cluster: &PgCluster, sessions: usize, turns: u64) {
    let started = Instant::now();
    let seeded = tempfile::tempdir().unwrap();
    let from = Store::open(seeded.path()).unwrap();
    for _ in 0..sessions {
        seed::session(&from, turns, SHORT);
    }
    from.sync().await.unwrap();
    let to = crate::shared::open_on(cluster, "seed").await;
    let copied = omnid::store::copy(&from, &to).await.unwrap();
    println!(
        "{:<28} {} nodes in {} sessions, in {:.1} s",
        "database",
        copied.nodes,
        copied.sessions,
        started.elapsed().as_secs_f64()
    );
    from.close().unwrap();
    to.close().unwrap();
}

/// The store's open in the last start in `dir`, as omnid logged it.
fn store_open_logged(dir: &Path) -> Duration {
    let log = std::fs::read_to_string(dir.join("omnid.log")).unwrap();
    let ms = log
        .lines()
        .find(|l| l.contains("the store is open"))
        .and_then(|l| l.split("took_ms=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("omnid logged no store open: {log}"));
    Duration::from_millis(ms)
}

/// `cold_start_ratio_postgres`: `rounds` starts on each, alternating.
pub async fn cold_start(sessions: usize, turns: u64, rounds: usize) {
    let (empty, big) = (PgCluster::start(), PgCluster::start());
    fill(&big, sessions, turns).await;
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let flags: Vec<Vec<String>> = [&empty, &big]
        .iter()
        .zip(&dirs)
        .map(|(cluster, dir)| on(cluster, dir.path()))
        .collect();
    let start = |n: usize| {
        let extra: Vec<&str> = flags[n].iter().map(String::as_str).collect();
        Daemon::start_with(dirs[n].path(), "http://127.0.0.1:9", &extra)
    };
    for n in 0..2 {
        let daemon = start(n);
        daemon.indexed().await;
        daemon.stop();
    }
    let mut samples = [Vec::new(), Vec::new()];
    let mut opens = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for n in 0..2 {
            let spawned = Instant::now();
            let daemon = start(n);
            daemon.status().await;
            samples[n].push(spawned.elapsed());
            daemon.stop();
            opens[n].push(store_open_logged(dirs[n].path()));
        }
    }
    let [small, large] = samples.map(stats);
    let [small_open, large_open] = opens.map(stats);
    report(
        "start to first answer",
        "empty database",
        &small,
        "1M nodes",
        &large,
    );
    report(
        "of which the store's open",
        "empty",
        &small_open,
        "1M nodes",
        &large_open,
    );
    figure("cold_start_ratio_postgres", ratio(&large, &small));
}
