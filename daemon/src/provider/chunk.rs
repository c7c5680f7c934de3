//! One streamed `GenerateContentResponse` → the parts and metadata it carries.

use crate::model::{Part, Usage};
use serde_json::Value;

use super::error::ProviderError;
use super::parts;

/// What one chunk of the stream adds to the answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamUpdate {
    /// New parts, in order.
    pub parts: Vec<Part>,
    /// Set on the last chunk.
    pub finish_reason: Option<String>,
    /// Token counts so far (complete on the last chunk).
    pub usage: Option<Usage>,
    /// The model version that answered.
    pub model_version: Option<String>,
}

fn count(usage: &Value, key: &str) -> u32 {
    usage.get(key).and_then(Value::as_u64).unwrap_or(0) as u32
}

/// Parses the data of one SSE event.
pub fn parse(data: &str) -> Result<StreamUpdate, ProviderError> {
    let value: Value = serde_json::from_str(data)
        .map_err(|e| ProviderError::BrokenStream(format!("a chunk is not valid JSON ({e})")))?;
    if let Some(error) = value.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| error.to_string());
        return Err(ProviderError::InStream {
            message,
            body: data.to_string(),
        });
    }
    if let Some(reason) = value
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Err(ProviderError::Blocked {
            reason: reason.to_string(),
        });
    }
    let candidate = value.pointer("/candidates/0");
    let parts = candidate
        .and_then(|c| c.pointer("/content/parts"))
        .and_then(Value::as_array)
        .map(|parts| parts.iter().map(parts::from_json).collect())
        .unwrap_or_default();
    let finish_reason = candidate
        .and_then(|c| c.get("finishReason"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let usage = value.get("usageMetadata").map(|u| Usage {
        prompt_tokens: count(u, "promptTokenCount"),
        answer_tokens: count(u, "candidatesTokenCount"),
        thought_tokens: count(u, "thoughtsTokenCount"),
        total_tokens: count(u, "totalTokenCount"),
    });
    let model_version = value
        .get("modelVersion")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(StreamUpdate {
        parts,
        finish_reason,
        usage,
        model_version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PartContent;

    #[test]
    fn a_final_chunk_carries_finish_reason_usage_and_signature() {
        let data = r#"{"candidates":[{"content":{"parts":[{"text":" answer","thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":3,"totalTokenCount":11,"thoughtsTokenCount":0},"modelVersion":"gemini-2.5-flash"}"#;
        let update = parse(data).unwrap();
        assert_eq!(update.parts[0].content, PartContent::Text(" answer".into()));
        assert_eq!(update.parts[0].thought_signature.as_deref(), Some("c2ln"));
        assert_eq!(update.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(update.usage.unwrap().total_tokens, 11);
        assert_eq!(update.model_version.as_deref(), Some("gemini-2.5-flash"));
    }

    #[test]
    fn errors_and_blocks_inside_the_stream_are_failures() {
        let err = parse(r#"{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}"#)
            .unwrap_err();
        assert!(
            matches!(err, ProviderError::InStream { ref message, .. } if message == "Internal error")
        );
        let err = parse(r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#).unwrap_err();
        assert!(matches!(err, ProviderError::Blocked { ref reason } if reason == "SAFETY"));
        assert!(matches!(
            parse("{not json").unwrap_err(),
            ProviderError::BrokenStream(_)
        ));
    }
}
