//! The Responses API as Codex CLI uses it: events, whole responses, faults and checks.

use serde_json::{Value, json};

use super::{Answer, FakeOpenAi, OpenAiResponse, Reply, send};
use crate::fake_openai::responses_error_event;
use crate::fake_wire::client::{Event, Response};

fn respond(fake: &FakeOpenAi, body: &Value) -> Response {
    send(fake, "POST", "/v1/responses", None, body).unwrap()
}

fn body(input: Value, stream: bool) -> Value {
    json!({"model": "fake-codex", "instructions": "You are Codex.", "input": input,
           "stream": stream, "store": false, "tools": [{"type": "function", "name": "shell",
           "description": "run", "parameters": {"type": "object"}, "strict": false}]})
}

fn said(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

fn call(id: &str) -> Value {
    json!({"type": "function_call", "call_id": id, "name": "shell", "arguments": "{\"cmd\":\"ls\"}"})
}

fn output(id: &str) -> Value {
    json!({"type": "function_call_output", "call_id": id, "output": "a.txt"})
}

/// Checks the grammar of a whole stream (named as typed, numbered in order, created
/// first, each item added then done, completed last) and returns the final response.
fn assemble(events: &[Event]) -> Value {
    let mut open: Option<u64> = None;
    let mut items: Vec<Value> = Vec::new();
    let mut arguments = String::new();
    for (n, event) in events.iter().enumerate() {
        let data = event.json();
        let kind = data["type"].as_str().unwrap();
        assert_eq!(event.name.as_deref(), Some(kind), "event {n}");
        assert_eq!(data["sequence_number"], n, "event {n}");
        match kind {
            "response.created" => assert_eq!(n, 0),
            "response.output_item.added" => {
                assert!(open.is_none(), "event {n}: an item is still open");
                assert_eq!(data["output_index"], items.len(), "event {n}");
                open = data["output_index"].as_u64();
            }
            "response.output_item.done" => {
                assert_eq!(data["output_index"].as_u64(), open.take(), "event {n}");
                if data["item"]["type"] == "function_call" {
                    assert_eq!(data["item"]["arguments"], arguments.as_str());
                    arguments.clear();
                }
                items.push(data["item"].clone());
            }
            "response.function_call_arguments.delta" => {
                arguments.push_str(data["delta"].as_str().unwrap());
            }
            "response.completed" => {
                assert_eq!(n, events.len() - 1, "completed is last");
                assert_eq!(data["response"]["output"], json!(items));
                return data["response"].clone();
            }
            _ => assert!(
                n > 0 && (kind == "response.in_progress" || open.is_some()),
                "{kind}"
            ),
        }
    }
    panic!("no response.completed");
}

fn text_of(response: &Value) -> String {
    let items = response["output"].as_array().unwrap();
    items
        .iter()
        .filter(|i| i["type"] == "message")
        .flat_map(|i| i["content"].as_array().unwrap().iter())
        .filter_map(|p| p["text"].as_str())
        .collect()
}

#[test]
fn a_streamed_response_is_a_valid_event_sequence_equal_to_the_whole_one() {
    let fake = FakeOpenAi::start().unwrap();
    let reply = respond(&fake, &body(json!([said("hi")]), true));
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    let events = reply.events();
    let deltas: String = events
        .iter()
        .map(Event::json)
        .filter(|e| e["type"] == "response.output_text.delta")
        .map(|e| e["delta"].as_str().unwrap().to_string())
        .collect();
    let streamed = assemble(&events);
    assert_eq!(text_of(&streamed), deltas);
    assert_eq!(
        deltas,
        "You said: hi. I am a fake OpenAI Responses model, and I was sent 1 item."
    );
    assert_eq!(streamed["usage"]["input_tokens"], 10);
    assert_eq!(streamed["status"], "completed");

    let whole = respond(&fake, &body(json!([said("hi")]), false)).json();
    assert_eq!(whole["object"], "response");
    assert_eq!(whole, streamed);

    let plain = json!({"model": "m", "input": "just text"});
    assert!(text_of(&respond(&fake, &plain).json()).starts_with("You said: just text."));
    let answered = body(json!([said("ls"), call("c1"), output("c1")]), false);
    assert!(
        text_of(&respond(&fake, &answered).json()).starts_with("Thanks: Tool c1 returned a.txt.")
    );
}

#[test]
fn reasoning_text_and_function_calls_stream_as_items_in_order() {
    let fake = FakeOpenAi::start().unwrap();
    let answer = Answer::tool_calls([("call_1", "shell", json!({"cmd": "ls -la"}))]);
    let answer = Answer {
        text: vec!["Let me ".into(), "look.".into()],
        ..answer
    }
    .reasoning(["Listing."]);
    fake.push([Reply::Answer(answer.clone()), Reply::Answer(answer)]);
    let events = respond(&fake, &body(json!([said("files?")]), true)).events();
    let streamed = assemble(&events);
    let kinds: Vec<&str> = streamed["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reasoning", "message", "function_call"]);
    let call = &streamed["output"][2];
    assert_eq!(
        (&call["call_id"], &call["name"]),
        (&json!("call_1"), &json!("shell"))
    );
    assert_eq!(
        serde_json::from_str::<Value>(call["arguments"].as_str().unwrap()).unwrap(),
        json!({"cmd": "ls -la"})
    );
    assert_eq!(streamed["output"][0]["summary"][0]["text"], "Listing.");
    let whole = respond(&fake, &body(json!([said("files?")]), false)).json();
    assert_eq!(whole["output"], streamed["output"]);
}

