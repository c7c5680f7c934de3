//! The Messages API's rules on `messages`, with its messages: each turn's shape and
//! blocks, user first, roles alternating, and every `tool_use` answered by a
//! `tool_result` in the very next turn (and no `tool_result` without one). A `system`
//! turn is refused unless the request's betas allow one (then it is text only, and apart).

use serde_json::{Map, Value};

use super::validate::{Refusal, invalid};

/// The keys each block type may carry.
fn block_keys(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "text" => &["type", "text", "cache_control", "citations"],
        "image" | "document" => &["type", "source", "cache_control", "title", "context"],
        "tool_use" => &["type", "id", "name", "input", "cache_control"],
        "tool_result" => &[
            "type",
            "tool_use_id",
            "content",
            "is_error",
            "cache_control",
        ],
        "thinking" => &["type", "thinking", "signature"],
        "redacted_thinking" => &["type", "data"],
        "server_tool_use" => &["type", "id", "name", "input", "cache_control"],
        "web_search_tool_result" => &["type", "tool_use_id", "content", "cache_control"],
        _ => return None,
    })
}

/// The beta under which `system` turns may come among the messages (Claude Code sends
/// them).
pub(crate) const SYSTEM_TURNS_BETA: &str = "mid-conversation-system-2026-04-07";

/// One user or assistant turn: its index in `messages`, its role, its content as blocks.
struct Turn {
    index: usize,
    role: String,
    blocks: Vec<Value>,
}

/// Checks the whole `messages` list; `system_turns` when the request's betas allow
/// `system` turns among them (they take no part in alternation or tool pairing).
pub(crate) fn check(messages: &[Value], system_turns: bool) -> Result<(), Refusal> {
    if messages.is_empty() {
        return Err(invalid("messages: at least one message is required"));
    }
    let mut turns = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let last = index + 1 == messages.len();
        if let Some(blocks) = check_message(index, message, last, system_turns)? {
            let role = message["role"].as_str().unwrap_or_default().to_string();
            turns.push(Turn {
                index,
                role,
                blocks,
            });
        }
    }
    if turns.first().is_none_or(|turn| turn.role != "user") {
        return Err(invalid(
            "messages: first message must use the \"user\" role",
        ));
    }
    for pair in turns.windows(2) {
        if pair[0].role == pair[1].role {
            return Err(invalid(&format!(
                "messages: roles must alternate between \"user\" and \"assistant\", but found \
                 multiple \"{}\" roles in a row",
                pair[0].role
            )));
        }
    }
    check_tool_pairing(&turns)
}

/// One message's role, keys and content; returns its content as blocks (`None` for a
/// `system` turn, which may carry only text).
fn check_message(
    i: usize,
    message: &Value,
    last: bool,
    system_turns: bool,
) -> Result<Option<Vec<Value>>, Refusal> {
    let Value::Object(message) = message else {
        return Err(invalid(&format!(
            "messages.{i}: Input should be a valid dictionary"
        )));
    };
    if let Some(key) = message.keys().find(|k| *k != "role" && *k != "content") {
        return Err(invalid(&format!(
            "messages.{i}.{key}: Extra inputs are not permitted"
        )));
    }
    let role = match message.get("role").and_then(Value::as_str) {
        None => return Err(invalid(&format!("messages.{i}.role: Field required"))),
        Some("system") if system_turns => "system",
        Some("system") => {
            return Err(invalid(
                "messages: Unexpected role \"system\". The Messages API accepts a top-level \
                 `system` parameter, not \"system\" as an input message role.",
            ));
        }
        Some(role @ ("user" | "assistant")) => role,
        Some(_) => {
            return Err(invalid(&format!(
                "messages.{i}.role: Input should be 'user' or 'assistant'"
            )));
        }
    };
    let blocks = match message.get("content") {
        None => return Err(invalid(&format!("messages.{i}.content: Field required"))),
        Some(Value::String(text)) if text.is_empty() => Vec::new(),
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(_) => {
            return Err(invalid(&format!(
                "messages.{i}.content: Input should be a valid list"
            )));
        }
    };
    if blocks.is_empty() && !(last && role == "assistant") {
        return Err(invalid(&format!(
            "messages.{i}: all messages must have non-empty content except for the optional \
             final assistant message"
        )));
    }
    for (j, block) in blocks.iter().enumerate() {
        let param = format!("messages.{i}.content.{j}");
        if role == "system" && block["type"] != "text" {
            return Err(invalid(&format!("{param}.type: Input should be 'text'")));
        }
        check_block(&param, role, block)?;
    }
    Ok((role != "system").then_some(blocks))
}

