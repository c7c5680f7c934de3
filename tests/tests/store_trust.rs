//! A store that is not an Omni store is refused, not opened as an empty one; a session whose
//! records disagree is reported as damaged, stays readable and refuses changes, while the
//! other sessions go on.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::Path;

use omni_tests::harness::Omni;

mod support;
use support::write_into_store;

/// Starts `omnid` on the test daemon's directories and returns its exit code and stderr.
fn start_and_fail(omni: &Omni) -> (Option<i32>, String) {
    let output = omni.daemon_command().output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_db_that_is_not_an_omni_store_stops_omnid_and_stays_as_it_was() {
    let mut omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "hello"]).ok();
    omni.kill9();
    let db = omni.data_dir.join("db");
    for junk in [
        br#"{"sessions": [{"id": 1}]}"#.to_vec(),
        (0..200_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
            .collect(),
    ] {
        std::fs::write(&db, &junk).unwrap();
        let (code, stderr) = start_and_fail(&omni);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!("{} is not an Omni store", omni.data_dir.display())),
            "{stderr}"
        );
        assert!(stderr.contains("Nothing in it was changed"), "{stderr}");
        assert!(stderr.contains("pass another --data-dir"), "{stderr}");
        assert!(
            std::fs::read(&db).unwrap() == junk,
            "the db was overwritten"
        );
        assert!(!omni.socket.exists(), "it never started listening");
    }
}

/// Writes, into the stopped daemon's store, a session whose record says its head is node
/// 7 while it has two nodes.
fn damage(data_dir: &Path, session: &str) {
    write_into_store(data_dir, session, |mut record| {
        record.head = 7;
        vec![(record, None, None)]
    });
}

#[test]
fn a_damaged_session_is_reported_readable_and_refuses_changes_alone() {
    let mut omni = Omni::start();
    let new_session = |omni: &Omni| {
        let id = omni.ctl(&["--json", "new"]).ok().json()["session"].clone();
        id.as_str().unwrap().to_string()
    };
    let broken = new_session(&omni);
    omni.ctl(&["send", "-s", &broken, "remember this"]).ok();
    let healthy = new_session(&omni);
    omni.ctl(&["send", "-s", &healthy, "all fine"]).ok();
    omni.kill9();
    damage(&omni.data_dir, &broken);
    omni.restart();

    let problem = "its head is node 7, which does not exist";
    let log = omni.daemon_stderr();
    assert!(
        log.contains(&format!("session damaged: {problem}")),
        "{log}"
    );
    assert!(log.contains(&broken), "{log}");

    let listing = omni.ctl(&["sessions"]).ok().stdout;
    assert!(listing.contains("[damaged]"), "{listing}");
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let entry = |id: &str| {
        sessions["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(entry(&broken)["damaged"], problem);
    assert!(entry(&healthy)["damaged"].is_null());

    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["damaged_sessions"][0]["id"], broken.as_str());
    assert_eq!(status["damaged_sessions"][0]["reason"], problem);
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(
        text.contains(&format!("damaged:  session {broken}")),
        "{text}"
    );

    // Readable: the transcript is shown as stored, with what is wrong.
    let history = omni.ctl(&["--json", "history", "-s", &broken]).ok().json();
    assert_eq!(history["damaged"], problem);
    assert_eq!(history["entries"].as_array().unwrap().len(), 2);
    assert_eq!(history["entries"][0]["text"], "remember this");
    let text = omni.ctl(&["history", "-s", &broken]).ok().stdout;
    assert!(text.contains("this session is damaged"), "{text}");
    omni.ctl(&["logs", "export", "-s", &broken, "-o", "-"]).ok();

    // No changes: sends and moves are refused with the reason; nothing reaches the API.
    let requests = omni.fake().request_count();
    omni.ctl(&["send", "-s", &broken, "more"])
        .fails(1, &["is damaged in the store", problem, "takes no changes"]);
    omni.ctl(&["undo", "-s", &broken]).fails(1, &["is damaged"]);
    assert_eq!(omni.fake().request_count(), requests);

    // The other session goes on.
    omni.ctl(&["send", "-s", &healthy, "still fine?"]).ok();
    let history = omni.ctl(&["--json", "history", "-s", &healthy]).ok().json();
    assert_eq!(history["entries"].as_array().unwrap().len(), 4);
}
