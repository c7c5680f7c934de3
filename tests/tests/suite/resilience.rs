//! Transient failures heal themselves within a bound; failures that cannot heal say so at
//! once. Real omnid, real omnictl, faults injected by the fake Gemini server over HTTP.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::time::{Duration, Instant};

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::{CtlOutput, Omni};
use omni_tests::scenario::{overloaded, retries};
use serde_json::{Value, json};

/// Short retry delays so tests wait only as long as the behaviour under test requires.
const FAST: &[&str] = &[
    "--retry-initial-delay-ms",
    "10",
    "--retry-max-delay-ms",
    "2000",
];

fn fast() -> Omni {
    Omni::builder().args(FAST).start()
}

fn send_json(omni: &Omni, prompt: &str) -> (CtlOutput, Vec<Value>) {
    let out = omni.ctl(&["--json", "send", prompt]);
    let lines = out.json_lines();
    (out, lines)
}

fn quota_body(quota_id: &str, retry_delay: Option<&str>) -> String {
    let mut details = vec![
        json!({"@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": quota_id}]}),
    ];
    if let Some(delay) = retry_delay {
        details.push(
            json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}),
        );
    }
    json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": details,
        "message": "You exceeded your current quota, please check your plan and billing details."}})
    .to_string()
}

#[test]
fn overloaded_twice_then_success_delivers_the_answer_in_exactly_three_attempts() {
    let omni = fast();
    omni.ctl(&["new"]).ok();
    omni.fake().push([overloaded(), overloaded()]);
    let (out, lines) = send_json(&omni, "hello");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let notices = retries(&lines);
    assert_eq!(notices.len(), 2);
    assert_eq!(
        (
            notices[0]["attempt"].as_u64(),
            notices[0]["max_attempts"].as_u64()
        ),
        (Some(1), Some(5))
    );
    assert_eq!(notices[1]["attempt"], 2);
    assert_eq!(notices[0]["class"], "overloaded");
    assert!(
        notices[0]["message"]
            .as_str()
            .unwrap()
            .contains("The model is overloaded.")
    );
    assert_eq!(lines.last().unwrap()["model"]["attempts"], 3);
    assert!(
        lines.last().unwrap()["text"]
            .as_str()
            .unwrap()
            .starts_with("You said: \"hello\"")
    );
    assert_eq!(omni.fake().request_count(), 3);
    // The text client shows each retry on stderr.
    omni.fake().push([overloaded()]);
    let out = omni.ctl(&["send", "again"]).ok();
    assert!(
        out.stderr
            .contains("attempt 1/5 failed (overloaded): the model API answered HTTP 503"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("Please try again later; retrying in"),
        "one sentence, no stray full stop: {}",
        out.stderr
    );
}

#[test]
fn a_retry_after_header_is_honoured() {
    let omni = fast();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::Status {
        status: 429,
        headers: vec![("Retry-After".into(), "1".into())],
        body: json!({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}).to_string(),
    }]);
    let start = Instant::now();
    let (out, lines) = send_json(&omni, "hi");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        start.elapsed()
    );
    let notices = retries(&lines);
    assert_eq!(notices[0]["class"], "rate_limited");
    assert_eq!(notices[0]["wait_ms"], 1000);
    assert_eq!(omni.fake().request_count(), 2);
}

#[test]
fn a_retry_info_delay_is_honoured() {
    let omni = fast();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::Status {
        status: 429,
        headers: vec![],
        body: quota_body(
            "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            Some("1s"),
        ),
    }]);
    let start = Instant::now();
    let (out, lines) = send_json(&omni, "hi");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        start.elapsed()
    );
    assert_eq!(retries(&lines)[0]["wait_ms"], 1000);
}

/// One send against `reply`: it must fail at once (one attempt) with these words.
fn fails_without_retrying(reply: Reply, code: i32, words: &[&str]) {
    let omni = fast();
    omni.ctl(&["new"]).ok();
    omni.fake().push([reply]);
    let out = omni.ctl(&["send", "hi"]).fails(code, words);
    assert!(!out.stderr.contains("retrying in"), "{}", out.stderr);
    assert_eq!(omni.fake().request_count(), 1);
}

