//! The circuit breaker and the per-session error limit: an endpoint that keeps failing is
//! left alone until a probe, sends that meet the open breaker wait for the probe or fail
//! without counting, and three sends that reached the API and failed suspend a session.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::time::{Duration, Instant};

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::Omni;
use omni_tests::scenario::{overloaded, retries};
use serde_json::Value;

fn breaker(omni: &Omni) -> Value {
    omni.ctl(&["--json", "status"]).ok().json()["breakers"][0].clone()
}

#[test]
fn the_breaker_opens_fails_fast_half_opens_and_closes() {
    let omni = Omni::builder()
        .args(&[
            "--retry-max-attempts",
            "1",
            "--breaker-failures",
            "2",
            // Long enough that the breaker is still open when the next omnictl (a new
            // process, slow on a loaded machine) looks or sends.
            "--breaker-cooldown-ms",
            "1500",
        ])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([overloaded(), overloaded()]);
    assert_eq!(omni.ctl(&["send", "one"]).code, 1);
    assert_eq!(breaker(&omni)["state"], "closed");
    assert_eq!(breaker(&omni)["consecutive_failures"], 1);
    assert_eq!(omni.ctl(&["send", "two"]).code, 1);
    let open = breaker(&omni);
    assert_eq!(open["state"], "open");
    assert_eq!(open["consecutive_failures"], 2);
    assert!(open["next_probe_in_ms"].as_u64().unwrap() > 0);
    assert!(
        omni.ctl(&["status"])
            .ok()
            .stdout
            .contains("breaker:  open: failing fast, next probe in")
    );

    // While open, a send waits for the probe (its time falls within the send's deadline),
    // shown like any retry wait; the probe's failure opens the breaker again.
    omni.ctl(&["new"]).ok();
    omni.fake().push([overloaded()]);
    let out = omni.ctl(&["--json", "send", "three"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let lines = out.json_lines();
    let waits = retries(&lines);
    assert_eq!(waits[0]["class"], "circuit_open", "{lines:?}");
    assert!(waits[0]["wait_ms"].as_u64().unwrap() > 0);
    assert_eq!(
        omni.fake().request_count(),
        3,
        "only the probe reached the API"
    );
    assert_eq!(breaker(&omni)["state"], "open");

    // The next probe succeeds and closes it; the text client shows the wait.
    let out = omni.ctl(&["send", "healthy"]).ok();
    assert!(
        out.stderr
            .contains("failing fast (circuit breaker open); the next probe goes out in"),
        "{}",
        out.stderr
    );
    let closed = breaker(&omni);
    assert_eq!(
        (
            closed["state"].as_str(),
            closed["consecutive_failures"].as_u64()
        ),
        (Some("closed"), Some(0))
    );
}

#[test]
fn sends_that_meet_an_open_breaker_beyond_their_deadline_fail_at_once_and_do_not_suspend() {
    let omni = Omni::builder()
        .args(&["--retry-max-attempts", "1", "--breaker-failures", "1"])
        .args(&[
            "--breaker-cooldown-ms",
            "60000",
            "--request-deadline-secs",
            "2",
        ])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([overloaded()]);
    let out = omni.ctl(&["send", "reaches the API"]);
    assert!(
        out.stderr.contains("1 of 3 failures in a row"),
        "{}",
        out.stderr
    );
    assert_eq!(breaker(&omni)["state"], "open");

    // "Send again", as the advice says, during the outage: none of these reaches the
    // network, so none counts toward suspending the session.
    for prompt in ["again", "and again", "once more"] {
        let start = Instant::now();
        let out = omni.ctl(&["send", prompt]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(start.elapsed() < Duration::from_secs(2), "it fails at once");
        for words in [
            "circuit breaker open",
            "will be tried again in",
            "does not count toward suspending",
        ] {
            assert!(out.stderr.contains(words), "{words}: {}", out.stderr);
        }
    }
    assert_eq!(omni.fake().request_count(), 1);
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"][0]["suspended"], false);
    assert_eq!(sessions["sessions"][0]["consecutive_failures"], 1);
}

/// A persistent outage, with the default attempts and breaker threshold and a short
/// cool-down: the first send spends its budget and opens the breaker, each later send
/// waits for one probe and fails as soon as the probe does, and the third suspends the
/// session, all within a few cool-downs.
#[test]
fn in_an_outage_each_send_waits_for_one_probe_and_the_third_suspends() {
    let cooldown = Duration::from_millis(1500);
    let omni = Omni::builder()
        .args(&["--breaker-cooldown-ms", "1500"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake().push((0..30).map(|_| overloaded()));
    assert_eq!(omni.ctl(&["send", "one"]).code, 1);
    assert_eq!(omni.fake().request_count(), 5, "the whole budget");
    assert_eq!(breaker(&omni)["state"], "open");

    let started = Instant::now();
    let out = omni.ctl(&["send", "two"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("probe failed"), "{}", out.stderr);
    assert!(
        out.stderr.contains("2 of 3 failures in a row"),
        "{}",
        out.stderr
    );
    assert_eq!(omni.fake().request_count(), 6, "one probe, no more");

    let out = omni.ctl(&["send", "three"]);
    assert_eq!(out.code, 5, "suspended: {}", out.stderr);
    assert_eq!(omni.fake().request_count(), 7);
    // Before: each of the later sends waited for a probe before each of its five attempts.
    assert!(
        started.elapsed() < 2 * cooldown + Duration::from_secs(3),
        "suspended after {:?}",
        started.elapsed()
    );
}

#[test]
fn three_failed_sends_suspend_the_session_and_resume_restores_it() {
    let omni = Omni::builder().args(&["--retry-max-attempts", "1"]).start();
    let id = omni.ctl(&["--json", "new"]).ok().json()["session"]
        .as_str()
        .unwrap()
        .to_string();
    let internal = || Reply::error(500, "INTERNAL", "An internal error has occurred.");
    omni.fake().push([internal(), internal(), internal()]);
    let out = omni.ctl(&["send", "one"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("1 of 3 failures in a row"),
        "{}",
        out.stderr
    );
    assert_eq!(omni.ctl(&["send", "two"]).code, 1);
    let out = omni.ctl(&["send", "three"]);
    assert_eq!(out.code, 5, "{}", out.stderr);
    let suspended = format!(
        "session {id} suspended after 3 consecutive failures; resume with `omnictl resume {id}`"
    );
    assert!(out.stderr.contains(&suspended), "{}", out.stderr);

    // Further sends are refused without reaching the model; the history stays as it was.
    let before = omni.ctl(&["--json", "history"]).ok().json();
    let out = omni.ctl(&["send", "four"]);
    assert_eq!(out.code, 5);
    assert!(out.stderr.contains(&suspended), "{}", out.stderr);
    assert_eq!(omni.fake().request_count(), 3);
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"][0]["suspended"], true);
    assert!(omni.ctl(&["sessions"]).ok().stdout.contains("[suspended]"));

    // The suspension survives a restart (it is saved), and resume lifts it.
    let mut omni = omni;
    omni.kill9();
    omni.restart();
    assert_eq!(omni.ctl(&["send", "five"]).code, 5);
    let out = omni.ctl(&["resume", &id]).ok();
    assert!(out.stdout.contains("resumed"), "{}", out.stdout);
    assert_eq!(
        omni.ctl(&["--json", "history"]).ok().json(),
        before,
        "resume leaves the history alone"
    );
    omni.ctl(&["send", "six"]).ok();
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"][0]["suspended"], false);
    assert_eq!(sessions["sessions"][0]["consecutive_failures"], 0);
}

#[test]
fn a_success_resets_the_failure_count() {
    let omni = Omni::builder().args(&["--retry-max-attempts", "1"]).start();
    omni.ctl(&["new"]).ok();
    let internal = || Reply::error(500, "INTERNAL", "An internal error has occurred.");
    omni.fake().push([internal(), internal()]);
    assert_eq!(omni.ctl(&["send", "one"]).code, 1);
    assert_eq!(omni.ctl(&["send", "two"]).code, 1);
    omni.ctl(&["send", "works"]).ok();
    omni.fake().push([internal()]);
    let out = omni.ctl(&["send", "fails again"]);
    assert_eq!(out.code, 1, "a success in between means no suspension");
    assert!(
        out.stderr.contains("1 of 3 failures in a row"),
        "{}",
        out.stderr
    );
}
