//! The trash's expiry end to end: a session deleted longer ago than `trash.keep_days` is
//! purged when omnid starts; one deleted more recently stays restorable.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::Path;

use omni_tests::harness::Omni;
use omnid::store::{Change, Store};

/// Sets a session's time in the trash straight in the stopped daemon's store.
fn deleted_days_ago(data_dir: &Path, session: &str, days: u64) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = Store::open(data_dir).unwrap();
        let id = uuid::Uuid::parse_str(session).unwrap();
        let mut record = store.session(&id).await.unwrap().unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        record.deleted_at_ms = Some(now - days * 86_400_000);
        let change = Change::record_only(&record);
        store.commit(&change).await.unwrap();
        store.close().unwrap();
    });
}

#[test]
fn the_trash_purges_what_it_kept_longer_than_keep_days_at_start() {
    let mut omni = Omni::builder().args(&["--trash-keep-days", "7"]).start();
    let old = omni.new_session();
    omni.ctl(&["send", "-s", &old, "long deleted"]).ok();
    let recent = omni.new_session();
    omni.ctl(&["send", "-s", &recent, "just deleted"]).ok();
    omni.ctl(&["delete", "-s", &old]).ok();
    omni.ctl(&["delete", "-s", &recent]).ok();
    omni.stop();
    let data = omni.dir().join("data");
    deleted_days_ago(&data, &old, 8);
    deleted_days_ago(&data, &recent, 6);
    omni.restart();

    // The sweep runs once the daemon serves: wait for its result, not for a time.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let trash = omni.ctl(&["--json", "sessions", "--trash"]).ok().json();
        let ids: Vec<String> = trash["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect();
        if ids == [recent.clone()] {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the trash still holds {ids:?}"
        );
        std::thread::yield_now();
    }
    omni.ctl(&["history", "-s", &old])
        .fails(1, &["no session matches"]);
    omni.ctl(&["restore", "-s", &recent]).ok();
}
