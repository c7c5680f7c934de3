//! Anthropic's Messages API (a fake one on 127.0.0.1 that validates requests as the real
//! API does) answering sessions: a conversation with tool calls and signed thinking,
//! every fault class, and fallback across families with a tool history valid for each.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::claude::{last_entry, messages, on_anthropic};
use omni_tests::fake_anthropic::{self, Answer, FakeAnthropic, Reply};
use omni_tests::fake_gemini;
use omni_tests::harness::Omni;
use omni_tests::local::events;
use omni_tests::scenario::{overloaded, retries, tools_file};
use serde_json::{Value, json};

/// Each message's role and its blocks' types.
fn shape(messages: &[Value]) -> Vec<(String, Vec<String>)> {
    messages
        .iter()
        .map(|m| {
            let types = m["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["type"].as_str().unwrap().to_string())
                .collect();
            (m["role"].as_str().unwrap().to_string(), types)
        })
        .collect()
}

#[test]
fn a_session_on_anthropic_holds_a_conversation_with_tool_calls_and_signed_thinking() {
    let server = FakeAnthropic::start().unwrap();
    let omni = on_anthropic(&server, &[]);
    let tools = tools_file(&omni);
    omni.ctl(&[
        "new",
        "--tools",
        tools.to_str().unwrap(),
        "--model",
        "anthropic/claude-sonnet-4-5",
    ])
    .ok();
    server.push([Reply::Answer(
        Answer::text(["Let me ", "look."])
            .with_thinking(["The user ", "wants weather."], "sig-of-claude")
            .with_tool_uses([
                ("toolu_a", "get_weather", json!({"city": "Paris"})),
                ("toolu_b", "get_time", json!({"tz": "Europe/Paris"})),
            ])
            .with_pings(),
    )]);
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
            &json!("toolu_a"),
            &json!({"city": "Paris"})
        )
    );
    assert_eq!(calls[1]["id"], "toolu_b");
    assert_eq!(events(&lines, "thought").len(), 2, "{lines:?}");
    let first = server.requests()[0].json();
    assert_eq!(first["model"], "claude-sonnet-4-5");
    assert_eq!(first["max_tokens"], 8192);
    assert_eq!(first["tools"][0]["name"], "get_weather");
    assert_eq!(first["tools"][0]["input_schema"]["type"], "object");
    let headers = &server.requests()[0];
    assert_eq!(
        headers.header("x-api-key"),
        Some(fake_anthropic::DEFAULT_KEY)
    );
    assert_eq!(headers.header("anthropic-version"), Some("2023-06-01"));

    // Both results go back in one user turn answering each tool use by id, after the
    // answer with its thinking and signature (the fake refuses anything else).
    omni.ctl(&[
        "tool-result",
        "--id",
        "toolu_a",
        "get_weather",
        r#"{"temp_c": 21}"#,
    ])
    .ok();
    let out = omni
        .ctl(&[
            "tool-result",
            "--id",
            "toolu_b",
            "get_time",
            r#"{"time": "noon"}"#,
        ])
        .ok();
    assert!(
        out.stdout.contains("Tool toolu_a returned") && out.stdout.contains("Tool toolu_b"),
        "{}",
        out.stdout
    );
    let sent = messages(&server, 1);
    let s = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    assert_eq!(
        shape(&sent),
        [
            ("user".into(), s(&["text"])),
            (
                "assistant".into(),
                s(&["thinking", "text", "tool_use", "tool_use"])
            ),
            ("user".into(), s(&["tool_result", "tool_result"])),
        ]
    );
    assert_eq!(
        sent[1]["content"][0],
        json!({"type": "thinking", "thinking": "The user wants weather.", "signature": "sig-of-claude"})
    );
    assert_eq!(sent[2]["content"][0]["tool_use_id"], "toolu_a");
    assert_eq!(sent[2]["content"][1]["tool_use_id"], "toolu_b");

    // The answer is recorded with its provider, model, finish reason and usage.
    let last = last_entry(&omni);
    assert_eq!(
        (&last["model"]["provider"], &last["model"]["model"]),
        (&json!("anthropic"), &json!("claude-sonnet-4-5"))
    );
    assert_eq!(last["model"]["finish_reason"], "end_turn");
    let usage = &last["model"]["usage"];
    assert_eq!(usage["prompt_tokens"], 30, "{usage}");
    assert!(usage["total_tokens"].as_u64().unwrap() > 30, "{usage}");
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["model"], "anthropic/fake-model");
    assert_eq!(omni.fake().request_count(), 0, "Gemini is not asked");
    assert!(!omni_tests::harness::any_file_holds(
        omni.dir(),
        fake_anthropic::DEFAULT_KEY.as_bytes()
    ));
}

