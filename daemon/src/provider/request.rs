//! Building the request body from a model context (the path from the start to the head).

use omni_proto::Role;
use serde_json::{Value, json};

use super::parts;
use crate::session::record::NodeRecord;

/// Request settings that do not come from the conversation.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
    /// Ask for thought summaries (`thinkingConfig.includeThoughts`).
    pub include_thoughts: bool,
}

/// The API's two roles: function results travel on the user's side.
fn wire_role(role: Role) -> &'static str {
    match role {
        Role::User | Role::Tool => "user",
        Role::Model => "model",
    }
}

/// The JSON body for `streamGenerateContent`. Consecutive nodes of the same wire role (a new
/// prompt after `undo` keeps the old one; a failed send leaves its prompt) are merged into
/// one content, because the API rejects turns that do not alternate.
pub fn build_body(context: &[NodeRecord], options: &RequestOptions) -> String {
    let mut contents: Vec<(&str, Vec<Value>)> = Vec::new();
    for node in context {
        let role = wire_role(node.role);
        let node_parts = node.parts.iter().map(parts::to_json);
        match contents.last_mut() {
            Some((last_role, merged)) if *last_role == role => merged.extend(node_parts),
            _ => contents.push((role, node_parts.collect())),
        }
    }
    let contents: Vec<Value> = contents
        .into_iter()
        .map(|(role, parts)| json!({ "role": role, "parts": parts }))
        .collect();
    let mut body = json!({ "contents": contents });
    if options.include_thoughts {
        body["generationConfig"] = json!({ "thinkingConfig": { "includeThoughts": true } });
    }
    body.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use omni_proto::{Part, PartContent};

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
        let body: Value =
            serde_json::from_str(&build_body(&context, &RequestOptions::default())).unwrap();
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
    fn function_results_travel_as_user_content_and_signatures_are_kept() {
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
        let body: Value = serde_json::from_str(&build_body(&context, &options)).unwrap();
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
            body["generationConfig"]["thinkingConfig"]["includeThoughts"],
            true
        );
    }
}
