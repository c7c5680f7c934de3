//! Building the request body from a model context (the path from the start to the head)
//! in the target provider's format, from one [`Fragment`] per node: a session that holds
//! its context already rendered sends a new turn by rendering only that turn, and a whole
//! context renders the same way ([`body`]).
//!
//! What one provider attached to an answer for itself does not travel to another: an
//! answer from elsewhere goes without its thoughts, thought signatures and raw parts, and
//! its target's family adopts it (Gemini marks its first call as made elsewhere).

use std::borrow::Cow;

use crate::model::{NodeRecord, Part, PartContent, Role};

use super::body::RequestBody;
use super::elide::elided;
use super::fragment::{Extras, Fragment};
use super::kind::Kind;

/// Where a request goes: the provider (by name), its kind, and the model.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The provider's name: an answer it gave keeps what it attached for itself.
    pub provider: &'a str,
    /// Its wire format.
    pub kind: Kind,
    /// The model's name there.
    pub model: &'a str,
    /// Tool results over this many bytes are sent cut (`context.max_tool_result`); 0
    /// never cuts.
    pub max_tool_result: usize,
}

/// How a compaction's summary opens, as the model reads it.
pub const SUMMARY_PREAMBLE: &str = "[The earlier part of this conversation was compacted: \
     the summary below stands for it. The turns after the summary follow as they were.]";

/// A summary as every model sees it: a user turn whose text is the preamble and the
/// summary (the compaction mark stays home).
fn summary_as_prompt(node: &NodeRecord) -> NodeRecord {
    NodeRecord {
        role: Role::User,
        parts: vec![Part::text(format!("{SUMMARY_PREAMBLE}\n\n{}", node.text()))],
        model: None,
        ..node.clone()
    }
}

/// A node as `target` should see it: an answer another provider gave loses its thoughts,
/// signatures and raw parts (each family's own wire JSON: Gemini's code execution,
/// Anthropic's redacted thinking), and is adopted by the target's family; a tool result
/// over the target's limit is cut ([`elided`]). A summary is a prompt. The stored node is
/// never changed.
fn as_seen_by<'a>(node: &'a NodeRecord, target: &Target<'_>) -> Cow<'a, NodeRecord> {
    if node.role == Role::Summary {
        return Cow::Owned(summary_as_prompt(node));
    }
    let foreign = node
        .model
        .as_ref()
        .is_some_and(|info| info.provider != target.provider);
    let mut node = Cow::Borrowed(node);
    if foreign {
        let node = node.to_mut();
        node.parts.retain(|part| {
            !matches!(
                part.content,
                PartContent::Thought(_) | PartContent::Other { .. }
            )
        });
        for part in &mut node.parts {
            part.thought_signature = None;
        }
        target.kind.family().adopt_foreign(node);
    }
    cut_large_results(&mut node, target.max_tool_result);
    node
}

/// Cuts every function response of `node` over `max` bytes, cloning it only then.
fn cut_large_results(node: &mut Cow<'_, NodeRecord>, max: usize) {
    let cuts: Vec<(usize, String)> = node
        .parts
        .iter()
        .enumerate()
        .filter_map(|(index, part)| match &part.content {
            PartContent::FunctionResponse { response_json, .. } => {
                elided(response_json, max).map(|cut| (index, cut))
            }
            _ => None,
        })
        .collect();
    for (index, cut) in cuts {
        if let PartContent::FunctionResponse { response_json, .. } =
            &mut node.to_mut().parts[index].content
        {
            *response_json = cut;
        }
    }
}

/// `node` rendered for `target`; `previous` is the fragment of the node before it.
pub fn fragment(target: &Target<'_>, node: &NodeRecord, previous: Option<&Fragment>) -> Fragment {
    target
        .kind
        .family()
        .fragment(&as_seen_by(node, target), previous)
}

/// Every node of a context rendered for `target`, in order.
pub fn fragments(target: &Target<'_>, context: &[NodeRecord]) -> Vec<Fragment> {
    let mut out: Vec<Fragment> = Vec::with_capacity(context.len());
    for node in context {
        let next = fragment(target, node, out.last());
        out.push(next);
    }
    out
}

/// The request body for `target` from the fragments of its context, in order.
pub fn assemble(target: &Target<'_>, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
    target
        .kind
        .family()
        .assemble(target.model, fragments, extras)
}

