//! The fake Anthropic server, driven by a real HTTP client (hyper).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use serde_json::{Value, json};

use super::{Answer, DEFAULT_KEY, FakeAnthropic, Reply, VERSION};
use crate::fake_wire::client::{self, Response};

mod checks;
mod faults;
mod stream;

/// Sends `body` to `path` with these headers; `Err` if no response came back.
fn send_with(
    fake: &FakeAnthropic,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> Result<Response, hyper::Error> {
    client::send(&fake.url(), method, path, headers, &body.to_string())
}

/// The headers the official SDK sends.
const SDK_HEADERS: &[(&str, &str)] = &[("x-api-key", DEFAULT_KEY), ("anthropic-version", VERSION)];

/// `POST /v1/messages` as the SDK sends it.
fn messages(fake: &FakeAnthropic, body: &Value) -> Response {
    send_with(fake, "POST", "/v1/messages", SDK_HEADERS, body).unwrap()
}

fn request(messages: Value, stream: bool) -> Value {
    json!({"model": "claude-fake-opus", "max_tokens": 1024, "messages": messages,
           "stream": stream})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn uses(ids: &[&str]) -> Value {
    let blocks: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "tool_use", "id": id, "name": "get_weather", "input": {"city": "Paris"}}))
        .collect();
    json!({"role": "assistant", "content": blocks})
}

fn results(ids: &[&str]) -> Value {
    let blocks: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "21C"}))
        .collect();
    json!({"role": "user", "content": blocks})
}

/// The text of a message's text blocks.
fn text_of(message: &Value) -> String {
    message["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect()
}

#[test]
fn a_streamed_echo_is_a_valid_event_sequence_equal_to_the_whole_message() {
    let fake = FakeAnthropic::start().unwrap();
    assert!(fake.url().starts_with("http://127.0.0.1:"));
    let body = request(json!([user("hello")]), true);
    let reply = messages(&fake, &body);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    let events = reply.events();
    let names: Vec<&str> = events.iter().map(|e| e.name.as_deref().unwrap()).collect();
    assert_eq!(
        names[..4],
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta"
        ]
    );
    assert_eq!(
        names[names.len() - 3..],
        ["content_block_stop", "message_delta", "message_stop"]
    );
    let streamed = stream::assemble(&events);
    let said = text_of(&streamed);
    assert_eq!(
        said,
        "You said: hello. I am a fake Anthropic model, and I was sent 1 message and no system prompt."
    );
    assert_eq!(streamed["stop_reason"], "end_turn");
    assert_eq!(streamed["usage"]["input_tokens"], 10);

    let mut whole_body = body.clone();
    whole_body["stream"] = json!(false);
    whole_body["system"] = json!([{"type": "text", "text": "Be brief."}]);
    let whole = messages(&fake, &whole_body);
    assert_eq!(whole.status, 200);
    let message = whole.json();
    assert_eq!(message["type"], "message");
    assert_eq!(message["model"], "claude-fake-opus");
    assert_eq!(
        message["usage"]["input_tokens"], 20,
        "a system prompt counts"
    );
    assert!(text_of(&message).ends_with("1 message and a system prompt."));
    assert_eq!(
        message["usage"]["output_tokens"],
        streamed["usage"]["output_tokens"]
    );

    let thanks = messages(
        &fake,
        &request(
            json!([
                user("weather?"),
                uses(&["t1", "t2"]),
                results(&["t1", "t2"])
            ]),
            false,
        ),
    );
    assert!(
        text_of(&thanks.json()).starts_with("Thanks: Tool t1 returned 21C; Tool t2 returned 21C. "),
        "{:?}",
        thanks.body
    );
    assert_eq!(fake.request_count(), 3);
}

