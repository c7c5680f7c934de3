//! The context window seen coming: the gauge on answers (against the `[windows]` entry),
//! a send over the window by the estimate not sent but offered compaction first, and
//! auto-compaction before a send past `context.compact_at`. Real omnid, real omnictl, the
//! fake Gemini API over HTTP.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, FakeGemini, Reply};
use omni_tests::harness::Omni;
use serde_json::Value;

/// A window of 400 tokens for the default model.
const SMALL_WINDOW: &str = "[windows]\n\"fake-model\" = 400\n";

/// A prompt of about `tokens` tokens by Omni's estimate (four bytes a token).
fn prompt_of(tokens: usize, tag: &str) -> String {
    let mut text = format!("{tag} ");
    while text.len() < tokens * 4 {
        text.push_str("word ");
    }
    text
}

/// A daemon with this configuration and a new session.
fn started(config: &str) -> Omni {
    let omni = Omni::builder().config(config).start();
    omni.ctl(&["new"]).ok();
    omni
}

/// Three short rounds, prompts `r1`..`r3`.
fn three_rounds(omni: &Omni) {
    for tag in ["r1", "r2", "r3"] {
        omni.ctl(&["send", tag]).ok();
    }
}

fn events_named<'a>(lines: &'a [Value], name: &str) -> Vec<&'a Value> {
    lines.iter().filter(|line| line["event"] == name).collect()
}

#[test]
fn an_answer_carries_the_gauge_against_the_configured_window_and_warns_past_warn_at() {
    let omni = started(&format!("{SMALL_WINDOW}[context]\nwarn_at = 5\n"));
    let answer = omni.ctl(&["--json", "send", "hello"]).ok().json_lines();
    let context = &answer.last().unwrap()["context"];
    assert_eq!(context["window"], 400, "{context}");
    assert_eq!(context["window_source"], "config", "{context}");
    assert_eq!(context["model"], "gemini/fake-model");
    assert_eq!(
        context["estimated"], 0,
        "the answer's own usage counts: {context}"
    );
    let tokens = context["tokens"].as_u64().unwrap();
    assert_eq!(
        context["percent"].as_u64(),
        Some(tokens * 100 / 400),
        "{context}"
    );
    assert!(tokens * 100 / 400 >= 5, "past warn_at: {context}");
    let warning = context["warning"].as_str().unwrap();
    assert!(warning.contains("omnictl compact"), "{warning}");
    let sent = omni.ctl(&["send", "and again"]).ok();
    assert!(
        sent.stderr.contains("omnictl compact"),
        "the warning: {}",
        sent.stderr
    );
    let shown = omni.ctl(&["history"]).ok().stdout;
    let first = shown.lines().next().unwrap_or_default();
    assert!(
        first.contains("of 400"),
        "history's first line has the gauge: {shown}"
    );
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"][0]["context"]["window"], 400);
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["current_context"]["window"], 400, "{status}");
}

#[test]
fn a_window_nobody_knows_is_unknown_and_never_warns() {
    let fake = FakeGemini::start().unwrap();
    fake.push_model_lookup(Reply::error(
        404,
        "NOT_FOUND",
        "models/fake-model is not found",
    ));
    let omni = Omni::builder()
        .fake(fake)
        .config("[context]\nwarn_at = 1\n")
        .start();
    omni.ctl(&["new"]).ok();
    let answer = omni.ctl(&["--json", "send", "hello"]).ok().json_lines();
    let context = &answer.last().unwrap()["context"];
    assert!(context["window"].is_null(), "{context}");
    assert!(
        context["percent"].is_null() && context["warning"].is_null(),
        "{context}"
    );
    let sent = omni.ctl(&["send", "again"]).ok();
    assert!(!sent.stderr.contains("omnictl compact"), "{}", sent.stderr);
    let shown = omni.ctl(&["history"]).ok().stdout;
    assert!(shown.contains("window unknown"), "{shown}");
}

