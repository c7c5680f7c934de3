//! The checks the real chat-completions API makes on a request body, with its error
//! messages: a request that passes would be accepted by OpenAI, one that fails gets the
//! 400 OpenAI would give (so provider-specific data cannot leak through unnoticed).

use serde_json::{Map, Value};

use super::script::{Reply, error_body};

/// A request the fake accepts.
pub(crate) struct Valid {
    /// The `model` asked for.
    pub model: String,
    /// The `messages`.
    pub messages: Vec<Value>,
    /// Whether `stream_options.include_usage` asks for the usage chunk.
    pub usage: bool,
    /// Whether `stream: true` asks for chunks (else one `chat.completion`).
    pub stream: bool,
}

/// A 400 `invalid_request_error`.
pub(crate) fn invalid(param: Option<&str>, code: Option<&str>, message: &str) -> Reply {
    Reply::Status {
        status: 400,
        headers: Vec::new(),
        body: error_body("invalid_request_error", code, param, message),
    }
}

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn wrong_type(param: &str, expected: &str, value: &Value) -> Reply {
    invalid(
        Some(param),
        Some("invalid_type"),
        &format!(
            "Invalid type for '{param}': expected {expected}, but got {} instead.",
            type_name(value)
        ),
    )
}

pub(crate) fn missing(param: &str) -> Reply {
    invalid(
        Some(param),
        Some("missing_required_parameter"),
        &format!("Missing required parameter: '{param}'."),
    )
}

pub(crate) fn empty_array(param: &str) -> Reply {
    invalid(
        Some(param),
        Some("empty_array"),
        &format!(
            "Invalid '{param}': empty array. Expected an array with minimum length 1, but got \
             an empty array instead."
        ),
    )
}

/// Refuses any key of `object` not in `allowed`.
fn known_keys(object: &Map<String, Value>, allowed: &[&str]) -> Result<(), Reply> {
    match object.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) => Err(invalid(
            None,
            None,
            &format!("Unrecognized request argument supplied: {key}"),
        )),
        None => Ok(()),
    }
}

/// `object[key]` as an object (missing or of another type: refused).
pub(crate) fn object_at<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    param: &str,
) -> Result<&'a Map<String, Value>, Reply> {
    let value = object.get(key).ok_or_else(|| missing(param))?;
    value
        .as_object()
        .ok_or_else(|| wrong_type(param, "an object", value))
}

/// `object[key]` as a non-empty string.
pub(crate) fn name_at<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    param: &str,
) -> Result<&'a str, Reply> {
    let value = object.get(key).ok_or_else(|| missing(param))?;
    let text = value
        .as_str()
        .ok_or_else(|| wrong_type(param, "a string", value))?;
    if text.is_empty() {
        return Err(invalid(
            Some(param),
            Some("empty_string"),
            &format!("Invalid '{param}': empty string. Expected a string with minimum length 1."),
        ));
    }
    Ok(text)
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
    let model = match request.get("model") {
        None => return Err(invalid(None, None, "you must provide a model parameter")),
        Some(Value::String(model)) if model.is_empty() => {
            return Err(invalid(None, None, "you must provide a model parameter"));
        }
        Some(Value::String(model)) => model.clone(),
        Some(other) => return Err(wrong_type("model", "a string", other)),
    };
    let messages = match request.get("messages") {
        None => return Err(missing("messages")),
        Some(Value::Array(messages)) if messages.is_empty() => {
            return Err(empty_array("messages"));
        }
        Some(Value::Array(messages)) => messages.clone(),
        Some(other) => return Err(wrong_type("messages", "an array of objects", other)),
    };
    let stream = match request.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(stream)) => *stream,
        Some(other) => return Err(wrong_type("stream", "a boolean", other)),
    };
    if !stream && request.get("stream_options").is_some_and(|o| !o.is_null()) {
        return Err(invalid(
            Some("stream_options"),
            None,
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        ));
    }
    let usage = request
        .get("stream_options")
        .is_some_and(|options| options["include_usage"] == Value::Bool(true));
    for (i, message) in messages.iter().enumerate() {
        check_message(i, message)?;
    }
    check_pairing(&messages)?;
    if let Some(tools) = request.get("tools") {
        check_tools(tools)?;
    }
    Ok(Valid {
        model,
        messages,
        usage,
        stream,
    })
}

