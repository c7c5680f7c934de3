//! A Responses API request's `input` as the turns a recording keeps: a string is one user
//! turn; of a list of items, user messages are user turns, an assistant's messages and
//! the function calls after them one model turn, and the function call outputs after
//! those one turn of results (named after the call each answers). Reasoning items, system
//! and developer messages (and `instructions`) are not turns.

use serde_json::Value;

use crate::model::{Part, PartContent, Role};
use crate::proxy::record::Turn;

/// The turns of a request body's `input` (none if it has none).
pub fn turns(body: &Value) -> Vec<Turn> {
    let items = match &body["input"] {
        Value::String(text) => return vec![(Role::User, vec![Part::text(text.as_str())])],
        Value::Array(items) => items,
        _ => return Vec::new(),
    };
    let mut turns: Vec<Turn> = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    for item in items {
        let Some((role, part)) = read(item, &mut names) else {
            continue;
        };
        match turns.last_mut() {
            // A model turn's messages and calls, and a turn's results, arrive as items.
            Some((last, parts)) if *last == role && role != Role::User => parts.extend(part),
            _ => turns.push((role, part)),
        }
    }
    turns
}

/// One item as a side and its parts; `None` for items that are not turns.
fn read(item: &Value, names: &mut Vec<(String, String)>) -> Option<(Role, Vec<Part>)> {
    let kind = item["type"].as_str().unwrap_or("message");
    match kind {
        "message" => match item["role"].as_str().unwrap_or_default() {
            "user" => Some((Role::User, content(&item["content"]))),
            "assistant" => Some((Role::Model, content(&item["content"]))),
            _ => None,
        },
        "function_call" => {
            let call_id = item["call_id"].as_str().unwrap_or_default().to_string();
            let name = item["name"].as_str().unwrap_or_default().to_string();
            names.push((call_id.clone(), name.clone()));
            let args_json = match item["arguments"].as_str() {
                Some(args) if !args.trim().is_empty() => args.to_string(),
                _ => "{}".to_string(),
            };
            let call = PartContent::FunctionCall {
                id: Some(call_id),
                name,
                args_json,
            };
            Some((Role::Model, vec![Part::from(call)]))
        }
        "function_call_output" => {
            let call_id = item["call_id"].as_str().unwrap_or_default();
            let name = names
                .iter()
                .rev()
                .find(|(called, _)| called == call_id)
                .map_or(String::new(), |(_, name)| name.clone());
            let response_json = match &item["output"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let result = PartContent::FunctionResponse {
                id: Some(call_id.to_string()),
                name,
                response_json,
            };
            Some((Role::Tool, vec![Part::from(result)]))
        }
        _ => None,
    }
}

/// A message's content: a string, or parts whose text is kept as text and anything else
/// (an image, a file) as it came.
fn content(content: &Value) -> Vec<Part> {
    match content {
        Value::String(text) => vec![Part::text(text.as_str())],
        Value::Array(parts) => parts
            .iter()
            .map(|part| match part["text"].as_str() {
                Some(text) => Part::text(text),
                None => Part::from(PartContent::Other {
                    json: part.to_string(),
                }),
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_and_its_calls_are_one_turn_and_their_outputs_another() {
        let body = json!({"instructions": "be brief", "input": [
            {"type": "message", "role": "developer", "content": "rules"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ls?"}]},
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Running."}]},
            {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{\"cmd\":\"ls\"}"},
            {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}
        ]});
        let turns = turns(&body);
        let roles: Vec<Role> = turns.iter().map(|(role, _)| *role).collect();
        assert_eq!(roles, [Role::User, Role::Model, Role::Tool]);
        assert_eq!(turns[1].1.len(), 2);
        assert!(matches!(
            &turns[2].1[0].content,
            PartContent::FunctionResponse { name, response_json, .. }
                if name == "shell" && response_json == "a.txt"
        ));
        assert_eq!(
            super::turns(&json!({"input": "hi"}))[0].1,
            vec![Part::text("hi")]
        );
    }
}