#[test]
fn a_daily_quota_is_not_retried_and_says_when_it_resets() {
    let daily = Reply::Status {
        status: 429,
        headers: vec![],
        body: quota_body("GenerateRequestsPerDayPerProjectPerModel-FreeTier", None),
    };
    let words = [
        "You exceeded your current quota",
        "will not recover by retrying",
        "midnight Pacific",
    ];
    fails_without_retrying(daily, 1, &words);
}

#[test]
fn a_bad_request_is_tried_once_and_shows_the_apis_message() {
    let bad = Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    );
    // A 400 also stops the session for a recovery choice (exit 3).
    fails_without_retrying(
        bad,
        3,
        &[
            "HTTP 400 INVALID_ARGUMENT: Request contains an invalid argument.",
            "needs recovery",
        ],
    );
}

#[test]
fn unauthorized_is_not_retried() {
    let unauthorized = Reply::error(
        401,
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials.",
    );
    fails_without_retrying(
        unauthorized,
        1,
        &["HTTP 401 UNAUTHENTICATED", "check the provider's API key"],
    );
}

#[test]
fn a_connection_reset_before_any_byte_is_retried() {
    let omni = fast();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::Reset]);
    let (out, lines) = send_json(&omni, "hi");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(retries(&lines)[0]["class"], "network");
    assert_eq!(omni.fake().request_count(), 2);
}

#[test]
fn a_stream_cut_after_the_first_chunk_is_retried_with_the_same_context_and_the_partial_text_discarded()
 {
    let omni = fast();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "first"]).ok();
    omni.fake().push([Reply::CutAfter {
        chunks: 1,
        answer: Answer::text(["PARTIAL ", "never ", "arrives"]),
    }]);
    let (out, lines) = send_json(&omni, "second");
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The client saw the partial text, then was told it is discarded.
    let first_text = lines.iter().position(|l| l["event"] == "text").unwrap();
    assert_eq!(lines[first_text]["text"], "PARTIAL ");
    let notice = retries(&lines)[0];
    assert_eq!(notice["discarded_partial"], true);
    let result = lines.last().unwrap();
    assert!(
        !result["text"].as_str().unwrap().contains("PARTIAL"),
        "{result}"
    );

    // Exactly the same request was sent again.
    let requests = omni.fake().requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].body, requests[2].body);
    // Not in the stored answer, nor in the next context.
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["entries"].as_array().unwrap().len(), 4);
    assert!(!history.to_string().contains("PARTIAL"));
    omni.ctl(&["send", "third"]).ok();
    assert!(!omni.fake().requests()[3].body.contains("PARTIAL"));
}

#[test]
fn a_stall_past_the_idle_timeout_is_retried() {
    let omni = Omni::builder()
        .args(FAST)
        .args(&["--stream-idle-timeout-secs", "0.3"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::StallAfter {
        chunks: 1,
        stall: Duration::from_secs(30),
        answer: Answer::text(["stalled ", "forever"]),
    }]);
    let start = Instant::now();
    let (out, lines) = send_json(&omni, "hi");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(retries(&lines)[0]["class"], "timeout");
    assert_eq!(omni.fake().request_count(), 2);
}

#[test]
fn attempts_never_exceed_the_budget() {
    let omni = Omni::builder()
        .args(FAST)
        .args(&["--retry-max-attempts", "3"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push((0..10).map(|_| overloaded()));
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("gave up after 3 attempts"),
        "{}",
        out.stderr
    );
    assert_eq!(omni.fake().request_count(), 3);
}

#[test]
fn the_deadline_holds_across_attempts_and_inside_a_stream() {
    let omni = Omni::builder()
        .args(&[
            "--retry-initial-delay-ms",
            "200",
            "--retry-max-attempts",
            "50",
        ])
        .args(&["--request-deadline-secs", "0.6"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push((0..50).map(|_| overloaded()));
    let start = Instant::now();
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "took {:?}",
        start.elapsed()
    );
    assert!(out.stderr.contains("request deadline"), "{}", out.stderr);
    assert!(
        omni.fake().request_count() < 10,
        "{} attempts",
        omni.fake().request_count()
    );

    let omni = Omni::builder()
        .args(&["--request-deadline-secs", "0.5"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::StallAfter {
        chunks: 1,
        stall: Duration::from_secs(30),
        answer: Answer::text(["slow ", "answer"]),
    }]);
    let start = Instant::now();
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        out.stderr.contains("the request deadline of 0.5 s passed"),
        "{}",
        out.stderr
    );
}
