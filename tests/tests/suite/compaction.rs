//! Compaction end to end: a real omnid and omnictl against the fake Gemini API. A summary
//! takes the older rounds' place in the model's context while they stay in the tree;
//! `undo` returns to the full context and `redo` brings the summary back; a compaction
//! that fails, or that a crash cuts short, changes nothing.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Gate, Reply};
use omni_tests::harness::Omni;
use omni_tests::proxy::eventually;
use serde_json::Value;

/// The prompts of the four rounds every test starts with: the first two are compacted,
/// the last two kept (`--keep 2`, the default).
const ROUNDS: [&str; 4] = ["alpha one", "bravo two", "charlie three", "delta four"];

/// What the fake writes as the summary.
const SUMMARY: &str = "SUMMARY: the user said alpha and bravo.";

/// A session of four answered rounds (nodes 1 to 8).
fn four_rounds(omni: &Omni) {
    omni.ctl(&["new"]).ok();
    for prompt in ROUNDS {
        omni.ctl(&["send", prompt]).ok();
    }
}

/// The transcript's nodes and head, as `history --json` shows them (without the gauge,
/// which is measured, not stored).
fn tree(omni: &Omni) -> (Value, Value) {
    let history = omni.ctl(&["--json", "history"]).ok().json();
    (history["entries"].clone(), history["head"].clone())
}

/// The bodies of the requests that asked the model something, oldest first (not the
/// questions about a model's window).
fn asked(omni: &Omni) -> Vec<String> {
    omni.fake()
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect()
}

/// The last request that asked the model something.
fn last_asked(omni: &Omni) -> String {
    asked(omni).pop().unwrap()
}

/// Compacts with the fake's summary; returns what `omnictl --json compact` said last.
fn compact(omni: &Omni, args: &[&str]) -> Value {
    omni.fake().push([Reply::Answer(Answer::text([SUMMARY]))]);
    let out = omni.ctl(&[&["--json", "compact"], args].concat()).ok();
    let lines = out.json_lines();
    assert!(
        lines.iter().any(|l| l["event"] == "compacting"),
        "{}",
        out.stdout
    );
    lines.last().cloned().unwrap()
}

#[test]
fn the_model_sees_the_summary_and_the_kept_rounds_and_history_keeps_everything() {
    let omni = Omni::start();
    four_rounds(&omni);
    let done = compact(&omni, &[]);
    assert_eq!(done["covers"], serde_json::json!([1, 2, 3, 4]), "{done}");
    assert_eq!(
        (done["node"].as_u64(), done["from"].as_u64()),
        (Some(9), Some(8))
    );
    assert_eq!(done["resumes_at"], 5);
    assert_eq!(done["text"], SUMMARY);

    // The summary request held the covered path.
    let summary_request = asked(&omni)[4].clone();
    for covered in &ROUNDS[..2] {
        assert!(
            summary_request.contains(covered),
            "{covered}: {summary_request}"
        );
    }

    // The next send carries the summary and the kept rounds, not the covered ones.
    omni.ctl(&["send", "echo five"]).ok();
    let sent = last_asked(&omni);
    for kept in [SUMMARY, "charlie three", "delta four", "echo five"] {
        assert!(sent.contains(kept), "{kept}: {sent}");
    }
    for covered in &ROUNDS[..2] {
        assert!(!sent.contains(covered), "{covered} was sent: {sent}");
    }

    // history folds the covered nodes; --full shows them whole, compacted, not reverted.
    let text = omni.ctl(&["history"]).ok().stdout;
    assert!(
        text.contains("nodes 1–4 compacted into node 9: history --full shows them"),
        "{text}"
    );
    assert!(text.contains("── summary of nodes 1–4"), "{text}");
    assert!(text.contains(&format!("#9 summary: {SUMMARY}")), "{text}");
    assert!(!text.contains("alpha one"), "{text}");
    let full = omni.ctl(&["history", "--full"]).ok().stdout;
    assert!(full.contains("[ COMPACTED ] #1 user: alpha one"), "{full}");
    assert!(!full.contains("[ REVERTED ]"), "{full}");
    let header = text.lines().next().unwrap();
    assert!(header.contains(" · head #11 · context "), "{header}");
    let status = omni.ctl(&["status"]).ok().stdout;
    assert!(status.contains("in the current session"), "{status}");
    let (entries, _) = tree(&omni);
    assert_eq!(entries[0]["compacted"], true);
    assert_eq!(entries[0]["reverted"], false);
    assert_eq!(entries[8]["role"], "summary");
}

#[test]
fn undo_returns_to_the_full_context_and_redo_brings_the_summary_back() {
    let omni = Omni::start();
    four_rounds(&omni);
    omni.fake().push([Reply::Answer(Answer::text([SUMMARY]))]);
    let said = omni.ctl(&["compact", "--keep", "1"]).ok().stdout;
    assert!(
        said.starts_with("compacted nodes 1–6 into node 9 (summary); context "),
        "{said}"
    );
    assert!(
        said.ends_with("; `omnictl undo` returns to the full context\n"),
        "{said}"
    );
    let (compacted, head) = tree(&omni);
    assert_eq!(head, 9);
    assert_eq!(
        compacted[5]["compacted"], true,
        "--keep 1 covers rounds 1-3"
    );

    omni.ctl(&["undo"]).ok();
    let (entries, head) = tree(&omni);
    assert_eq!(head, 8, "back on the summary's parent");
    assert!(
        entries
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["compacted"] == false),
        "{entries}"
    );
    omni.ctl(&["redo"]).ok();
    assert_eq!(tree(&omni), (compacted, 9.into()));

    // From the full context again, a send carries every round.
    omni.ctl(&["undo"]).ok();
    omni.ctl(&["send", "echo five"]).ok();
    let sent = last_asked(&omni);
    for prompt in ROUNDS {
        assert!(sent.contains(prompt), "{prompt}: {sent}");
    }
    assert!(!sent.contains(SUMMARY), "{sent}");
}