/// The request body for `target`: the context in its wire format, with the session's
/// function declarations and system instruction.
pub fn body(target: &Target<'_>, context: &[NodeRecord], extras: Extras<'_>) -> RequestBody {
    assemble(target, &fragments(target, context), extras)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::provider::RequestOptions;
    use crate::provider::gemini::body::FOREIGN_CALL_SIGNATURE;

    const GEMINI: Target<'static> = Target {
        provider: "gemini",
        kind: Kind::Gemini,
        model: "gemini-2.5-flash",
        max_tool_result: 0,
    };

    fn extras<'a>(tools_json: Option<&'a str>, options: &'a RequestOptions) -> Extras<'a> {
        Extras {
            tools_json,
            system: None,
            options,
        }
    }

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
        let options = RequestOptions::default();
        let body: Value =
            serde_json::from_str(&body(&GEMINI, &context, extras(None, &options)).text()).unwrap();
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
            ..RequestOptions::default()
        };
        let tools = r#"[{"name": "get_weather", "description": "Weather in a city"}]"#;
        let body: Value =
            serde_json::from_str(&body(&GEMINI, &context, extras(Some(tools), &options)).text())
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

    #[test]
    fn a_large_tool_result_is_sent_cut_to_every_family_and_the_node_stays_whole() {
        let whole = format!(r#"{{"output":"{}"}}"#, "x".repeat(100_000));
        let mut result = node(2, Role::Tool, "");
        result.parts = vec![Part::from(PartContent::FunctionResponse {
            id: Some("c1".into()),
            name: "dump".into(),
            response_json: whole.clone(),
        })];
        let small = node(3, Role::User, "and?");
        let context = [node(1, Role::User, "dump it"), result, small];
        let options = RequestOptions::default();
        for (provider, kind) in [
            ("gemini", Kind::Gemini),
            ("openai", Kind::OpenAi),
            ("anthropic", Kind::Anthropic),
        ] {
            let target = |max_tool_result| Target {
                provider,
                kind,
                model: "m",
                max_tool_result,
            };
            let sent = body(&target(4096), &context, extras(None, &options))
                .text()
                .into_owned();
            assert!(sent.len() < 8192, "{provider}: {} bytes", sent.len());
            assert!(
                sent.contains("bytes of this tool result elided; the session keeps it whole"),
                "{provider}: {sent}"
            );
            let uncut = body(&target(0), &context, extras(None, &options))
                .text()
                .into_owned();
            assert!(uncut.len() > 100_000, "0 never cuts");
        }
        let PartContent::FunctionResponse { response_json, .. } = &context[1].parts[0].content
        else {
            panic!("a function response");
        };
        assert_eq!(*response_json, whole, "the node is not changed");
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
            max_tool_result: 0,
        };
        let sent: Value =
            serde_json::from_str(&body(&gemini, &context, extras(None, &options)).text()).unwrap();
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
            max_tool_result: 0,
        };
        let text = body(&local, &context, extras(None, &options))
            .text()
            .into_owned();
        assert!(
            !text.contains("sig-of-gemini") && !text.contains("thinking"),
            "{text}"
        );
    }

    #[test]
    fn another_providers_raw_parts_do_not_travel() {
        let mut by_claude = node(2, Role::Model, "");
        by_claude.parts = vec![
            Part::from(PartContent::Other {
                json: r#"{"type":"redacted_thinking","data":"opaque"}"#.into(),
            }),
            Part::text("hello"),
        ];
        let context = [
            node(1, Role::User, "hi"),
            answered_by(by_claude, "anthropic"),
            node(3, Role::User, "more"),
        ];
        let options = RequestOptions::default();
        let sent = body(&GEMINI, &context, extras(None, &options))
            .text()
            .into_owned();
        assert!(!sent.contains("redacted_thinking"), "{sent}");
        let claude = Target {
            provider: "anthropic",
            kind: Kind::Anthropic,
            model: "claude-sonnet-4-5",
            max_tool_result: 0,
        };
        let own = body(&claude, &context, extras(None, &options))
            .text()
            .into_owned();
        assert!(own.contains("redacted_thinking"), "its own go back: {own}");
    }
}
