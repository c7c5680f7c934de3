//! The demo model in Anthropic's wire format, under `/anthropic/v1`: Messages streamed
//! and whole (thoughts as thinking blocks, the tool trick as a tool use), token counts, the
//! model listing, and errors in Anthropic's shape (an overload is a 529).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::answer::{ApiError, Piece, Reply};
use super::wire::{self, Written};

/// An error in Anthropic's shape (`{"type": "error", "error": {"type", "message"}}`).
pub fn error(error: &ApiError) -> Response {
    let (status, kind) = match error.status {
        StatusCode::SERVICE_UNAVAILABLE => (
            StatusCode::from_u16(529).unwrap_or(error.status),
            "overloaded_error",
        ),
        StatusCode::TOO_MANY_REQUESTS => (error.status, "rate_limit_error"),
        StatusCode::BAD_REQUEST => (error.status, "invalid_request_error"),
        status => (status, "api_error"),
    };
    let body = json!({"type": "error", "error": {"type": kind, "message": error.message}});
    wire::json_with_status(status, body.to_string())
}

/// The content blocks of an answer: runs of thoughts and of text joined, each call a block.
fn blocks(pieces: &[Piece]) -> Vec<Value> {
    let mut blocks: Vec<Value> = Vec::new();
    for piece in pieces {
        let last = blocks.last_mut();
        match (piece, last) {
            (Piece::Thought(t), Some(b)) if b["type"] == "thinking" => {
                b["thinking"] = json!(format!("{}{t}", b["thinking"].as_str().unwrap_or_default()));
            }
            (Piece::Text(t), Some(b)) if b["type"] == "text" => {
                b["text"] = json!(format!("{}{t}", b["text"].as_str().unwrap_or_default()));
            }
            (Piece::Thought(t), _) => {
                blocks.push(json!({"type": "thinking", "thinking": t, "signature": "omni-demo"}))
            }
            (Piece::Text(t), _) => blocks.push(json!({"type": "text", "text": t})),
            (Piece::Call { name, args }, _) => blocks
                .push(json!({"type": "tool_use", "id": "toolu_demo", "name": name, "input": args})),
        }
    }
    blocks
}

/// `POST /anthropic/v1/messages`.
pub fn messages(reply: Reply, model: &str, stream: bool) -> Written {
    let (pieces, stop) = match reply {
        Reply::Error(e) => return Written::Refused(error(&e)),
        Reply::Blocked => (Vec::new(), "refusal"),
        Reply::Answer { pieces, .. } => (pieces, "end_turn"),
    };
    let calls = pieces.iter().any(|p| matches!(p, Piece::Call { .. }));
    let stop = if calls { "tool_use" } else { stop };
    let usage = json!({"input_tokens": 8, "output_tokens": pieces.len()});
    let message = |content: Vec<Value>, stop: Value| {
        json!({"id": "msg_demo", "type": "message", "role": "assistant", "model": model,
               "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage})
    };
    if !stream {
        return Written::Whole(message(blocks(&pieces), json!(stop)).to_string());
    }
    let mut events =
        vec![json!({"type": "message_start", "message": message(Vec::new(), Value::Null)})];
    let mut open: Option<(usize, &'static str)> = None;
    let mut index = 0;
    for piece in &pieces {
        let kind = match piece {
            Piece::Thought(_) => "thinking",
            Piece::Text(_) => "text",
            Piece::Call { .. } => "tool_use",
        };
        if open.map(|(_, k)| k) != Some(kind) || kind == "tool_use" {
            close(&mut events, &mut open, &mut index);
            let start = match piece {
                Piece::Thought(_) => json!({"type": "thinking", "thinking": ""}),
                Piece::Text(_) => json!({"type": "text", "text": ""}),
                Piece::Call { name, .. } => {
                    json!({"type": "tool_use", "id": "toolu_demo", "name": name, "input": {}})
                }
            };
            events.push(
                json!({"type": "content_block_start", "index": index, "content_block": start}),
            );
            open = Some((index, kind));
        }
        let delta = match piece {
            Piece::Thought(t) => json!({"type": "thinking_delta", "thinking": t}),
            Piece::Text(t) => json!({"type": "text_delta", "text": t}),
            Piece::Call { args, .. } => {
                json!({"type": "input_json_delta", "partial_json": args.to_string()})
            }
        };
        events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
    }
    close(&mut events, &mut open, &mut index);
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": {"output_tokens": pieces.len()}}),
    );
    events.push(json!({"type": "message_stop"}));
    let sse = events
        .iter()
        .map(|e| {
            format!(
                "event: {}\ndata: {e}\n\n",
                e["type"].as_str().unwrap_or_default()
            )
        })
        .collect();
    Written::Stream(sse)
}

/// Ends the open content block (a thinking block with its signature first).
fn close(events: &mut Vec<Value>, open: &mut Option<(usize, &'static str)>, index: &mut usize) {
    if let Some((at, kind)) = open.take() {
        if kind == "thinking" {
            events.push(json!({"type": "content_block_delta", "index": at,
                "delta": {"type": "signature_delta", "signature": "omni-demo"}}));
        }
        events.push(json!({"type": "content_block_stop", "index": at}));
        *index = at + 1;
    }
}

/// `POST /anthropic/v1/messages/count_tokens`: words in the request's texts.
pub fn count_tokens(request: &Value) -> Response {
    let words: usize = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| match &m["content"] {
            Value::String(text) => text.split_whitespace().count(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .map(|t| t.split_whitespace().count())
                .sum(),
            _ => 0,
        })
        .sum();
    wire::ok_json(json!({"input_tokens": words}).to_string())
}

/// `GET /anthropic/v1/models`.
pub fn models() -> Response {
    let model = |id: &str| json!({"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"});
    let body = json!({"data": [model(super::MODEL), model(super::FALLBACK_MODEL)], "has_more": false,
        "first_id": super::MODEL, "last_id": super::FALLBACK_MODEL});
    wire::ok_json(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thought_then_text_streams_as_two_blocks_and_stops_once() {
        let reply = Reply::Answer {
            pieces: vec![
                Piece::Thought("hm ".into()),
                Piece::Thought("yes".into()),
                Piece::Text("ok".into()),
            ],
            pause: std::time::Duration::ZERO,
        };
        let Written::Stream(events) = messages(reply, "m", true) else {
            panic!("a stream")
        };
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| e.lines().next().unwrap_or_default())
            .collect();
        assert_eq!(
            kinds
                .iter()
                .filter(|k| **k == "event: content_block_start")
                .count(),
            2
        );
        assert_eq!(kinds.last(), Some(&"event: message_stop"));
        let reply = Reply::Answer {
            pieces: vec![Piece::Text("a ".into()), Piece::Text("b".into())],
            pause: Default::default(),
        };
        let Written::Whole(whole) = messages(reply, "m", false) else {
            panic!("a body")
        };
        let whole: Value = serde_json::from_str(&whole).unwrap();
        assert_eq!(whole["content"], json!([{"type": "text", "text": "a b"}]));
        assert_eq!(whole["stop_reason"], "end_turn");
    }
}
