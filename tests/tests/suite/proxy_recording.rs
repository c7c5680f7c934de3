//! Conversations through the Gemini-compatible proxy recorded as sessions: appended,
//! forked, kept apart, whole answers and streamed ones alike and continuing each other
//! (in Gemini's API and in Chat Completions),
//! failures filed under them, a recording failure never failing the request.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::TEST_API_KEY;
use omni_tests::proxy::*;
use serde_json::json;

#[test]
fn conversations_are_recorded_appended_forked_and_kept_apart() {
    let (omni, api) = start(&[]);
    let first = converse(&api, &[("user", "hi")]);
    let second = converse(&api, &[("user", "hi"), ("model", &first), ("user", "more")]);
    assert_eq!(
        nodes(&omni),
        4,
        "two rounds recorded before the answer ended"
    );
    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    assert_eq!(sessions[0]["nodes"], 4);
    assert_eq!(sessions[0]["origin"], "gemini proxy (test-client/1.0)");
    assert_eq!(
        sessions[0]["current"], false,
        "a recorded conversation is not current"
    );
    let listed = omni.ctl(&["sessions"]).ok().stdout;
    let row = listed.lines().nth(1).unwrap();
    assert!(
        row.contains("  gemini proxy (test-clie…  "),
        "the origin in its own column: {listed}"
    );

    // The client rewinds: the same start, another second question. A branch forks.
    converse(
        &api,
        &[("user", "hi"), ("model", &first), ("user", "instead")],
    );
    assert_eq!(nodes(&omni), 6, "the fork recorded before the answer ended");
    let view = omni.history_of(&id);
    let entries = view["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 6);
    assert_eq!(entries[3]["text"], second);
    assert_eq!(entries[4]["text"], "instead");
    assert_eq!(
        entries[4]["parent"], 2,
        "forked at the end of the shared part"
    );
    let branches = omni.ctl(&["--json", "branches", "-s", &id]).ok().json();
    assert_eq!(branches["branches"].as_array().unwrap().len(), 2);

    converse(&api, &[("user", "something unrelated")]);
    assert_eq!(nodes(&omni), 8, "a new session before the answer ended");
    assert_eq!(
        recorded(&omni).len(),
        2,
        "anything else starts a new session"
    );
}

#[test]
fn whole_and_streamed_answers_are_one_conversation_recorded_alike() {
    let (omni, api) = start(&[]);
    let first = converse_whole(&api, &[("user", "hi")]);
    assert!(first.contains("You said: \"hi\""), "{first}");
    assert_eq!(
        nodes(&omni),
        2,
        "a whole answer recorded before it was sent"
    );
    let sessions = recorded(&omni);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    assert_eq!(sessions[0]["origin"], "gemini proxy (test-client/1.0)");
    assert_eq!(
        id.as_bytes()[14],
        b'7',
        "a recorded session's id begins with its time (UUID version 7): {id}"
    );

    // A streamed follow-up to the whole answer, then a whole one to the stream.
    let second = converse(&api, &[("user", "hi"), ("model", &first), ("user", "more")]);
    let turns = [
        ("user", "hi"),
        ("model", first.as_str()),
        ("user", "more"),
        ("model", second.as_str()),
        ("user", "again"),
    ];
    let third = converse_whole(&api, &turns);
    assert_eq!(recorded(&omni).len(), 1, "one conversation, one session");
    let history = omni.history_of(&id);
    let entries = history["entries"].as_array().unwrap();
    let texts: Vec<&str> = entries
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["hi", &first, "more", &second, "again", &third]);
    for answer in [&entries[1], &entries[5]] {
        let made = &answer["model"];
        assert_eq!(made["model"], "fake-model", "{answer}");
        assert_eq!(made["finish_reason"], "STOP", "{answer}");
        assert!(
            made["usage"]["total_tokens"].as_u64().unwrap() > 0,
            "{answer}"
        );
        assert_eq!(made["attempts"], 1, "{answer}");
    }
    assert_eq!(history["usage"]["answers"], 3, "{history}");

    // Counting tokens and reading models are not conversations.
    let count = post(&api, "/v1beta/models/fake-model:countTokens", BODY);
    assert_eq!(count.status, 200, "{}", count.body);
    let models = api.request(
        "GET",
        "/v1beta/models",
        &[("x-goog-api-key", TEST_API_KEY)],
        "",
    );
    assert_eq!(models.status, 200, "{}", models.body);
    assert_eq!(nodes(&omni), 6);
    assert_eq!(recorded(&omni).len(), 1);
}

