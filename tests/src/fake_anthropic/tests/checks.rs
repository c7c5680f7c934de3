//! The fake refuses what the real API refuses, with its status, type and message, and
//! takes nothing from the script for a refused request.

use serde_json::{Value, json};

use super::{
    Answer, DEFAULT_KEY, FakeAnthropic, Reply, SDK_HEADERS, VERSION, messages, request, results,
    send_with, text_of, user, uses,
};

/// Sends `body` and expects a 400 `invalid_request_error`; returns its message.
fn refused(fake: &FakeAnthropic, body: &Value) -> String {
    let reply = messages(fake, body);
    assert_eq!(reply.status, 400, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    body["error"]["message"].as_str().unwrap().to_string()
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

#[test]
fn every_broken_rule_gets_the_400_the_real_api_gives() {
    let fake = FakeAnthropic::start().unwrap();
    fake.push([Reply::Answer(Answer::text(["scripted"]))]);
    let good = request(json!([user("hi")]), true);
    let without = |key: &str| {
        let mut body = good.clone();
        body.as_object_mut().unwrap().remove(key);
        body
    };
    assert_eq!(
        refused(&fake, &without("max_tokens")),
        "max_tokens: Field required"
    );
    assert_eq!(refused(&fake, &without("model")), "model: Field required");
    assert_eq!(
        refused(&fake, &without("messages")),
        "messages: Field required"
    );
    let cases: Vec<(Value, &str)> = vec![
        (json!([]), "messages: at least one message is required"),
        (
            json!([assistant("hi"), user("x")]),
            "messages: first message must use the \"user\" role",
        ),
        (
            json!([user("a"), user("b")]),
            "but found multiple \"user\" roles in a row",
        ),
        (
            json!([user("a"), assistant("b"), assistant("c")]),
            "multiple \"assistant\" roles",
        ),
        (
            json!([{"role": "system", "content": "s"}, user("a")]),
            "accepts a top-level `system`",
        ),
        (
            json!([user("a"), uses(&["t1", "t2"]), results(&["t1"])]),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2.",
        ),
        (
            json!([
                user("a"),
                uses(&["t1"]),
                user("b"),
                assistant("c"),
                results(&["t1"])
            ]),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1.",
        ),
        (
            json!([user("a"), uses(&["t1"]), results(&["t1", "t9"])]),
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: t9.",
        ),
        (
            json!([results(&["t1"])]),
            "unexpected `tool_use_id` found in `tool_result` blocks: t1.",
        ),
        (
            json!([user("a"), uses(&["t1"])]),
            "without `tool_result` blocks immediately after: t1.",
        ),
        (
            json!([user("a"), {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]}]),
            "messages.1.content.0.thinking.signature: Field required",
        ),
        (
            json!([user("a"), {"role": "assistant", "content": [{"type": "text", "text": "x",
                                                               "thoughtSignature": "s"}]}]),
            "messages.1.content.0.text.thoughtSignature: Extra inputs are not permitted",
        ),
        (
            json!([{"role": "user", "content": [{"type": "functionResponse"}]}]),
            "Input tag 'functionResponse' found using 'type' does not match",
        ),
        (
            json!([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
            "text content blocks must be non-empty",
        ),
        (
            json!([user(""), assistant("x")]),
            "messages.0: all messages must have non-empty content",
        ),
        (
            json!([{"role": "model", "content": "x"}]),
            "messages.0.role: Input should be 'user' or 'assistant'",
        ),
    ];
    for (list, expected) in cases {
        let message = refused(&fake, &request(list.clone(), true));
        assert!(message.contains(expected), "{list}: {message}");
    }
    let mut zero = good.clone();
    zero["max_tokens"] = json!(0);
    assert!(refused(&fake, &zero).contains("greater than or equal to 1"));
    let mut budget = good.clone();
    budget["thinking"] = json!({"type": "enabled", "budget_tokens": 2048});
    assert!(
        refused(&fake, &budget)
            .contains("`max_tokens` must be greater than `thinking.budget_tokens`")
    );
    let mut system = good.clone();
    system["system"] = json!([{"type": "image"}]);
    assert_eq!(
        refused(&fake, &system),
        "system.0.type: Input should be 'text'"
    );
    let mut tools = good.clone();
    tools["tools"] = json!([{"name": "get weather", "input_schema": {}}]);
    assert!(refused(&fake, &tools).contains("tools.0.custom.name"));
    tools["tools"] = json!([{"name": "get_weather"}]);
    assert_eq!(
        refused(&fake, &tools),
        "tools.0.custom.input_schema: Field required"
    );
    // A system turn among the messages needs its beta (Claude Code sends it), and then
    // takes no part in alternation.
    let system_turn = request(
        json!([user("a"), {"role": "system", "content": "Agents: none."}, assistant("b"), user("c")]),
        true,
    );
    assert!(refused(&fake, &system_turn).contains("accepts a top-level `system`"));
    let mut headers = SDK_HEADERS.to_vec();
    headers.push((
        "anthropic-beta",
        "claude-code-20250219,mid-conversation-system-2026-04-07",
    ));
    let with_beta = send_with(&fake, "POST", "/v1/messages", &headers, &system_turn).unwrap();
    assert_eq!(with_beta.status, 200, "{:?}", with_beta.body);
    let scripted = text_of(&super::stream::assemble(&with_beta.events()));
    assert_eq!(
        scripted, "scripted",
        "a refused request took nothing from the script"
    );
    let mut extra = good.clone();
    extra["generationConfig"] = json!({});
    assert_eq!(
        refused(&fake, &extra),
        "generationConfig: Extra inputs are not permitted"
    );

    // A valid history of tool use, thinking and a prefill passes.
    let signed = json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hm", "signature": "sig"},
        {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}]});
    let mut history = request(
        json!([user("a"), signed, results(&["t1"]), assistant("")]),
        true,
    );
    history["system"] = json!("Be brief.");
    history["tools"] = json!([{"name": "get_weather", "description": "d",
                               "input_schema": {"type": "object"}},
                              {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]);
    history["thinking"] = json!({"type": "enabled", "budget_tokens": 512});
    history["output_config"] = json!({"effort": "high"});
    let reply = messages(&fake, &history);
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let said = text_of(&super::stream::assemble(&reply.events()));
    assert!(said.starts_with("Thanks: Tool t1 returned 21C."), "{said}");
}

#[test]
fn the_key_and_the_version_header_are_checked_first() {
    let fake = FakeAnthropic::with_key("sk-ant-own").unwrap();
    let body = request(json!([user("hi")]), true);
    let error = |headers: &[(&str, &str)], path: &str| {
        let reply = send_with(&fake, "POST", path, headers, &body).unwrap();
        let error = reply.json()["error"].clone();
        (
            reply.status,
            error["type"].as_str().unwrap().to_string(),
            error["message"].as_str().unwrap().to_string(),
        )
    };
    let path = "/v1/messages";
    assert_eq!(
        error(&[("anthropic-version", VERSION)], path),
        (
            401,
            "authentication_error".into(),
            "x-api-key header is required".into()
        )
    );
    assert_eq!(
        error(SDK_HEADERS, path).1,
        "authentication_error",
        "{DEFAULT_KEY} is not this key"
    );
    assert_eq!(
        error(&[("x-api-key", "sk-ant-own")], path),
        (
            400,
            "invalid_request_error".into(),
            "anthropic-version: header is required".into()
        )
    );
    assert_eq!(
        error(
            &[("x-api-key", "sk-ant-own"), ("anthropic-version", VERSION)],
            "/v1/complete"
        )
        .0,
        404
    );
    let bearer = [
        ("authorization", "Bearer sk-ant-own"),
        ("anthropic-version", VERSION),
    ];
    let reply = send_with(&fake, "POST", path, &bearer, &body).unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(fake.request_count(), 5);
}
