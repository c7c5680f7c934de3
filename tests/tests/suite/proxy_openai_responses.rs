//! The Responses API (`POST /v1/responses`, as Codex CLI speaks it) through the proxy: a
//! whole or streamed answer healed past failures before it, a cut or failed stream
//! continued seamlessly, an unhealed failure passed on as upstream gave it, and a
//! conversation with a function call and its output recorded as one session, whole
//! answers and streamed ones alike.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply, responses_error_event};
use omni_tests::local::LOCAL_KEY;
use omni_tests::openai_proxy::{
    data_of, logged_classes, logged_entries, response_text_of, responses, start,
};
use omni_tests::proxy::{
    only_session, only_session_with_roles, proxy_status, recorded, recorded_roles,
};
use serde_json::{Value, json};

fn answer() -> Answer {
    Answer::text(["Listing ", "the ", "files ", "now."])
}

/// A user message as Codex sends it.
fn said(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

/// The types of the events of a streamed body, in order.
fn types_of(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_whole_response_is_healed_past_a_503() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    fake.push([Reply::server_error(503), Reply::Answer(answer())]);
    let reply = responses(
        &api,
        &json!({"model": "local/fake-codex", "input": [said("ls")]}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let whole = reply.json();
    assert_eq!(whole["object"], "response", "{whole}");
    assert_eq!(whole["status"], "completed");
    assert_eq!(
        whole["output"][0]["content"][0]["text"],
        "Listing the files now."
    );
    assert_eq!(fake.request_count(), 2);
    assert!(fake.requests().iter().all(|r| r.path() == "/v1/responses"));
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.json()["model"] == "fake-codex")
    );
    assert_eq!(proxy_status(&omni)["healed"], 1);
    assert_eq!(logged_classes(&omni).len(), 1);
    let history = omni.history_of(only_session(&omni)["id"].as_str().unwrap());
    assert_eq!(history["entries"][1]["text"], "Listing the files now.");
    assert_eq!(history["entries"][1]["model"]["finish_reason"], "completed");
}

#[test]
fn a_whole_function_call_and_a_streamed_follow_up_are_one_session() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    let arguments = json!({"command": ["ls"]});
    let call = Answer::tool_calls([("call_1", "shell", arguments.clone())]);
    fake.push([Reply::Answer(call)]);
    let mut input = vec![said("what files are here?")];
    let first = responses(&api, &json!({"model": "fake-codex", "input": input}));
    assert_eq!(first.status, 200, "{}", first.body);
    let item = first.json()["output"][0].clone();
    assert_eq!(item["type"], "function_call", "{}", first.body);
    input.push(item);
    input.push(
        json!({"type": "function_call_output", "call_id": "call_1", "output": "a.txt b.txt"}),
    );
    let second = responses(
        &api,
        &json!({"model": "fake-codex", "stream": true, "input": input}),
    );
    assert_eq!(second.status, 200, "{}", second.body);
    only_session_with_roles(&omni, &["user", "model", "tool", "model"]);
}

