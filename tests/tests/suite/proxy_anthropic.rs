//! The Anthropic-compatible endpoint on the proxy listener, forwarding to an Anthropic
//! provider: a client pointed at omnid (`ANTHROPIC_BASE_URL=http://ADDR`) has a 529 and a
//! cut stream and an error event mid-stream healed, a whole answer healed past a 529, its
//! `anthropic-beta` forwarded, its conversations, whole and streamed, recorded as one
//! session (tool uses and thinking included), and a wrong key refused in Anthropic's shape.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::net::SocketAddr;

use omni_tests::fake_anthropic::{self, Answer, FakeAnthropic, Reply};
use omni_tests::harness::Omni;
use omni_tests::http::{Api, HttpReply, Target};
use omni_tests::proxy::{only_session, only_session_with_roles, recorded};
use serde_json::{Value, json};

const KEY: &str = fake_anthropic::DEFAULT_KEY;
const BETA: &str = "interleaved-thinking-2025-05-14";

/// A daemon with the fake as the provider `claude` and the proxy on a free port.
fn start(fake: &FakeAnthropic) -> (Omni, Api) {
    let config = format!(
        "[providers.claude]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"CLAUDE_KEY\"\n",
        fake.url()
    );
    let omni = Omni::builder()
        .config(&config)
        .env("CLAUDE_KEY", KEY)
        .args(&[
            "--proxy-listen",
            "127.0.0.1:0",
            "--retry-initial-delay-ms",
            "20",
        ])
        .start();
    let status = omni.ctl(&["--json", "status"]).ok().json();
    let address: SocketAddr = status["proxy"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    (omni, Api::new(Target::Tcp(address), None))
}

/// `POST /v1/messages` as Claude Code sends it, with `key`.
fn messages(api: &Api, key: &str, body: &Value) -> HttpReply {
    api.request(
        "POST",
        "/v1/messages",
        &[
            ("x-api-key", key),
            ("anthropic-version", fake_anthropic::VERSION),
            ("anthropic-beta", BETA),
            ("user-agent", "claude-cli/2.1.197"),
        ],
        &body.to_string(),
    )
}

/// The data of each event of a streamed body.
fn data_of(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect()
}

/// The streamed text, joined.
fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["delta"]["text"].as_str())
        .collect()
}

fn answer() -> Answer {
    Answer::text(["Hello ", "from ", "the ", "fake ", "Claude"])
}

#[test]
fn a_stream_is_healed_past_a_529_a_cut_and_an_error_event_and_recorded() {
    let fake = FakeAnthropic::start().unwrap();
    let (omni, api) = start(&fake);
    fake.push([
        Reply::overloaded(),
        Reply::Cut {
            answer: answer(),
            after: 5,
        },
        Reply::overloaded_mid_stream(answer(), 6),
        Reply::Answer(answer()),
    ]);
    let body = json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "stream": true,
        "system": "be brief",
        "messages": [{"role": "user", "content": "hi"}]
    });
    let reply = messages(&api, KEY, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let events = data_of(&reply.body);
    assert_eq!(
        text_of(&events),
        "Hello from the fake Claude",
        "{}",
        reply.body
    );
    let stops = events
        .iter()
        .filter(|e| e["type"] == "message_stop")
        .count();
    assert_eq!(stops, 1, "{}", reply.body);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        requests
            .iter()
            .all(|r| r.header("anthropic-beta") == Some(BETA)
                && r.header("x-api-key") == Some(KEY)),
        "the client's beta and key go upstream on every attempt"
    );

    // Every failure is written down.
    let listed = omni.ctl(&["--json", "logs", "list"]).ok().json();
    let classes: Vec<&str> = listed["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes.len(), 3, "{listed}");
    assert!(classes.contains(&"overloaded"), "{classes:?}");

    // The conversation is a session, named after the API and the client.
    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(
        sessions[0]["origin"],
        "anthropic proxy (claude-cli/2.1.197)"
    );
    let id = sessions[0]["id"].as_str().unwrap();
    let history = omni.ctl(&["history", "-s", id]).ok().stdout;
    assert!(history.contains("hi"), "{history}");
    assert!(history.contains("Hello from the fake Claude"), "{history}");
    // Continued with omnictl, it asks the model the client asked, at the same provider.
    let model = omni.ctl(&["--json", "model", "-s", id]).ok().json();
    assert_eq!(model["model"], "claude/claude-sonnet-4-5", "{model}");
}

#[test]
fn a_tool_use_and_its_result_continue_the_recorded_session() {
    let fake = FakeAnthropic::start().unwrap();
    let (omni, api) = start(&fake);
    // Thinking, text and a tool use, cut in the middle of the tool's input: the retry
    // continues where the client is, so it sees each block once.
    let thinking_and_tool = Answer::text(["Looking."])
        .with_thinking(["weather ", "wanted"], "sig-1")
        .with_tool_uses([("toolu_1", "get_weather", json!({"city": "Paris"}))]);
    fake.push([
        Reply::Cut {
            answer: thinking_and_tool.clone(),
            after: 12,
        },
        Reply::Answer(thinking_and_tool),
    ]);
    let tools = json!([{"name": "get_weather", "input_schema": {"type": "object"}}]);
    let mut turns = vec![json!({"role": "user", "content": "weather in Paris?"})];
    let ask = |turns: &[Value]| {
        messages(
            &api,
            KEY,
            &json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
                    "tools": tools, "messages": turns}),
        )
    };
    let first = ask(&turns);
    assert_eq!(first.status, 200, "{}", first.body);
    let used = data_of(&first.body)
        .iter()
        .find_map(|e| e["content_block"]["name"].as_str().map(str::to_string));
    assert_eq!(used.as_deref(), Some("get_weather"), "{}", first.body);
    let events = data_of(&first.body);
    let starts = events
        .iter()
        .filter(|e| e["type"] == "content_block_start")
        .count();
    assert_eq!(starts, 3, "{}", first.body);
    let input: String = events
        .iter()
        .filter_map(|e| e["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&input).unwrap(),
        json!({"city": "Paris"})
    );
    assert_eq!(fake.request_count(), 2);

    turns.push(json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "weather wanted", "signature": "sig-1"},
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    ]}));
    turns.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"temp_c\":21}"}
    ]}));
    let second = ask(&turns);
    assert_eq!(second.status, 200, "{}", second.body);
    assert!(
        text_of(&data_of(&second.body)).contains("Tool toolu_1 returned"),
        "{}",
        second.body
    );

    // One session: the second request continued the first's recording.
    only_session_with_roles(&omni, &["user", "model", "tool", "model"]);
}

