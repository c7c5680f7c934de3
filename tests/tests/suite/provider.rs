//! What goes over HTTP to the model API, and what happens when it fails.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::{Omni, TEST_API_KEY};
use serde_json::json;

#[test]
fn the_request_goes_to_the_stream_endpoint_with_the_key_in_a_header() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "hi"]).ok();
    let request = &omni.fake().requests()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(
        request.target,
        "/v1beta/models/fake-model:streamGenerateContent?alt=sse"
    );
    assert_eq!(request.header("x-goog-api-key"), Some(TEST_API_KEY));
    assert!(!request.target.contains(TEST_API_KEY));
    assert!(
        !omni.daemon_stderr().contains(TEST_API_KEY),
        "the key never reaches the log"
    );
}

#[test]
fn thought_signatures_are_sent_back_exactly_where_they_arrived() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    let mut answer = Answer::text(["Let me ", "think."]);
    answer.signature = Some("c2lnbmF0dXJlLTE=".into());
    answer.thoughts = vec!["pondering".into()];
    omni.fake().push([Reply::Answer(answer)]);
    omni.ctl(&["send", "hi"]).ok();
    omni.ctl(&["send", "again"]).ok();
    let contents = omni.fake().requests()[1].contents();
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [
            {"text": "pondering", "thought": true},
            {"text": "Let me "},
            {"text": "think.", "thoughtSignature": "c2lnbmF0dXJlLTE="},
        ]})
    );
}

#[test]
fn an_http_error_ends_the_send_with_the_apis_message_and_keeps_the_prompt() {
    let omni = Omni::builder().args(&["--retry-max-attempts", "1"]).start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::error(
        500,
        "INTERNAL",
        "An internal error has occurred.",
    )]);
    omni.ctl(&["send", "hi"]).fails(
        1,
        &[
            // One full stop, and "1 attempt" in the singular.
            "HTTP 500 INTERNAL: An internal error has occurred (gave up after 1 attempt). \
             Your prompt is saved as node 1",
        ],
    );
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["head"], 1);
    assert_eq!(history["entries"].as_array().unwrap().len(), 1);
}

#[test]
fn without_stream_retries_a_cut_stream_fails_and_leaves_no_partial_answer() {
    let omni = Omni::builder().args(&["--no-retry-stream-errors"]).start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::CutAfter {
        chunks: 1,
        answer: Answer::text(["half an ", "answer"]),
    }]);
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("broke"), "{}", out.stderr);
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(
        history["entries"].as_array().unwrap().len(),
        1,
        "no model node"
    );
    omni.ctl(&["send", "again"]).ok();
    let body = &omni.fake().requests()[1].body;
    assert!(!body.contains("half an"), "{body}");
}

#[test]
fn without_stream_retries_a_stream_without_a_finish_reason_fails() {
    let omni = Omni::builder().args(&["--no-retry-stream-errors"]).start();
    omni.ctl(&["new"]).ok();
    let mut answer = Answer::text(["no end"]);
    answer.finish_reason = None;
    omni.fake().push([Reply::Answer(answer)]);
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no finish reason"), "{}", out.stderr);
}

#[test]
fn an_unreachable_endpoint_is_a_clear_error() {
    // Nothing listens on port 9 of localhost.
    let omni = Omni::builder()
        .base_url("http://127.0.0.1:9")
        .args(&[
            "--retry-max-attempts",
            "3",
            "--retry-initial-delay-ms",
            "10",
        ])
        .start();
    omni.ctl(&["new"]).ok();
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    for expected in [
        "could not reach the model API",
        "Connection refused",
        "gave up after 3 attempts",
    ] {
        assert!(out.stderr.contains(expected), "{expected}: {}", out.stderr);
    }
}
