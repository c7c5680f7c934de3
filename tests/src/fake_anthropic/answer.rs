//! What the fake Anthropic model says: thinking, text and tool uses, as the streamed
//! events of the Messages API or as one `message` object. The default answer echoes the
//! last user turn, so a test can see what context went out.

use serde_json::{Value, json};

/// One answer: content blocks in Anthropic's order (thinking, text, tool uses).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// Thinking pieces (one `thinking_delta` each) and the block's signature.
    pub thinking: Option<(Vec<String>, String)>,
    /// Text pieces, one `text_delta` each.
    pub text: Vec<String>,
    /// Tool uses: id, name, input.
    pub tool_uses: Vec<(String, String, Value)>,
    /// A `ping` between every two events (else only the one after the first block starts).
    pub pings: bool,
}

/// The prompt's size as the fake counts it: 10 tokens a message, 10 for a system prompt.
pub(crate) fn prompt_tokens(request: &Value) -> u64 {
    let messages = request["messages"].as_array().map_or(0, Vec::len) as u64;
    let system = u64::from(!request["system"].is_null());
    10 * (messages + system)
}

impl Answer {
    /// An answer of these text pieces (`end_turn`).
    pub fn text<S: Into<String>>(pieces: impl IntoIterator<Item = S>) -> Self {
        Self {
            text: pieces.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// An answer that uses tools: (id, name, input); it stops with `tool_use`.
    pub fn tool_uses<I: Into<String>, N: Into<String>>(
        uses: impl IntoIterator<Item = (I, N, Value)>,
    ) -> Self {
        Self::default().with_tool_uses(uses)
    }

    /// The same answer with these tool uses after its text.
    pub fn with_tool_uses<I: Into<String>, N: Into<String>>(
        mut self,
        uses: impl IntoIterator<Item = (I, N, Value)>,
    ) -> Self {
        self.tool_uses = uses
            .into_iter()
            .map(|(id, name, input)| (id.into(), name.into(), input))
            .collect();
        self
    }

    /// The same answer with a thinking block first: these pieces, then `signature`.
    pub fn with_thinking<S: Into<String>>(
        mut self,
        pieces: impl IntoIterator<Item = S>,
        signature: &str,
    ) -> Self {
        let pieces = pieces.into_iter().map(Into::into).collect();
        self.thinking = Some((pieces, signature.to_string()));
        self
    }

    /// The same answer with a `ping` between every two events.
    pub fn with_pings(mut self) -> Self {
        self.pings = true;
        self
    }

    /// The default answer to a request body: echoes the last user turn's text (or thanks
    /// for its tool results, by `tool_use_id`; `system` turns are passed over) and says how many messages were sent and
    /// whether a system prompt came, in word-sized pieces.
    pub fn echo(request: &Value) -> Self {
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let last = messages
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .cloned()
            .unwrap_or(Value::Null);
        let blocks = match &last["content"] {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        let results: Vec<String> = blocks
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                let id = b["tool_use_id"].as_str().unwrap_or_default();
                format!("Tool {id} returned {}", result_text(&b["content"]))
            })
            .collect();
        let heard = if results.is_empty() {
            let said: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
            format!("You said: {}.", said.join(" / "))
        } else {
            format!("Thanks: {}.", results.join("; "))
        };
        let count = messages.len();
        let system = if request["system"].is_null() {
            "no system prompt"
        } else {
            "a system prompt"
        };
        let text = format!(
            "{heard} I am a fake Anthropic model, and I was sent {count} message{} and {system}.",
            if count == 1 { "" } else { "s" }
        );
        Self::text(text.split_inclusive(' '))
    }

    /// `tool_use` when the answer uses tools, else `end_turn`.
    pub fn stop_reason(&self) -> &'static str {
        if self.tool_uses.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        }
    }

    /// The content blocks, whole, as a `message` object carries them.
    pub fn blocks(&self) -> Vec<Value> {
        let mut blocks = Vec::new();
        if let Some((pieces, signature)) = &self.thinking {
            blocks.push(
                json!({"type": "thinking", "thinking": pieces.concat(), "signature": signature}),
            );
        }
        if !self.text.is_empty() {
            blocks.push(json!({"type": "text", "text": self.text.concat()}));
        }
        for (id, name, input) in &self.tool_uses {
            blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
        }
        blocks
    }

    /// How many output tokens the fake counts: one per streamed delta.
    pub fn output_tokens(&self) -> u64 {
        let thinking = self.thinking.as_ref().map_or(0, |(p, _)| p.len() + 1);
        (thinking + self.text.len() + 2 * self.tool_uses.len()) as u64
    }

    /// The non-streamed reply: one `message` object.
    pub fn message(&self, model: &str, input_tokens: u64) -> Value {
        json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
               "content": self.blocks(), "stop_reason": self.stop_reason(),
               "stop_sequence": null,
               "usage": {"input_tokens": input_tokens, "output_tokens": self.output_tokens()}})
    }
}

/// A `tool_result`'s content as text: a string, or its text blocks joined.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}
