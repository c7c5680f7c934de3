//! A store that is not an Omni store is refused, not opened as an empty one, and left as
//! it was. (Sessions whose records disagree are tested in the daemon's `written_stores`
//! tests, which write such records with the daemon's own store code.)

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;

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
