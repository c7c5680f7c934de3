//! What the disk pays: a committed turn against a raw synced write, and bytes on disk
//! against bytes of conversation.

use std::path::Path;

use omnid::model::SessionRecord;
use omnid::store::Store;
use uuid::Uuid;

use crate::common::seed::{self, CHAT, commit_one};
use crate::common::{fsync_loop, ratio, report, stats, time_n};
use crate::figure;

/// A committed turn (node, move and record in one transaction, durable) vs a raw
/// `write` + `fdatasync` of 256 bytes in the same directory, alternating in blocks so
/// that drifting disk latency hits both alike.
pub async fn commit_ratio(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store")).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut commit_turn = async || commit_one(&store, &mut record).await;
    fsync_loop(dir.path(), rounds / 10);
    time_n(rounds / 10, &mut commit_turn).await;
    let (mut raw, mut commits) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        raw.push(fsync_loop(dir.path(), rounds / 10).p50);
        commits.extend(time_n(rounds / 10, &mut commit_turn).await);
    }
    let (raw, commits) = (stats(raw), stats(commits));
    report(
        "committed turn",
        "write+fdatasync",
        &raw,
        "store commit",
        &commits,
    );
    figure("commit_ratio", ratio(&commits, &raw));
}

/// Bytes a directory's files occupy on disk (allocated blocks, not lengths).
pub fn bytes_on_disk(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                bytes_on_disk(&entry.path())
            } else {
                meta.blocks() * 512
            }
        })
        .sum()
}

/// A 100,000-turn chat (300-byte prompts, 1,500-byte answers) written through the store,
/// synced and closed: bytes on disk per byte of text.
pub async fn disk_ratio_100k() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let store = Store::open(&data).unwrap();
    let (_, content) = seed::session(&store, 100_000, CHAT);
    store.sync().await.unwrap();
    store.close().unwrap();
    let disk = bytes_on_disk(&data);
    println!(
        "{:<28} {} MiB of text, {} MiB on disk",
        "disk, 100,000-turn chat",
        content / (1 << 20),
        disk / (1 << 20)
    );
    figure("disk_ratio_100k", disk as f64 / content as f64);
}