#[test]
fn a_failed_summary_leaves_the_session_as_it_was() {
    let omni = Omni::start();
    four_rounds(&omni);
    let before = tree(&omni);
    omni.fake().push([Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    )]);
    let out = omni.ctl(&["compact"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_eq!(tree(&omni), before);
    let session = omni.ctl(&["--json", "sessions"]).ok().json();
    assert!(
        session["sessions"][0]["needs_recovery"].is_null(),
        "{session}"
    );
    // At a terminal the answer's footer says how full the context is.
    let (ok, screen) = omni.ctl_at_terminal("send echo five", "");
    assert!(ok && screen.contains(" · context "), "{screen}");
    let sent = last_asked(&omni);
    assert!(sent.contains("alpha one"), "nothing was compacted: {sent}");
}

#[test]
fn compact_over_http_streams_its_progress_then_the_result() {
    let omni = Omni::start();
    four_rounds(&omni);
    omni.fake().push([Reply::Answer(Answer::text([SUMMARY]))]);
    let api = omni.api();
    let mut stream = api.events(
        "POST",
        "/v1/sessions/current/compact",
        r#"{"keep": 3, "instructions": "keep the Greek letters"}"#,
    );
    assert_eq!(stream.status, 200);
    let events = stream.until("result");
    assert_eq!(events[0].name, "compacting", "{events:?}");
    let result = &events.last().unwrap().data;
    assert_eq!(result["covers"], serde_json::json!([1, 2]), "{result}");
    let summary_request = asked(&omni)[4].clone();
    assert!(
        summary_request.contains("keep the Greek letters"),
        "{summary_request}"
    );

    let refused = api.post("/v1/sessions/current/compact", r#"{"keep": -1}"#);
    let why = refused.error(400, "invalid_request");
    assert!(why.contains("\"keep\""), "{why}");
    let refused = api.post("/v1/sessions/current/compact", r#"{"kept": 1}"#);
    refused.error(400, "invalid_request");
}

#[test]
fn a_crash_while_the_summary_streams_loses_nothing() {
    let mut omni = Omni::start();
    four_rounds(&omni);
    let before = tree(&omni);
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 1,
        gate: gate.clone(),
        answer: Answer::text(["SUMMARY: cut ", "short"]),
    }]);
    let mut compacting = omni.spawn_ctl(&["compact"]);
    compacting.read_until("compacting");
    eventually("the summary request reaches the model API", || {
        asked(&omni).len() == 5
    });
    omni.kill9();
    gate.open();
    let _ = compacting.finish();

    omni.restart();
    assert_eq!(tree(&omni), before);
    omni.ctl(&["send", "echo five"]).ok();
    let sent = last_asked(&omni);
    assert!(sent.contains("alpha one"), "{sent}");
    assert!(!sent.contains("cut short"), "{sent}");
}

#[test]
fn recovery_can_compact_then_answers_the_pending_prompt() {
    let omni = Omni::start();
    four_rounds(&omni);
    omni.fake().push([Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    )]);
    omni.ctl(&["send", "echo five"])
        .fails(3, &["needs recovery", "--compact"]);
    omni.fake().push([Reply::Answer(Answer::text([SUMMARY]))]);
    let out = omni.ctl(&["recover", "--compact"]).ok();
    assert!(out.stderr.contains("compacting "), "{}", out.stderr);
    assert!(out.stderr.contains("compacted nodes "), "{}", out.stderr);
    assert!(
        out.stdout.contains("You said: \"echo five\""),
        "{}",
        out.stdout
    );
    let sent = last_asked(&omni);
    assert!(
        sent.contains(SUMMARY) && sent.contains("echo five"),
        "{sent}"
    );
    assert!(!sent.contains("alpha one"), "{sent}");
}

#[test]
fn the_chat_compacts_with_its_own_command() {
    let omni = Omni::start();
    four_rounds(&omni);
    omni.fake().push([Reply::Answer(Answer::text([SUMMARY]))]);
    let out = omni
        .ctl_with_stdin(&["chat"], Some("/compact 1 keep the Greek letters\n"))
        .ok();
    assert!(
        out.stderr
            .contains("compacted nodes 1–6 into node 9 (summary);"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("`/undo` returns to the full context"),
        "{}",
        out.stderr
    );
    let greeting = out.stderr.lines().next().unwrap();
    assert!(greeting.contains(" · head #8 · context "), "{greeting}");
    let summary_request = asked(&omni)[4].clone();
    assert!(
        summary_request.contains("keep the Greek letters"),
        "{summary_request}"
    );
}

#[test]
fn the_summary_request_is_retried_like_a_send_and_giving_up_changes_nothing() {
    let omni = Omni::builder()
        .args(&[
            "--retry-initial-delay-ms",
            "10",
            "--retry-max-attempts",
            "3",
        ])
        .start();
    four_rounds(&omni);
    let unavailable = || Reply::error(503, "UNAVAILABLE", "The model is overloaded.");
    omni.fake().push([unavailable(), unavailable()]);
    let done = compact(&omni, &["--keep", "3"]);
    assert_eq!(done["covers"], serde_json::json!([1, 2]), "{done}");

    let before = tree(&omni);
    omni.fake().push((0..3).map(|_| unavailable()));
    let out = omni.ctl(&["--json", "compact"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let retries = out
        .json_lines()
        .iter()
        .filter(|l| l["event"] == "retrying")
        .count();
    assert_eq!(retries, 2, "{}", out.stdout);
    assert_eq!(tree(&omni), before);
}
