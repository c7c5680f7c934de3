//! The fake OpenAI server, driven by a real HTTP client (hyper).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use serde_json::{Value, json};

use super::{Answer, FakeOpenAi, Reply};
use crate::fake_wire::client::{self, Response};

mod checks;
mod responses;

/// What the OpenAI tests read of a response.
trait OpenAiResponse {
    /// The SSE `data` payloads.
    fn payloads(&self) -> Vec<String>;
    /// The chunks (every payload but `[DONE]`) as JSON.
    fn chunks(&self) -> Vec<Value>;
    /// The deltas' `key` strings, concatenated.
    fn joined(&self, key: &str) -> String;
    /// The error object of an error body.
    fn error(&self) -> Value;
}

impl OpenAiResponse for Response {
    fn payloads(&self) -> Vec<String> {
        self.events().into_iter().map(|e| e.data).collect()
    }

    fn chunks(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|e| e.data != "[DONE]")
            .map(client::Event::json)
            .collect()
    }

    fn joined(&self, key: &str) -> String {
        self.chunks()
            .iter()
            .filter_map(|c| c["choices"][0]["delta"][key].as_str().map(str::to_string))
            .collect()
    }

    fn error(&self) -> Value {
        self.json()["error"].clone()
    }
}

/// Sends one request; `Err` if none came back (e.g. the connection was reset).
fn send(
    fake: &FakeOpenAi,
    method: &str,
    path: &str,
    auth: Option<&str>,
    body: &Value,
) -> Result<Response, hyper::Error> {
    let headers: Vec<(&str, &str)> = auth.map(|a| ("authorization", a)).into_iter().collect();
    client::send(&fake.url(), method, path, &headers, &body.to_string())
}

fn chat(fake: &FakeOpenAi, body: &Value) -> Response {
    send(fake, "POST", "/v1/chat/completions", None, body).unwrap()
}

