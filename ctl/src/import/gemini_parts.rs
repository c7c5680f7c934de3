//! gemini-cli keeps Gemini API `Content` (`{role, parts}`) as the API sent it, which is
//! Omni's own part model: text, thoughts, function calls and responses, each with its
//! thought signature. This turns them into Omni's parts and roles.

use omni_proto::{Part, PartContent, Role};
use serde_json::Value;

use super::lines::text_or_json;

/// The parts of a `PartListUnion`: a string, one part, or a list of parts (or strings).
pub(crate) fn parts_of(content: &Value) -> Vec<Part> {
    match content {
        Value::String(text) if text.is_empty() => Vec::new(),
        Value::String(text) => vec![Part::text(text.clone())],
        Value::Array(items) => items.iter().flat_map(parts_of).collect(),
        Value::Object(_) => vec![part_of(content)],
        _ => Vec::new(),
    }
}

/// One Gemini API part.
pub(crate) fn part_of(part: &Value) -> Part {
    let thought_signature = part["thoughtSignature"].as_str().map(str::to_string);
    let content = if let Some(text) = part["text"].as_str() {
        if part["thought"] == Value::Bool(true) {
            PartContent::Thought(text.to_string())
        } else {
            PartContent::Text(text.to_string())
        }
    } else if let Some(call) = part.get("functionCall") {
        PartContent::FunctionCall {
            id: call["id"].as_str().map(str::to_string),
            name: call["name"].as_str().unwrap_or_default().to_string(),
            args_json: call
                .get("args")
                .map_or_else(|| "{}".to_string(), Value::to_string),
        }
    } else if let Some(response) = part.get("functionResponse") {
        PartContent::FunctionResponse {
            id: response["id"].as_str().map(str::to_string),
            name: response["name"].as_str().unwrap_or_default().to_string(),
            response_json: text_or_json(&response["response"]),
        }
    } else {
        PartContent::Other {
            json: part.to_string(),
        }
    };
    Part {
        content,
        thought_signature,
    }
}

/// The role of a content with `role` and `parts`: the user's side is a prompt, or function
/// results when every part is one.
pub(crate) fn role_of(role: &str, parts: &[Part]) -> Role {
    let results = !parts.is_empty()
        && parts
            .iter()
            .all(|part| matches!(part.content, PartContent::FunctionResponse { .. }));
    match role {
        "model" | "gemini" => Role::Model,
        _ if results => Role::Tool,
        _ => Role::User,
    }
}

/// What gemini-cli itself leaves out of the conversation when it resumes one: the context
/// it sends first (`<session_context>`, `<hook_context>`) and slash or `?` commands.
pub(crate) fn is_ignored_prompt(parts: &[Part]) -> bool {
    let text: String = parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let text = text.trim();
    let only_text = parts
        .iter()
        .all(|part| matches!(part.content, PartContent::Text(_)));
    only_text
        && (text.is_empty()
            || ["/", "?", "<session_context>", "<hook_context>"]
                .iter()
                .any(|prefix| text.starts_with(prefix)))
}
