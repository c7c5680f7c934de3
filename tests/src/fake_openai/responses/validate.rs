//! The checks the real Responses API makes on a request body, with its error messages:
//! `model` and `input` required, only the parameters it knows, each `input` item of a type
//! it knows with that type's fields (message roles and their content part types,
//! `function_call`, `function_call_output` answering an earlier call, `reasoning`, and
//! Codex's freeform `custom_tool_call` and its output), every call answered, and function
//! tools in the Responses shape.

use serde_json::{Map, Value};

use crate::fake_openai::script::Reply;
use crate::fake_openai::validate::{invalid, missing, name_at, wrong_type};

/// A Responses request the fake accepts.
pub(crate) struct Valid {
    /// The `model` asked for.
    pub model: String,
    /// The `input` items (a string input becomes one user message).
    pub input: Vec<Value>,
    /// Whether `stream: true` asks for events.
    pub stream: bool,
}

const PARAMETERS: &[&str] = &[
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "reasoning",
    "store",
    "stream",
    "include",
    "prompt_cache_key",
    "text",
    "temperature",
    "top_p",
    "max_output_tokens",
    "metadata",
    "previous_response_id",
    "service_tier",
    "truncation",
    "user",
    "background",
    "client_metadata",
    "stream_options",
];

/// `Unknown parameter: '{param}'.`
fn unknown(param: &str) -> Reply {
    invalid(
        Some(param),
        Some("unknown_parameter"),
        &format!("Unknown parameter: '{param}'."),
    )
}

/// Refuses any key of `object` not in `allowed`, naming it under `prefix`.
fn known(object: &Map<String, Value>, prefix: &str, allowed: &[&str]) -> Result<(), Reply> {
    match object.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) if prefix.is_empty() => Err(unknown(key)),
        Some(key) => Err(unknown(&format!("{prefix}.{key}"))),
        None => Ok(()),
    }
}

/// `Invalid value: '{value}'. Supported values are: {supported}.`
fn invalid_value(param: &str, value: &str, supported: &str) -> Reply {
    invalid(
        Some(param),
        Some("invalid_value"),
        &format!("Invalid value: '{value}'. Supported values are: {supported}."),
    )
}

/// Checks a whole request body.
pub(crate) fn validate(body: &str) -> Result<Valid, Reply> {
    let Ok(Value::Object(request)) = serde_json::from_str::<Value>(body) else {
        return Err(invalid(
            None,
            None,
            "We could not parse the JSON body of your request. (HINT: This likely means you \
             aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, \
             but what was sent was not valid JSON.)",
        ));
    };
    known(&request, "", PARAMETERS)?;
    let model = name_at(&request, "model", "model")?.to_string();
    let input = match request.get("input") {
        None => return Err(missing("input")),
        Some(Value::String(text)) => vec![serde_json::json!({"role": "user", "content": text})],
        Some(Value::Array(items)) => items.clone(),
        Some(other) => return Err(wrong_type("input", "a string or an array", other)),
    };
    for (i, item) in input.iter().enumerate() {
        check_item(&format!("input[{i}]"), item)?;
    }
    check_calls_answered(&input)?;
    if let Some(tools) = request.get("tools") {
        check_tools(tools)?;
    }
    let stream = request.get("stream") == Some(&Value::Bool(true));
    Ok(Valid {
        model,
        input,
        stream,
    })
}

