//! Beyond Gemini: a session answered by an OpenAI-compatible server (a fake one on
//! 127.0.0.1 that validates requests as the real API does), tool calls included; a session
//! that switches between Gemini and it; and fallback when a model cannot answer.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer as GeminiAnswer, Reply as GeminiReply};
use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply};
use omni_tests::harness::Omni;
use omni_tests::scenario::{retries, tools_file};
use serde_json::{Value, json};

/// A daemon whose file names the fake server as the provider `local`.
fn with_local(local: &FakeOpenAi, extra: &str, args: &[&str]) -> Omni {
    let config = format!(
        "{extra}\n[providers.local]\nkind = \"openai\"\nbase_url = \"{}\"\napi_key_env = \"LOCAL_KEY\"\n",
        local.url()
    );
    Omni::builder()
        .config(&config)
        .env("LOCAL_KEY", "sk-local-secret")
        .args(&[
            "--retry-initial-delay-ms",
            "20",
            "--retry-max-delay-ms",
            "2000",
        ])
        .args(args)
        .start()
}

fn messages(local: &FakeOpenAi, index: usize) -> Vec<Value> {
    local.requests()[index].json()["messages"]
        .as_array()
        .cloned()
        .unwrap()
}

fn events<'a>(lines: &'a [Value], name: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == name).collect()
}

#[test]
fn a_session_on_an_openai_compatible_server_holds_a_conversation_with_tool_calls() {
    let local = FakeOpenAi::with_key("sk-local-secret").unwrap();
    let omni = with_local(&local, "", &[]);
    let tools = tools_file(&omni);
    omni.ctl(&[
        "new",
        "--tools",
        tools.to_str().unwrap(),
        "--model",
        "local/qwen2.5:7b",
    ])
    .ok();
    local.push([Reply::Answer(Answer::tool_calls([
        ("call_a", "get_weather", json!({"city": "Paris"})),
        ("call_b", "get_time", json!({"tz": "Europe/Paris"})),
    ]))]);
    let lines = omni
        .ctl(&["--json", "send", "weather and time in Paris?"])
        .ok()
        .json_lines();
    let calls = events(&lines, "function_call");
    assert_eq!(calls.len(), 2, "{lines:?}");
    assert_eq!(
        (&calls[0]["name"], &calls[0]["id"], &calls[0]["args"]),
        (
            &json!("get_weather"),
            &json!("call_a"),
            &json!({"city": "Paris"})
        )
    );
    assert_eq!(calls[1]["id"], "call_b");

    // The results go back as tool messages answering each call, in order (the fake
    // refuses anything else, as the real API does).
    omni.ctl(&[
        "tool-result",
        "--id",
        "call_a",
        "get_weather",
        r#"{"temp_c": 21}"#,
    ])
    .ok();
    let out = omni
        .ctl(&[
            "tool-result",
            "--id",
            "call_b",
            "get_time",
            r#"{"time": "noon"}"#,
        ])
        .ok();
    assert!(
        out.stdout.contains("Tool call_b returned"),
        "{}",
        out.stdout
    );
    let sent = messages(&local, 1);
    let roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool"]);
    assert_eq!(sent[1]["tool_calls"][1]["function"]["name"], "get_time");
    assert_eq!(sent[2]["tool_call_id"], "call_a");
    assert_eq!(sent[3]["tool_call_id"], "call_b");
    let request = local.requests()[1].json();
    assert_eq!(request["model"], "qwen2.5:7b");
    assert_eq!(request["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(
        local.requests()[1].header("authorization"),
        Some("Bearer sk-local-secret")
    );

    // A streamed answer with reasoning: text arrives in pieces, the reasoning as thoughts.
    local.push([Reply::Answer(
        Answer::text(["It is ", "sunny ", "at noon."]).reasoning(["Weather ", "and time known."]),
    )]);
    let lines = omni.ctl(&["--json", "send", "so?"]).ok().json_lines();
    assert_eq!(events(&lines, "text").len(), 3, "{lines:?}");
    assert_eq!(events(&lines, "thought").len(), 2, "{lines:?}");
    let result = lines.last().unwrap();
    assert_eq!(result["text"], "It is sunny at noon.");
    let history = omni.ctl(&["--json", "history"]).ok().json();
    let last = history["entries"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (&last["model"]["provider"], &last["model"]["model"]),
        (&json!("local"), &json!("qwen2.5:7b"))
    );
    assert_eq!(last["model"]["finish_reason"], "stop");
    assert!(last["model"]["usage"]["total_tokens"].as_u64().unwrap() > 0);
    // The key is in no log.
    assert!(!omni_tests::harness::any_file_holds(
        omni.dir(),
        b"sk-local-secret"
    ));
}

#[test]
fn every_error_class_of_an_openai_compatible_server() {
    let local = FakeOpenAi::start().unwrap();
    let omni = with_local(&local, "", &[]);
    omni.ctl(&["new", "--model", "local/m"]).ok();

    // Rate limited with retry-after-ms, overloaded, a reset, a cut stream: all healed.
    local.push([
        Reply::rate_limited(150),
        Reply::server_error(503),
        Reply::Reset,
        Reply::Cut {
            answer: Answer::text(["half ", "an ", "answer"]),
            after: 2,
        },
    ]);
    let lines = omni.ctl(&["--json", "send", "hello"]).ok().json_lines();
    let retried: Vec<&str> = retries(&lines)
        .iter()
        .map(|r| r["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        retried,
        ["rate_limited", "overloaded", "network", "invalid_stream"]
    );
    assert!(retries(&lines)[0]["wait_ms"].as_u64().unwrap() >= 150);
    assert!(
        lines.last().unwrap()["text"]
            .as_str()
            .unwrap()
            .starts_with("You said: hello")
    );

    // An exhausted quota is not retried.
    let before = local.request_count();
    local.push([Reply::insufficient_quota()]);
    omni.ctl(&["send", "more"]).fails(
        1,
        &[
            "exceeded your current quota",
            "will not recover by retrying",
        ],
    );
    assert_eq!(local.request_count(), before + 1);

    // A conversation too long for the model stops and asks.
    local.push([Reply::context_length_exceeded()]);
    omni.ctl(&["send", "and more"])
        .fails(3, &["maximum context length", "too long for this model"]);
}

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

#[test]
fn flags_alone_point_the_daemon_at_an_openai_compatible_server_with_its_key_from_the_environment() {
    let server = FakeOpenAi::with_key("sk-from-the-environment").unwrap();
    let omni = Omni::builder()
        .base_url(&server.url())
        .args(&["--provider", "openai"])
        .env("OPENAI_API_KEY", "sk-from-the-environment")
        .start();
    omni.new_session();
    let answer = omni.ctl(&["--json", "send", "hello"]).ok().json_lines();
    let result = answer.last().unwrap();
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .starts_with("You said: hello"),
        "{result}"
    );
    assert_eq!(
        (&result["model"]["provider"], &result["model"]["model"]),
        (&json!("openai"), &json!("fake-model"))
    );
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["model"], "openai/fake-model");
    assert_eq!(server.request_count(), 1);
    assert_eq!(omni.fake().request_count(), 0, "Gemini is not asked");
    let printed = omni.ctl(&["status"]).ok().stdout;
    assert!(!printed.contains("sk-from-the-environment"), "{printed}");
    assert!(!omni_tests::harness::any_file_holds(
        omni.dir(),
        b"sk-from-the-environment"
    ));
}
