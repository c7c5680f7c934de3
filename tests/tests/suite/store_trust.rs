//! A store that is not an Omni store is refused, not opened as an empty one, and left as
//! it was; so is one that lost commits omnid had acknowledged. (Sessions whose records disagree are tested in the daemon's `written_stores`
//! tests, which write such records with the daemon's own store code.)

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::time::Duration;

use omni_tests::harness::{Omni, Signal};

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

/// Every file under `dir` (its path there) with its bytes.
fn every_file(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut left = vec![dir.to_path_buf()];
    while let Some(folder) = left.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                left.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

/// Starts `omnid` expecting it to refuse; one still running after 10 s is killed and the
/// test fails.
fn refused_start(omni: &Omni) -> (Option<i32>, String) {
    let mut child = omni
        .daemon_command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let said = child
                .wait_with_output()
                .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                .unwrap_or_default();
            panic!("omnid started on a store that lost acknowledged commits:\n{said}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A daemon with one session of ten acknowledged nodes, stopped cleanly.
fn ten_acknowledged_nodes() -> (Omni, String) {
    let mut omni = Omni::start();
    let session = omni.new_session();
    for turn in 0..5 {
        omni.ctl(&["send", "-s", &session, &format!("turn {turn}")])
            .ok();
    }
    omni.signal(Signal::TERM);
    omni.wait_exit(Duration::from_secs(10))
        .expect("omnid exits");
    (omni, session)
}

#[test]
fn a_store_a_clean_shutdown_left_opens_without_a_copy_and_one_a_crash_left_is_compared() {
    let skipped = "not compared with what it acknowledged";
    let (mut omni, session) = ten_acknowledged_nodes();
    omni.restart();
    assert!(
        omni.daemon_stderr().contains(skipped),
        "after a clean shutdown the store is opened as it is:\n{}",
        omni.daemon_stderr()
    );
    omni.ctl(&["send", "-s", &session, "after the restart"])
        .ok();
    omni.kill9();
    omni.restart();
    assert!(
        !omni.daemon_stderr().contains(skipped),
        "after a crash the store is compared on a copy:\n{}",
        omni.daemon_stderr()
    );
    let entries = omni.history_of(&session)["entries"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(entries, 12);
}

#[test]
#[allow(clippy::ptr_arg)] // both damages are of the same type, and one shortens the file
fn a_store_that_lost_acknowledged_commits_stops_omnid_and_stays_as_it_was() {
    fn cut(bytes: &mut Vec<u8>) {
        bytes.truncate(bytes.len() / 2);
    }
    fn flip(bytes: &mut Vec<u8>) {
        let middle = bytes.len() / 2;
        for byte in &mut bytes[middle..middle + 64] {
            *byte = !*byte;
        }
    }
    for damage in [cut, flip] {
        let (mut omni, session) = ten_acknowledged_nodes();
        let db = omni.data_dir.join("db");
        let mut bytes = std::fs::read(&db).unwrap();
        damage(&mut bytes);
        std::fs::write(&db, &bytes).unwrap();
        let found = every_file(&omni.data_dir);
        assert!(found.contains_key(std::path::Path::new("closed-cleanly")));
        let (code, stderr) = refused_start(&omni);
        assert!(
            every_file(&omni.data_dir) == found,
            "a refused store is left exactly as found, its clean-shutdown stamp included"
        );
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains("ends before commits omnid acknowledged"),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("session {session} has")),
            "{stderr}"
        );
        assert!(stderr.contains("of 10 nodes"), "{stderr}");
        assert!(stderr.contains("Nothing was changed"), "{stderr}");
        assert!(
            stderr.contains("Restore the data directory from a backup"),
            "{stderr}"
        );
        assert!(std::fs::read(&db).unwrap() == bytes, "the db was changed");
        assert!(!omni.socket.exists(), "it never started listening");

        // What the message says to do to start with what is left works, and the store
        // gets the file again.
        let file = omni.data_dir.join("acknowledged");
        std::fs::rename(&file, omni.dir().join("acknowledged.old")).unwrap();
        omni.restart();
        let entries = omni.history_of(&session)["entries"]
            .as_array()
            .unwrap()
            .len();
        assert!(entries < 10, "{entries}");
        omni.ctl(&["send", "-s", &session, "after the loss"]).ok();
        assert!(file.exists());
    }
}
