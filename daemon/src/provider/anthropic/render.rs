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
use crate::provider::fragment::{Extras, Fragment, WireRole};

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
            PartContent::Text(_) | PartContent::FunctionResponse { .. } => {}
        }
    }
    flush_text(&mut text, &mut blocks);
    blocks
}

/// The `tool_result` blocks of a node of function results; `calls` are the ids of the
/// answer's calls, which results without ids answer by position.
fn result_blocks(parts: &[Part], calls: &[String]) -> Vec<String> {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::FunctionResponse {
                id, response_json, ..
            } => Some((id, response_json)),
            _ => None,
        })
        .enumerate()
        .map(|(position, (id, response_json))| {
            let tool_use_id = id.as_deref().map_or_else(
                || calls.get(position).cloned().unwrap_or_default(),
                sanitized,
            );
            json_of(&Block::ToolResult {
                tool_use_id,
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
        Role::User => {
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

/// Extended thinking's budget for `max_tokens`: half of it, when that is at least the
/// 1,024 tokens the API asks for.
fn thinking_budget(max_tokens: u32) -> Option<u32> {
    Some(max_tokens / 2).filter(|budget| *budget >= 1024)
}

/// The body of `POST /v1/messages` for `model` from the context's fragments.
pub fn assemble(model: &str, fragments: &[Fragment], extras: Extras<'_>) -> String {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let size: usize = fragments.iter().map(|f| f.json.len() + 1).sum();
    let mut out = String::with_capacity(size + 256);
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
    if let Some(budget) =
        thinking_budget(extras.options.max_tokens).filter(|_| extras.options.include_thoughts)
    {
        out.push_str(&format!(
            r#","thinking":{{"type":"enabled","budget_tokens":{budget}}}"#
        ));
    }
    out.push_str(r#","stream":true}"#);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::model::ModelInfo;
    use crate::provider::{Kind, RequestOptions, Target, body};

    fn node(id: u64, role: Role, parts: Vec<Part>) -> NodeRecord {
        NodeRecord {
            id,
            parent: id - 1,
            role,
            parts,
            created_at_ms: 0,
            model: None,
        }
    }

    fn by(mut node: NodeRecord, provider: &str) -> NodeRecord {
        node.model = Some(ModelInfo {
            model: "m".into(),
            model_version: None,
            finish_reason: None,
            usage: None,
            attempts: 1,
            latency_ms: 0,
            interrupted: false,
            provider: provider.into(),
        });
        node
    }

    fn call(id: Option<&str>, name: &str) -> Part {
        Part::from(PartContent::FunctionCall {
            id: id.map(Into::into),
            name: name.into(),
            args_json: r#"{"city":"Paris"}"#.into(),
        })
    }

    fn result(id: Option<&str>, name: &str) -> Part {
        Part::from(PartContent::FunctionResponse {
            id: id.map(Into::into),
            name: name.into(),
            response_json: r#"{"temp_c":21}"#.into(),
        })
    }

    fn signed(text: &str, signature: Option<&str>) -> Part {
        Part {
            content: PartContent::Thought(text.into()),
            thought_signature: signature.map(Into::into),
        }
    }

    const CLAUDE: Target<'static> = Target {
        provider: "anthropic",
        kind: Kind::Anthropic,
        model: "claude-sonnet-4-5",
    };

    fn sent(context: &[NodeRecord], tools: Option<&str>, options: &RequestOptions) -> Value {
        let extras = Extras {
            tools_json: tools,
            system: Some("be brief"),
            options,
        };
        serde_json::from_str(&body(&CLAUDE, context, extras)).unwrap()
    }

    #[test]
    fn a_conversation_with_tools_and_thinking_in_anthropics_shape() {
        let answer = by(
            node(
                2,
                Role::Model,
                vec![
                    signed("let me ", None),
                    signed("look", None),
                    signed("", Some("sig-1")),
                    Part::text("Looking"),
                    Part::text(" now."),
                    call(Some("toolu_1"), "get_weather"),
                    call(Some("toolu_2"), "get_time"),
                ],
            ),
            "anthropic",
        );
        let context = [
            node(1, Role::User, vec![Part::text("weather?")]),
            answer,
            node(
                3,
                Role::Tool,
                vec![
                    result(Some("toolu_1"), "get_weather"),
                    result(Some("toolu_2"), "get_time"),
                ],
            ),
            node(4, Role::User, vec![Part::text("and?")]),
        ];
        let tools = r#"[{"name":"get_weather","description":"d","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}},{"name":"get_time"}]"#;
        let options = RequestOptions {
            include_thoughts: true,
            max_tokens: 4096,
        };
        let body = sent(&context, Some(tools), &options);
        assert_eq!(body["model"], "claude-sonnet-4-5");
        assert_eq!(body["max_tokens"], 4096);
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["stream"], true);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        );
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "let me look", "signature": "sig-1"},
                    {"type": "text", "text": "Looking now."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {"city": "Paris"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"temp_c\":21}"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "{\"temp_c\":21}"},
                    {"type": "text", "text": "and?"},
                ]},
            ])
        );
        assert_eq!(
            body["tools"],
            json!([
                {"name": "get_weather", "description": "d", "input_schema":
                    {"type": "object", "properties": {"city": {"type": "string"}}}},
                {"name": "get_time", "input_schema": {"type": "object"}},
            ])
        );
    }

    #[test]
    fn another_providers_calls_get_ids_and_lose_what_was_its_own() {
        let gemini_answer = by(
            node(
                2,
                Role::Model,
                vec![
                    signed("gemini thinks", Some("gemini-signature")),
                    Part::from(PartContent::Other {
                        json: r#"{"executableCode":{"code":"1+1"}}"#.into(),
                    }),
                    call(None, "get_weather"),
                    call(Some("fc/7"), "get_time"),
                ],
            ),
            "gemini",
        );
        let context = [
            node(1, Role::User, vec![Part::text("go")]),
            gemini_answer,
            node(
                3,
                Role::Tool,
                vec![
                    result(None, "get_weather"),
                    result(Some("fc/7"), "get_time"),
                ],
            ),
        ];
        let options = RequestOptions::default();
        let body = sent(&context, None, &options);
        let text = body.to_string();
        assert!(
            !text.contains("gemini") && !text.contains("executableCode"),
            "{text}"
        );
        assert_eq!(body["max_tokens"], 8192);
        assert!(body.get("thinking").is_none() && body.get("tools").is_none());
        let uses = &body["messages"][1]["content"];
        assert_eq!(uses.as_array().unwrap().len(), 2, "{uses}");
        assert_eq!(uses[0]["id"], "toolu_omni_2_0");
        assert_eq!(uses[1]["id"], "fc_7");
        let results = &body["messages"][2]["content"];
        assert_eq!(results[0]["tool_use_id"], "toolu_omni_2_0");
        assert_eq!(results[1]["tool_use_id"], "fc_7");
    }

    #[test]
    fn thinking_without_a_signature_and_empty_turns_are_not_sent() {
        let answer = node(
            2,
            Role::Model,
            vec![
                signed("unsigned", None),
                Part::text("hi"),
                Part::from(PartContent::Other {
                    json: r#"{"type":"redacted_thinking","data":"abc"}"#.into(),
                }),
            ],
        );
        let context = [
            node(1, Role::User, vec![Part::text("a")]),
            node(2, Role::User, vec![Part::text("")]),
            answer,
            node(4, Role::User, vec![Part::text("b")]),
            node(5, Role::User, vec![Part::text("c")]),
        ];
        let body = sent(&context, Some("not json"), &RequestOptions::default());
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "a"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "redacted_thinking", "data": "abc"},
                ]},
                {"role": "user", "content": [{"type": "text", "text": "b"}, {"type": "text", "text": "c"}]},
            ])
        );
        assert!(body.get("tools").is_none());
    }
}
