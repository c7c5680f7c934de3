//! The fake refuses what the real API refuses, with its messages, and checks the key.

use serde_json::{Value, json};

use super::{Answer, FakeOpenAi, OpenAiResponse, Reply, calls, chat, request, result, send, user};
use crate::fake_openai::http::mask;

/// Sends `body`, expects OpenAI's 400 and returns its message.
fn refused(fake: &FakeOpenAi, body: &Value) -> String {
    let reply = chat(fake, body);
    assert_eq!(reply.status, 400, "{:?}", reply.body);
    let error = reply.error();
    assert_eq!(error["type"], "invalid_request_error");
    error["message"].as_str().unwrap().to_string()
}

#[test]
fn requests_the_real_api_would_refuse_are_refused_without_using_the_script() {
    let fake = FakeOpenAi::start().unwrap();
    fake.push([Reply::Answer(Answer::text(["scripted"]))]);

    let unanswered = request(json!([
        user("hi"),
        calls(&["call_a", "call_b"]),
        result("call_a")
    ]));
    let message = refused(&fake, &unanswered);
    assert!(
        message.starts_with("An assistant message with 'tool_calls' must be followed by tool")
            && message.ends_with("did not have response messages: call_b"),
        "{message}"
    );
    let swapped = request(json!([
        user("hi"),
        calls(&["a", "b"]),
        result("b"),
        result("a")
    ]));
    assert!(refused(&fake, &swapped).ends_with("response messages: a, b"));
    let orphan = request(json!([user("hi"), result("call_a")]));
    assert!(refused(&fake, &orphan).contains("must be a response to a preceeding message"));
    let extra = request(json!([user("hi"), calls(&["a"]), result("a"), result("a")]));
    assert!(refused(&fake, &extra).contains("role 'tool' must be a response"));

    let mut signed = calls(&["call_a"]);
    signed["tool_calls"][0]["thoughtSignature"] = json!("sig");
    let leaked = request(json!([user("hi"), signed, result("call_a")]));
    assert_eq!(
        refused(&fake, &leaked),
        "Unrecognized request argument supplied: thoughtSignature"
    );
    let thinking = json!({"role": "assistant", "content": "x", "reasoning_content": "hm"});
    assert!(refused(&fake, &request(json!([user("a"), thinking]))).ends_with("reasoning_content"));

    let mut bad_arguments = calls(&["a"]);
    bad_arguments["tool_calls"][0]["function"]["arguments"] = json!({"city": "Paris"});
    assert!(
        refused(
            &fake,
            &request(json!([user("a"), bad_arguments, result("a")]))
        )
        .contains("arguments")
    );
    let mut not_streamed = request(json!([user("hi")]));
    not_streamed["stream"] = json!(false);
    assert!(refused(&fake, &not_streamed).contains("only allowed when 'stream' is enabled"));
    not_streamed["stream"] = json!("yes");
    assert!(refused(&fake, &not_streamed).contains("Invalid type for 'stream'"));
    assert!(refused(&fake, &request(json!([]))).contains("empty array"));
    let wrong_role = json!({"role": "model", "content": "x"});
    assert!(refused(&fake, &request(json!([wrong_role]))).starts_with("Invalid value: 'model'"));
    let mut bad_tools = request(json!([user("hi")]));
    bad_tools["tools"] = json!([{"type": "function", "function": {"name": ""}}]);
    assert!(refused(&fake, &bad_tools).contains("tools[0].function.name"));

    let lost = send(
        &fake,
        "POST",
        "/v1beta/models/m:streamGenerateContent",
        None,
        &json!({}),
    )
    .unwrap();
    assert_eq!(lost.status, 404);
    assert_eq!(lost.error()["code"], "unknown_url");

    // Every request was recorded, and the script is still there for a valid one.
    assert_eq!(fake.request_count(), 13);
    let mut good = request(json!([
        user("hi"),
        calls(&["a", "b"]),
        result("a"),
        result("b")
    ]));
    good["tools"] = json!([{"type": "function", "function": {"name": "get_weather",
        "description": "d", "parameters": {"type": "object"}}}]);
    assert_eq!(chat(&fake, &good).joined("content"), "scripted");
    assert!(
        chat(&fake, &good)
            .joined("content")
            .starts_with("Thanks: Tool a returned {\"temp_c\":21}; Tool b returned")
    );
}

#[test]
fn a_key_is_required_when_set_and_never_echoed_whole() {
    let fake = FakeOpenAi::with_key("sk-local-secret").unwrap();
    let body = request(json!([user("hi")]));
    let path = "/v1/chat/completions";

    let none = send(&fake, "POST", path, None, &body).unwrap();
    assert_eq!(none.status, 401);
    assert!(
        none.error()["message"]
            .as_str()
            .unwrap()
            .starts_with("You didn't provide an API key")
    );

    let wrong = send(
        &fake,
        "POST",
        path,
        Some("Bearer sk-wrong-key-12345"),
        &body,
    )
    .unwrap();
    assert_eq!(wrong.status, 401);
    let error = wrong.error();
    assert_eq!(error["code"], "invalid_api_key");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("Incorrect API key provided: sk-wr****2345."),
        "{message}"
    );
    assert!(!wrong.body.as_ref().unwrap().contains("sk-wrong-key-12345"));

    let right = send(&fake, "POST", path, Some("Bearer sk-local-secret"), &body).unwrap();
    assert_eq!(right.status, 200);
    assert!(right.joined("content").starts_with("You said: hi."));
    assert_eq!(
        fake.requests()[2].header("Authorization"),
        Some("Bearer sk-local-secret")
    );

    assert_eq!(mask("sk-local-secret"), "sk-lo****cret");
    assert_eq!(mask("short-key"), "****");
}