#[test]
fn faults_cut_fail_and_raw_error_events() {
    let fake = FakeOpenAi::start().unwrap();
    let answer = Answer::text(["a ", "b ", "c"]);
    fake.push([
        Reply::rate_limited(2000),
        Reply::Cut {
            answer: answer.clone(),
            after: 4,
        },
        Reply::fail_after(answer, 3),
        Reply::Raw(vec![responses_error_event(
            "rate_limit_exceeded",
            "Slow down.",
        )]),
        Reply::Reset,
    ]);
    let request = body(json!([said("hi")]), true);
    let limited = respond(&fake, &request);
    assert_eq!(
        (
            limited.status,
            limited.headers["retry-after"].to_str().unwrap()
        ),
        (429, "2")
    );
    let cut = respond(&fake, &request).events();
    assert_eq!(cut.len(), 4);
    assert!(
        cut.iter()
            .all(|e| e.name.as_deref() != Some("response.completed"))
    );
    let failed = respond(&fake, &request).events();
    let last = failed.last().unwrap().json();
    assert_eq!(last["type"], "response.failed");
    assert_eq!(last["response"]["status"], "failed");
    assert_eq!(last["response"]["error"]["code"], "server_error");
    assert_eq!(failed.len(), 4);
    let error = respond(&fake, &request).events()[0].json();
    assert_eq!(
        (error["type"].as_str(), error["code"].as_str()),
        (Some("error"), Some("rate_limit_exceeded"))
    );
    assert!(
        send(&fake, "POST", "/v1/responses", None, &request).is_err(),
        "reset"
    );
    assert!(text_of(&assemble(&respond(&fake, &request).events())).starts_with("You said: hi."));
}

