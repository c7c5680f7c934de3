//! `--json` output: one object per event line, and the final result.

use omni_proto::{Event, PartContent};
use serde_json::{Value, json};

/// An event as one JSON line.
pub fn event(event: &Event) -> Value {
    match event {
        Event::PromptStored { session, node } => {
            json!({"event": "prompt_stored", "session": session, "node": node})
        }
        Event::Text(text) => json!({"event": "text", "text": text}),
        Event::Thought(text) => json!({"event": "thought", "text": text}),
        Event::FunctionCall(part) => match &part.content {
            PartContent::FunctionCall {
                id,
                name,
                args_json,
            } => json!({
                "event": "function_call",
                "id": id,
                "name": name,
                "args": serde_json::from_str::<Value>(args_json).unwrap_or(Value::Null),
            }),
            _ => json!({"event": "function_call"}),
        },
        Event::Retrying(notice) => json!({
            "event": "retrying",
            "attempt": notice.attempt,
            "max_attempts": notice.max_attempts,
            "class": notice.class,
            "message": notice.message,
            "wait_ms": notice.wait_ms,
            "discarded_partial": notice.discarded_partial,
        }),
        Event::BundleData(piece) => json!({"event": "bundle_data", "bytes": piece.len()}),
    }
}

/// An error as a JSON object (also printed to stderr as a sentence).
pub fn error(kind: Option<omni_proto::ErrorKind>, message: &str) -> Value {
    let kind = kind
        .map(|k| format!("{k:?}"))
        .unwrap_or_else(|| "client".into());
    json!({"error": {"kind": kind, "message": message}})
}
