//! A chat-completions request's `messages` as the turns a recording keeps: the user's
//! text (and any other content part, kept as it came), the assistant's text and tool
//! calls, and the tool messages that follow an assistant turn as one turn of results
//! (each named after the call it answers). System and developer messages are settings,
//! not turns.

use serde_json::Value;

use crate::model::{Part, PartContent, Role};
use crate::proxy::record::Turn;

/// The turns of a request body's `messages` (none if it has none).
pub fn turns(body: &Value) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        match message["role"].as_str().unwrap_or_default() {
            "user" => turns.push((Role::User, content(&message["content"]))),
            "assistant" => {
                let mut parts = content(&message["content"]);
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    let name = call["function"]["name"].as_str().unwrap_or_default();
                    let id = call["id"].as_str().map(str::to_string);
                    if let Some(id) = &id {
                        names.push((id.clone(), name.to_string()));
                    }
                    let args_json = match call["function"]["arguments"].as_str() {
                        Some(args) if !args.trim().is_empty() => args.to_string(),
                        _ => "{}".to_string(),
                    };
                    parts.push(Part::from(PartContent::FunctionCall {
                        id,
                        name: name.to_string(),
                        args_json,
                    }));
                }
                turns.push((Role::Model, parts));
            }
            "tool" => {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                let name = names
                    .iter()
                    .rev()
                    .find(|(called, _)| called == id)
                    .map_or(String::new(), |(_, name)| name.clone());
                let result = Part::from(PartContent::FunctionResponse {
                    id: Some(id.to_string()),
                    name,
                    response_json: text_of(&message["content"]),
                });
                match turns.last_mut() {
                    Some((Role::Tool, parts)) => parts.push(result),
                    _ => turns.push((Role::Tool, vec![result])),
                }
            }
            _ => {}
        }
    }
    turns
}

/// A message's content: a string, or parts of which text is kept as text and anything
/// else (an image, a file) as it came.
fn content(content: &Value) -> Vec<Part> {
    match content {
        Value::String(text) if !text.is_empty() => vec![Part::text(text.as_str())],
        Value::Array(parts) => parts
            .iter()
            .map(|part| match part["text"].as_str() {
                Some(text) if part["type"] == "text" => Part::text(text),
                _ => Part::from(PartContent::Other {
                    json: part.to_string(),
                }),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A tool message's content as one text: a string, or its text parts joined.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_results_that_follow_a_call_are_one_turn_named_after_their_calls() {
        let body = json!({"messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "paris", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "rome", "arguments": ""}}
            ]},
            {"role": "tool", "tool_call_id": "a", "content": "sunny"},
            {"role": "tool", "tool_call_id": "b", "content": "rain"}
        ]});
        let turns = turns(&body);
        let roles: Vec<Role> = turns.iter().map(|(role, _)| *role).collect();
        assert_eq!(roles, [Role::User, Role::Model, Role::Tool]);
        assert_eq!(turns[0].1, vec![Part::text("weather?")]);
        assert_eq!(turns[2].1.len(), 2);
        assert!(matches!(
            &turns[2].1[1].content,
            PartContent::FunctionResponse { name, response_json, .. }
                if name == "rome" && response_json == "rain"
        ));
        assert!(matches!(
            &turns[1].1[1].content,
            PartContent::FunctionCall { args_json, .. } if args_json == "{}"
        ));
    }
}