#[test]
fn inputs_the_real_api_would_refuse_are_refused() {
    let fake = FakeOpenAi::start().unwrap();
    let refused = |body: &Value| {
        let reply = respond(&fake, body);
        assert_eq!(reply.status, 400, "{body}: {:?}", reply.body);
        reply.error()["message"].as_str().unwrap().to_string()
    };
    let cases = [
        (
            json!([said("a"), output("c9")]),
            "No tool call found for function call output with call_id c9.",
        ),
        (
            json!([said("a"), call("c1")]),
            "No tool output found for function call c1.",
        ),
        (
            json!([said("a"), {"type": "custom_tool_call", "call_id": "p1", "name": "apply_patch", "input": "x"}]),
            "No tool output found for function call p1.",
        ),
        (
            json!([said("a"), output("c1"), call("c1")]),
            "No tool call found for function call output with call_id c1.",
        ),
        (
            json!([{"type": "local_shell_call"}]),
            "Invalid value: 'local_shell_call'.",
        ),
        (
            json!([{"role": "user", "content": [{"type": "output_text", "text": "x"}]}]),
            "Invalid value: 'output_text'.",
        ),
        (
            json!([{"role": "assistant", "content": [{"type": "input_text", "text": "x"}]}]),
            "Invalid value: 'input_text'.",
        ),
        (
            json!([{"role": "model", "content": "x"}]),
            "Invalid value: 'model'.",
        ),
        (
            json!([{"type": "reasoning", "id": "rs_1"}]),
            "Missing required parameter: 'input[0].summary'.",
        ),
        (
            json!([{"type": "function_call", "call_id": "c", "name": "shell", "arguments": {}}]),
            "input[0].arguments",
        ),
        (
            json!([{"role": "user", "content": "x", "thoughtSignature": "s"}]),
            "Unknown parameter: 'input[0].thoughtSignature'.",
        ),
    ];
    for (input, expected) in cases {
        let message = refused(&body(input.clone(), true));
        assert!(message.contains(expected), "{input}: {message}");
    }
    assert_eq!(
        refused(&json!({"input": "x"})),
        "Missing required parameter: 'model'."
    );
    assert_eq!(
        refused(&json!({"model": "m"})),
        "Missing required parameter: 'input'."
    );
    assert_eq!(
        refused(&json!({"model": "m", "input": "x", "messages": []})),
        "Unknown parameter: 'messages'."
    );
    let mut chat_tools = body(json!("x"), true);
    chat_tools["tools"] = json!([{"type": "function", "function": {"name": "shell"}}]);
    assert_eq!(
        refused(&chat_tools),
        "Missing required parameter: 'tools[0].name'."
    );
    let good = body(
        json!([said("a"), call("c1"), {"type": "reasoning", "summary": [], "encrypted_content": "e"},
                             output("c1"), {"role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
                             {"role": "developer", "content": "be brief"},
                             {"type": "custom_tool_call", "call_id": "p1", "name": "apply_patch", "input": "*** Begin Patch"},
                             {"type": "custom_tool_call_output", "call_id": "p1", "output": "Done"}]),
        true,
    );
    let mut good = good;
    good["client_metadata"] = json!({"originator": "codex_exec"});
    assert_eq!(respond(&fake, &good).status, 200);
}

#[test]
fn models_are_listed_and_a_chat_stream_can_fail_mid_way() {
    let fake = FakeOpenAi::start().unwrap();
    let list = send(&fake, "GET", "/v1/models", None, &Value::Null)
        .unwrap()
        .json();
    assert_eq!(list["object"], "list");
    assert_eq!(
        list["data"][0],
        json!({"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"})
    );
    fake.push([Reply::fail_after(Answer::text(["x ", "y"]), 2)]);
    let chat = super::chat(&fake, &super::request(json!([super::user("hi")])));
    let payloads = chat.payloads();
    assert_eq!(payloads.len(), 3);
    let error: Value = serde_json::from_str(&payloads[2]).unwrap();
    assert_eq!(error["error"]["code"], "server_error");
    assert_eq!(chat.joined("content"), "x ");
}

#[test]
fn a_context_over_the_limit_is_refused_as_the_api_refuses_it_without_using_the_script() {
    let fake = FakeOpenAi::start().unwrap();
    fake.push([Reply::Answer(Answer::text(["scripted"]))]);
    fake.set_context_limit(Some(20));
    let long = body(json!([said(&"many words ".repeat(20))]), true);
    let refused = respond(&fake, &long);
    assert_eq!(refused.status, 400, "{:?}", refused.body);
    let error = refused.error();
    assert_eq!(error["code"], "context_length_exceeded");
    assert_eq!(error["param"], "input");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Your input exceeds the context window of this model."),
        "{error}"
    );
    let short = body(json!([said("hi")]), true);
    let answered = respond(&fake, &short);
    assert_eq!(answered.status, 200, "{:?}", answered.body);
    let streamed = assemble(&answered.events());
    assert_eq!(text_of(&streamed), "scripted", "the script was kept");
}
