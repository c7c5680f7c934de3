//! The JSON bodies the HTTP API takes, one type each: serde reads them (a field of the
//! wrong type is refused by name) and their schemas in the OpenAPI document are derived
//! from them. Each becomes its protocol request with what the path adds (the session).

use omni_proto::{ExportedSession, RecoveryAction};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `POST /v1/sessions`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSessionBody {
    /// Function declarations the model may call.
    pub tools: Option<Vec<Map<String, Value>>>,
    /// The model it asks: MODEL (of the default provider) or PROVIDER/MODEL.
    pub model: Option<String>,
    /// Models asked in turn when its own cannot answer.
    pub fallback: Option<Vec<String>>,
    /// A system instruction sent with every request.
    pub system: Option<String>,
}

/// `POST /v1/sessions/{id}/send`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendBody {
    /// The prompt.
    pub prompt: String,
    /// What to do with a prompt a failed or cancelled send left pending: false (the
    /// default) keeps it and sends both (the reply's `prompts` and a `prompts_merged` event
    /// name them); true sends this prompt in its place (the old one stays in the tree, off
    /// the path).
    pub replace: Option<bool>,
}

/// `PUT /v1/sessions/{id}/model`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelBody {
    /// MODEL or PROVIDER/MODEL.
    pub model: String,
}

/// `POST /v1/sessions/{id}/checkout`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckoutBody {
    /// The node that becomes the head (0 is the start).
    pub node: u64,
}

/// `POST /v1/sessions/{id}/tool-results`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolResultBody {
    /// The function's name.
    pub name: String,
    /// The call's id, to pick one of several calls of the same function.
    pub call_id: Option<String>,
    /// The function's result.
    pub response: Map<String, Value>,
}

/// `POST /v1/sessions/{id}/recover`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverBody {
    /// Which way out.
    pub action: RecoveryAction,
}

/// `POST /v1/sessions/{id}/compact`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactBody {
    /// Rounds (a prompt, its answer and tool chain) kept whole after the summary (default
    /// 2).
    pub keep: Option<u32>,
    /// What the summary should keep in mind, added to Omni's own instructions.
    pub instructions: Option<String>,
}

/// `PUT /v1/sessions/{id}/title`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TitleBody {
    /// The new title: one line, not empty.
    pub title: String,
}

/// `POST /v1/import`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportBody {
    /// The session, as exported (read whole by the import, which names what does not fit).
    #[schemars(with = "ExportedSession")]
    pub session: Map<String, Value>,
    /// Where it came from, for the session's origin (default: http).
    pub file: Option<String>,
}
