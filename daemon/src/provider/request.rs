//! Building the request from a model context (the path from the start to the head), in two
//! steps: first the merged [`Content`]s, which remember which node each part came from (so
//! preflight validation can name offending nodes), then the JSON body.

use crate::model::{Part, Role};
use serde_json::value::RawValue;

use super::{parts, wire};
use crate::model::NodeId;
use crate::model::NodeRecord;

/// Request settings that do not come from the conversation.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
    /// Ask for thought summaries (`thinkingConfig.includeThoughts`).
    pub include_thoughts: bool,
}

/// The API's two roles: function results travel on the user's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireRole {
    /// `user`: prompts and function results.
    User,
    /// `model`: answers.
    Model,
}

impl WireRole {
    fn of(role: Role) -> Self {
        match role {
            Role::User | Role::Tool => WireRole::User,
            Role::Model => WireRole::Model,
        }
    }

    /// The role's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            WireRole::User => "user",
            WireRole::Model => "model",
        }
    }
}

/// A part and the node it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedPart {
    /// The node.
    pub node: NodeId,
    /// The node's role.
    pub role: Role,
    /// The part, as stored.
    pub part: Part,
}

/// One content of the request after merging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// Its wire role.
    pub role: WireRole,
    /// Its parts, in order, with their origin.
    pub parts: Vec<SourcedPart>,
}

/// Merges the context into contents. Consecutive nodes of the same wire role (a new prompt
/// after `undo` keeps the old one; a failed send leaves its prompt) become one content,
/// because the API rejects turns that do not alternate.
pub fn contents(context: &[NodeRecord]) -> Vec<Content> {
    let mut contents: Vec<Content> = Vec::new();
    for node in context {
        let role = WireRole::of(node.role);
        let sourced = node.parts.iter().map(|part| SourcedPart {
            node: node.id,
            role: node.role,
            part: part.clone(),
        });
        match contents.last_mut() {
            Some(last) if last.role == role => last.parts.extend(sourced),
            _ => contents.push(Content {
                role,
                parts: sourced.collect(),
            }),
        }
    }
    contents
}

/// The JSON body for `streamGenerateContent`.
pub fn render(contents: &[Content], tools_json: Option<&str>, options: &RequestOptions) -> String {
    let request = wire::Request {
        contents: contents
            .iter()
            .map(|content| wire::Content {
                role: content.role.as_str(),
                parts: content
                    .parts
                    .iter()
                    .map(|p| parts::to_wire(&p.part))
                    .collect(),
            })
            .collect(),
        tools: tools_json
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok())
            .map(|function_declarations| {
                [wire::Tools {
                    function_declarations,
                }]
            }),
        generation_config: options.include_thoughts.then_some(wire::GenerationConfig {
            thinking_config: wire::ThinkingConfig {
                include_thoughts: true,
            },
        }),
    };
    // Every field is a string, a number, a bool or valid raw JSON: this cannot fail.
    serde_json::to_string(&request).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::model::PartContent;

    fn node(id: u64, role: Role, text: &str) -> NodeRecord {
        NodeRecord {
            id,
            parent: id - 1,
            role,
            parts: vec![Part::text(text)],
            created_at_ms: 0,
            model: None,
        }
    }

    #[test]
    fn consecutive_prompts_are_merged_into_one_user_content() {
        let context = [
            node(1, Role::User, "hello"),
            node(2, Role::Model, "hi"),
            node(3, Role::User, "first try"),
            node(4, Role::User, "second try"),
        ];
        let merged = contents(&context);
        assert_eq!(merged.len(), 3);
        let origins: Vec<NodeId> = merged[2].parts.iter().map(|p| p.node).collect();
        assert_eq!(origins, [3, 4], "each part remembers its node");
        let body: Value = serde_json::from_str(&render(
            &contents(&context),
            None,
            &RequestOptions::default(),
        ))
        .unwrap();
        assert_eq!(
            body,
            json!({"contents": [
                {"role": "user", "parts": [{"text": "hello"}]},
                {"role": "model", "parts": [{"text": "hi"}]},
                {"role": "user", "parts": [{"text": "first try"}, {"text": "second try"}]},
            ]})
        );
    }

    #[test]
    fn function_results_travel_as_user_content_and_signatures_and_tools_are_kept() {
        let mut call = node(2, Role::Model, "");
        call.parts = vec![Part {
            content: PartContent::FunctionCall {
                id: Some("c1".into()),
                name: "get_weather".into(),
                args_json: r#"{"city":"Paris"}"#.into(),
            },
            thought_signature: Some("sig".into()),
        }];
        let mut result = node(3, Role::Tool, "");
        result.parts = vec![Part {
            content: PartContent::FunctionResponse {
                id: Some("c1".into()),
                name: "get_weather".into(),
                response_json: r#"{"output":{"temp_c":21}}"#.into(),
            },
            thought_signature: None,
        }];
        let context = [node(1, Role::User, "weather?"), call, result];
        let options = RequestOptions {
            include_thoughts: true,
        };
        let tools = r#"[{"name": "get_weather", "description": "Weather in a city"}]"#;
        let body: Value =
            serde_json::from_str(&render(&contents(&context), Some(tools), &options)).unwrap();
        assert_eq!(body["contents"][1]["parts"][0]["thoughtSignature"], "sig");
        assert_eq!(
            body["contents"][1]["parts"][0]["functionCall"]["args"]["city"],
            "Paris"
        );
        assert_eq!(body["contents"][2]["role"], "user");
        assert_eq!(
            body["contents"][2]["parts"][0]["functionResponse"]["response"]["output"]["temp_c"],
            21
        );
        assert_eq!(
            body["tools"][0]["functionDeclarations"][0]["name"],
            "get_weather"
        );
        assert_eq!(
            body["generationConfig"]["thinkingConfig"]["includeThoughts"],
            true
        );
    }
}
