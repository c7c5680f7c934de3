//! A Messages API request's `messages` as the turns a recording keeps: text, tool uses
//! (function calls) and thinking (with its signature, Anthropic's own) on the assistant's
//! side; text and tool results (named after the tool use they answer) on the user's. A
//! user message that opens with tool results is a turn of tool results. `system` is a
//! setting, not a turn.

use serde_json::Value;

use crate::model::{Part, PartContent, Role};
use crate::proxy::record::Turn;

/// The turns of a request body's `messages` (none if it has none).
pub fn turns(body: &Value) -> Vec<Turn> {
    let mut names: Vec<(String, String)> = Vec::new();
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| {
            let blocks = blocks(&message["content"]);
            if message["role"] == "assistant" {
                (
                    Role::Model,
                    blocks.iter().map(|b| said(b, &mut names)).collect(),
                )
            } else {
                let role = match blocks.first() {
                    Some(first) if first["type"] == "tool_result" => Role::Tool,
                    _ => Role::User,
                };
                (role, blocks.iter().map(|b| answered(b, &names)).collect())
            }
        })
        .collect()
}

/// A message's content as blocks (a string is one text block).
fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        _ => Vec::new(),
    }
}

/// One block of the assistant's; a tool use's name is kept for the result that answers it.
fn said(block: &Value, names: &mut Vec<(String, String)>) -> Part {
    match block["type"].as_str().unwrap_or_default() {
        "text" => Part::text(block["text"].as_str().unwrap_or_default()),
        "tool_use" => {
            let id = block["id"].as_str().unwrap_or_default().to_string();
            let name = block["name"].as_str().unwrap_or_default().to_string();
            names.push((id.clone(), name.clone()));
            Part::from(PartContent::FunctionCall {
                id: Some(id),
                name,
                args_json: block["input"].to_string(),
            })
        }
        "thinking" => Part {
            content: PartContent::Thought(block["thinking"].as_str().unwrap_or_default().into()),
            thought_signature: block["signature"].as_str().map(str::to_string),
        },
        _ => other(block),
    }
}

/// One block of the user's: text, a tool result, or anything else as it came.
fn answered(block: &Value, names: &[(String, String)]) -> Part {
    match block["type"].as_str().unwrap_or_default() {
        "text" => Part::text(block["text"].as_str().unwrap_or_default()),
        "tool_result" => {
            let id = block["tool_use_id"].as_str().unwrap_or_default();
            let name = names
                .iter()
                .rev()
                .find(|(used, _)| used == id)
                .map_or(String::new(), |(_, name)| name.clone());
            let response_json = match &block["content"] {
                Value::String(text) => text.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            Part::from(PartContent::FunctionResponse {
                id: Some(id.to_string()),
                name,
                response_json,
            })
        }
        _ => other(block),
    }
}

fn other(block: &Value) -> Part {
    Part::from(PartContent::Other {
        json: block.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_uses_thinking_and_results_become_turns() {
        let body = json!({"system": "be brief", "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                {"type": "text", "text": "and tomorrow?"}
            ]}
        ]});
        let turns = turns(&body);
        let roles: Vec<Role> = turns.iter().map(|(role, _)| *role).collect();
        assert_eq!(roles, [Role::User, Role::Model, Role::Tool]);
        assert_eq!(turns[1].1[0].thought_signature.as_deref(), Some("sig"));
        assert!(matches!(
            &turns[2].1[0].content,
            PartContent::FunctionResponse { name, response_json, .. }
                if name == "weather" && response_json == "sunny"
        ));
        assert_eq!(turns[2].1[1], Part::text("and tomorrow?"));
    }
}
