//! The demo model in OpenAI's wire format, under `/openai/v1`: Chat Completions and
//! Responses, streamed and whole, the model listing, and errors in OpenAI's shape. What it
//! says is what it says in Gemini's (`answer.rs`); thoughts are not sent (neither API
//! streams them as text).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::answer::{ApiError, Piece, Reply};
use super::wire::{self, Written};

/// The usage every demo answer reports: the prompt's tokens, and a token a piece.
fn usage(pieces: usize, chat: bool) -> Value {
    let (input, output) = (8, pieces as u64);
    if chat {
        json!({"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output})
    } else {
        json!({"input_tokens": input, "output_tokens": output, "total_tokens": input + output})
    }
}

fn visible(pieces: &[Piece]) -> Vec<&Piece> {
    pieces
        .iter()
        .filter(|p| !matches!(p, Piece::Thought(_)))
        .collect()
}

fn text_of(pieces: &[&Piece]) -> String {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn calls_of<'a>(pieces: &[&'a Piece]) -> Vec<(&'a str, String)> {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Call { name, args } => Some((name.as_str(), args.to_string())),
            _ => None,
        })
        .collect()
}

/// An error in OpenAI's shape (`{"error": {"message", "type", "code"}}`).
pub fn error(error: &ApiError) -> Response {
    let (kind, code) = match error.status {
        StatusCode::TOO_MANY_REQUESTS => ("insufficient_quota", "insufficient_quota"),
        StatusCode::BAD_REQUEST => ("invalid_request_error", "invalid_request"),
        _ => ("server_error", "overloaded"),
    };
    let body =
        json!({"error": {"message": error.message, "type": kind, "code": code, "param": null}});
    wire::json_with_status(error.status, body.to_string())
}

