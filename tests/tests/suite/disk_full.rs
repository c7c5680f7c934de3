//! A full disk: reads go on, sends fail saying exactly what was kept, the store's health
//! shows in `status`, and writes work again once there is space, without a restart. The
//! daemon's data directory is a small tmpfs of its own, which the test fills.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::Write;
use std::path::Path;

use omni_tests::fake_gemini::{Answer, Gate, Reply};
use omni_tests::harness::Omni;

const MIB: u64 = 1024 * 1024;

fn free(dir: &Path) -> u64 {
    let stats = rustix::fs::statvfs(dir).unwrap();
    stats.f_bavail * stats.f_frsize
}

/// Fills the file system of `dir` until less than 1 MiB is free.
fn fill(dir: &Path) {
    let mut filler = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("filler"))
        .unwrap();
    let block = vec![0xf1; 256 * 1024];
    while free(dir) >= MIB {
        filler.write_all(&block).unwrap();
    }
    filler.sync_all().unwrap();
}

fn empty(dir: &Path) {
    std::fs::remove_file(dir.join("filler")).unwrap();
}

fn entries(omni: &Omni) -> usize {
    let history = omni.ctl(&["--json", "history"]).ok().json();
    history["entries"].as_array().unwrap().len()
}

#[test]
fn a_full_disk_keeps_reads_refuses_sends_clearly_and_heals_without_a_restart() {
    let omni = Omni::builder()
        .data_on_tmpfs(48)
        .args(&["--min-free-space-mb", "8"])
        .start();
    let disk = omni.data_mount();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "before the disk filled"]).ok();
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["store_health"]["state"], "ok");

    // Full: reads go on; a send is refused before anything is written.
    fill(&disk);
    assert_eq!(entries(&omni), 2);
    omni.ctl(&["sessions"]).ok();
    let requests = omni.fake().request_count();
    omni.ctl(&["send", "while full"]).fails(
        1,
        &["disk full: the prompt was not saved", "Free some space"],
    );
    assert_eq!(omni.fake().request_count(), requests, "nothing was sent");
    assert_eq!(entries(&omni), 2, "nothing was stored");
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["store_health"]["state"], "failing", "{status}");
    let reason = status["store_health"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("disk full:"), "{reason}");
    assert!(status["store_health"]["since_ms"].as_u64().unwrap() > 0);
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(text.contains("health:   store failing since"), "{text}");

    // Space returns: the next send works, no restart.
    empty(&disk);
    omni.ctl(&["send", "after the space came back"]).ok();
    assert_eq!(entries(&omni), 4);
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["store_health"]["state"], "ok");

    // The disk fills while the answer streams: the prompt is saved, the answer is not,
    // and the client is told exactly that.
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 1,
        gate: gate.clone(),
        answer: Answer::text(["an answer ", "with nowhere to go"]),
    }]);
    let mut send = omni.spawn_ctl(&["send", "the prompt is kept"]);
    send.read_texts(1);
    fill(&disk);
    gate.open();
    let out = send.finish();
    assert_eq!(out.code, 1, "{}", out.stderr);
    for words in [
        "disk full: the answer was not saved",
        "Your prompt is saved as node 5 but not answered",
    ] {
        assert!(out.stderr.contains(words), "{words}: {}", out.stderr);
    }
    empty(&disk);
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["head"], 5);
    assert_eq!(history["entries"][4]["text"], "the prompt is kept");
    omni.ctl(&["send", "and on it goes"]).ok();
}
