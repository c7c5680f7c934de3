//! Building the request from a model context (the path from the start to the head): the
//! merged [`Content`]s, which remember which node each part came from (so preflight
//! validation can name offending nodes), and the JSON body in the target provider's
//! format ([`body`]).
//!
//! What one provider attached to an answer for itself does not travel to another: an
//! answer from elsewhere goes without its thoughts and thought signatures. Gemini 3 wants a
//! signature on the first function call of every answer, so a call another provider made
//! carries Google's documented placeholder, which tells it the call came from elsewhere.

use crate::model::{Part, PartContent, Role};
use serde_json::value::RawValue;

use super::{Kind, openai, parts, wire};
use crate::model::NodeId;
use crate::model::NodeRecord;

/// The signature Gemini accepts on a function call it did not make.
pub const FOREIGN_CALL_SIGNATURE: &str = "skip_thought_signature_validator";

/// Where a request goes: the provider (by name), its kind, and the model.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The provider's name: an answer it gave keeps what it attached for itself.
    pub provider: &'a str,
    /// Its wire format.
    pub kind: Kind,
    /// The model's name there.
    pub model: &'a str,
}

/// A node as `target` should see it: an answer another provider gave loses its thoughts
/// and signatures (and, for Gemini, its first call gets the placeholder signature).
fn as_seen_by(node: &NodeRecord, target: &Target<'_>) -> NodeRecord {
    let foreign = node
        .model
        .as_ref()
        .is_some_and(|info| info.provider != target.provider);
    if !foreign {
        return node.clone();
    }
    let mut node = node.clone();
    node.parts
        .retain(|part| !matches!(part.content, PartContent::Thought(_)));
    let mut first_call = true;
    for part in &mut node.parts {
        part.thought_signature = None;
        if target.kind == Kind::Gemini
            && first_call
            && matches!(part.content, PartContent::FunctionCall { .. })
        {
            part.thought_signature = Some(FOREIGN_CALL_SIGNATURE.to_string());
            first_call = false;
        }
    }
    node
}

/// The request body for `target`: the context in its wire format, with the session's
/// function declarations and system instruction.
pub fn body(
    target: &Target<'_>,
    context: &[NodeRecord],
    tools_json: Option<&str>,
    system: Option<&str>,
    options: &RequestOptions,
) -> String {
    let context: Vec<NodeRecord> = context.iter().map(|n| as_seen_by(n, target)).collect();
    match target.kind {
        Kind::Gemini => render(&contents(&context), tools_json, system, options),
        Kind::OpenAi => openai::render(target.model, system, &context, tools_json),
    }
}

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
pub fn render(
    contents: &[Content],
    tools_json: Option<&str>,
    system: Option<&str>,
    options: &RequestOptions,
) -> String {
    let request = wire::Request {
        system_instruction: system.map(|text| wire::SystemInstruction {
            parts: [wire::PartOut::Text {
                text,
                thought: None,
                thought_signature: None,
            }],
        }),
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
            serde_json::from_str(&render(&contents(&context), Some(tools), None, &options))
                .unwrap();
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

    fn answered_by(mut node: NodeRecord, provider: &str) -> NodeRecord {
        node.model = Some(crate::model::ModelInfo {
            model: "m".into(),
            model_version: None,
            finish_reason: Some("STOP".into()),
            usage: None,
            attempts: 1,
            latency_ms: 0,
            interrupted: false,
            provider: provider.into(),
        });
        node
    }

    #[test]
    fn signatures_and_thoughts_go_back_only_to_the_provider_that_made_them() {
        let signed = |content| Part {
            content,
            thought_signature: Some("sig-of-gemini".into()),
        };
        let call = |id: &str| PartContent::FunctionCall {
            id: Some(id.into()),
            name: "f".into(),
            args_json: "{}".into(),
        };
        let mut by_gemini = node(2, Role::Model, "");
        by_gemini.parts = vec![
            signed(PartContent::Thought("thinking".into())),
            signed(call("g1")),
        ];
        let mut by_local = node(4, Role::Model, "");
        by_local.parts = vec![
            Part {
                content: PartContent::Thought("local thought".into()),
                thought_signature: None,
            },
            Part {
                content: call("l1"),
                thought_signature: None,
            },
            Part {
                content: call("l2"),
                thought_signature: None,
            },
        ];
        let context = [
            node(1, Role::User, "go"),
            answered_by(by_gemini, "gemini"),
            node(3, Role::User, "more"),
            answered_by(by_local, "local"),
        ];
        let options = RequestOptions::default();
        let gemini = Target {
            provider: "gemini",
            kind: Kind::Gemini,
            model: "gemini-2.5-flash",
        };
        let sent: Value =
            serde_json::from_str(&body(&gemini, &context, None, None, &options)).unwrap();
        let own = &sent["contents"][1]["parts"];
        assert_eq!(
            own[0]["thoughtSignature"], "sig-of-gemini",
            "its own go back"
        );
        assert_eq!(own[1]["thoughtSignature"], "sig-of-gemini");
        let foreign = &sent["contents"][3]["parts"];
        assert_eq!(
            foreign.as_array().unwrap().len(),
            2,
            "another's thoughts stay"
        );
        assert_eq!(foreign[0]["thoughtSignature"], FOREIGN_CALL_SIGNATURE);
        assert!(
            foreign[1].get("thoughtSignature").is_none(),
            "only the first call"
        );

        let local = Target {
            provider: "local",
            kind: Kind::OpenAi,
            model: "qwen",
        };
        let text = body(&local, &context, None, None, &options);
        assert!(
            !text.contains("sig-of-gemini") && !text.contains("thinking"),
            "{text}"
        );
    }
}