#[test]
fn a_send_over_the_window_is_not_sent_and_compacting_from_the_menu_answers_it() {
    let omni = started(SMALL_WINDOW);
    three_rounds(&omni);
    let asked_before = omni.fake().request_count();
    let huge = prompt_of(500, "huge");
    let refused = omni
        .ctl(&["send", &huge])
        .fails(3, &["needs recovery", "--compact"]);
    assert!(
        refused
            .stderr
            .contains("over gemini/fake-model's window of 400"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        omni.fake().request_count(),
        asked_before,
        "nothing was sent"
    );
    let summary = omni.ctl(&["--json", "sessions"]).ok().json();
    let choices = &summary["sessions"][0]["recovery_choices"];
    assert_eq!(choices[0]["action"], "compact", "compact first: {choices}");
    assert_eq!(choices[0]["first"], true);
    assert_eq!(
        choices[0]["covers"],
        serde_json::json!([1, 2, 3, 4]),
        "{choices}"
    );
    let records = omni.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(
        records["errors"][0]["class"], "context_too_long",
        "{records}"
    );

    omni.fake().push([
        Reply::Answer(Answer::text(["SUMMARY of r1 and r2"])),
        Reply::Answer(Answer::text(["the answer to huge"])),
    ]);
    omni.ctl(&["recover", "--compact"]).ok();
    let requests = omni.fake().requests();
    let asked = &requests[requests.len() - 2].body;
    assert!(
        asked.contains("r1") && asked.contains("Summarise"),
        "{asked}"
    );
    let answered = &requests[requests.len() - 1].body;
    assert!(
        answered.contains("SUMMARY of r1 and r2") && answered.contains("huge word"),
        "{answered}"
    );
    assert!(
        !answered.contains("\"r1\""),
        "the covered prompts stay home: {answered}"
    );
    let history = omni.ctl(&["--json", "history"]).ok().json();
    let roles: Vec<&str> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user", "model", "user", "model", "user", "model", "user", "summary", "model"
        ]
    );
    assert!(history["entries"][0]["compacted"].as_bool().unwrap());
    assert!(
        history["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["reverted"] == false)
    );
    assert!(
        omni.ctl(&["--json", "sessions"]).ok().json()["sessions"][0]["needs_recovery"].is_null()
    );
}

#[test]
fn auto_compaction_compacts_before_a_send_past_compact_at_and_says_so() {
    let config = format!("{SMALL_WINDOW}[context]\nauto_compact = true\ncompact_at = 50\n");
    let omni = started(&config);
    three_rounds(&omni);
    omni.fake().push([
        Reply::Answer(Answer::text(["SUMMARY so far"])),
        Reply::Answer(Answer::text(["answered after compaction"])),
    ]);
    let sent = prompt_of(250, "long");
    let lines = omni.ctl(&["--json", "send", &sent]).ok().json_lines();
    let compacting = events_named(&lines, "compacting");
    assert_eq!(compacting.len(), 1, "{lines:?}");
    assert_eq!(compacting[0]["why"], "auto");
    let compacted = events_named(&lines, "compacted");
    assert_eq!(
        compacted[0]["covers"],
        serde_json::json!([1, 2, 3, 4]),
        "{lines:?}"
    );
    assert!(
        events_named(&lines, "text")
            .iter()
            .all(|e| e["text"] != "SUMMARY so far"),
        "the summary is not streamed as an answer"
    );
    let answer = lines.last().unwrap();
    assert_eq!(answer["text"], "answered after compaction", "{answer}");
    let last = omni.fake().requests().last().unwrap().body.clone();
    assert!(
        last.contains("SUMMARY so far") && !last.contains("\"r1\""),
        "{last}"
    );

    // `undo` twice: the answer, then the compaction; the full context is back.
    omni.ctl(&["undo"]).ok();
    omni.ctl(&["undo"]).ok();
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert!(
        history["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["compacted"] == false)
    );
}

#[test]
fn a_compacted_session_exports_and_imports_whole_and_keeps_its_context() {
    let here = started("");
    three_rounds(&here);
    here.fake()
        .push([Reply::Answer(Answer::text(["SUMMARY of r1 and r2"]))]);
    here.ctl(&["compact", "--keep", "1"]).ok();
    let session = here.ctl(&["--json", "sessions"]).ok().json()["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let file = here.dir().join("compacted.json");
    let path = file.to_str().unwrap();
    here.ctl(&["export", "-s", &session, "--format", "json", "-o", path])
        .ok();
    let there = started("");
    there.ctl(&["import", path]).ok();
    let shape = |omni: &Omni| -> Vec<(String, bool, Value)> {
        omni.history_of(&session)["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let role = e["role"].as_str().unwrap().to_string();
                (
                    role,
                    e["compacted"].as_bool().unwrap(),
                    e["compaction"].clone(),
                )
            })
            .collect()
    };
    let original = shape(&here);
    assert_eq!(original.len(), 7);
    assert_eq!(original[6].0, "summary");
    assert_eq!(original[6].2["covers"], serde_json::json!([1, 2, 3, 4]));
    assert_eq!(shape(&there), original, "the same tree, the same context");
}
