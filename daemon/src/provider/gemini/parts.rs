//! Gemini's parts ↔ Omni's [`Part`]s, in both directions, so what is stored is exactly what
//! is sent back (text, thoughts, `thoughtSignature` on the part it arrived with, function
//! calls with their ids and arguments byte for byte, parts of other kinds whole).

use serde_json::value::RawValue;

use super::wire::{Call, CandidateContent, Json, PartIn, PartOut, Response};
use crate::model::{Part, PartContent};

/// Reads every part of one content (a turn of a request, or a candidate's answer).
pub fn from_content(content: &CandidateContent) -> Vec<Part> {
    content.parts.iter().map(|raw| from_wire(raw)).collect()
}

/// Reads one part of a model answer. Anything that is not text, a thought, a function call
/// or a function response is kept whole, as it arrived.
pub fn from_wire(raw: &RawValue) -> Part {
    let other = || Part {
        content: PartContent::Other {
            json: raw.get().to_string(),
        },
        thought_signature: None,
    };
    let Ok(part) = serde_json::from_str::<PartIn>(raw.get()) else {
        return other();
    };
    let json_text = |value: Option<Box<RawValue>>| {
        value.map_or_else(|| "{}".to_string(), |v| v.get().to_string())
    };
    let content = if let Some(call) = part.function_call {
        PartContent::FunctionCall {
            id: call.id,
            name: call.name,
            args_json: json_text(call.args),
        }
    } else if let Some(response) = part.function_response {
        PartContent::FunctionResponse {
            id: response.id,
            name: response.name,
            response_json: json_text(response.response),
        }
    } else if let Some(text) = part.text {
        if part.thought == Some(true) {
            PartContent::Thought(text)
        } else {
            PartContent::Text(text)
        }
    } else {
        return other();
    };
    Part {
        content,
        thought_signature: part.thought_signature,
    }
}

/// Writes one part back in Gemini's request format, exactly as it was read.
/// `None` for what never goes to a model: a summary's compaction mark.
pub fn to_wire(part: &Part) -> Option<PartOut<'_>> {
    let thought_signature = part.thought_signature.as_deref();
    Some(match &part.content {
        PartContent::Text(text) => PartOut::Text {
            text,
            thought: None,
            thought_signature,
        },
        PartContent::Thought(text) => PartOut::Text {
            text,
            thought: Some(true),
            thought_signature,
        },
        PartContent::FunctionCall {
            id,
            name,
            args_json,
        } => PartOut::Call {
            function_call: Call {
                name,
                args: Json::of(args_json),
                id: id.as_deref(),
            },
            thought_signature,
        },
        PartContent::FunctionResponse {
            id,
            name,
            response_json,
        } => PartOut::Response {
            function_response: Response {
                name,
                id: id.as_deref(),
                response: Json::of(response_json),
            },
            thought_signature,
        },
        PartContent::Other { json } => PartOut::Other(Json::of(json)),
        PartContent::Compaction { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::{Value, json};

    fn round_trip(original: &Value) -> Value {
        let raw = RawValue::from_string(original.to_string()).unwrap();
        serde_json::to_value(to_wire(&from_wire(&raw)).unwrap()).unwrap()
    }

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
            assert_eq!(round_trip(&original), original);
        }
    }

    #[test]
    fn the_signature_stays_on_its_part() {
        let raw =
            RawValue::from_string(r#"{"text": "", "thoughtSignature": "sig"}"#.into()).unwrap();
        let part = from_wire(&raw);
        assert_eq!(part.content, PartContent::Text(String::new()));
        assert_eq!(part.thought_signature.as_deref(), Some("sig"));
    }
}