#[test]
fn a_wrong_key_is_refused_in_anthropics_shape_and_goes_nowhere() {
    let fake = FakeAnthropic::start().unwrap();
    let (_omni, api) = start(&fake);
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 16, "stream": true,
                      "messages": [{"role": "user", "content": "hi"}]});
    let reply = messages(&api, "sk-ant-wrong", &body);
    assert_eq!(reply.status, 401, "{}", reply.body);
    let error = reply.json();
    assert_eq!(error["type"], "error", "{}", reply.body);
    assert_eq!(
        error["error"]["type"], "authentication_error",
        "{}",
        reply.body
    );
    assert!(!reply.body.contains("sk-ant-wrong"), "{}", reply.body);
    assert_eq!(fake.request_count(), 0, "nothing refused reached upstream");
}

#[test]
fn a_whole_answer_is_healed_past_a_529() {
    let fake = FakeAnthropic::start().unwrap();
    let (omni, api) = start(&fake);
    fake.push([Reply::overloaded(), Reply::Answer(answer())]);
    let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 64,
                      "messages": [{"role": "user", "content": "hi"}]});
    let reply = messages(&api, KEY, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let message = reply.json();
    assert_eq!(message["type"], "message", "{}", reply.body);
    assert_eq!(message["content"][0]["text"], "Hello from the fake Claude");
    assert_eq!(fake.request_count(), 2);
    let history = omni.history_of(only_session(&omni)["id"].as_str().unwrap());
    let answer = &history["entries"][1];
    assert_eq!(answer["text"], "Hello from the fake Claude", "{history}");
    assert_eq!(answer["model"]["attempts"], 2, "{answer}");
    assert_eq!(answer["model"]["finish_reason"], "end_turn", "{answer}");
}

#[test]
fn a_whole_tool_use_with_thinking_and_a_streamed_follow_up_are_one_session() {
    let fake = FakeAnthropic::start().unwrap();
    let (omni, api) = start(&fake);
    let thinking_and_tool = Answer::text(["Looking."])
        .with_thinking(["weather ", "wanted"], "sig-1")
        .with_tool_uses([("toolu_1", "get_weather", json!({"city": "Paris"}))]);
    fake.push([Reply::Answer(thinking_and_tool)]);
    let mut turns = vec![json!({"role": "user", "content": "weather in Paris?"})];
    let body = |turns: &[Value], stream: bool| {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": stream,
               "messages": turns})
    };
    let first = messages(&api, KEY, &body(&turns, false));
    assert_eq!(first.status, 200, "{}", first.body);
    let content = first.json()["content"].clone();
    turns.push(json!({"role": "assistant", "content": content}));
    turns.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"temp_c\":21}"}
    ]}));
    let second = messages(&api, KEY, &body(&turns, true));
    assert_eq!(second.status, 200, "{}", second.body);
    let id = &only_session_with_roles(&omni, &["user", "model", "tool", "model"]);
    let history = omni.history_of(id);
    let parts = history["entries"][1]["parts"].to_string();
    assert!(parts.contains("sig-1"), "the signature is kept: {parts}");
    assert!(parts.contains("get_weather"), "{parts}");
}

#[test]
fn a_clients_own_compaction_is_labelled_the_clients_and_the_context_is_measured() {
    let fake = FakeAnthropic::start().unwrap();
    let (omni, api) = start(&fake);
    fake.push([Reply::Answer(answer())]);
    let summary = "This session is being continued from a previous conversation that ran \
                   out of context. The conversation is summarized below: the user fixed a bug.";
    let body = json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "stream": true,
        "messages": [{"role": "user", "content": summary}]
    });
    let reply = messages(&api, KEY, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let sessions = recorded(&omni);
    let id = sessions[0]["id"].as_str().unwrap();
    let history = omni.history_of(id);
    let first = &history["entries"][0];
    assert_eq!(first["client_compaction"], true, "{history}");
    assert_eq!(history["entries"][1]["client_compaction"], false);
    let shown = omni.ctl(&["history", "-s", id]).ok().stdout;
    assert!(shown.contains("compaction"), "{shown}");
    // The recorded answer's usage measures the context: exactly, nothing estimated.
    let usage = &history["entries"][1]["model"]["usage"];
    let context = &sessions[0]["context"];
    let counted =
        usage["prompt_tokens"].as_u64().unwrap() + usage["answer_tokens"].as_u64().unwrap();
    assert_eq!(context["tokens"].as_u64(), Some(counted), "{context}");
    assert_eq!(context["estimated"], 0, "{context}");
}
