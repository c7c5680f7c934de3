//! How an answer was produced, as clients see it: the model, its usage, attempts and time.
//! Shared by transcripts, answers, compactions and exports.

use serde::{Deserialize, Serialize};

/// Token counts the API reported for one answer.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Usage {
    /// Tokens in the context sent.
    pub prompt_tokens: u32,
    /// Tokens in the answer.
    pub answer_tokens: u32,
    /// Tokens spent thinking.
    pub thought_tokens: u32,
    /// All tokens billed.
    pub total_tokens: u32,
    /// Tokens of the context read from the provider's prompt cache (part of `prompt_tokens`).
    #[serde(default)]
    pub cached_tokens: u32,
}

/// What Omni knows about how a model node was produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelInfo {
    /// The model asked.
    pub model: String,
    /// The model version the API reported.
    pub model_version: Option<String>,
    /// Why the model stopped (`STOP`, `MAX_TOKENS`, ...).
    pub finish_reason: Option<String>,
    /// Token counts, when reported.
    pub usage: Option<Usage>,
    /// HTTP attempts it took.
    pub attempts: u32,
    /// Time from the first request to the end of the stream.
    pub latency_ms: u64,
    /// The stream was cut short (a cancel or a shutdown); the node is kept but not in the context.
    pub interrupted: bool,
    /// The provider that answered (`gemini`, `openai`, or a `[providers.NAME]`).
    pub provider: String,
}
