//! Requests of the OpenAI and Anthropic APIs read as the demo reads a Gemini one: the
//! messages as contents of text parts (function results as function responses), so every
//! trick and the echo work the same whatever API asked.

use serde_json::{Value, json};

use super::answer::DemoRequest;

/// A request of OpenAI's Chat Completions (`messages`), Responses (`input`) or
/// Anthropic's Messages (`messages`), as the demo's request; `None` when it is not JSON.
pub fn read(body: &[u8]) -> Option<(DemoRequest, Value)> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let contents: Vec<Value> = match (&value["messages"], &value["input"]) {
        (Value::Array(messages), _) => messages.iter().filter_map(content).collect(),
        (_, Value::String(text)) => vec![user_text(text)],
        (_, Value::Array(items)) => items.iter().filter_map(content).collect(),
        _ => Vec::new(),
    };
    let request = serde_json::from_value(json!({ "contents": contents })).ok()?;
    Some((request, value))
}

fn user_text(text: &str) -> Value {
    json!({"role": "user", "parts": [{"text": text}]})
}

/// One message (or Responses input item) as a content; system messages are left out.
fn content(message: &Value) -> Option<Value> {
    let role = match (message["role"].as_str(), message["type"].as_str()) {
        (Some("system" | "developer"), _) => return None,
        (Some("assistant"), _) => "model",
        (Some("tool"), _) | (_, Some("function_call_output")) => {
            let output = message["content"].as_str().or(message["output"].as_str());
            return Some(result(output.unwrap_or_default()));
        }
        (_, Some("function_call")) => {
            return Some(json!({"role": "model", "parts": [{"text": ""}]}));
        }
        _ => "user",
    };
    let mut parts = Vec::new();
    match &message["content"] {
        Value::String(text) => parts.push(json!({"text": text})),
        Value::Array(blocks) => {
            for block in blocks {
                match block["type"].as_str() {
                    Some("tool_result") => {
                        let output = block_text(&block["content"]);
                        return Some(result(&output));
                    }
                    _ => {
                        if let Some(text) = block["text"].as_str() {
                            parts.push(json!({"text": text}));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    if parts.is_empty() {
        parts.push(json!({"text": ""}));
    }
    Some(json!({"role": role, "parts": parts}))
}

/// A function's result, as the demo thanks for it.
fn result(output: &str) -> Value {
    json!({"role": "user", "parts": [{"functionResponse": {"name": "the tool", "response": {"output": output}}}]})
}

/// The text of a tool result's content (a string, or text blocks).
fn block_text(content: &Value) -> String {
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

/// Whether the client asked for a stream.
pub fn streams(request: &Value) -> bool {
    request["stream"] == Value::Bool(true)
}

/// The model the client asked for.
pub fn model(request: &Value) -> &str {
    request["model"].as_str().unwrap_or(super::MODEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::answer::echo;

    #[test]
    fn each_apis_messages_read_as_contents() {
        let chat = br#"{"model": "m", "messages": [{"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
            {"role": "user", "content": [{"type": "text", "text": "again"}]}]}"#;
        let (request, _) = read(chat).unwrap();
        assert!(echo(&request, "m").starts_with("You said: \"again\""));
        assert!(echo(&request, "m").contains("3 messages"));
        let responses = br#"{"model": "m", "input": "just this"}"#;
        assert!(echo(&read(responses).unwrap().0, "m").starts_with("You said: \"just this\""));
        let anthropic = br#"{"model": "m", "messages": [{"role": "user", "content": "w?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "18C"}]}]}"#;
        assert!(echo(&read(anthropic).unwrap().0, "m").starts_with("Thanks: the tool returned"));
        assert!(read(b"not json").is_none());
    }
}