#[test]
fn tool_use_and_signed_thinking_stream_as_their_own_deltas() {
    let fake = FakeAnthropic::start().unwrap();
    let answer = Answer::text(["Let me ", "check."])
        .with_thinking(["The user ", "wants weather."], "sig-abc")
        .with_tool_uses([(
            "toolu_1",
            "get_weather",
            json!({"city": "Paris", "unit": "C"}),
        )]);
    fake.push([Reply::Answer(answer.clone()), Reply::Answer(answer)]);
    let body = request(json!([user("weather?")]), true);
    let events = messages(&fake, &body).events();
    let kinds: Vec<String> = events
        .iter()
        .filter(|e| e.name.as_deref() == Some("content_block_delta"))
        .map(|e| e.json()["delta"]["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            "thinking_delta",
            "thinking_delta",
            "signature_delta",
            "text_delta",
            "text_delta",
            "input_json_delta",
            "input_json_delta"
        ]
    );
    let streamed = stream::assemble(&events);
    let expected = json!([
        {"type": "thinking", "thinking": "The user wants weather.", "signature": "sig-abc"},
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
         "input": {"city": "Paris", "unit": "C"}}]);
    assert_eq!(streamed["content"], expected);
    assert_eq!(streamed["stop_reason"], "tool_use");
    let mut whole = body;
    whole["stream"] = json!(false);
    let message = messages(&fake, &whole).json();
    assert_eq!(message["content"], expected);
    assert_eq!(message["stop_reason"], "tool_use");
}

#[test]
fn pings_come_between_every_two_events_when_asked() {
    let fake = FakeAnthropic::start().unwrap();
    fake.push([Reply::Answer(Answer::text(["a", "b"]).with_pings())]);
    let events = messages(&fake, &request(json!([user("hi")]), true)).events();
    let names: Vec<&str> = events.iter().map(|e| e.name.as_deref().unwrap()).collect();
    for pair in names.windows(2) {
        assert!(pair.contains(&"ping"), "{names:?}");
    }
    assert_eq!(text_of(&stream::assemble(&events)), "ab");
}

#[test]
fn count_tokens_models_and_the_recorded_headers() {
    let fake = FakeAnthropic::start().unwrap();
    let mut headers = SDK_HEADERS.to_vec();
    headers.push(("anthropic-beta", "interleaved-thinking-2025-05-14"));
    let body = json!({"model": "claude-fake-opus", "system": "s",
                      "messages": [user("a"), {"role": "assistant", "content": "b"}, user("c")]});
    let count = send_with(&fake, "POST", "/v1/messages/count_tokens", &headers, &body).unwrap();
    assert_eq!(
        (count.status, count.json()),
        (200, json!({"input_tokens": 40}))
    );
    let mut with_max = body.clone();
    with_max["max_tokens"] = json!(10);
    let refused = send_with(
        &fake,
        "POST",
        "/v1/messages/count_tokens",
        &headers,
        &with_max,
    )
    .unwrap();
    assert_eq!(
        refused.json()["error"]["message"],
        "max_tokens: Extra inputs are not permitted"
    );

    let list = send_with(&fake, "GET", "/v1/models", &headers, &Value::Null)
        .unwrap()
        .json();
    assert_eq!(list["data"][0]["id"], super::MODELS[0]);
    assert_eq!(list["data"][0]["type"], "model");
    assert_eq!(list["has_more"], false);
    let one = send_with(
        &fake,
        "GET",
        "/v1/models/claude-fake-haiku",
        &headers,
        &Value::Null,
    )
    .unwrap();
    assert_eq!(one.json()["id"], "claude-fake-haiku");
    let none = send_with(&fake, "GET", "/v1/models/gpt-4", &headers, &Value::Null).unwrap();
    assert_eq!(
        (none.status, none.json()["error"]["type"].clone()),
        (404, json!("not_found_error"))
    );

    let recorded = fake.requests();
    assert_eq!(recorded.len(), 5);
    assert_eq!(recorded[0].path(), "/v1/messages/count_tokens");
    assert_eq!(
        recorded[0].header("anthropic-beta"),
        Some("interleaved-thinking-2025-05-14")
    );
    assert_eq!(recorded[0].header("X-Api-Key"), Some(DEFAULT_KEY));
    assert_eq!(recorded[0].json()["system"], "s");
}
