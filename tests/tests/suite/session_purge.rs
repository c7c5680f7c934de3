//! Purge end to end: a session erased through omnictl (asked to confirm, `--yes`) or HTTP
//! is gone from every listing and read at once, and after the next start no byte of its
//! text is left in any file under the data directory, while every other session is whole.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::{Omni, any_file_holds};

const SECRET: &str = "zebra-quartz-unique-phrase-4711";
const KEPT: &str = "the kept session stays whole";

fn data_size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() {
                data_size(&path)
            } else {
                std::fs::metadata(&path).unwrap().len()
            }
        })
        .sum()
}

#[test]
fn a_purged_session_leaves_no_byte_in_the_data_directory_after_a_restart() {
    let mut omni = Omni::start();
    let kept = omni.new_session();
    omni.ctl(&["send", "-s", &kept, KEPT]).ok();
    let doomed = omni.new_session();
    for n in 0..40 {
        omni.ctl(&[
            "send",
            "-s",
            &doomed,
            &format!("{SECRET} number {n} {}", "x".repeat(2000)),
        ])
        .ok();
    }
    let kept_history = omni.history_of(&kept);
    let data = omni.dir().join("data");
    assert!(
        any_file_holds(&data, SECRET.as_bytes()),
        "the phrase is stored"
    );

    let hits = |omni: &Omni| {
        let found = omni.ctl(&["--json", "search", SECRET]).ok().json();
        found["hits"].as_array().map_or(0, Vec::len)
    };
    omni_tests::proxy::eventually("search finds the session", || hits(&omni) > 0);

    // Without a terminal and without --yes, nothing happens.
    omni.ctl(&["purge", "-s", &doomed])
        .fails(2, &["nothing was purged", "--yes"]);
    assert_eq!(omni.history_of(&doomed)["session"], doomed.as_str());

    let purged = omni
        .ctl(&["--json", "purge", "-s", &doomed, "--yes"])
        .ok()
        .json();
    assert_eq!(purged["session"], doomed.as_str());
    assert_eq!(purged["nodes"], 80);
    assert_eq!(hits(&omni), 0, "search no longer finds a purged session");
    omni.ctl(&["history", "-s", &doomed])
        .fails(1, &["no session matches"]);
    let listed = omni.ctl(&["--json", "sessions", "--trash"]).ok().json();
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 0);
    let before = data_size(&data);

    omni.stop();
    omni.restart();
    assert!(
        !any_file_holds(&data, SECRET.as_bytes()),
        "no byte of the purged session is left under {}",
        data.display()
    );
    let after = data_size(&data);
    assert!(
        after < before,
        "space reclaimed: {before} bytes before, {after} after"
    );
    assert_eq!(omni.history_of(&kept), kept_history);
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"].as_array().unwrap().len(), 1);
    omni.ctl(&["send", "-s", &kept, "and on"]).ok();
}

#[test]
fn purge_over_http_erases_a_trashed_session() {
    let omni = Omni::start();
    let id = omni.new_session();
    omni.ctl(&["send", "-s", &id, SECRET]).ok();
    omni.ctl(&["delete", "-s", &id]).ok();
    let api = omni.api();
    let purged = api.post(&format!("/v1/sessions/{id}/purge"), "");
    assert_eq!(purged.status, 200, "{}", purged.body);
    assert_eq!(purged.json()["title"], SECRET);
    api.get(&format!("/v1/sessions/{id}"))
        .error(404, "not_found");
    api.post(&format!("/v1/sessions/{id}/purge"), "")
        .error(404, "not_found");
}

/// kill -9 right after a purge wrote its intent, at several points of its work: after the
/// next start no byte of the session is left anywhere (store, search index, diagnostic
/// records and log), whatever the crash cut short, and the other session is whole.
#[test]
fn a_purge_cut_short_by_a_crash_is_finished_at_the_next_start() {
    let mut omni = Omni::builder()
        .args(&["--retry-initial-delay-ms", "1"])
        .start();
    let kept = omni.new_session();
    omni.ctl(&["send", "-s", &kept, KEPT]).ok();
    let data = omni.dir().join("data");
    let intent = data.join("purges-unfinished");
    for round in 0..4 {
        let doomed = omni.new_session();
        for n in 0..10 {
            omni.ctl(&["send", "-s", &doomed, &format!("{SECRET} number {n}")])
                .ok();
        }
        // A refusal whose record (the conversation with it) is written to the log.
        omni.fake().push([omni_tests::fake_gemini::Reply::error(
            400,
            "INVALID_ARGUMENT",
            "no",
        )]);
        omni.ctl(&["send", "-s", &doomed, &format!("{SECRET} refused")]);
        assert!(any_file_holds(&omni.log_dir, SECRET.as_bytes()));
        omni_tests::proxy::eventually("search finds the session", || {
            let found = omni.ctl(&["--json", "search", SECRET]).ok().json();
            found["hits"].as_array().is_some_and(|h| !h.is_empty())
        });
        let purging = omni.spawn_ctl(&["purge", "-s", &doomed, "--yes"]);
        // Later each round: the intent at once, then a moment further into the work.
        while !std::fs::read_to_string(&intent).is_ok_and(|ids| ids.contains(&doomed)) {
            std::thread::yield_now();
        }
        for _ in 0..round * 1000 {
            std::thread::yield_now();
        }
        omni.kill9();
        drop(purging);
        omni.restart();
        let found = omni.ctl(&["--json", "search", SECRET]).ok().json();
        assert_eq!(
            found["hits"].as_array().unwrap().len(),
            0,
            "round {round}: {}",
            omni.daemon_stderr()
        );
        assert!(!intent.exists(), "round {round}: the purge is finished");
        assert!(
            !any_file_holds(&data, SECRET.as_bytes()),
            "round {round}: the session's words are left under {}: {}",
            data.display(),
            omni.daemon_stderr()
        );
        assert!(
            !any_file_holds(&omni.log_dir, SECRET.as_bytes()),
            "round {round}: the session's words are left in the logs"
        );
        omni.ctl(&["history", "-s", &doomed])
            .fails(1, &["no session matches"]);
    }
    omni.ctl(&["send", "-s", &kept, "and on"]).ok();
}
