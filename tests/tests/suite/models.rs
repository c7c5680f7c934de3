//! Beyond one model: a session that moves between Gemini and an OpenAI-compatible server
//! with its tool calls, fallback when a model cannot answer (and never after a 400), and
//! naming and switching models over the socket, HTTP and the chat.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer as GeminiAnswer, Reply as GeminiReply};
use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply};
use omni_tests::local::{messages, with_local};
use omni_tests::scenario::{retries, tools_file};
use serde_json::{Value, json};

#[test]
fn a_session_moves_between_gemini_and_an_openai_server_with_its_tool_calls() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(&local, "", &[]);
    let tools = tools_file(&omni);
    omni.ctl(&["new", "--tools", tools.to_str().unwrap()]).ok();

    // Gemini calls a function (its first call carries a thought signature).
    omni.fake().push([GeminiReply::Answer(GeminiAnswer::calls([(
        "get_weather",
        json!({"city": "Rome"}),
        None,
    )]))]);
    omni.ctl(&["send", "weather in Rome?"]).ok();
    omni.ctl(&["tool-result", "get_weather", r#"{"temp_c": 25}"#])
        .ok();

    // To the OpenAI server: Gemini's call (it had no id) and its result pair up, and no
    // signature travels (the fake refuses keys it does not know).
    omni.ctl(&["model", "local/qwen"]).ok();
    local.push([Reply::Answer(Answer::tool_calls([(
        "call_x",
        "get_time",
        json!({"tz": "Europe/Rome"}),
    )]))]);
    omni.ctl(&["send", "and the time?"]).ok();
    let sent = messages(&local, 0);
    assert_eq!(sent[1]["role"], "assistant");
    let id = sent[1]["tool_calls"][0]["id"].as_str().unwrap();
    assert_eq!(sent[2]["tool_call_id"], id);
    assert!(!local.requests()[0].body.contains("sig-get_weather"));
    omni.ctl(&["tool-result", "get_time", r#"{"time": "noon"}"#])
        .ok();

    // Back to Gemini: its own call keeps its signature; the other's call carries the
    // placeholder Gemini documents for calls it did not make.
    omni.ctl(&["model", "gemini/fake-model"]).ok();
    omni.ctl(&["send", "thanks"]).ok();
    let request = omni.fake().requests().last().unwrap().json();
    let signatures: Vec<Value> = request["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap().clone())
        .filter(|p| p.get("functionCall").is_some())
        .map(|p| p["thoughtSignature"].clone())
        .collect();
    assert_eq!(
        signatures,
        [
            json!("sig-get_weather"),
            json!("skip_thought_signature_validator")
        ]
    );

    // The transcript says who answered where it changes.
    let out = omni.ctl(&["history", "--no-pager"]).ok();
    let markers: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.contains("model: ") && l.contains("──"))
        .collect();
    assert_eq!(markers.len(), 3, "{}", out.stdout);
    assert!(markers[1].contains("local/qwen"), "{markers:?}");
}

#[test]
fn fallback_on_an_exhausted_quota_and_an_open_breaker_but_never_on_a_400() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(
        &local,
        "fallback = [\"local/backup\"]",
        &["--breaker-failures", "2", "--breaker-cooldown-ms", "600000"],
    );
    omni.new_session();

    // Gemini's daily quota is gone: the same context goes to the fallback at once.
    omni.fake().push([GeminiReply::error(
        429,
        "RESOURCE_EXHAUSTED",
        "Quota exceeded for metric: generate_content_free_tier_requests, limit: 0",
    )]);
    let lines = omni.ctl(&["--json", "send", "hello"]).ok().json_lines();
    let notice = retries(&lines)[0];
    assert_eq!(notice["fallback_to"], "local/backup");
    assert_eq!(notice["class"], "quota_exhausted");
    let answer = lines.last().unwrap();
    assert_eq!(answer["model"]["provider"], "local");
    assert_eq!(answer["model"]["model"], "backup");
    let sent = messages(&local, 0);
    assert_eq!(sent.last().unwrap()["content"], "hello");

    // The next send starts from the session's own model again; this time it is
    // overloaded through every retry, which opens its breaker: the fallback answers.
    omni.fake()
        .push((0..2).map(|_| omni_tests::scenario::overloaded()));
    let gemini_before = omni.fake().request_count();
    let lines = omni.ctl(&["--json", "send", "again"]).ok().json_lines();
    assert!(
        omni.fake().request_count() > gemini_before,
        "Gemini was asked first"
    );
    assert_eq!(
        retries(&lines).last().unwrap()["fallback_to"],
        "local/backup"
    );
    assert_eq!(lines.last().unwrap()["model"]["provider"], "local");

    // With its breaker open, Gemini is not even asked.
    let gemini_before = omni.fake().request_count();
    let lines = omni.ctl(&["--json", "send", "once more"]).ok().json_lines();
    assert_eq!(omni.fake().request_count(), gemini_before);
    assert_eq!(retries(&lines)[0]["class"], "circuit_open");
    assert_eq!(lines.last().unwrap()["model"]["model"], "backup");
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert!(
        status["breakers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["state"] == "open"),
        "{status}"
    );
}

#[test]
fn a_rejected_request_never_falls_back() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(&local, "fallback = [\"local/backup\"]", &[]);
    omni.new_session();
    omni.fake().push([GeminiReply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    )]);
    omni.ctl(&["send", "hello"]).fails(3, &["invalid argument"]);
    assert_eq!(local.request_count(), 0, "a 400 is the context's fault");
}

#[test]
fn model_names_are_checked_when_given() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(&local, "", &[]);
    omni.ctl(&["new", "--model", "lcoal/qwen"])
        .fails(2, &["no provider is named `lcoal`", "gemini, local"]);
    omni.new_session();
    omni.ctl(&["model", "nowhere/x"])
        .fails(2, &["no provider is named `nowhere`"]);
    let shown = omni.ctl(&["--json", "model"]).ok().json();
    assert_eq!(shown["model"], "gemini/fake-model");
}

