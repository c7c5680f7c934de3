//! A whole Messages answer as the events its stream would have carried (see
//! `proxy/whole.rs`): `message_start`, each content block started, filled (a tool use's
//! input, a thinking block's signature) and stopped, then `message_delta` with the stop
//! reason and usage.

use serde_json::{Value, json};

use crate::proxy::api::Event;

/// A `message` as its stream's events.
pub fn events(message: Value) -> Vec<Event> {
    let event = |data: Value| Event::data(data.to_string());
    let mut events = vec![event(json!({"type": "message_start", "message": {
        "model": message["model"], "usage": message["usage"],
    }}))];
    let blocks = message["content"].as_array().cloned().unwrap_or_default();
    for (index, mut block) in blocks.into_iter().enumerate() {
        let filled = match block["type"].as_str().unwrap_or_default() {
            "tool_use" => {
                let input = block["input"].take();
                block["input"] = json!({});
                Some(json!({"type": "input_json_delta", "partial_json": input.to_string()}))
            }
            "thinking" => block
                .as_object_mut()
                .and_then(|fields| fields.remove("signature"))
                .map(|signature| json!({"type": "signature_delta", "signature": signature})),
            _ => None,
        };
        events.push(event(
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        ));
        if let Some(delta) = filled {
            events.push(event(
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push(event(json!({"type": "content_block_stop", "index": index})));
    }
    events.push(event(json!({"type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"]}, "usage": message["usage"]})));
    events
}
