//! Gemini's JSON parts ↔ Omni's [`Part`]s, in both directions, so what is stored is exactly
//! what is sent back (text, thoughts, `thoughtSignature` on the part it arrived with,
//! function calls with their ids and arguments).

use crate::model::{Part, PartContent};
use serde_json::{Map, Value, json};

/// Reads one part of a model answer.
pub fn from_json(value: &Value) -> Part {
    let signature = value
        .get("thoughtSignature")
        .and_then(Value::as_str)
        .map(str::to_string);
    let optional_id = |call: &Value| call.get("id").and_then(Value::as_str).map(str::to_string);
    let name = |call: &Value| {
        call.get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let content = if let Some(call) = value.get("functionCall") {
        PartContent::FunctionCall {
            id: optional_id(call),
            name: name(call),
            args_json: call.get("args").unwrap_or(&json!({})).to_string(),
        }
    } else if let Some(response) = value.get("functionResponse") {
        PartContent::FunctionResponse {
            id: optional_id(response),
            name: name(response),
            response_json: response.get("response").unwrap_or(&json!({})).to_string(),
        }
    } else if let Some(text) = value.get("text").and_then(Value::as_str) {
        if value.get("thought").and_then(Value::as_bool) == Some(true) {
            PartContent::Thought(text.to_string())
        } else {
            PartContent::Text(text.to_string())
        }
    } else {
        // Kept whole, signature included, and sent back as it came.
        return Part {
            content: PartContent::Other {
                json: value.to_string(),
            },
            thought_signature: None,
        };
    };
    Part {
        content,
        thought_signature: signature,
    }
}

/// Parses JSON text we stored ourselves; anything unparseable travels as a JSON string so
/// the request still carries it rather than silently dropping it.
fn stored_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// Writes one part back in Gemini's request format.
pub fn to_json(part: &Part) -> Value {
    let mut object = match &part.content {
        PartContent::Text(text) => json!({ "text": text }),
        PartContent::Thought(text) => json!({ "text": text, "thought": true }),
        PartContent::FunctionCall {
            id,
            name,
            args_json,
        } => {
            let mut call = Map::new();
            call.insert("name".into(), json!(name));
            call.insert("args".into(), stored_json(args_json));
            if let Some(id) = id {
                call.insert("id".into(), json!(id));
            }
            json!({ "functionCall": call })
        }
        PartContent::FunctionResponse {
            id,
            name,
            response_json,
        } => {
            let mut response = Map::new();
            response.insert("name".into(), json!(name));
            if let Some(id) = id {
                response.insert("id".into(), json!(id));
            }
            response.insert("response".into(), stored_json(response_json));
            json!({ "functionResponse": response })
        }
        PartContent::Other { json } => return stored_json(json),
    };
    if let (Some(signature), Some(map)) = (&part.thought_signature, object.as_object_mut()) {
        map.insert("thoughtSignature".into(), json!(signature));
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip_exactly() {
        let parts = [
            json!({"text": "The answer"}),
            json!({"text": "thinking...", "thought": true, "thoughtSignature": "c2ln"}),
            json!({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"},
                   "thoughtSignature": "AbC="}),
            json!({"functionResponse": {"name": "get_weather", "id": "c1",
                   "response": {"output": {"temp_c": 21}}}}),
            json!({"executableCode": {"language": "PYTHON", "code": "print(1)"},
                   "thoughtSignature": "x"}),
        ];
        for original in parts {
            assert_eq!(to_json(&from_json(&original)), original);
        }
    }

    #[test]
    fn the_signature_stays_on_its_part() {
        let part = from_json(&json!({"text": "", "thoughtSignature": "sig"}));
        assert_eq!(part.content, PartContent::Text(String::new()));
        assert_eq!(part.thought_signature.as_deref(), Some("sig"));
    }
}
