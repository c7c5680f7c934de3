//! The neutral context as a Messages API request: prompts and function results become
//! `user` turns (results as `tool_result` blocks naming the `tool_use` they answer),
//! answers `assistant` turns (text, `tool_use` blocks with their input, and thinking
//! blocks with their signatures), consecutive nodes of one role merged into one turn (the
//! API wants roles to alternate). The system instruction is `system`, the declarations
//! `tools`, and `max_tokens` always goes.
//!
//! Only what Anthropic takes is sent: thinking only with its signature (an answer from
//! another provider has lost both before it gets here, `request.rs`), a `redacted_thinking`
//! block as it came, other providers' raw parts never. A call without an id (Gemini 2.5
//! gives none) gets one made from its node and position, and its result, which Gemini pairs
//! by position, gets the same; ids are kept to the characters Anthropic accepts.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::model::{NodeId, NodeRecord, Part, PartContent, Role};
use crate::provider::body::{BodyWriter, RequestBody};
use crate::provider::fragment::{Extras, Fragment, WireRole, results_with_ids};

/// One content block as sent.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: String,
    },
    Thinking {
        thinking: String,
        signature: &'a str,
    },
    ToolUse {
        id: String,
        name: &'a str,
        input: Input<'a>,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(skip_serializing_if = "str::is_empty")]
        content: &'a str,
    },
}

/// The id a call without one goes by.
fn made_up_id(node: NodeId, position: usize) -> String {
    format!("toolu_omni_{node}_{position}")
}

/// An id as Anthropic accepts it: letters, digits, `_` and `-` only.
fn sanitized(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A call's input: its arguments if they are a JSON object, else an empty object.
struct Input<'a>(Option<&'a RawValue>);

impl<'a> Input<'a> {
    fn of(args_json: &'a str) -> Self {
        Self(
            serde_json::from_str::<&RawValue>(args_json)
                .ok()
                .filter(|raw| raw.get().trim_start().starts_with('{')),
        )
    }
}

impl Serialize for Input<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.0 {
            Some(raw) => raw.serialize(serializer),
            None => serializer.serialize_map(Some(0))?.end(),
        }
    }
}

/// A block as JSON (strings and valid raw JSON only: this cannot fail).
fn json_of(block: &Block<'_>) -> String {
    serde_json::to_string(block).unwrap_or_default()
}

/// Text gathered so far, as a block unless it is empty.
fn flush_text(text: &mut String, blocks: &mut Vec<String>) {
    if !text.is_empty() {
        let text = std::mem::take(text);
        blocks.push(json_of(&Block::Text { text }));
    }
}

/// A `redacted_thinking` block Anthropic gave, kept whole: it goes back as it came.
fn redacted_thinking(json: &str) -> Option<&str> {
    let block: Value = serde_json::from_str(json).ok()?;
    (block["type"] == "redacted_thinking" && block["data"].is_string()).then_some(json)
}

/// The blocks of an answer, in order: thinking (its pieces joined) where a signature
/// closes it, text pieces joined, tool uses. `ids` gets its calls' ids.
fn answer_blocks(node: &NodeRecord, ids: &mut Vec<String>) -> Vec<String> {
    let mut blocks = Vec::new();
    let (mut thinking, mut text) = (String::new(), String::new());
    for part in &node.parts {
        if let PartContent::Text(piece) = &part.content {
            text.push_str(piece);
            continue;
        }
        flush_text(&mut text, &mut blocks);
        match &part.content {
            PartContent::Thought(piece) => {
                thinking.push_str(piece);
                if let Some(signature) = &part.thought_signature {
                    let thinking = std::mem::take(&mut thinking);
                    blocks.push(json_of(&Block::Thinking {
                        thinking,
                        signature,
                    }));
                }
            }
            PartContent::FunctionCall {
                id,
                name,
                args_json,
            } => {
                let id = id
                    .as_deref()
                    .map_or_else(|| made_up_id(node.id, ids.len()), sanitized);
                ids.push(id.clone());
                let input = Input::of(args_json);
                blocks.push(json_of(&Block::ToolUse { id, name, input }));
            }
            PartContent::Other { json } => {
                blocks.extend(redacted_thinking(json).map(str::to_string));
            }
            PartContent::Text(_)
            | PartContent::FunctionResponse { .. }
            | PartContent::Compaction { .. } => {}
        }
    }
    flush_text(&mut text, &mut blocks);
    blocks
}

/// The `tool_result` blocks of a node of function results; `calls` are the ids of the
/// answer's calls, which results without ids answer by position.
fn result_blocks(parts: &[Part], calls: &[String]) -> Vec<String> {
    results_with_ids(parts, calls)
        .map(|(id, response_json)| {
            json_of(&Block::ToolResult {
                tool_use_id: sanitized(&id),
                content: response_json,
            })
        })
        .collect()
}

