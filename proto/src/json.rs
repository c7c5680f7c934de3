//! The JSON form of events, replies and errors: what `omnictl --json` prints and what the
//! HTTP API sends. One function per direction, so the two can never drift apart.
//!
//! An event is an object whose `event` field names it (`prompt_stored`, `text`, ...); the
//! same name is the server-sent event's name over HTTP. A reply is the object `omnictl
//! --json` prints for it. An error is `{"error": {"kind": ..., "message": ...}}`.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::ErrorReply;
use crate::replies::Reply;
use crate::response::Event;
use crate::view::PartContent;

/// The event's name: the server-sent event's `event:` line and the JSON's `event` field.
pub fn event_name(event: &Event) -> &'static str {
    match event {
        Event::PromptStored { .. } => "prompt_stored",
        Event::PromptsMerged { .. } => "prompts_merged",
        Event::Text(_) => "text",
        Event::Thought(_) => "thought",
        Event::FunctionCall(_) => "function_call",
        Event::Retrying(_) => "retrying",
        Event::BundleData(_) => "bundle_data",
        Event::Attached(_) => "attached",
        Event::Answered(_) => "answered",
        Event::Failed(_) => "failed",
        Event::Moved(_) => "moved",
        Event::Recovered(_) => "recovered",
        Event::Resumed { .. } => "resumed",
        Event::ToolResultStored { .. } => "tool_result_stored",
        Event::Missed { .. } => "missed",
        Event::ExportData(_) => "export_data",
        Event::Compacting(_) => "compacting",
        Event::Compacted(_) => "compacted",
        Event::Changed { .. } => "changed",
        Event::ReplyPiece(_) => "reply_piece",
    }
}

/// A serializable value as a JSON object (a non-object lands under `value`).
fn object(value: &impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        Ok(other) => Map::from_iter([("value".to_string(), other)]),
        Err(error) => Map::from_iter([("encoding_error".to_string(), json!(error.to_string()))]),
    }
}

/// JSON text that should hold a value, as that value (or the text itself, if it is not).
fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// An event as one JSON object, named by its `event` field.
pub fn event(event: &Event) -> Value {
    let mut body = match event {
        Event::PromptStored { session, node } => object(&json!({"session": session, "node": node})),
        Event::PromptsMerged { session, prompts } => {
            object(&json!({"session": session, "prompts": prompts}))
        }
        Event::Text(text) | Event::Thought(text) => object(&json!({"text": text})),
        Event::FunctionCall(part) => match &part.content {
            PartContent::FunctionCall {
                id,
                name,
                args_json,
            } => object(&json!({"id": id, "name": name, "args": parsed(args_json)})),
            _ => Map::new(),
        },
        Event::Retrying(notice) => object(notice),
        Event::BundleData(piece) => object(&json!({"bytes": piece.len()})),
        Event::Attached(summary) => object(&json!({"session": summary})),
        Event::Answered(answer) => object(answer),
        Event::Failed(error) => object(&self::error(error)),
        Event::Moved(outcome) => object(outcome),
        Event::Recovered(recovered) => object(recovered),
        Event::Resumed { session } | Event::Changed { session } => {
            object(&json!({"session": session}))
        }
        Event::ToolResultStored { session, calls } => {
            object(&json!({"session": session, "calls": calls}))
        }
        Event::Missed { events } => object(&json!({"events": events})),
        Event::ExportData(piece) | Event::ReplyPiece(piece) => {
            object(&json!({"bytes": piece.len()}))
        }
        Event::Compacting(compacting) => object(compacting),
        Event::Compacted(compacted) => object(compacted),
    };
    body.insert("event".into(), json!(event_name(event)));
    Value::Object(body)
}

/// A final reply as the JSON object `omnictl --json` prints for it.
pub fn reply(reply: &Reply) -> Value {
    reply.json()
}

/// An error as `{"error": {"kind": ..., "message": ...}}`.
pub fn error(error: &ErrorReply) -> Value {
    json!({"error": {"kind": error.kind, "message": error.message}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn events_carry_their_name_and_errors_their_snake_case_kind() {
        let text = event(&Event::Text("hi".into()));
        assert_eq!(text, json!({"event": "text", "text": "hi"}));
        let failed = event(&Event::Failed(ErrorReply::new(
            ErrorKind::NeedsRecovery,
            "why",
        )));
        assert_eq!(failed["event"], "failed");
        assert_eq!(failed["error"]["kind"], "needs_recovery");
        let kept = reply(&Reply::Cancelled(crate::Cancelled {
            session: "s".into(),
            turn: 3,
            kept: None,
        }));
        assert_eq!(kept, json!({"session": "s", "turn": 3, "kept": null}));
    }
}
