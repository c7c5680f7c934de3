//! The neutral context as a chat-completions request: prompts become `user` messages,
//! answers `assistant` messages (text, and tool calls with their arguments as JSON text),
//! and function results `tool` messages naming the call they answer. Thoughts are not sent
//! back: these servers do not take reasoning as input (DeepSeek refuses it).
//!
//! A call without an id (Gemini 2.5 gives none) gets one made from its node and position,
//! and its result, which Gemini pairs by position, gets the same.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::model::{NodeId, NodeRecord, PartContent, Role};
use crate::provider::body::{BodyWriter, RequestBody};
use crate::provider::fragment::{Extras, Fragment, results_with_ids};

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum Message<'a> {
    User {
        content: String,
    },
    Assistant {
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall<'a>>,
    },
    Tool {
        tool_call_id: String,
        content: &'a str,
    },
}

#[derive(Serialize)]
struct ToolCall<'a> {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: &'a RawValue,
}

/// The id a call without one goes by.
fn made_up_id(node: NodeId, position: usize) -> String {
    format!("call_{node}_{position}")
}

fn text_of(node: &NodeRecord) -> String {
    node.text()
}

/// The messages of one node. `last_calls` is the previous answer and its calls' ids, so
/// results without ids can be paired by position.
fn messages_of<'a>(node: &'a NodeRecord, last_calls: &mut Vec<String>) -> Vec<Message<'a>> {
    match node.role {
        Role::User | Role::Summary => vec![Message::User {
            content: text_of(node),
        }],
        Role::Model => {
            let mut tool_calls = Vec::new();
            for part in &node.parts {
                if let PartContent::FunctionCall {
                    id,
                    name,
                    args_json,
                } = &part.content
                {
                    let id = id
                        .clone()
                        .unwrap_or_else(|| made_up_id(node.id, tool_calls.len()));
                    tool_calls.push(ToolCall {
                        id,
                        kind: "function",
                        function: Function {
                            name,
                            arguments: args_json,
                        },
                    });
                }
            }
            *last_calls = tool_calls.iter().map(|call| call.id.clone()).collect();
            let text = text_of(node);
            let content = (!text.is_empty() || tool_calls.is_empty()).then_some(text);
            vec![Message::Assistant {
                content,
                tool_calls,
            }]
        }
        Role::Tool => results_with_ids(&node.parts, last_calls)
            .map(|(tool_call_id, content)| Message::Tool {
                tool_call_id,
                content,
            })
            .collect(),
    }
}

/// The declarations stored with a session (Gemini's `functionDeclarations`: name,
/// description, parameters) as chat-completions tools.
fn tools(tools_json: Option<&str>) -> Option<Vec<Tool<'_>>> {
    let declarations: Vec<&RawValue> = serde_json::from_str(tools_json?).ok()?;
    Some(
        declarations
            .into_iter()
            .map(|function| Tool {
                kind: "function",
                function,
            })
            .collect(),
    )
}

/// A node's messages, separated by commas, and the call ids the results after it answer:
/// its own calls' if it is an answer, else those it was given (`earlier`).
pub fn fragment(node: &NodeRecord, earlier: &[String]) -> (String, Vec<String>) {
    let mut last_calls = earlier.to_vec();
    let messages = messages_of(node, &mut last_calls);
    let mut out = String::new();
    for message in &messages {
        if !out.is_empty() {
            out.push(',');
        }
        // Strings and valid raw JSON only: this cannot fail.
        out.push_str(&serde_json::to_string(message).unwrap_or_default());
    }
    (out, last_calls)
}

/// The body of `POST /chat/completions` for `model` from the context's fragments.
pub fn assemble(model: &str, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let size: usize = fragments.iter().map(|f| f.json.len() + 1).sum();
    let mut out = BodyWriter::with_capacity(size + 256);
    out.push_str(r#"{"model":"#);
    out.push_str(&quoted(model));
    out.push_str(r#","messages":["#);
    let mut empty = true;
    if let Some(system) = extras.system {
        out.push_str(r#"{"role":"system","content":"#);
        out.push_str(&quoted(system));
        out.push('}');
        empty = false;
    }
    for fragment in fragments.iter().filter(|f| !f.json.is_empty()) {
        if !empty {
            out.push(',');
        }
        out.push_str(&fragment.json);
        empty = false;
    }
    out.push_str(r#"],"stream":true,"stream_options":{"include_usage":true}"#);
    if let Some(tools) = tools(extras.tools_json) {
        out.push_str(r#","tools":"#);
        out.push_str(&serde_json::to_string(&tools).unwrap_or_default());
    }
    out.push('}');
    out.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::model::Part;

    fn node(id: u64, role: Role, parts: Vec<PartContent>) -> NodeRecord {
        NodeRecord {
            id,
            parent: id - 1,
            role,
            parts: parts
                .into_iter()
                .map(|content| Part {
                    content,
                    thought_signature: None,
                })
                .collect(),
            created_at_ms: 0,
            model: None,
        }
    }

    #[test]
    fn calls_and_results_pair_by_id_made_up_when_missing() {
        let call = |id: Option<&str>, name: &str| PartContent::FunctionCall {
            id: id.map(Into::into),
            name: name.into(),
            args_json: r#"{"city":"Paris"}"#.into(),
        };
        let result = |name: &str| PartContent::FunctionResponse {
            id: None,
            name: name.into(),
            response_json: r#"{"output":21}"#.into(),
        };
        let context = [
            node(1, Role::User, vec![PartContent::Text("weather?".into())]),
            node(2, Role::Model, vec![call(None, "a"), call(None, "b")]),
            node(3, Role::Tool, vec![result("a"), result("b")]),
            node(
                4,
                Role::Model,
                vec![
                    PartContent::Thought("so".into()),
                    PartContent::Text("21".into()),
                ],
            ),
        ];
        let tools = r#"[{"name":"a","parameters":{"type":"object"}}]"#;
        let target = crate::provider::Target {
            provider: "local",
            kind: crate::provider::Kind::OpenAi,
            model: "m",
            max_tool_result: 0,
        };
        let extras = Extras {
            tools_json: Some(tools),
            system: Some("be brief"),
            options: &crate::provider::RequestOptions::default(),
        };
        let body: Value =
            serde_json::from_str(&crate::provider::body(&target, &context, extras).text()).unwrap();
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_2_0", "type": "function", "function": {"name": "a", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_2_1", "type": "function", "function": {"name": "b", "arguments": "{\"city\":\"Paris\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_2_0", "content": "{\"output\":21}"},
                {"role": "tool", "tool_call_id": "call_2_1", "content": "{\"output\":21}"},
                {"role": "assistant", "content": "21"},
            ])
        );
        assert_eq!(
            body["tools"][0],
            json!({"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}})
        );
        assert_eq!(body["stream_options"]["include_usage"], true);
    }
}