/// A node's blocks, separated by commas, and the call ids the results after it answer:
/// its own calls' if it is an answer, else those it was given (`earlier`).
pub fn fragment(node: &NodeRecord, earlier: &[String]) -> Fragment {
    let mut call_ids = earlier.to_vec();
    let blocks = match node.role {
        Role::User | Role::Summary => {
            let mut text = node.text();
            let mut blocks = Vec::new();
            flush_text(&mut text, &mut blocks);
            blocks
        }
        Role::Model => {
            call_ids.clear();
            answer_blocks(node, &mut call_ids)
        }
        Role::Tool => result_blocks(&node.parts, earlier),
    };
    Fragment {
        role: WireRole::of(node.role),
        json: blocks.join(","),
        call_ids,
    }
}

/// The session's declarations (Gemini's `functionDeclarations`: name, description,
/// parameters) as Anthropic's tools.
fn tools(tools_json: Option<&str>) -> Option<String> {
    let declarations: Vec<Value> = serde_json::from_str(tools_json?).ok()?;
    let tools: Vec<Value> = declarations.iter().map(tool).collect();
    serde_json::to_string(&tools).ok()
}

fn tool(declaration: &Value) -> Value {
    let schema = declaration
        .get("parametersJsonSchema")
        .or_else(|| declaration.get("parameters"))
        .filter(|schema| schema.is_object())
        .map_or_else(
            || json!({"type": "object"}),
            |schema| lower_types(schema.clone()),
        );
    let mut tool = json!({"name": declaration["name"], "input_schema": schema});
    if let Some(description) = declaration.get("description").filter(|d| d.is_string()) {
        tool["description"] = description.clone();
    }
    tool
}

/// Gemini's schemas may write types in capitals (`OBJECT`); JSON Schema's are lower case.
fn lower_types(mut schema: Value) -> Value {
    match &mut schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key == "type" {
                    if let Value::String(kind) = value {
                        *kind = kind.to_ascii_lowercase();
                    }
                } else {
                    *value = lower_types(std::mem::take(value));
                }
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                *item = lower_types(std::mem::take(item));
            }
        }
        _ => {}
    }
    schema
}

/// Extended thinking's budget, when it is asked for and can be: half of `max_tokens`,
/// when that is at least the 1,024 tokens the API asks for, and not while the latest
/// answer uses tools without thinking first (another provider's, or one from before
/// thinking was asked), which the API refuses with thinking on.
fn thinking_budget(fragments: &[Fragment], extras: Extras<'_>) -> Option<u32> {
    let budget = extras.options.max_tokens / 2;
    let latest = fragments
        .iter()
        .rev()
        .find(|f| f.role == WireRole::Model && !f.json.is_empty());
    let unthought_tools = latest.is_some_and(|answer| {
        answer.json.contains(r#"{"type":"tool_use""#)
            && !answer.json.starts_with(r#"{"type":"thinking""#)
            && !answer.json.starts_with(r#"{"type":"redacted_thinking""#)
    });
    (extras.options.include_thoughts && budget >= 1024 && !unthought_tools).then_some(budget)
}

/// The body of `POST /v1/messages` for `model` from the context's fragments.
pub fn assemble(model: &str, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let size: usize = fragments.iter().map(|f| f.json.len() + 1).sum();
    let mut out = BodyWriter::with_capacity(size + 256);
    out.push_str(r#"{"model":"#);
    out.push_str(&quoted(model));
    out.push_str(&format!(r#","max_tokens":{}"#, extras.options.max_tokens));
    if let Some(system) = extras.system {
        out.push_str(r#","system":"#);
        out.push_str(&quoted(system));
    }
    out.push_str(r#","messages":["#);
    let mut open: Option<WireRole> = None;
    for fragment in fragments.iter().filter(|f| !f.json.is_empty()) {
        if open == Some(fragment.role) {
            out.push(',');
        } else {
            if open.is_some() {
                out.push_str("]},");
            }
            let role = match fragment.role {
                WireRole::User => "user",
                WireRole::Model => "assistant",
            };
            out.push_str(&format!(r#"{{"role":"{role}","content":["#));
            open = Some(fragment.role);
        }
        out.push_str(&fragment.json);
    }
    if open.is_some() {
        out.push_str("]}");
    }
    out.push(']');
    if let Some(tools) = tools(extras.tools_json) {
        out.push_str(r#","tools":"#);
        out.push_str(&tools);
    }
    if let Some(budget) = thinking_budget(fragments, extras) {
        out.push_str(&format!(
            r#","thinking":{{"type":"enabled","budget_tokens":{budget}}}"#
        ));
    }
    out.push_str(r#","stream":true}"#);
    out.finish()
}

#[cfg(test)]
mod tests;
