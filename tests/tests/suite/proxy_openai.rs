//! The OpenAI-compatible endpoint on the proxy listener: an OpenAI client pointed at omnid
//! (`OPENAI_BASE_URL=http://ADDR/v1`) has its transient failures healed, a cut stream
//! continued seamlessly, its failures written down, and its conversations, whole answers
//! and streamed ones alike, recorded as sessions (tool calls included) that `history`
//! shows.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply};
use omni_tests::harness::{TEST_API_KEY, any_file_holds};
use omni_tests::local::LOCAL_KEY;
use omni_tests::openai_proxy::{
    chat, data_of, logged_classes, logged_entries, proxy_address, start, text_of,
};
use omni_tests::proxy::{only_session, only_session_with_roles, proxy_status, recorded};
use serde_json::{Value, json};

fn answer() -> Answer {
    Answer::text(["Hello ", "from ", "the ", "fake ", "model"])
}

#[test]
fn a_stream_is_healed_past_a_503_and_a_cut_and_recorded() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
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
    // Continued with omnictl, it asks the model the client asked, at the same provider.
    let model = omni.ctl(&["--json", "model", "-s", id]).ok().json();
    assert_eq!(model["model"], "local/gpt-fake", "{model}");
    let history = omni.ctl(&["history", "-s", id]).ok().stdout;
    assert!(history.contains("hi"), "{history}");
    assert!(history.contains("Hello from the fake model"), "{history}");
}

#[test]
fn tool_calls_and_their_results_continue_the_recorded_session() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
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
    only_session_with_roles(&omni, &["user", "model", "tool", "model"]);
}

#[test]
fn keys_are_refused_in_openais_shape_and_models_is_routed_by_the_clients_headers() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (_omni, api) = start(&fake, &[]);
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

#[test]
fn a_whole_completion_is_healed_before_the_answer_and_every_failure_written_down() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    fake.push([Reply::server_error(503), Reply::Reset]);
    let body = json!({"model": "gpt-fake", "messages": [{"role": "user", "content": "hi"}]});
    let reply = chat(&api, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.content_type.starts_with("application/json"));
    let whole = reply.json();
    assert_eq!(whole["object"], "chat.completion", "{whole}");
    let said = whole["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(said.starts_with("You said: hi."), "{said}");
    assert_eq!(fake.request_count(), 3);
    assert_eq!(proxy_status(&omni)["healed"], 1);
    // Both failures the client never saw are written down, the reset as a transport one.
    assert_eq!(logged_classes(&omni).len(), 2);
    let entries = logged_entries(&omni);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(entries[0].contains("attempt 1/"), "{entries:?}");
    assert!(entries[1].contains("phase connect"), "{entries:?}");
    // Recorded like a streamed one, with the usage the completion counted.
    let history = omni.history_of(only_session(&omni)["id"].as_str().unwrap());
    let answer = &history["entries"][1];
    assert_eq!(answer["text"], said, "{history}");
    assert_eq!(answer["model"]["attempts"], 3, "{answer}");
    assert_eq!(answer["model"]["usage"]["prompt_tokens"], 10, "{answer}");
    assert_eq!(answer["model"]["finish_reason"], "stop", "{answer}");
}

/// The position of the first event that `is` picks.
fn position(events: &[Value], is: impl Fn(&Value) -> bool) -> usize {
    events
        .iter()
        .position(is)
        .unwrap_or_else(|| panic!("no such event in {events:?}"))
}

#[test]
fn the_usage_chunk_follows_the_finish_and_done_comes_last_after_a_cut_and_an_error_chunk() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    fake.push([
        Reply::Cut {
            answer: answer(),
            after: 2,
        },
        Reply::fail_after(answer(), 4),
        Reply::Answer(answer()),
    ]);
    let body = json!({
        "model": "gpt-fake", "stream": true, "stream_options": {"include_usage": true},
        "messages": [{"role": "user", "content": "hi"}]
    });
    let reply = chat(&api, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let events = data_of(&reply.body);
    assert_eq!(text_of(&events), "Hello from the fake model");
    let finish = position(&events, |e| e["choices"][0]["finish_reason"] == "stop");
    let usage = position(&events, |e| e["usage"]["total_tokens"].is_u64());
    assert!(finish < usage, "usage after the finish: {}", reply.body);
    assert_eq!(usage + 2, events.len(), "then [DONE]: {}", reply.body);
    assert_eq!(events.last(), Some(&json!("[DONE]")));
    assert_eq!(events.iter().filter(|e| e["usage"].is_object()).count(), 1);
    assert!(!reply.body.contains("\"error\""), "{}", reply.body);
    let asked = fake.requests()[2].json();
    assert_eq!(asked["stream_options"]["include_usage"], true, "{asked}");
    let entries = logged_entries(&omni);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(
        entries.iter().all(|e| e.contains("phase stream")),
        "{entries:?}"
    );
}