/// One input item: its type (a message may leave it out) and that type's fields.
fn check_item(param: &str, item: &Value) -> Result<(), Reply> {
    let item = item
        .as_object()
        .ok_or_else(|| wrong_type(param, "an object", item))?;
    let kind = item
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    let (allowed, required): (&[&str], &[&str]) = match kind {
        "message" => (
            &["type", "role", "content", "id", "status"],
            &["role", "content"],
        ),
        "function_call" => (
            &["type", "id", "call_id", "name", "arguments", "status"],
            &["call_id", "name", "arguments"],
        ),
        "function_call_output" => (
            &["type", "id", "call_id", "output", "status"],
            &["call_id", "output"],
        ),
        "reasoning" => (
            &[
                "type",
                "id",
                "summary",
                "content",
                "encrypted_content",
                "status",
            ],
            &["summary"],
        ),
        "custom_tool_call" => (
            &["type", "id", "call_id", "name", "input", "status"],
            &["call_id", "name", "input"],
        ),
        "custom_tool_call_output" => (&["type", "id", "call_id", "output"], &["call_id", "output"]),
        other => {
            return Err(invalid_value(
                &format!("{param}.type"),
                other,
                "'message', 'function_call', 'function_call_output', 'custom_tool_call', \
                 'custom_tool_call_output' and 'reasoning'",
            ));
        }
    };
    known(item, param, allowed)?;
    if let Some(field) = required.iter().find(|f| !item.contains_key(**f)) {
        return Err(missing(&format!("{param}.{field}")));
    }
    match kind {
        "message" => check_message(param, item),
        "function_call" => {
            name_at(item, "call_id", &format!("{param}.call_id"))?;
            name_at(item, "name", &format!("{param}.name"))?;
            let arguments = &item["arguments"];
            if !arguments.is_string() {
                return Err(wrong_type(
                    &format!("{param}.arguments"),
                    "a string",
                    arguments,
                ));
            }
            Ok(())
        }
        "function_call_output" | "custom_tool_call_output" => {
            name_at(item, "call_id", &format!("{param}.call_id"))?;
            let output = &item["output"];
            if !(output.is_string() || output.is_array()) {
                return Err(wrong_type(&format!("{param}.output"), "a string", output));
            }
            Ok(())
        }
        "custom_tool_call" => {
            name_at(item, "call_id", &format!("{param}.call_id"))?;
            name_at(item, "name", &format!("{param}.name"))?;
            Ok(())
        }
        _ => match &item["summary"] {
            Value::Array(_) => Ok(()),
            other => Err(wrong_type(&format!("{param}.summary"), "an array", other)),
        },
    }
}

/// A message: a role it knows, and content parts of the types that role may send.
fn check_message(param: &str, item: &Map<String, Value>) -> Result<(), Reply> {
    let role = item["role"].as_str().unwrap_or_default();
    let (parts, supported): (&[&str], &str) = match role {
        "user" | "system" | "developer" => (
            &["input_text", "input_image", "input_file"],
            "'input_text', 'input_image', and 'input_file'",
        ),
        "assistant" => (&["output_text", "refusal"], "'output_text' and 'refusal'"),
        other => {
            return Err(invalid_value(
                &format!("{param}.role"),
                other,
                "'assistant', 'system', 'developer', and 'user'",
            ));
        }
    };
    let content = match &item["content"] {
        Value::String(_) => return Ok(()),
        Value::Array(content) => content,
        other => {
            return Err(wrong_type(
                &format!("{param}.content"),
                "a string or an array",
                other,
            ));
        }
    };
    for (j, part) in content.iter().enumerate() {
        let part_param = format!("{param}.content[{j}]");
        let kind = part["type"].as_str().unwrap_or_default();
        if !parts.contains(&kind) {
            return Err(invalid_value(
                &format!("{part_param}.type"),
                kind,
                supported,
            ));
        }
        if kind.ends_with("_text") && !part["text"].is_string() {
            return Err(missing(&format!("{part_param}.text")));
        }
    }
    Ok(())
}

/// Every `function_call_output` answers an earlier `function_call`, and every
/// `function_call` is answered.
fn check_calls_answered(input: &[Value]) -> Result<(), Reply> {
    let mut open: Vec<&str> = Vec::new();
    let mut called: Vec<&str> = Vec::new();
    for item in input {
        let call_id = item["call_id"].as_str().unwrap_or_default();
        match item["type"].as_str() {
            Some("function_call" | "custom_tool_call") => {
                open.push(call_id);
                called.push(call_id);
            }
            Some("function_call_output" | "custom_tool_call_output")
                if !called.contains(&call_id) =>
            {
                return Err(invalid(
                    Some("input"),
                    None,
                    &format!("No tool call found for function call output with call_id {call_id}."),
                ));
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                open.retain(|id| *id != call_id);
            }
            _ => {}
        }
    }
    match open.first() {
        Some(call_id) => Err(invalid(
            Some("input"),
            None,
            &format!("No tool output found for function call {call_id}."),
        )),
        None => Ok(()),
    }
}

/// Function tools are flat (`{type, name, parameters}`), not chat's nested `function`.
fn check_tools(tools: &Value) -> Result<(), Reply> {
    let Value::Array(tools) = tools else {
        return Err(wrong_type("tools", "an array", tools));
    };
    for (i, tool) in tools.iter().enumerate() {
        let param = format!("tools[{i}]");
        let tool = tool
            .as_object()
            .ok_or_else(|| wrong_type(&param, "an object", tool))?;
        if tool.get("type").and_then(Value::as_str) == Some("function") {
            name_at(tool, "name", &format!("{param}.name"))?;
            known(
                tool,
                &param,
                &["type", "name", "description", "parameters", "strict"],
            )?;
        }
    }
    Ok(())
}