/// One content block: a known type, its fields, no others, in a role that may send it.
fn check_block(param: &str, role: &str, block: &Value) -> Result<(), Refusal> {
    let Value::Object(block) = block else {
        return Err(invalid(&format!(
            "{param}: Input should be a valid dictionary"
        )));
    };
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(keys) = block_keys(kind) else {
        return Err(invalid(&format!(
            "{param}: Input tag '{kind}' found using 'type' does not match any of the expected \
             tags: 'document', 'image', 'redacted_thinking', 'server_tool_use', 'text', \
             'thinking', 'tool_result', 'tool_use', 'web_search_tool_result'"
        )));
    };
    if let Some(key) = block.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(invalid(&format!(
            "{param}.{kind}.{key}: Extra inputs are not permitted"
        )));
    }
    let required: &[&str] = match kind {
        "text" => &["text"],
        "tool_use" => &["id", "name", "input"],
        "tool_result" => &["tool_use_id"],
        "thinking" => &["thinking", "signature"],
        "redacted_thinking" => &["data"],
        "server_tool_use" => &["id", "name", "input"],
        "web_search_tool_result" => &["tool_use_id", "content"],
        _ => &["source"],
    };
    if let Some(field) = required.iter().find(|f| !block.contains_key(**f)) {
        return Err(invalid(&format!("{param}.{kind}.{field}: Field required")));
    }
    check_fields(param, kind, block)?;
    let assistant_only = matches!(
        kind,
        "tool_use"
            | "thinking"
            | "redacted_thinking"
            | "server_tool_use"
            | "web_search_tool_result"
    );
    if (assistant_only && role != "assistant") || (kind == "tool_result" && role != "user") {
        return Err(invalid(&format!(
            "{param}: `{kind}` blocks can only be in `{}` messages",
            if assistant_only { "assistant" } else { "user" }
        )));
    }
    Ok(())
}

/// The types of a block's fields: text not empty, an object of input, string ids.
fn check_fields(param: &str, kind: &str, block: &Map<String, Value>) -> Result<(), Refusal> {
    let string_fields: &[&str] = match kind {
        "text" => &["text"],
        "tool_use" => &["id", "name"],
        "tool_result" => &["tool_use_id"],
        "thinking" => &["thinking", "signature"],
        _ => &[],
    };
    for field in string_fields {
        if !block[*field].is_string() {
            return Err(invalid(&format!(
                "{param}.{kind}.{field}: Input should be a valid string"
            )));
        }
    }
    if kind == "text" && block["text"] == "" {
        return Err(invalid("messages: text content blocks must be non-empty"));
    }
    if kind == "tool_use" && !block["input"].is_object() {
        return Err(invalid(&format!(
            "{param}.tool_use.input: Input should be a valid dictionary"
        )));
    }
    Ok(())
}

/// The ids of the blocks of `kind` (`tool_use` ids, or `tool_result`s' `tool_use_id`s).
fn ids<'a>(blocks: &'a [Value], kind: &str, key: &str) -> Vec<(usize, &'a str)> {
    blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b["type"] == kind)
        .map(|(j, b)| (j, b[key].as_str().unwrap_or_default()))
        .collect()
}

/// Every `tool_result` answers a `tool_use` of the turn just before; every `tool_use` is
/// answered in the turn just after.
fn check_tool_pairing(turns: &[Turn]) -> Result<(), Refusal> {
    for (n, turn) in turns.iter().enumerate() {
        let previous = n.checked_sub(1).map_or(&[][..], |p| &turns[p].blocks[..]);
        let asked: Vec<&str> = ids(previous, "tool_use", "id")
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        let stray: Vec<(usize, &str)> = ids(&turn.blocks, "tool_result", "tool_use_id")
            .into_iter()
            .filter(|(_, id)| !asked.contains(id))
            .collect();
        let i = turn.index;
        if let Some((j, _)) = stray.first() {
            let stray: Vec<&str> = stray.iter().map(|(_, id)| *id).collect();
            return Err(invalid(&format!(
                "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` \
                 blocks: {}. Each `tool_result` block must have a corresponding `tool_use` \
                 block in the previous message.",
                stray.join(", ")
            )));
        }
        let next = turns.get(n + 1).map_or(&[][..], |t| &t.blocks[..]);
        let answered: Vec<&str> = ids(next, "tool_result", "tool_use_id")
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        let unanswered: Vec<&str> = ids(&turn.blocks, "tool_use", "id")
            .into_iter()
            .map(|(_, id)| id)
            .filter(|id| !answered.contains(id))
            .collect();
        if !unanswered.is_empty() {
            return Err(invalid(&format!(
                "messages.{i}: `tool_use` ids were found without `tool_result` blocks \
                 immediately after: {}. Each `tool_use` block must have a corresponding \
                 `tool_result` block in the next message.",
                unanswered.join(", ")
            )));
        }
    }
    Ok(())
}