#[test]
fn an_unhealed_failure_passes_on_upstreams_status_body_and_retry_after() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    let Reply::Status { body: quota, .. } = Reply::insufficient_quota() else {
        unreachable!()
    };
    fake.push([Reply::Status {
        status: 429,
        headers: vec![("retry-after".into(), "3600".into())],
        body: quota.clone(),
    }]);
    let body = json!({"model": "gpt-fake", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let reply = chat(&api, &body);
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert_eq!(reply.body, quota, "upstream's body, unchanged");
    assert_eq!(
        reply
            .headers
            .get("retry-after")
            .map(|v| v.to_str().unwrap()),
        Some("3600")
    );
    assert_eq!(fake.request_count(), 1, "a spent quota is not retried");
    assert_eq!(proxy_status(&omni)["failed"], 1);
    let listed = omni.ctl(&["logs", "list"]).ok().stdout;
    assert!(listed.contains("exceeded your current quota"), "{listed}");

    fake.push([Reply::context_length_exceeded()]);
    let reply = chat(
        &api,
        &json!({"model": "gpt-fake", "messages": [{"role": "user", "content": "hi"}]}),
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(reply.json()["error"]["code"], "context_length_exceeded");
    assert_eq!(logged_classes(&omni).len(), 2);
}

#[test]
fn a_client_that_goes_away_cancels_the_upstream_request() {
    use std::io::{Read, Write};
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, _) = start(&fake, &[]);
    let gate = omni_tests::fake_openai::Gate::new();
    fake.push([Reply::HoldAfter {
        answer: answer(),
        after: 3,
        gate: gate.clone(),
    }]);
    let address = proxy_address(&omni);
    let body = json!({"model": "gpt-fake", "stream": true, "messages": [{"role": "user", "content": "hi"}]})
        .to_string();
    let mut client = std::net::TcpStream::connect(address).unwrap();
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer \
         {LOCAL_KEY}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    client.write_all(request.as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("from ") {
        let n = client.read(&mut buffer).unwrap();
        assert!(n > 0, "the stream ended early");
        seen.extend_from_slice(&buffer[..n]);
    }
    drop(client);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while fake.hangups() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the upstream request was not dropped"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    gate.open();
    assert!(
        recorded(&omni).is_empty(),
        "a cancelled answer is not recorded"
    );
}

#[test]
fn no_key_reaches_the_disk_neither_the_providers_nor_a_clients_own() {
    let fake = FakeOpenAi::start().unwrap();
    let (omni, api) = start(&fake, &["--proxy-accept-any-key"]);
    let theirs = "sk-client-own-key-4242";
    let echo = format!("Incorrect API key provided: {theirs}.");
    fake.push([
        Reply::server_error(503),
        Reply::error(400, "invalid_request_error", None, &echo),
    ]);
    let body = json!({"model": "gpt-fake", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let bearer = format!("Bearer {theirs}");
    let reply = api.request(
        "POST",
        "/v1/chat/completions",
        &[("authorization", &bearer)],
        &body.to_string(),
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert_eq!(fake.requests()[0].header("authorization"), Some(&*bearer));
    assert!(
        chat(&api, &body).status == 200,
        "the provider's own key works too"
    );
    for key in [theirs, LOCAL_KEY] {
        assert!(
            !any_file_holds(&omni.data_dir, key.as_bytes()),
            "{key} in the store"
        );
        assert!(
            !any_file_holds(&omni.log_dir, key.as_bytes()),
            "{key} in the logs"
        );
        assert!(!omni.daemon_stderr().contains(key), "{key} on stderr");
    }
    assert_eq!(logged_classes(&omni).len(), 2);
}

#[test]
fn models_goes_to_the_api_whose_key_the_request_carries() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (_omni, api) = start(&fake, &[]);
    // `bearer` in lower case is the same scheme (RFC 9110).
    let bearer = format!("bearer {LOCAL_KEY}");
    let openai = api.request("GET", "/v1/models", &[("authorization", &bearer)], "");
    assert_eq!(openai.status, 200, "{}", openai.body);
    assert_eq!(openai.json()["object"], "list");
    assert_eq!(openai.json()["data"][0]["id"], "fake-model");
    assert_eq!(fake.requests().pop().unwrap().path(), "/v1/models");
    let gemini = api.request("GET", "/v1/models", &[("x-goog-api-key", TEST_API_KEY)], "");
    assert_eq!(gemini.status, 200, "{}", gemini.body);
    assert_eq!(gemini.json()["models"][0]["name"], "models/fake-model");
    let by_query = api.request("GET", &format!("/v1/models?key={TEST_API_KEY}"), &[], "");
    assert_eq!(by_query.status, 200, "{}", by_query.body);
    assert!(by_query.json()["models"].is_array(), "{}", by_query.body);
    assert_eq!(
        fake.request_count(),
        1,
        "only the bearer's request went to OpenAI"
    );
}
