//! The OpenAI-compatible endpoint on the proxy listener: an OpenAI client pointed at omnid
//! (`OPENAI_BASE_URL=http://ADDR/v1`) has its transient failures healed, a cut stream
//! continued seamlessly, its failures written down, and its streamed conversations
//! recorded as sessions (tool calls included) that `history` shows.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::net::SocketAddr;

use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply};
use omni_tests::harness::Omni;
use omni_tests::http::{Api, HttpReply, Target};
use omni_tests::local::{LOCAL_KEY, with_local};
use omni_tests::proxy::recorded;
use serde_json::{Value, json};

/// A daemon whose provider `local` is the fake, with the proxy on a free port.
fn start(fake: &FakeOpenAi) -> (Omni, Api) {
    let omni = with_local(fake, "", &["--proxy-listen", "127.0.0.1:0"]);
    let status = omni.ctl(&["--json", "status"]).ok().json();
    let address: SocketAddr = status["proxy"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    (omni, Api::new(Target::Tcp(address), None))
}

/// A chat-completions request with the provider's key.
fn chat(api: &Api, body: &Value) -> HttpReply {
    let bearer = format!("Bearer {LOCAL_KEY}");
    api.request(
        "POST",
        "/v1/chat/completions",
        &[
            ("authorization", &bearer),
            ("user-agent", "OpenAI/Python 1.0"),
        ],
        &body.to_string(),
    )
}

/// The data of each event of a streamed body (`[DONE]` as the string "[DONE]").
fn data_of(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap_or_else(|_| json!(data.trim())))
        .collect()
}

/// The streamed text, joined.
fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["content"].as_str())
        .collect()
}

fn answer() -> Answer {
    Answer::text(["Hello ", "from ", "the ", "fake ", "model"])
}

#[test]
fn a_stream_is_healed_past_a_503_and_a_cut_and_recorded() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake);
    fake.push([
        Reply::error(503, "server_error", None, "overloaded"),
        Reply::Cut {
            answer: answer(),
            after: 3,
        },
        Reply::Answer(answer()),
    ]);
    let body = json!({
        "model": "local/gpt-fake",
        "stream": true,
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"}
        ]
    });
    let reply = chat(&api, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let events = data_of(&reply.body);
    assert_eq!(
        text_of(&events),
        "Hello from the fake model",
        "{}",
        reply.body
    );
    let finishes = events
        .iter()
        .filter(|e| e["choices"][0]["finish_reason"].is_string())
        .count();
    assert_eq!(finishes, 1, "{}", reply.body);
    assert_eq!(events.last(), Some(&json!("[DONE]")));
    // Three attempts reached the fake, each asking for the model by its own name.
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(|r| r.json()["model"] == "gpt-fake"));

    // Both failures are written down, the cut one as a broken stream.
    let listed = omni.ctl(&["--json", "logs", "list"]).ok().json();
    let classes: Vec<&str> = listed["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes.len(), 2, "{listed}");

    // The conversation is a session, named after the API and the client.
    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["origin"], "openai proxy (OpenAI/Python 1.0)");
    let id = sessions[0]["id"].as_str().unwrap();
    let history = omni.ctl(&["history", "-s", id]).ok().stdout;
    assert!(history.contains("hi"), "{history}");
    assert!(history.contains("Hello from the fake model"), "{history}");
}

#[test]
fn tool_calls_and_their_results_continue_the_recorded_session() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake);
    fake.push([Reply::Answer(Answer::tool_calls([(
        "call_1",
        "get_weather",
        json!({"city": "Paris"}),
    )]))]);
    let mut messages = vec![json!({"role": "user", "content": "weather in Paris?"})];
    let first = chat(
        &api,
        &json!({"model": "gpt-fake", "stream": true, "messages": messages}),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    let call = data_of(&first.body).iter().find_map(|e| {
        e["choices"][0]["delta"]["tool_calls"][0]["function"]["name"]
            .as_str()
            .map(str::to_string)
    });
    assert_eq!(call.as_deref(), Some("get_weather"));

    messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
    ]}));
    messages.push(json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"temp_c\":21}"}));
    let second = chat(
        &api,
        &json!({"model": "gpt-fake", "stream": true, "messages": messages}),
    );
    assert_eq!(second.status, 200, "{}", second.body);
    assert!(
        text_of(&data_of(&second.body)).contains("call_1"),
        "{}",
        second.body
    );

    // One session: the second request continued the first's recording.
    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let id = sessions[0]["id"].as_str().unwrap();
    let history = omni.history_of(id);
    let roles: Vec<&str> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "tool", "model"], "{history}");
}

#[test]
fn keys_are_refused_in_openais_shape_and_models_is_routed_by_the_clients_headers() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (_omni, api) = start(&fake);
    let body = json!({"model": "gpt-fake", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let reply = api.request(
        "POST",
        "/v1/chat/completions",
        &[("authorization", "Bearer sk-wrong")],
        &body.to_string(),
    );
    assert_eq!(reply.status, 401, "{}", reply.body);
    assert_eq!(
        reply.json()["error"]["code"],
        "invalid_api_key",
        "{}",
        reply.body
    );
    // `/v1/models` with a bearer token is OpenAI's: refused in its shape too.
    let models = api.request(
        "GET",
        "/v1/models",
        &[("authorization", "Bearer sk-wrong")],
        "",
    );
    assert_eq!(models.status, 401);
    assert_eq!(
        models.json()["error"]["type"],
        "invalid_request_error",
        "{}",
        models.body
    );
    assert_eq!(
        fake.request_count(),
        0,
        "nothing refused reached the upstream"
    );
}