/// `POST /openai/v1/chat/completions`.
pub fn chat(reply: Reply, model: &str, stream: bool) -> Written {
    let (pieces, blocked) = match reply {
        Reply::Error(e) => return Written::Refused(error(&e)),
        Reply::Blocked => (Vec::new(), true),
        Reply::Answer { pieces, .. } => (pieces, false),
    };
    let shown = visible(&pieces);
    let calls = calls_of(&shown);
    let finish = match (blocked, calls.is_empty()) {
        (true, _) => "content_filter",
        (false, false) => "tool_calls",
        _ => "stop",
    };
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 0,
               "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    if stream {
        let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
        for piece in &shown {
            let delta = match piece {
                Piece::Text(text) => json!({"content": text}),
                Piece::Call { name, args } => json!({"tool_calls": [{"index": 0, "id": "call_demo",
                    "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}),
                Piece::Thought(_) => continue,
            };
            events.push(chunk(delta, None));
        }
        events.push(chunk(json!({}), Some(finish)));
        let mut last = chunk(json!({}), None);
        last["choices"] = json!([]);
        last["usage"] = usage(shown.len(), true);
        events.push(last);
        let mut sse: Vec<String> = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        sse.push("data: [DONE]\n\n".into());
        return Written::Stream(sse);
    }
    let text = text_of(&shown);
    let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !calls.is_empty() {
        message["tool_calls"] = calls
            .iter()
            .map(|(name, args)| json!({"id": "call_demo", "type": "function", "function": {"name": name, "arguments": args}}))
            .collect();
    }
    let whole = json!({"id": "chatcmpl-demo", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage(shown.len(), true)});
    Written::Whole(whole.to_string())
}

/// `POST /openai/v1/responses`.
pub fn responses(reply: Reply, model: &str, stream: bool) -> Written {
    let pieces = match reply {
        Reply::Error(e) => return Written::Refused(error(&e)),
        Reply::Blocked => Vec::new(),
        Reply::Answer { pieces, .. } => pieces,
    };
    let shown = visible(&pieces);
    let text = text_of(&shown);
    let mut output = vec![
        json!({"type": "message", "id": "msg_demo", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    ];
    for (name, args) in calls_of(&shown) {
        output.push(
            json!({"type": "function_call", "id": "fc_demo", "call_id": "call_demo",
            "name": name, "arguments": args, "status": "completed"}),
        );
    }
    let response = |status: &str, output: &[Value]| {
        json!({"id": "resp_demo", "object": "response", "created_at": 0, "status": status, "model": model,
               "output": output, "usage": usage(shown.len(), false)})
    };
    if !stream {
        return Written::Whole(response("completed", &output).to_string());
    }
    let mut events = vec![
        json!({"type": "response.created", "response": response("in_progress", &[])}),
        json!({"type": "response.output_item.added", "output_index": 0, "item":
            {"type": "message", "id": "msg_demo", "status": "in_progress", "role": "assistant", "content": []}}),
        json!({"type": "response.content_part.added", "item_id": "msg_demo", "output_index": 0,
            "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
    ];
    for piece in &shown {
        if let Piece::Text(delta) = piece {
            events.push(
                json!({"type": "response.output_text.delta", "item_id": "msg_demo",
                "output_index": 0, "content_index": 0, "delta": delta}),
            );
        }
    }
    events.push(
        json!({"type": "response.output_text.done", "item_id": "msg_demo", "output_index": 0,
        "content_index": 0, "text": text}),
    );
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": output[0]}));
    for (index, item) in output.iter().enumerate().skip(1) {
        events.push(
            json!({"type": "response.output_item.added", "output_index": index, "item": item}),
        );
        events.push(
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    events.push(json!({"type": "response.completed", "response": response("completed", &output)}));
    let sse = events
        .iter()
        .enumerate()
        .map(|(n, e)| {
            let mut e = e.clone();
            e["sequence_number"] = json!(n);
            format!(
                "event: {}\ndata: {e}\n\n",
                e["type"].as_str().unwrap_or_default()
            )
        })
        .collect();
    Written::Stream(sse)
}

/// `GET /openai/v1/models`.
pub fn models() -> Response {
    let model =
        |id: &str| json!({"id": id, "object": "model", "created": 0, "owned_by": "omni-demo"});
    let body =
        json!({"object": "list", "data": [model(super::MODEL), model(super::FALLBACK_MODEL)]});
    wire::ok_json(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer() -> Reply {
        Reply::Answer {
            pieces: vec![
                Piece::Thought("hm".into()),
                Piece::Text("one ".into()),
                Piece::Text("two".into()),
            ],
            pause: std::time::Duration::ZERO,
        }
    }

    #[test]
    fn chat_streams_deltas_then_the_finish_usage_and_done() {
        let Written::Stream(events) = chat(answer(), "m", true) else {
            panic!("a stream")
        };
        assert_eq!(events.last().map(String::as_str), Some("data: [DONE]\n\n"));
        let texts: String = events
            .iter()
            .filter_map(|e| {
                serde_json::from_str::<Value>(e.trim_start_matches("data: ").trim()).ok()
            })
            .filter_map(|e| {
                e["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_string)
            })
            .collect();
        assert_eq!(texts, "one two");
        let Written::Whole(whole) = chat(answer(), "m", false) else {
            panic!("a body")
        };
        let whole: Value = serde_json::from_str(&whole).unwrap();
        assert_eq!(whole["choices"][0]["message"]["content"], "one two");
        assert_eq!(whole["choices"][0]["finish_reason"], "stop");
    }

    #[test]
    fn responses_stream_ends_with_the_completed_response() {
        let Written::Stream(events) = responses(answer(), "m", true) else {
            panic!("a stream")
        };
        let last = events.last().unwrap();
        assert!(last.starts_with("event: response.completed\n"), "{last}");
        let data: Value =
            serde_json::from_str(last.split_once("data: ").unwrap().1.trim()).unwrap();
        assert_eq!(
            data["response"]["output"][0]["content"][0]["text"],
            "one two"
        );
    }
}
