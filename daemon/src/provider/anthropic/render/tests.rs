//! The Messages API request rendered from neutral contexts.

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
    max_tool_result: 0,
};

fn sent(context: &[NodeRecord], tools: Option<&str>, options: &RequestOptions) -> Value {
    let extras = Extras {
        tools_json: tools,
        system: Some("be brief"),
        options,
    };
    serde_json::from_str(&body(&CLAUDE, context, extras).text()).unwrap()
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

#[test]
fn thinking_is_not_asked_while_the_latest_answer_used_tools_without_it() {
    let options = RequestOptions {
        include_thoughts: true,
        max_tokens: 4096,
    };
    let asked = |answer: NodeRecord| {
        let context = [
            node(1, Role::User, vec![Part::text("go")]),
            answer,
            node(3, Role::Tool, vec![result(Some("toolu_1"), "get_weather")]),
        ];
        sent(&context, None, &options).get("thinking").is_some()
    };
    let unthought = by(
        node(2, Role::Model, vec![call(Some("toolu_1"), "get_weather")]),
        "gemini",
    );
    assert!(!asked(unthought), "the API refuses thinking here");
    let thought = by(
        node(
            2,
            Role::Model,
            vec![
                signed("hm", Some("sig")),
                call(Some("toolu_1"), "get_weather"),
            ],
        ),
        "anthropic",
    );
    assert!(asked(thought));
    let small = RequestOptions {
        include_thoughts: true,
        max_tokens: 2047,
    };
    let context = [node(1, Role::User, vec![Part::text("go")])];
    assert!(sent(&context, None, &small).get("thinking").is_none());
    assert!(
        sent(&context, None, &options).get("thinking").is_some(),
        "a first turn thinks"
    );
}