#[test]
fn a_whole_answer_whose_recording_fails_still_reaches_the_client() {
    let (omni, api) = start(&[]);
    let first = converse_whole(&api, &[("user", "hi")]);
    let id = recorded(&omni)[0]["id"].as_str().unwrap().to_string();
    let gate = omni_tests::scenario::held_answer(&omni);
    let mut held = omni.spawn_ctl(&["send", "-s", &id, "a slow question"]);
    held.read_texts(1);
    let answer = converse_whole(
        &api,
        &[("user", "hi"), ("model", &first), ("user", "again")],
    );
    assert!(answer.contains("You said: \"again\""), "{answer}");
    assert!(
        omni.daemon_stderr().contains("could not be recorded"),
        "the failure is logged before the client has the answer"
    );
    gate.open();
    held.finish();
    let history = omni.history_of(&id);
    let texts: Vec<&str> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(!texts.contains(&"again"), "{texts:?}");
}

#[test]
fn a_recording_failure_never_fails_the_request() {
    let (omni, api) = start(&[]);
    let first = converse(&api, &[("user", "hi")]);
    assert_eq!(
        nodes(&omni),
        2,
        "the first round recorded before the answer ended"
    );
    let id = recorded(&omni)[0]["id"].as_str().unwrap().to_string();
    // The session is busy answering a client of its own: the proxy cannot record into it.
    let gate = omni_tests::scenario::held_answer(&omni);
    let mut held = omni.spawn_ctl(&["send", "-s", &id, "a slow question"]);
    held.read_texts(1);
    let answer = converse(
        &api,
        &[("user", "hi"), ("model", &first), ("user", "again")],
    );
    assert!(answer.contains("You said: \"again\""), "{answer}");
    eventually("the recording failed", || {
        omni.daemon_stderr().contains("could not be recorded")
    });
    gate.open();
    held.finish();
    let texts: Vec<String> = omni.history_of(&id)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert!(!texts.iter().any(|t| t == "again"), "{texts:?}");
}

#[test]
fn a_failure_in_a_recorded_conversation_is_filed_under_its_session() {
    let (omni, api) = start(&[]);
    let first = converse(&api, &[("user", "hi")]);
    assert_eq!(
        nodes(&omni),
        2,
        "the first round recorded before the answer ended"
    );
    let id = recorded(&omni)[0]["id"].as_str().unwrap().to_string();
    omni.fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", "Bad request.")]);
    let body = json!({"contents": [
        content("user", json!([{"text": "hi"}])),
        content("model", json!([{"text": first}])),
        content("user", json!([{"text": "and then?"}])),
    ]})
    .to_string();
    assert_eq!(post(&api, STREAM, &body).status, 400);
    let errors = omni.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(errors["errors"][0]["session"], id.as_str(), "{errors}");
    let bundle = omni
        .ctl(&["logs", "export", "-s", &id, "-o", "-"])
        .ok()
        .json();
    assert_eq!(
        bundle["errors"][0]["node"], 2,
        "the node the request continued"
    );
    assert_eq!(bundle["transcript"]["entries"][0]["text"], "hi");
}

#[test]
fn with_recording_off_the_proxy_only_relays() {
    let (omni, api) = start(&["--proxy-no-record"]);
    let first = converse(&api, &[("user", "hi")]);
    converse_whole(&api, &[("user", "hi"), ("model", &first), ("user", "more")]);
    assert!(recorded(&omni).is_empty(), "{:?}", recorded(&omni));
}

/// Chat Completions: a whole tool call, a streamed answer to its result, a whole
/// follow-up, one session.
mod chat_completions {
    use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply};
    use omni_tests::local::LOCAL_KEY;
    use omni_tests::openai_proxy::{chat, data_of, start, text_of};
    use omni_tests::proxy::only_session_with_roles;
    use serde_json::json;

    #[test]
    fn whole_and_streamed_requests_with_tool_calls_continue_one_session() {
        let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
        let (omni, api) = start(&fake, &[]);
        let weather = json!({"city": "Paris"});
        fake.push([Reply::Answer(Answer::tool_calls([(
            "call_1",
            "get_weather",
            weather,
        )]))]);
        let mut messages = vec![json!({"role": "user", "content": "weather in Paris?"})];
        let first = chat(&api, &json!({"model": "gpt-fake", "messages": messages}));
        assert_eq!(first.status, 200, "{}", first.body);
        let message = first.json()["choices"][0]["message"].clone();
        assert_eq!(message["tool_calls"][0]["function"]["name"], "get_weather");
        messages.push(message);
        messages
            .push(json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"temp_c\":21}"}));
        let second = chat(
            &api,
            &json!({"model": "gpt-fake", "stream": true, "messages": messages}),
        );
        let said = text_of(&data_of(&second.body));
        assert!(said.contains("call_1"), "{}", second.body);
        messages.push(json!({"role": "assistant", "content": said}));
        messages.push(json!({"role": "user", "content": "thanks"}));
        let third = chat(&api, &json!({"model": "gpt-fake", "messages": messages}));
        assert_eq!(third.status, 200, "{}", third.body);

        let id =
            &only_session_with_roles(&omni, &["user", "model", "tool", "model", "user", "model"]);
        let history = omni.history_of(id);
        let call = &history["entries"][1]["parts"][0];
        assert_eq!(
            call["content"]["function_call"]["name"], "get_weather",
            "{call}"
        );
    }
}
