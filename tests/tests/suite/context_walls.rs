//! The window omnid learns from Gemini's API at start, and the context wall of each
//! provider: a session grown past a fake's window (its real
//! context-length error, counted by the fakes' one rule) stops and asks how to go on, with
//! the failure classed `context_too_long`, and goes on after compacting from the recovery
//! menu; until then, every answer's recorded input is the count the fake reported.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::claude::on_anthropic;
use omni_tests::count_tokens;
use omni_tests::fake_anthropic::FakeAnthropic;
use omni_tests::fake_openai::FakeOpenAi;
use omni_tests::harness::{Omni, TEST_API_KEY};
use omni_tests::local::with_local;
use omni_tests::proxy::eventually;
use serde_json::Value;

/// The fakes' window in these tests, in tokens: a few rounds of echoed prompts.
const WINDOW: u64 = 400;

/// Sends growing prompts until the fake refuses one: every answer's input, as the session
/// records it, is the fake's count of the request it answered; the refusal stops the
/// session for recovery with the provider's own words, classed `context_too_long`.
/// `sent` gives the last request the fake received, `says` what its refusal says.
fn grow_past_the_wall(omni: &Omni, sent: impl Fn() -> Value, says: &str) {
    let mut recorded = 0;
    for round in 1..=30 {
        let prompt = format!("round {round}: {}", "tell me more about walls ".repeat(4));
        let out = omni.ctl(&["--json", "send", &prompt]);
        if out.code != 0 {
            assert!(round > 2, "the wall came too soon: {}", out.stderr);
            let out = out.fails(3, &["needs recovery", says, "--deep", "--clear"]);
            assert!(out.stderr.contains(says), "{}", out.stderr);
            let over = count_tokens(&sent());
            assert!(over > WINDOW, "refused at {over} tokens");
            let list = omni.ctl(&["--json", "logs", "list"]).ok().json();
            assert_eq!(list["errors"][0]["class"], "context_too_long", "{list}");
            let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
            let stopped = sessions["sessions"][0]["needs_recovery"].as_str().unwrap();
            assert!(stopped.contains(says), "{stopped}");
            return;
        }
        let answer = out.json_lines().last().cloned().unwrap();
        recorded += count_tokens(&sent());
        assert_eq!(
            answer["session_usage"]["input"].as_u64(),
            Some(recorded),
            "round {round}: {answer}"
        );
    }
    panic!("the session never reached the fake's window of {WINDOW} tokens");
}

/// After the wall: the recovery menu offers compaction first, naming what it covers; it
/// summarises the older rounds and answers the refused prompt, and the session goes on.
fn continue_after_compacting(omni: &Omni) {
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let choices = &sessions["sessions"][0]["recovery_choices"];
    assert_eq!(choices[0]["action"], "compact", "{choices}");
    assert_eq!(choices[0]["first"], true, "{choices}");
    assert!(
        !choices[0]["covers"].as_array().unwrap().is_empty(),
        "{choices}"
    );
    omni.ctl(&["recover", "--compact"]).ok();
    let history = omni.ctl(&["--json", "history"]).ok().json();
    let entries = history["entries"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["role"] == "summary"), "{history}");
    assert!(entries.iter().any(|e| e["compacted"] == true), "{history}");
    assert_eq!(
        entries.last().unwrap()["role"],
        "model",
        "the refused prompt was answered"
    );
    omni.ctl(&["send", "and one more round"]).ok();
}

#[test]
fn a_gemini_session_grown_past_the_window_stops_for_recovery() {
    let omni = Omni::start();
    omni.fake().set_context_limit(Some(WINDOW));
    omni.new_session();
    let sent = || omni.fake().requests().pop().unwrap().json();
    grow_past_the_wall(
        &omni,
        sent,
        "exceeds the maximum number of tokens allowed (400)",
    );
    continue_after_compacting(&omni);
}

#[test]
fn an_openai_session_grown_past_the_window_stops_for_recovery() {
    let local = FakeOpenAi::start().unwrap();
    local.set_context_limit(Some(WINDOW));
    let omni = with_local(&local, "", &[]);
    omni.ctl(&["new", "--model", "local/m"]).ok();
    let sent = || local.requests().pop().unwrap().json();
    grow_past_the_wall(&omni, sent, "maximum context length is 400 tokens");
    continue_after_compacting(&omni);
}

#[test]
fn an_anthropic_session_grown_past_the_window_stops_for_recovery() {
    let server = FakeAnthropic::start().unwrap();
    server.set_context_limit(Some(WINDOW));
    let omni = on_anthropic(&server, &[]);
    omni.ctl(&["new", "--model", "anthropic/claude-sonnet-4-5"])
        .ok();
    let sent = || server.requests().pop().unwrap().json();
    grow_past_the_wall(&omni, sent, "prompt is too long");
    continue_after_compacting(&omni);
}

#[test]
fn omnid_learns_the_default_model_s_window_from_the_api_once_and_logs_it() {
    let omni = Omni::start();
    eventually("omnid logs the default model's window", || {
        omni.daemon_stderr()
            .contains("the default model's context window")
    });
    let log = omni.daemon_stderr();
    let line = log
        .lines()
        .find(|l| l.contains("the default model's context window"))
        .unwrap();
    assert!(line.contains("tokens=1048576"), "{line}");
    assert!(line.contains("source=\"api\""), "{line}");
    let lookups = omni.fake().model_lookups();
    assert_eq!(lookups.len(), 1, "asked once");
    assert_eq!(lookups[0].header("x-goog-api-key"), Some(TEST_API_KEY));
    assert!(
        !lookups[0].target.contains(TEST_API_KEY),
        "never in the URL"
    );
    assert!(!log.contains(TEST_API_KEY), "never in the log");
    assert_eq!(omni.fake().request_count(), 0, "no conversation was sent");
}
