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
    let PartContent::FunctionResponse { response_json, .. } = &context[1].parts[0].content else {
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
