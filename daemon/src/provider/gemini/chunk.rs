//! One streamed `GenerateContentResponse` → the parts and metadata it carries.

use crate::model::Usage;

use super::parts;
use super::wire::Chunk;
use crate::provider::error::ProviderError;
use crate::provider::stream::{StreamUpdate, narrow};

/// Parses the data of one SSE event (Gemini's `GenerateContentResponse`).
pub fn parse(data: &str) -> Result<StreamUpdate, ProviderError> {
    let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
        ProviderError::BrokenStream(format!("a chunk is not a valid response ({e})"))
    })?;
    if let Some(error) = chunk.error {
        return Err(ProviderError::InStream {
            message: error.message.unwrap_or_else(|| data.to_string()),
            body: data.to_string(),
        });
    }
    if let Some(reason) = chunk.prompt_feedback.and_then(|f| f.block_reason) {
        return Err(ProviderError::Blocked { reason });
    }
    let candidate = chunk.candidates.into_iter().next().unwrap_or_default();
    let parts = candidate
        .content
        .map(|content| parts::from_content(&content))
        .unwrap_or_default();
    let usage = chunk.usage_metadata.map(|u| Usage {
        prompt_tokens: narrow(u.prompt_token_count),
        answer_tokens: narrow(u.candidates_token_count),
        thought_tokens: narrow(u.thoughts_token_count),
        total_tokens: narrow(u.total_token_count),
        cached_tokens: narrow(u.cached_content_token_count),
    });
    Ok(StreamUpdate {
        parts,
        finish_reason: candidate.finish_reason,
        usage,
        model_version: chunk.model_version,
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
    fn counts_beyond_u32_saturate_instead_of_wrapping() {
        let data = r#"{"candidates":[],"usageMetadata":{"totalTokenCount":4294967297}}"#;
        assert_eq!(parse(data).unwrap().usage.unwrap().total_tokens, u32::MAX);
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