#[test]
fn over_http_a_session_names_its_model_chain_and_system_instruction_and_switches_model() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(&local, "", &[]);
    let api = omni.api();
    let created = api.post(
        "/v1/sessions",
        r#"{"model": "local/qwen", "fallback": ["fake-model"], "system": "Answer briefly."}"#,
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["session"].as_str().unwrap().to_string();
    let summary = api.get(&format!("/v1/sessions/{id}")).json();
    assert_eq!(summary["model"], "local/qwen");
    assert_eq!(summary["fallback"], json!(["gemini/fake-model"]));

    let sent = api.post(&format!("/v1/sessions/{id}/send"), r#"{"prompt": "hi"}"#);
    assert_eq!(sent.status, 200, "{}", sent.body);
    let first = messages(&local, 0);
    assert_eq!(
        first[0],
        json!({"role": "system", "content": "Answer briefly."})
    );

    let switched = api.request(
        "PUT",
        &format!("/v1/sessions/{id}/model"),
        &[],
        r#"{"model": "fake-model"}"#,
    );
    assert_eq!(switched.status, 200, "{}", switched.body);
    assert_eq!(switched.json()["model"], "gemini/fake-model");
    let sent = api.post(&format!("/v1/sessions/{id}/send"), r#"{"prompt": "and?"}"#);
    assert_eq!(sent.status, 200, "{}", sent.body);
    let request = omni.fake().requests().last().unwrap().json();
    assert_eq!(
        request["systemInstruction"],
        json!({"parts": [{"text": "Answer briefly."}]})
    );
    assert_eq!(request["contents"].as_array().unwrap().len(), 3);

    let unknown = api.request(
        "PUT",
        &format!("/v1/sessions/{id}/model"),
        &[],
        r#"{"model": "nowhere/x"}"#,
    );
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    assert_eq!(unknown.json()["error"]["kind"], "invalid_request");
}

#[test]
fn the_chat_shows_and_switches_the_model() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(&local, "fallback = [\"local/backup\"]", &[]);
    let id = omni.new_session();
    let out = omni
        .ctl_with_stdin(
            &["chat", "-s", &id],
            Some("/model\n/model local/qwen\nhello\n"),
        )
        .ok();
    assert!(
        out.stdout
            .contains("model: gemini/fake-model, then local/backup"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("model: local/qwen, then local/backup · from the next prompt on"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("You said: hello"), "{}", out.stdout);
    assert_eq!(local.request_count(), 1);
}
