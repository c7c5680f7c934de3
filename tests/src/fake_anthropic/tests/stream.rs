//! A strict reader of the Messages API's event stream, as a client assembles it: every
//! event named as its `type`, `message_start` first, each block started, given deltas of
//! its own kind and stopped in index order, then `message_delta` and `message_stop`
//! last; `ping`s anywhere after the start. It returns the message the events build.

use serde_json::{Value, json};

use crate::fake_wire::client::Event;

/// The message a whole, valid stream builds (panics, naming the event, if it is not).
pub(super) fn assemble(events: &[Event]) -> Value {
    let mut message = Value::Null;
    let mut open: Option<usize> = None;
    let mut partial_json = String::new();
    let mut stopped = false;
    for (n, event) in events.iter().enumerate() {
        let data = event.json();
        let name = event.name.as_deref().unwrap_or_default();
        assert_eq!(data["type"], name, "event {n}: name and type differ");
        assert!(!stopped, "event {n} after message_stop");
        match name {
            "message_start" => {
                assert_eq!(n, 0, "message_start is first");
                message = data["message"].clone();
                assert_eq!(message["content"], json!([]));
            }
            "ping" => assert!(n > 0, "ping before message_start"),
            "content_block_start" => {
                assert!(open.is_none(), "event {n}: a block is still open");
                let index = data["index"].as_u64().unwrap() as usize;
                let content = message["content"].as_array_mut().unwrap();
                assert_eq!(index, content.len(), "event {n}: blocks in order");
                content.push(data["content_block"].clone());
                open = Some(index);
            }
            "content_block_delta" => {
                let index = open.expect("a delta outside a block");
                assert_eq!(data["index"], index, "event {n}");
                let block = &mut message["content"][index];
                apply(block, &data["delta"], &mut partial_json, n);
            }
            "content_block_stop" => {
                let index = open.take().expect("a stop outside a block");
                assert_eq!(data["index"], index, "event {n}");
                let block = &mut message["content"][index];
                if block["type"] == "tool_use" {
                    block["input"] = serde_json::from_str(&partial_json).unwrap();
                    partial_json.clear();
                }
            }
            "message_delta" => {
                assert!(open.is_none(), "message_delta inside a block");
                message["stop_reason"] = data["delta"]["stop_reason"].clone();
                message["usage"]["output_tokens"] = data["usage"]["output_tokens"].clone();
            }
            "message_stop" => stopped = true,
            other => panic!("event {n}: unexpected event {other:?}"),
        }
    }
    assert!(stopped, "the stream ends with message_stop");
    message
}

/// One delta, which must be of its block's kind.
fn apply(block: &mut Value, delta: &Value, partial_json: &mut String, n: usize) {
    let kind = block["type"].as_str().unwrap_or_default().to_string();
    match (kind.as_str(), delta["type"].as_str().unwrap_or_default()) {
        ("text", "text_delta") => append(block, "text", &delta["text"]),
        ("thinking", "thinking_delta") => append(block, "thinking", &delta["thinking"]),
        ("thinking", "signature_delta") => append(block, "signature", &delta["signature"]),
        ("tool_use", "input_json_delta") => {
            partial_json.push_str(delta["partial_json"].as_str().unwrap());
        }
        (block, delta) => panic!("event {n}: a {delta} in a {block} block"),
    }
}

fn append(block: &mut Value, key: &str, piece: &Value) {
    let text = format!(
        "{}{}",
        block[key].as_str().unwrap(),
        piece.as_str().unwrap()
    );
    block[key] = json!(text);
}
