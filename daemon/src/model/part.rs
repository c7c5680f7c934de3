//! The content of a turn: parts as they arrived from the model (or as the user and the
//! tools gave them), who produced a turn, and how an answer was produced.
//!
//! These are stored with bincode (see `store/`): the order and shape of every field is
//! part of the store's format, pinned by its golden-bytes tests.

use serde::{Deserialize, Serialize};

/// Who produced a node of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A prompt typed by the user.
    User,
    /// An answer from the model.
    Model,
    /// The results of the model's function calls, sent back on the user's side.
    Tool,
    /// A compaction's summary, written by a model: in the model's context it stands for
    /// the nodes it covers, which stay in the tree. Sent on the user's side.
    Summary,
}

impl Role {
    /// The lowercase name used in transcripts and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Model => "model",
            Role::Tool => "tool",
            Role::Summary => "summary",
        }
    }
}

/// One part of a node's content, kept exactly as it arrived so it can be sent back
/// unchanged (Gemini rejects function calls whose thought signature was dropped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// What the part holds.
    pub content: PartContent,
    /// The opaque `thoughtSignature` that arrived on this very part, if any.
    pub thought_signature: Option<String>,
}

impl Part {
    /// A plain text part without a signature.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: PartContent::Text(text.into()),
            thought_signature: None,
        }
    }
}

impl From<PartContent> for Part {
    /// A part of this content, without a signature.
    fn from(content: PartContent) -> Self {
        Self {
            content,
            thought_signature: None,
        }
    }
}

/// The kinds of content a part can carry. JSON payloads are kept as text: bincode cannot
/// carry a `serde_json::Value`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartContent {
    /// Visible text.
    Text(String),
    /// A thought summary.
    Thought(String),
    /// A function call the model asked for.
    FunctionCall {
        /// The call's id, when the API gave one.
        id: Option<String>,
        /// The function's name.
        name: String,
        /// The arguments as a JSON object, kept as text.
        args_json: String,
    },
    /// The result of a function call, sent back to the model.
    FunctionResponse {
        /// The id of the call this answers, when the call had one.
        id: Option<String>,
        /// The function's name.
        name: String,
        /// The response object as JSON text.
        response_json: String,
    },
    /// A part of a kind Omni does not interpret, kept as its raw JSON.
    Other {
        /// The part's JSON, exactly as received.
        json: String,
    },
    /// On a summary node: where the model's context resumes after it. Never sent to a
    /// model as a part (the summary's text is).
    Compaction {
        /// The first node kept after the summary (the context goes on from there to the
        /// summary's parent); `None`: nothing was kept.
        resumes_at: Option<u64>,
        /// The instructions the summary was written with, if any.
        instructions: Option<String>,
    },
}

/// The visible text of some parts: every text part, thoughts and calls excluded.
pub fn visible_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Token counts the API reported for one answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the context sent.
    pub prompt_tokens: u32,
    /// Tokens in the answer.
    pub answer_tokens: u32,
    /// Tokens spent thinking.
    pub thought_tokens: u32,
    /// All tokens billed.
    pub total_tokens: u32,
    /// Tokens of the context read from the provider's prompt cache (part of
    /// `prompt_tokens`, billed at the cached rate).
    pub cached_tokens: u32,
}

/// How a model node was produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The stream was cut short; the node is kept but not in the context.
    pub interrupted: bool,
    /// The provider that answered (its name in model references: `gemini`, `local`, ...).
    /// What it attached to the answer for itself (thought signatures) goes back to it only.
    pub provider: String,
}