#[test]
fn a_stream_cut_then_failed_is_continued_seamlessly_and_every_failure_logged() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    fake.push([
        Reply::server_error(503),
        Reply::Cut {
            answer: answer(),
            after: 5,
        },
        Reply::fail_after(answer(), 7),
        Reply::Raw(vec![responses_error_event(
            "server_error",
            "An error occurred while processing your request.",
        )]),
        Reply::Answer(answer()),
    ]);
    let body = json!({"model": "fake-codex", "stream": true, "input": [said("ls")]});
    let reply = responses(&api, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let events = data_of(&reply.body);
    assert_eq!(response_text_of(&events), "Listing the files now.");
    // The client's stream is the answer's own, each event once, numbered in order.
    let types = types_of(&events);
    assert_eq!(types.first().map(String::as_str), Some("response.created"));
    assert_eq!(types.last().map(String::as_str), Some("response.completed"));
    assert!(!types.iter().any(|t| t == "response.failed" || t == "error"));
    let numbers: Vec<u64> = events
        .iter()
        .map(|e| e["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (0..events.len() as u64).collect::<Vec<_>>());
    assert_eq!(fake.request_count(), 5);
    // Four failures, each written down before the client had its answer.
    assert_eq!(
        logged_classes(&omni).len(),
        4,
        "{:?}",
        logged_classes(&omni)
    );
    let entries = logged_entries(&omni);
    assert_eq!(entries.len(), 4, "{entries:?}");
    assert!(
        entries[1..].iter().all(|e| e.contains("phase stream")),
        "{entries:?}"
    );
    assert_eq!(recorded(&omni).len(), 1);
}

#[test]
fn a_stream_that_cannot_be_continued_ends_with_the_apis_error_event() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    fake.push([
        Reply::Cut {
            answer: answer(),
            after: 6,
        },
        Reply::Answer(Answer::text(["Something ", "else."])),
    ]);
    let body = json!({"model": "fake-codex", "stream": true, "input": [said("ls")]});
    let reply = responses(&api, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply.body.lines().any(|line| line == "event: error"),
        "a named error event: {}",
        reply.body
    );
    let events = data_of(&reply.body);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "error", "{}", reply.body);
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains("began differently"),
        "{last}"
    );
    assert_eq!(response_text_of(&events), "Listing the ");
    assert_eq!(proxy_status(&omni)["failed"], 1);
    assert!(
        recorded(&omni).is_empty(),
        "an unfinished answer is not recorded"
    );
}

#[test]
fn an_unhealed_failure_passes_on_with_upstreams_status_and_body() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    // A function call's output that answers no call: the real API's 400, not retried.
    let body = json!({"model": "fake-codex", "stream": true, "input": [
        said("ls"),
        {"type": "function_call_output", "call_id": "call_9", "output": "x"}
    ]});
    let reply = responses(&api, &body);
    assert_eq!(reply.status, 400, "{}", reply.body);
    let error = &reply.json()["error"];
    assert!(
        error["message"].as_str().unwrap().contains("call_9"),
        "{error}"
    );
    assert_eq!(fake.request_count(), 1);
    let listed = omni.ctl(&["logs", "list"]).ok().stdout;
    assert!(listed.contains("call_9"), "{listed}");
}

#[test]
fn a_function_call_and_its_output_continue_the_recorded_session() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    let arguments = json!({"command": ["ls"]});
    fake.push([
        Reply::Cut {
            answer: Answer::tool_calls([("call_1", "shell", arguments.clone())]),
            after: 4,
        },
        Reply::Answer(Answer::tool_calls([("call_1", "shell", arguments.clone())])),
    ]);
    let mut input = vec![said("what files are here?")];
    let first = responses(
        &api,
        &json!({"model": "fake-codex", "stream": true, "input": input}),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    let events = data_of(&first.body);
    let call = events
        .iter()
        .find(|e| e["type"] == "response.output_item.done")
        .map(|e| e["item"].clone())
        .unwrap_or_else(|| panic!("no finished call: {}", first.body));
    assert_eq!(call["name"], "shell");
    assert_eq!(call["arguments"], arguments.to_string());

    input.push(
        json!({"type": "function_call", "call_id": "call_1", "name": "shell",
                      "arguments": arguments.to_string()}),
    );
    input.push(
        json!({"type": "function_call_output", "call_id": "call_1", "output": "a.txt b.txt"}),
    );
    let second = responses(
        &api,
        &json!({"model": "fake-codex", "stream": true, "input": input}),
    );
    assert_eq!(second.status, 200, "{}", second.body);
    let text = response_text_of(&data_of(&second.body));
    assert!(text.contains("Tool call_1 returned a.txt b.txt"), "{text}");

    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(
        sessions[0]["origin"],
        "openai-responses proxy (OpenAI/Python 1.0)"
    );
    let id = sessions[0]["id"].as_str().unwrap();
    assert_eq!(
        recorded_roles(&omni, id),
        ["user", "model", "tool", "model"]
    );
    let shown = omni.ctl(&["history", "-s", id]).ok().stdout;
    assert!(shown.contains("shell"), "{shown}");
    assert!(shown.contains("a.txt b.txt"), "{shown}");
}
