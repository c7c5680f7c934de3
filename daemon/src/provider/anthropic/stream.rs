//! The Messages API's stream, one event at a time, into neutral updates: text and
//! thinking pass through as they arrive; a tool use arrives as a block whose input comes
//! in JSON fragments and becomes one function-call part when its block stops; a thinking
//! block's signature (Anthropic's own, sent back only to Anthropic) arrives last and is
//! kept on a part of its own. `ping` means nothing; an `error` event fails the stream.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::{Part, PartContent, Usage};
use crate::provider::error::ProviderError;
use crate::provider::stream::{StreamUpdate, narrow};

/// A content block being received.
#[derive(Debug)]
enum Block {
    /// A tool use: its id, name and the input's JSON so far.
    ToolUse {
        id: String,
        name: String,
        input: String,
    },
    /// Thinking, and its signature once it came.
    Thinking { signature: Option<String> },
    /// Text, or a block Omni passes through without reading.
    Other,
}

/// What the stream has told so far.
#[derive(Debug, Default)]
pub struct Assembler {
    blocks: BTreeMap<u64, Block>,
    input_tokens: u64,
    cached_tokens: u64,
}

impl Assembler {
    /// Reads one event's data; what it adds to the answer, or `None` for an event that
    /// means nothing (`ping`, or a kind this version does not know).
    pub fn absorb(&mut self, data: &str) -> Result<Option<StreamUpdate>, ProviderError> {
        let event: Value = serde_json::from_str(data).map_err(|e| {
            ProviderError::BrokenStream(format!("an event is not valid JSON ({e})"))
        })?;
        let mut update = StreamUpdate::default();
        match event["type"].as_str().unwrap_or_default() {
            "message_start" => {
                let message = &event["message"];
                self.input_tokens = prompt_tokens(&message["usage"]).unwrap_or(0);
                self.cached_tokens = tokens(&message["usage"], "cache_read_input_tokens");
                update.model_version = message["model"].as_str().map(str::to_string);
            }
            "content_block_start" => self.start(&event, &mut update),
            "content_block_delta" => self.delta(&event, &mut update),
            "content_block_stop" => self.stop(&event, &mut update),
            "message_delta" => {
                update.finish_reason = event["delta"]["stop_reason"].as_str().map(str::to_string);
                if let Some(input) = prompt_tokens(&event["usage"]) {
                    self.input_tokens = input;
                }
                if let Some(cached) = event["usage"]["cache_read_input_tokens"].as_u64() {
                    self.cached_tokens = cached;
                }
                let output = tokens(&event["usage"], "output_tokens");
                update.usage = Some(Usage {
                    prompt_tokens: narrow(self.input_tokens),
                    answer_tokens: narrow(output),
                    thought_tokens: 0,
                    total_tokens: narrow(self.input_tokens.saturating_add(output)),
                    cached_tokens: narrow(self.cached_tokens),
                });
            }
            "message_stop" => {}
            "error" => {
                let message = event["error"]["message"].as_str().unwrap_or(data);
                return Err(ProviderError::InStream {
                    message: message.to_string(),
                    body: data.to_string(),
                });
            }
            _ => return Ok(None),
        }
        Ok(Some(update))
    }

    fn start(&mut self, event: &Value, update: &mut StreamUpdate) {
        let block = &event["content_block"];
        let received = match block["type"].as_str().unwrap_or_default() {
            "tool_use" => Block::ToolUse {
                id: block["id"].as_str().unwrap_or_default().to_string(),
                name: block["name"].as_str().unwrap_or_default().to_string(),
                input: String::new(),
            },
            "thinking" => {
                push_text(update, PartContent::Thought, &block["thinking"]);
                Block::Thinking { signature: None }
            }
            "text" => {
                push_text(update, PartContent::Text, &block["text"]);
                Block::Other
            }
            _ => {
                update.parts.push(Part::from(PartContent::Other {
                    json: block.to_string(),
                }));
                Block::Other
            }
        };
        self.blocks.insert(index(event), received);
    }

    fn delta(&mut self, event: &Value, update: &mut StreamUpdate) {
        let delta = &event["delta"];
        match (
            delta["type"].as_str().unwrap_or_default(),
            self.blocks.get_mut(&index(event)),
        ) {
            ("text_delta", _) => push_text(update, PartContent::Text, &delta["text"]),
            ("thinking_delta", _) => push_text(update, PartContent::Thought, &delta["thinking"]),
            ("signature_delta", Some(Block::Thinking { signature })) => {
                *signature = delta["signature"].as_str().map(str::to_string);
            }
            ("input_json_delta", Some(Block::ToolUse { input, .. })) => {
                input.push_str(delta["partial_json"].as_str().unwrap_or_default());
            }
            _ => {}
        }
    }

