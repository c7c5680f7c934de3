//! An [`Answer`] as the Messages API streams it: `message_start`, per block
//! `content_block_start`, its deltas and `content_block_stop`, then `message_delta` (stop
//! reason and usage) and `message_stop`, with `ping`s among them.

use serde_json::{Value, json};

use super::Answer;

/// One streamed event: its name (also its `type`) and its data.
pub type Event = (&'static str, Value);

/// A block's deltas between its start and its stop.
fn block_events(index: usize, start: Value, deltas: Vec<Value>) -> Vec<Event> {
    let mut events = vec![(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": start}),
    )];
    events.extend(deltas.into_iter().map(|delta| {
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    }));
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
    events
}

/// Every block's events, in order.
fn blocks(answer: &Answer) -> Vec<Event> {
    let mut events = Vec::new();
    let mut index = 0;
    if let Some((pieces, signature)) = &answer.thinking {
        let mut deltas: Vec<Value> = pieces
            .iter()
            .map(|p| json!({"type": "thinking_delta", "thinking": p}))
            .collect();
        deltas.push(json!({"type": "signature_delta", "signature": signature}));
        let start = json!({"type": "thinking", "thinking": "", "signature": ""});
        events.extend(block_events(index, start, deltas));
        index += 1;
    }
    if !answer.text.is_empty() {
        let deltas = answer
            .text
            .iter()
            .map(|t| json!({"type": "text_delta", "text": t}))
            .collect();
        events.extend(block_events(
            index,
            json!({"type": "text", "text": ""}),
            deltas,
        ));
        index += 1;
    }
    for (id, name, input) in &answer.tool_uses {
        let json = input.to_string();
        let (first, second) = json.split_at(middle(&json));
        let deltas = [first, second]
            .iter()
            .map(|part| json!({"type": "input_json_delta", "partial_json": part}))
            .collect();
        let start = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
        events.extend(block_events(index, start, deltas));
        index += 1;
    }
    events
}

/// The char boundary nearest the middle of `text`.
fn middle(text: &str) -> usize {
    let mut at = text.len() / 2;
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn ping() -> Event {
    ("ping", json!({"type": "ping"}))
}

impl Answer {
    /// Every event of the streamed answer, as Anthropic sends them.
    pub fn events(&self, model: &str, input_tokens: u64) -> Vec<Event> {
        let start = json!({"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1}}});
        let mut events = vec![("message_start", start)];
        let blocks = blocks(self);
        let first_block = blocks.len().min(1);
        for (i, event) in blocks.into_iter().enumerate() {
            events.push(event);
            if i + 1 == first_block {
                events.push(ping());
            }
        }
        events.push((
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": self.stop_reason(), "stop_sequence": null},
                   "usage": {"output_tokens": self.output_tokens()}}),
        ));
        events.push(("message_stop", json!({"type": "message_stop"})));
        if self.pings {
            return with_pings(events);
        }
        events
    }
}

/// `events` with a `ping` between every two that are not pings already.
fn with_pings(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for event in events {
        let after_ping = out.last().is_some_and(|(name, _)| *name == "ping");
        if !out.is_empty() && !after_ping && event.0 != "ping" {
            out.push(ping());
        }
        out.push(event);
    }
    out
}

/// An `error` event, as Anthropic sends one mid-stream.
pub fn error_event(kind: &str, message: &str) -> Event {
    (
        "error",
        json!({"type": "error", "error": {"type": kind, "message": message}}),
    )
}
