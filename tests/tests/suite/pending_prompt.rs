//! A prompt a failed send left pending: every client chooses, in the send request itself,
//! to keep it (both go out, and the stream and the reply name them) or to replace it (it
//! stays in the tree, off the path). Over the socket (`omnictl send [--replace]`) and over
//! HTTP (`"replace"` in the body, false by default).
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use omni_tests::scenario::overloaded;
use serde_json::{Value, json};

fn one_attempt() -> Omni {
    Omni::builder().args(&["--retry-max-attempts", "1"]).start()
}

fn active_texts(omni: &Omni) -> Vec<String> {
    let view = omni.ctl(&["--json", "history", "--active"]).ok().json();
    view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

fn named(lines: &[Value], event: &str) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["event"] == event)
        .cloned()
        .collect()
}

#[test]
fn over_the_socket_a_kept_prompt_is_named_and_send_replace_sends_only_the_new_one() {
    let omni = one_attempt();
    omni.ctl(&["new"]).ok();
    omni.fake().push([overloaded()]);
    assert_eq!(omni.ctl(&["send", "first"]).code, 1);

    let out = omni.ctl(&["--json", "send", "second"]).ok();
    let lines = out.json_lines();
    let merged = named(&lines, "prompts_merged");
    assert_eq!(merged.len(), 1, "{lines:?}");
    assert_eq!(merged[0]["prompts"], json!([1, 2]));
    assert_eq!(lines.last().unwrap()["prompts"], json!([1, 2]));
    let sent = omni.fake().requests().last().unwrap().body.clone();
    assert!(sent.contains("first") && sent.contains("second"), "{sent}");

    omni.fake().push([overloaded()]);
    assert_eq!(omni.ctl(&["send", "third"]).code, 1);
    let out = omni.ctl(&["send", "fourth, merged"]).ok();
    assert!(
        out.stderr.contains("sending #4, #5 together"),
        "{}",
        out.stderr
    );

    omni.fake().push([overloaded()]);
    assert_eq!(omni.ctl(&["send", "fifth"]).code, 1);
    let out = omni.ctl(&["--json", "send", "--replace", "sixth"]).ok();
    let lines = out.json_lines();
    assert!(named(&lines, "prompts_merged").is_empty(), "{lines:?}");
    let answer = lines.last().unwrap();
    assert_eq!(answer["prompts"], json!([answer["prompt_node"]]));
    let sent = omni.fake().requests().last().unwrap().body.clone();
    assert!(!sent.contains("fifth") && sent.contains("sixth"), "{sent}");
    let texts = active_texts(&omni);
    assert!(!texts.iter().any(|t| t == "fifth"), "{texts:?}");
    let all = omni.ctl(&["--json", "history"]).ok().json();
    let fifth = all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"] == "fifth")
        .unwrap()
        .clone();
    assert_eq!(
        fifth["reverted"], true,
        "it stays in the tree, off the path"
    );
}

#[test]
fn over_http_the_body_says_keep_or_replace_and_keep_is_the_default() {
    let omni = one_attempt();
    let api = omni.api();
    assert_eq!(api.post("/v1/sessions", "{}").status, 201);
    omni.fake().push([overloaded()]);
    let failed = api.request(
        "POST",
        "/v1/sessions/current/send",
        &[("accept", "application/json")],
        r#"{"prompt": "slow one"}"#,
    );
    assert_eq!(failed.status, 502, "{}", failed.body);

    let mut stream = api.events(
        "POST",
        "/v1/sessions/current/send",
        r#"{"prompt": "kept by default"}"#,
    );
    let early = stream.until("prompts_merged");
    assert_eq!(early.last().unwrap().data["prompts"], json!([1, 2]));
    let answered = stream.until("result").pop().unwrap();
    assert_eq!(answered.data["prompts"], json!([1, 2]));

    let typo = api.post(
        "/v1/sessions/current/send",
        r#"{"prompt": "x", "replace": "yes"}"#,
    );
    assert!(typo.error(400, "invalid_request").contains("\"replace\""));

    omni.fake().push([overloaded()]);
    let failed = api.request(
        "POST",
        "/v1/sessions/current/send",
        &[("accept", "application/json")],
        r#"{"prompt": "fails"}"#,
    );
    assert_eq!(failed.status, 502, "{}", failed.body);
    let replaced = api.request(
        "POST",
        "/v1/sessions/current/send",
        &[("accept", "application/json")],
        r#"{"prompt": "instead", "replace": true}"#,
    );
    assert_eq!(replaced.status, 200, "{}", replaced.body);
    let answer = replaced.json();
    assert_eq!(answer["prompts"], json!([answer["prompt_node"]]));
    let texts = active_texts(&omni);
    assert!(!texts.iter().any(|t| t == "fails"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "instead"), "{texts:?}");
}
