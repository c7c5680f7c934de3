//! An API key never reaches a log, a reply or the store, even when the API echoes it back
//! in an error: it is removed where provider errors enter the daemon.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::{Omni, TEST_API_KEY, any_file_holds};

#[test]
fn a_key_the_api_echoes_back_never_reaches_a_log_a_reply_or_the_store() {
    let omni = Omni::builder()
        .args(&["--retry-initial-delay-ms", "10"])
        .start();
    omni.ctl(&["new"]).ok();

    // A transient error that quotes the key: the retry notice the client prints.
    omni.fake().push([Reply::error(
        503,
        "UNAVAILABLE",
        &format!("Overloaded while serving key {TEST_API_KEY}."),
    )]);
    let out = omni.ctl(&["send", "first"]).ok();
    assert!(
        out.stderr.contains("serving key [REDACTED]"),
        "{}",
        out.stderr
    );
    let json = omni.ctl(&["--json", "history"]).ok().stdout;
    assert!(!json.contains(TEST_API_KEY));

    // A 400 that quotes it: the error the client gets, and the recovery reason stored.
    omni.fake().push([Reply::error(
        400,
        "INVALID_ARGUMENT",
        &format!("Request from {TEST_API_KEY} has an invalid argument."),
    )]);
    let out = omni.ctl(&["send", "second"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("Request from [REDACTED]"),
        "{}",
        out.stderr
    );
    let sessions = omni.ctl(&["--json", "sessions"]).ok().stdout;
    assert!(sessions.contains("Request from [REDACTED]"), "{sessions}");

    for (what, text) in [
        ("omnictl's output", format!("{}{}", out.stdout, out.stderr)),
        ("the session list", sessions),
        ("omnid's log", omni.daemon_stderr()),
    ] {
        assert!(!text.contains(TEST_API_KEY), "the key is in {what}: {text}");
    }
    let key = TEST_API_KEY.as_bytes();
    assert!(
        !any_file_holds(&omni.data_dir, key),
        "the key is in the store"
    );
    assert!(
        !any_file_holds(&omni.log_dir, key),
        "the key is in the logs"
    );
}
