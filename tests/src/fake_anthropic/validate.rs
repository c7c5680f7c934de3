//! The checks the real Messages API makes on a request body, with its error messages: a
//! body that passes would be accepted by Anthropic, one that fails gets the 400
//! `invalid_request_error` Anthropic would give (so another family's data, a dropped
//! signature or a broken tool history cannot slip through unnoticed).

use serde_json::{Map, Value};

use super::script::Reply;
use super::turns::SYSTEM_TURNS_BETA;

/// A request body the fake accepts.
pub(crate) struct Valid {
    /// The `model` asked for.
    pub model: String,
    /// Whether `stream: true` asks for events.
    pub stream: bool,
    /// The whole body.
    pub body: Value,
}

/// Which endpoint's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `POST /v1/messages`: `max_tokens` required.
    Messages,
    /// `POST /v1/messages/count_tokens`: no `max_tokens`, no `stream`.
    CountTokens,
}

/// Why a request is refused: the status, the error's type and message.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub status: u16,
    pub kind: &'static str,
    pub message: String,
}

impl From<Refusal> for Reply {
    fn from(refusal: Refusal) -> Self {
        Reply::error(refusal.status, refusal.kind, &refusal.message)
    }
}

/// A 400 `invalid_request_error`.
pub(crate) fn invalid(message: &str) -> Refusal {
    Refusal {
        status: 400,
        kind: "invalid_request_error",
        message: message.to_string(),
    }
}

const TOP_LEVEL: &[&str] = &[
    "model",
    "messages",
    "system",
    "tools",
    "tool_choice",
    "thinking",
    "metadata",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "service_tier",
    "context_management",
    "mcp_servers",
    "container",
    "output_config",
];

/// Checks a whole request body for `endpoint`, under the `anthropic-beta` header's
/// `betas` (comma-separated).
pub(crate) fn validate(body: &str, endpoint: Endpoint, betas: &str) -> Result<Valid, Refusal> {
    let Ok(Value::Object(request)) = serde_json::from_str::<Value>(body) else {
        return Err(invalid(
            "There was an error parsing the body of your request as JSON.",
        ));
    };
    let extra: &[&str] = match endpoint {
        Endpoint::Messages => &["max_tokens", "stream"],
        Endpoint::CountTokens => &[],
    };
    if let Some(key) = request
        .keys()
        .find(|k| !TOP_LEVEL.contains(&k.as_str()) && !extra.contains(&k.as_str()))
    {
        return Err(invalid(&format!("{key}: Extra inputs are not permitted")));
    }
    let model = match request.get("model") {
        None => return Err(invalid("model: Field required")),
        Some(Value::String(model)) => model.clone(),
        Some(_) => return Err(invalid("model: Input should be a valid string")),
    };
    if endpoint == Endpoint::Messages {
        check_max_tokens(&request)?;
    }
    let messages = match request.get("messages") {
        None => return Err(invalid("messages: Field required")),
        Some(Value::Array(messages)) => messages,
        Some(_) => return Err(invalid("messages: Input should be a valid list")),
    };
    if let Some(system) = request.get("system") {
        check_system(system)?;
    }
    let system_turns = betas
        .split(',')
        .any(|beta| beta.trim() == SYSTEM_TURNS_BETA);
    super::turns::check(messages, system_turns)?;
    if let Some(tools) = request.get("tools") {
        check_tools(tools)?;
    }
    let stream = request.get("stream") == Some(&Value::Bool(true));
    Ok(Valid {
        model,
        stream,
        body: Value::Object(request),
    })
}

/// `max_tokens`: required, an integer of at least 1, above a thinking budget.
fn check_max_tokens(request: &Map<String, Value>) -> Result<(), Refusal> {
    let max_tokens = match request.get("max_tokens") {
        None => return Err(invalid("max_tokens: Field required")),
        Some(value) => value
            .as_i64()
            .ok_or_else(|| invalid("max_tokens: Input should be a valid integer"))?,
    };
    if max_tokens < 1 {
        return Err(invalid(
            "max_tokens: Input should be greater than or equal to 1",
        ));
    }
    let budget = &request.get("thinking").unwrap_or(&Value::Null)["budget_tokens"];
    if budget.as_i64().is_some_and(|budget| budget >= max_tokens) {
        return Err(invalid(
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our \
             documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
        ));
    }
    Ok(())
}

/// `system`: a string, or a list of text blocks.
fn check_system(system: &Value) -> Result<(), Refusal> {
    match system {
        Value::String(_) => Ok(()),
        Value::Array(blocks) => {
            for (j, block) in blocks.iter().enumerate() {
                if block["type"] != "text" {
                    return Err(invalid(&format!("system.{j}.type: Input should be 'text'")));
                }
                if !block["text"].is_string() {
                    return Err(invalid(&format!("system.{j}.text: Field required")));
                }
            }
            Ok(())
        }
        _ => Err(invalid("system: Input should be a valid string")),
    }
}

/// `tools`: a list of custom tools, `{name, description?, input_schema}` with names the
/// API accepts, or of server tools (typed, e.g. `web_search_20250305`).
fn check_tools(tools: &Value) -> Result<(), Refusal> {
    let Value::Array(tools) = tools else {
        return Err(invalid("tools: Input should be a valid list"));
    };
    for (i, tool) in tools.iter().enumerate() {
        let Value::Object(tool) = tool else {
            return Err(invalid(&format!(
                "tools.{i}: Input should be a valid dictionary"
            )));
        };
        if tool.get("type").is_some_and(|kind| kind != "custom") {
            continue; // a server tool (web search, bash, ...): its own fields
        }
        const KEYS: &[&str] = &[
            "type",
            "name",
            "description",
            "input_schema",
            "cache_control",
        ];
        if let Some(key) = tool.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(invalid(&format!(
                "tools.{i}.custom.{key}: Extra inputs are not permitted"
            )));
        }
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        let name_ok = (1..=128).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            return Err(invalid(&format!(
                "tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
            )));
        }
        if !tool.get("input_schema").is_some_and(Value::is_object) {
            return Err(invalid(&format!(
                "tools.{i}.custom.input_schema: Field required"
            )));
        }
    }
    Ok(())
}
