//! An API key never reaches a log, a reply or the store, even when the API echoes it back
//! in an error, on a session's own send or through the proxy (omnid's key or one a client
//! brought): every key omnid has seen is redacted in one place.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::{Omni, TEST_API_KEY, any_file_holds};
use omni_tests::proxy::{BODY, STREAM, start};

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

/// An upstream that echoes a key in a retried error, and a prompt that holds the client's
/// key, through the proxy: the retry warning on omnid's stderr and the diagnostic log name
/// neither key (omnid's own, or a client's it forwarded).
#[test]
fn keys_echoed_through_the_proxy_never_reach_omnids_log() {
    let (omni, api) = start(&["--proxy-accept-any-key"]);
    let theirs = "client-key-ABC-123456";
    for key in [theirs, TEST_API_KEY] {
        let echo = format!("Overloaded while serving key {key}.");
        omni.fake().push([Reply::error(503, "UNAVAILABLE", &echo)]);
        let reply = api.request("POST", STREAM, &[("x-goog-api-key", key)], BODY);
        assert_eq!(reply.status, 200, "{}", reply.body);
    }
    let prompt = format!(
        r#"{{"contents": [{{"role": "user", "parts": [{{"text": "my key is {theirs}"}}]}}]}}"#
    );
    omni.fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", "no")]);
    let reply = api.request("POST", STREAM, &[("x-goog-api-key", theirs)], &prompt);
    assert_eq!(reply.status, 400);
    let stderr = omni.daemon_stderr();
    assert!(stderr.contains("attempt failed, retrying"), "{stderr}");
    assert!(stderr.contains("serving key [REDACTED]"), "{stderr}");
    for key in [theirs, TEST_API_KEY] {
        assert!(!stderr.contains(key), "{key} in omnid's log: {stderr}");
        assert!(
            !any_file_holds(&omni.log_dir, key.as_bytes()),
            "{key} in the diagnostic logs"
        );
    }
}