fn request(messages: Value) -> Value {
    json!({"model": "m-1", "messages": messages, "stream": true,
           "stream_options": {"include_usage": true}})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn calls(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({"id": id, "type": "function",
                         "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "{\"temp_c\":21}"})
}

#[test]
fn the_default_answer_echoes_the_last_message_and_ends_with_done() {
    let fake = FakeOpenAi::start().unwrap();
    assert!(fake.url().starts_with("http://127.0.0.1:") && fake.url().ends_with("/v1"));
    let reply = chat(&fake, &request(json!([user("hello")])));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    let events = reply.payloads();
    assert_eq!(events.last().unwrap(), "[DONE]");
    let chunks = reply.chunks();
    assert_eq!(chunks[0]["object"], "chat.completion.chunk");
    assert_eq!(chunks[0]["model"], "m-1");
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": ""})
    );
    let text = reply.joined("content");
    assert!(text.starts_with("You said: hello."), "{text}");
    assert!(text.ends_with("I was sent 1 message."), "{text}");
    assert!(chunks.len() > 5, "word-sized pieces");
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    assert_eq!(finish["choices"][0]["delta"], json!({}));
    let usage = &chunks[chunks.len() - 1];
    assert_eq!(usage["choices"], json!([]));
    let pieces = chunks.len() as u64 - 3;
    assert_eq!(
        usage["usage"],
        json!({"prompt_tokens": 10, "completion_tokens": pieces, "total_tokens": 10 + pieces})
    );
    assert_eq!(fake.request_count(), 1);
    assert_eq!(fake.requests()[0].json()["model"], "m-1");

    // Tool results are thanked for; without include_usage there is no usage chunk.
    let mut body = request(json!([user("weather?"), calls(&["c1"]), result("c1")]));
    body["stream_options"] = json!({"include_usage": false});
    let reply = chat(&fake, &body);
    let text = reply.joined("content");
    assert!(
        text.starts_with("Thanks: Tool c1 returned {\"temp_c\":21}."),
        "{text}"
    );
    assert!(reply.chunks().iter().all(|c| c.get("usage").is_none()));
}

#[test]
fn tool_call_fragments_interleave_and_reassemble_by_index() {
    let fake = FakeOpenAi::start().unwrap();
    fake.push([Reply::Answer(Answer::tool_calls([
        ("call_a", "get_weather", json!({"city": "Paris"})),
        ("call_b", "get_time", json!({"tz": "Europe/Paris"})),
    ]))]);
    let reply = chat(&fake, &request(json!([user("weather and time?")])));
    let mut assembled: Vec<(String, String, String)> = Vec::new();
    let mut arrival = Vec::new();
    for chunk in reply.chunks() {
        let Some(fragments) = chunk["choices"][0]["delta"]["tool_calls"].as_array() else {
            continue;
        };
        for fragment in fragments {
            let index = fragment["index"].as_u64().unwrap() as usize;
            arrival.push(index);
            if let Some(id) = fragment["id"].as_str() {
                assert_eq!(fragment["type"], "function");
                assert_eq!(index, assembled.len());
                let name = fragment["function"]["name"].as_str().unwrap();
                assembled.push((id.into(), name.into(), String::new()));
            }
            let piece = fragment["function"]["arguments"].as_str().unwrap();
            assembled[index].2.push_str(piece);
        }
    }
    assert_eq!(arrival, [0, 0, 1, 0, 1, 1], "fragments interleave");
    let parsed: Vec<(&str, &str, Value)> = assembled
        .iter()
        .map(|(id, name, args)| {
            (
                id.as_str(),
                name.as_str(),
                serde_json::from_str(args).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        parsed,
        [
            ("call_a", "get_weather", json!({"city": "Paris"})),
            ("call_b", "get_time", json!({"tz": "Europe/Paris"}))
        ]
    );
    let chunks = reply.chunks();
    assert_eq!(
        chunks[chunks.len() - 2]["choices"][0]["finish_reason"],
        "tool_calls"
    );
    assert_eq!(reply.payloads().last().unwrap(), "[DONE]");
}

#[test]
fn reasoning_streams_before_the_text() {
    let fake = FakeOpenAi::start().unwrap();
    fake.push([Reply::Answer(
        Answer::text(["It is ", "sunny"]).reasoning(["Weather ", "known."]),
    )]);
    let reply = chat(&fake, &request(json!([user("so?")])));
    let deltas: Vec<Value> = reply
        .chunks()
        .iter()
        .map(|c| c["choices"][0]["delta"].clone())
        .collect();
    assert_eq!(deltas[1], json!({"reasoning_content": "Weather "}));
    assert_eq!(deltas[2], json!({"reasoning_content": "known."}));
    assert_eq!(deltas[3], json!({"content": "It is "}));
    assert_eq!(reply.joined("content"), "It is sunny");
}

#[test]
fn scripted_errors_resets_and_cut_streams() {
    let fake = FakeOpenAi::start().unwrap();
    let body = request(json!([user("hello")]));
    fake.push([
        Reply::rate_limited(150),
        Reply::server_error(503),
        Reply::insufficient_quota(),
        Reply::context_length_exceeded(),
        Reply::Reset,
        Reply::Cut {
            answer: Answer::text(["half ", "an ", "answer"]),
            after: 2,
        },
    ]);

    let limited = chat(&fake, &body);
    assert_eq!(limited.status, 429);
    assert_eq!(limited.headers["retry-after-ms"], "150");
    assert_eq!(limited.headers["retry-after"], "1");
    let error = limited.error();
    assert_eq!(
        (&error["type"], &error["code"]),
        (&json!("requests"), &json!("rate_limit_exceeded"))
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Please try again in 150ms.")
    );

    let overloaded = chat(&fake, &body);
    assert_eq!(overloaded.status, 503);
    assert_eq!(
        overloaded.error(),
        json!({"message": "The server is overloaded or not ready yet.", "type": "server_error",
               "param": null, "code": null})
    );

    let quota = chat(&fake, &body);
    assert_eq!(
        (quota.status, quota.error()["code"].clone()),
        (429, json!("insufficient_quota"))
    );

    let long = chat(&fake, &body);
    assert_eq!(long.status, 400);
    assert_eq!(long.error()["param"], "messages");
    assert_eq!(long.error()["code"], "context_length_exceeded");

    assert!(
        send(&fake, "POST", "/v1/chat/completions", None, &body).is_err(),
        "reset"
    );

    let cut = chat(&fake, &body);
    assert_eq!(cut.status, 200);
    assert_eq!(
        cut.payloads().len(),
        2,
        "the body ended cleanly after two events"
    );
    assert_eq!(cut.joined("content"), "half ");
    assert!(
        cut.chunks()
            .iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null())
    );

    assert!(
        chat(&fake, &body)
            .joined("content")
            .starts_with("You said: hello.")
    );
    assert_eq!(fake.request_count(), 7);
}

#[test]
fn a_chat_completion_not_streamed_is_the_whole_of_the_streamed_one() {
    let fake = FakeOpenAi::start().unwrap();
    let answer = Answer {
        text: vec!["Checking ".into(), "now.".into()],
        ..Answer::tool_calls([("call_a", "get_weather", json!({"city": "Paris"}))])
    };
    fake.push([Reply::Answer(answer.clone()), Reply::Answer(answer)]);
    let streamed = chat(&fake, &request(json!([user("weather?")])));
    let body = json!({"model": "m-1", "messages": [user("weather?")]});
    let whole = chat(&fake, &body).json();
    assert_eq!(whole["object"], "chat.completion");
    let choice = &whole["choices"][0];
    assert_eq!(choice["message"]["content"], streamed.joined("content"));
    assert_eq!(choice["finish_reason"], "tool_calls");
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(
        (&call["id"], &call["type"]),
        (&json!("call_a"), &json!("function"))
    );
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris"}));
    let chunks = streamed.chunks();
    assert_eq!(whole["usage"], chunks[chunks.len() - 1]["usage"]);

    let echo = chat(&fake, &body).json();
    let text = echo["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(text.starts_with("You said: weather?."), "{text}");
    assert!(echo["choices"][0]["message"].get("tool_calls").is_none());
}

#[test]
fn a_chat_over_the_context_limit_is_refused_and_an_answer_reports_the_count() {
    let fake = FakeOpenAi::start().unwrap();
    fake.set_context_limit(Some(30));
    let long = request(json!([user(&"many words ".repeat(20))]));
    let refused = chat(&fake, &long);
    assert_eq!(refused.status, 400, "{:?}", refused.body);
    let error = refused.error();
    assert_eq!(error["code"], "context_length_exceeded");
    let count = crate::count_tokens(&long);
    assert_eq!(
        error["message"],
        format!(
            "This model's maximum context length is 30 tokens. However, your messages \
             resulted in {count} tokens. Please reduce the length of the messages."
        )
    );
    let short = request(json!([user("hi there")]));
    let chunks = chat(&fake, &short).chunks();
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(
        usage["prompt_tokens"],
        crate::count_tokens(&short),
        "{usage}"
    );
}