/// One message: its role, its keys, its content, its tool calls.
fn check_message(i: usize, message: &Value) -> Result<(), Reply> {
    let param = format!("messages[{i}]");
    let message = message
        .as_object()
        .ok_or_else(|| wrong_type(&param, "an object", message))?;
    let role_param = format!("{param}.role");
    let role = message
        .get("role")
        .ok_or_else(|| missing(&role_param))?
        .as_str()
        .unwrap_or_default();
    let allowed: &[&str] = match role {
        "system" | "user" => &["role", "content"],
        "assistant" => &["role", "content", "tool_calls"],
        "tool" => &["role", "content", "tool_call_id"],
        _ => {
            return Err(invalid(
                Some(&role_param),
                Some("invalid_value"),
                &format!(
                    "Invalid value: '{role}'. Supported values are: 'system', 'user', \
                     'assistant' and 'tool'."
                ),
            ));
        }
    };
    known_keys(message, allowed)?;
    let calls = match message.get("tool_calls") {
        None => 0,
        Some(Value::Array(calls)) if calls.is_empty() => {
            return Err(empty_array(&format!("{param}.tool_calls")));
        }
        Some(Value::Array(calls)) => {
            for (n, call) in calls.iter().enumerate() {
                check_call(&format!("{param}.tool_calls[{n}]"), call)?;
            }
            calls.len()
        }
        Some(other) => {
            return Err(wrong_type(
                &format!("{param}.tool_calls"),
                "an array of objects",
                other,
            ));
        }
    };
    let content_param = format!("{param}.content");
    match message.get("content") {
        Some(Value::String(_)) => {}
        None | Some(Value::Null) if calls > 0 => {}
        None => return Err(missing(&content_param)),
        Some(other) => return Err(wrong_type(&content_param, "a string", other)),
    }
    if role == "tool" {
        name_at(message, "tool_call_id", &format!("{param}.tool_call_id"))?;
    }
    Ok(())
}

/// One `{id, type: "function", function: {name, arguments}}` of an assistant message.
fn check_call(param: &str, call: &Value) -> Result<(), Reply> {
    let call = call
        .as_object()
        .ok_or_else(|| wrong_type(param, "an object", call))?;
    known_keys(call, &["id", "type", "function"])?;
    name_at(call, "id", &format!("{param}.id"))?;
    if call.get("type") != Some(&Value::String("function".into())) {
        return Err(invalid(
            Some(&format!("{param}.type")),
            Some("invalid_value"),
            "Invalid value for 'type': expected 'function'.",
        ));
    }
    let function_param = format!("{param}.function");
    let function = object_at(call, "function", &function_param)?;
    known_keys(function, &["name", "arguments"])?;
    name_at(function, "name", &format!("{function_param}.name"))?;
    let arguments_param = format!("{function_param}.arguments");
    let arguments = function
        .get("arguments")
        .ok_or_else(|| missing(&arguments_param))?;
    let parsed = arguments
        .as_str()
        .map(serde_json::from_str::<Value>)
        .ok_or_else(|| wrong_type(&arguments_param, "a string", arguments))?;
    if parsed.is_err() {
        return Err(invalid(
            Some(&arguments_param),
            None,
            &format!("Invalid '{arguments_param}': expected a JSON string."),
        ));
    }
    Ok(())
}

/// Every assistant message's tool calls are answered at once by one `tool` message per
/// call, in order; every `tool` message answers such a call.
fn check_pairing(messages: &[Value]) -> Result<(), Reply> {
    let mut i = 0;
    while i < messages.len() {
        let message = &messages[i];
        if message["role"] == "tool" {
            return Err(invalid(
                Some(&format!("messages.[{i}].role")),
                None,
                "Invalid parameter: messages with role 'tool' must be a response to a \
                 preceeding message with 'tool_calls'.",
            ));
        }
        i += 1;
        let Some(calls) = message["tool_calls"].as_array() else {
            continue;
        };
        let answers: Vec<&Value> = messages[i..]
            .iter()
            .take_while(|m| m["role"] == "tool")
            .take(calls.len())
            .collect();
        let unanswered: Vec<&str> = calls
            .iter()
            .enumerate()
            .filter(|(n, call)| answers.get(*n).map(|a| &a["tool_call_id"]) != Some(&call["id"]))
            .map(|(_, call)| call["id"].as_str().unwrap_or_default())
            .collect();
        if !unanswered.is_empty() {
            return Err(invalid(
                Some("messages"),
                None,
                &format!(
                    "An assistant message with 'tool_calls' must be followed by tool messages \
                     responding to each 'tool_call_id'. The following tool_call_ids did not \
                     have response messages: {}",
                    unanswered.join(", ")
                ),
            ));
        }
        i += answers.len();
    }
    Ok(())
}

/// `tools`: a non-empty array of `{"type": "function", "function": {"name", ...}}`.
fn check_tools(tools: &Value) -> Result<(), Reply> {
    let tools = match tools {
        Value::Array(tools) if tools.is_empty() => return Err(empty_array("tools")),
        Value::Array(tools) => tools,
        other => return Err(wrong_type("tools", "an array of objects", other)),
    };
    for (i, tool) in tools.iter().enumerate() {
        let param = format!("tools[{i}]");
        let tool = tool
            .as_object()
            .ok_or_else(|| wrong_type(&param, "an object", tool))?;
        known_keys(tool, &["type", "function"])?;
        if tool.get("type") != Some(&Value::String("function".into())) {
            return Err(invalid(
                Some(&format!("{param}.type")),
                Some("invalid_value"),
                "Invalid value for 'type': expected 'function'.",
            ));
        }
        let function = object_at(tool, "function", &format!("{param}.function"))?;
        known_keys(function, &["name", "description", "parameters", "strict"])?;
        let name_param = format!("{param}.function.name");
        let name = name_at(function, "name", &name_param)?;
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || name.len() > 64
        {
            return Err(invalid(
                Some(&name_param),
                Some("invalid_value"),
                &format!(
                    "Invalid '{name_param}': string does not match pattern. Expected a string \
                     that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$'."
                ),
            ));
        }
    }
    Ok(())
}