#[test]
fn every_fault_class_of_anthropic_is_healed_or_stops_and_asks() {
    let server = FakeAnthropic::start().unwrap();
    let omni = on_anthropic(
        &server,
        &["--retry-max-attempts", "8", "--breaker-failures", "10"],
    );
    omni.ctl(&["new"]).ok();
    let broken = Answer::text(["half ", "an ", "answer"]);
    server.push([
        Reply::rate_limited(1),
        Reply::overloaded(),
        Reply::api_error(),
        Reply::Cut {
            answer: broken.clone(),
            after: 3,
        },
        Reply::overloaded_mid_stream(broken, 3),
    ]);
    let lines = omni.ctl(&["--json", "send", "hello"]).ok().json_lines();
    let retried: Vec<&str> = retries(&lines)
        .iter()
        .map(|r| r["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        retried,
        [
            "rate_limited",
            "overloaded",
            "server_error",
            "network",
            "overloaded"
        ],
        "{lines:?}"
    );
    assert!(retries(&lines)[0]["wait_ms"].as_u64().unwrap() >= 1000);
    let text = lines.last().unwrap()["text"].as_str().unwrap().to_string();
    assert!(text.starts_with("You said: hello."), "{text}");
    assert_eq!(server.request_count(), 6);

    // A refused key is not retried.
    server.push([Reply::unauthenticated()]);
    omni.ctl(&["send", "again"])
        .fails(1, &["invalid x-api-key", "check the provider's API key"]);
    assert_eq!(server.request_count(), 7);
    omni.ctl(&["send", "--replace", "again"]).ok();

    // A prompt too long for the model stops and offers the ways back.
    server.push([Reply::prompt_too_long()]);
    omni.ctl(&["send", "a long one"]).fails(
        3,
        &["prompt is too long", "too long for this model", "--deep"],
    );
    let list = omni.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(list["errors"][0]["class"], "context_too_long", "{list}");
    omni.ctl(&["recover", "--clear"]).ok();

    // A tool pairing the API refuses is the mismatched-function-parts recovery.
    server.push([Reply::error(
        400,
        "invalid_request_error",
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately \
         after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` \
         block in the next message.",
    )]);
    let before = server.request_count();
    omni.ctl(&["send", "one more"])
        .fails(3, &["tool_result", "needs recovery", "--deep", "--ignore"]);
    assert_eq!(server.request_count(), before + 1, "a 400 is not retried");
    let list = omni.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(list["errors"][0]["class"], "mismatched_function_parts");

    // Its record names the headers the request carried: Anthropic's, the key's value
    // left out.
    let id = list["errors"][0]["id"].as_str().unwrap();
    let bundle = omni
        .ctl(&["logs", "export", "--error", id, "-o", "-"])
        .ok()
        .json();
    let headers = &bundle["errors"][0]["request"]["headers"];
    assert_eq!(headers["x-api-key"], "[REDACTED]", "{headers}");
    assert_eq!(headers["anthropic-version"], "2023-06-01", "{headers}");
    assert!(headers.get("x-goog-api-key").is_none(), "{headers}");
}

#[test]
fn a_tool_history_stays_valid_falling_back_from_gemini_to_anthropic_and_back() {
    let server = FakeAnthropic::start().unwrap();
    // Beside the default Gemini provider, a table takes Anthropic's name.
    let config = format!(
        "[providers.anthropic]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"ANTHROPIC_API_KEY\"\n",
        server.url()
    );
    let omni = Omni::builder()
        .config(&config)
        .env("ANTHROPIC_API_KEY", fake_anthropic::DEFAULT_KEY)
        .args(&[
            "--retry-initial-delay-ms",
            "20",
            "--retry-max-attempts",
            "2",
            "--fallback",
            "anthropic/claude-sonnet-4-5",
        ])
        .start();
    let tools = tools_file(&omni);
    omni.ctl(&["new", "--tools", tools.to_str().unwrap()]).ok();
    // Gemini calls a function without an id (Gemini 2.5 gives none).
    omni.fake()
        .push([fake_gemini::Reply::Answer(fake_gemini::Answer::calls([(
            "get_weather",
            json!({"city": "Paris"}),
            None,
        )]))]);
    omni.ctl(&["send", "weather in Paris?"]).ok();
    omni.ctl(&["tool-result", "get_weather", r#"{"temp_c": 21}"#])
        .ok();

    // Gemini stays overloaded: Claude answers with the same history, its call and result
    // paired by an id made for them, and calls a tool of its own.
    omni.fake().push([overloaded(), overloaded()]);
    server.push([Reply::Answer(
        Answer::tool_uses([("toolu_c", "get_time", json!({"tz": "Europe/Paris"}))])
            .with_thinking(["claude ", "ponders"], "sig-of-claude"),
    )]);
    let lines = omni
        .ctl(&["--json", "send", "and the time?"])
        .ok()
        .json_lines();
    assert_eq!(
        events(&lines, "function_call")[0]["id"],
        "toolu_c",
        "{lines:?}"
    );
    let sent = messages(&server, 0);
    assert_eq!(sent.len(), 5, "{sent:?}");
    let made_up = sent[1]["content"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(sent[1]["content"][0]["type"], "tool_use");
    assert_eq!(sent[2]["content"][0]["tool_use_id"], made_up.as_str());
    assert!(
        !Value::Array(sent.clone())
            .to_string()
            .contains("thoughtSignature")
    );

    // The result goes to Gemini, the session's own model, which takes Claude's call.
    omni.ctl(&[
        "tool-result",
        "--id",
        "toolu_c",
        "get_time",
        r#"{"time": "noon"}"#,
    ])
    .ok();
    let contents = omni.fake().requests().last().unwrap().contents();
    let claude_turn = contents[contents.len() - 2].to_string();
    assert!(
        claude_turn.contains("toolu_c") && claude_turn.contains("functionCall"),
        "{claude_turn}"
    );
    assert!(
        !claude_turn.contains("sig-of-claude") && !claude_turn.contains("ponders"),
        "Claude's thinking stays with Claude: {claude_turn}"
    );
    let last = last_entry(&omni);
    assert_eq!(last["model"]["provider"], "gemini");

    // Switched to Claude for good: the whole mixed history goes, valid for it.
    omni.ctl(&["model", "anthropic/claude-sonnet-4-5"]).ok();
    let out = omni.ctl(&["send", "thanks"]).ok();
    assert!(out.stdout.contains("You said: thanks."), "{}", out.stdout);
    let sent = messages(&server, 1);
    assert_eq!(sent.len(), 9, "{sent:?}");
    assert_eq!(
        sent[5]["content"][0],
        json!({"type": "thinking", "thinking": "claude ponders", "signature": "sig-of-claude"}),
        "its own thinking goes back to it"
    );
    assert_eq!(sent[5]["content"][1]["id"], "toolu_c");
    assert_eq!(sent[6]["content"][0]["tool_use_id"], "toolu_c");
    assert_eq!(last_entry(&omni)["model"]["provider"], "anthropic");
}
