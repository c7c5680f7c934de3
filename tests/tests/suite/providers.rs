//! An OpenAI-compatible server (a fake one on 127.0.0.1 that validates requests as the
//! real API does) answering a session: a whole conversation with tool calls, every error
//! class, and the flags-only setup.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply};
use omni_tests::harness::Omni;
use omni_tests::local::{events, messages, with_local};
use omni_tests::scenario::{retries, tools_file};
use serde_json::json;

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