    fn stop(&mut self, event: &Value, update: &mut StreamUpdate) {
        match self.blocks.remove(&index(event)) {
            Some(Block::ToolUse { id, name, input }) => {
                let args_json = if input.trim().is_empty() {
                    "{}".to_string()
                } else {
                    input
                };
                update.parts.push(Part::from(PartContent::FunctionCall {
                    id: Some(id),
                    name,
                    args_json,
                }));
            }
            Some(Block::Thinking {
                signature: Some(signature),
            }) => update.parts.push(Part {
                content: PartContent::Thought(String::new()),
                thought_signature: Some(signature),
            }),
            _ => {}
        }
    }
}

fn index(event: &Value) -> u64 {
    event["index"].as_u64().unwrap_or(0)
}

fn tokens(usage: &Value, name: &str) -> u64 {
    usage[name].as_u64().unwrap_or(0)
}

/// The whole prompt's tokens: `input_tokens` counts only what no cache served, so those
/// read from and written to the prompt cache are added. `None` when the usage names none
/// (a `message_delta` of an older API version, which counts output only).
fn prompt_tokens(usage: &Value) -> Option<u64> {
    const PARTS: [&str; 3] = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ];
    PARTS
        .iter()
        .filter_map(|name| usage[*name].as_u64())
        .reduce(u64::saturating_add)
}

/// Adds a text-like part unless it is empty.
fn push_text(update: &mut StreamUpdate, kind: fn(String) -> PartContent, text: &Value) {
    if let Some(text) = text.as_str().filter(|t| !t.is_empty()) {
        update.parts.push(Part::from(kind(text.to_string())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(events: &[Value]) -> Vec<StreamUpdate> {
        let mut assembler = Assembler::default();
        events
            .iter()
            .filter_map(|e| assembler.absorb(&e.to_string()).expect("a valid event"))
            .collect()
    }

    #[test]
    fn text_thinking_and_a_tool_use_in_fragments_become_parts() {
        let updates = run(&[
            json!({"type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 12}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Let me look."}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": "}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "\"Paris\"}"}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}),
            json!({"type": "message_stop"}),
        ]);
        let parts: Vec<&Part> = updates.iter().flat_map(|u| &u.parts).collect();
        assert_eq!(parts[0].content, PartContent::Thought("hmm".into()));
        assert_eq!(parts[1].thought_signature.as_deref(), Some("sig"));
        assert_eq!(parts[2].content, PartContent::Text("Let me look.".into()));
        assert_eq!(
            parts[3].content,
            PartContent::FunctionCall {
                id: Some("toolu_1".into()),
                name: "weather".into(),
                args_json: "{\"city\": \"Paris\"}".into(),
            }
        );
        let last = updates
            .iter()
            .rev()
            .find(|u| u.finish_reason.is_some())
            .expect("a finish");
        assert_eq!(last.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(last.usage.as_ref().map(|u| u.total_tokens), Some(42));
    }

    #[test]
    fn cached_prompt_tokens_count_and_a_later_count_replaces_the_first() {
        let usage = |events: &[Value]| {
            run(events)
                .into_iter()
                .rev()
                .find_map(|u| u.usage)
                .expect("a usage")
        };
        let cached = usage(&[
            json!({"type": "message_start", "message": {"model": "m", "usage":
                {"input_tokens": 5, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000}}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}}),
        ]);
        assert_eq!((cached.prompt_tokens, cached.total_tokens), (1105, 1112));
        let recounted = usage(&[
            json!({"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 1}}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                   "usage": {"input_tokens": 40, "cache_read_input_tokens": 2, "output_tokens": 3}}),
        ]);
        assert_eq!((recounted.prompt_tokens, recounted.total_tokens), (42, 45));
    }

    #[test]
    fn an_error_event_fails_the_stream() {
        let mut assembler = Assembler::default();
        let error = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        assert!(matches!(
            assembler.absorb(&error.to_string()),
            Err(ProviderError::InStream { message, .. }) if message == "Overloaded"
        ));
    }
}
