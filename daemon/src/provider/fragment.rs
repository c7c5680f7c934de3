//! The provider-neutral pieces of a request body: one node rendered for a target (a
//! [`Fragment`]), the wire role it travels under, and what a request carries besides the
//! conversation. Each family's renderer builds on these; `request.rs` chooses the family.

use crate::model::{Part, PartContent, Role};

/// The longest answer asked of an API that needs a limit (Anthropic's `max_tokens`), when
/// the settings do not say.
pub const DEFAULT_MAX_TOKENS: u32 = 8192; // as `max_tokens` in config/settings.rs

/// Request settings that do not come from the conversation.
#[derive(Debug, Clone)]
pub struct RequestOptions {
    /// Ask for thought summaries (`thinkingConfig.includeThoughts`; Anthropic's extended
    /// thinking).
    pub include_thoughts: bool,
    /// The longest answer, in tokens, where the API needs a limit (Anthropic's
    /// `max_tokens`).
    pub max_tokens: u32,
}

impl Default for RequestOptions {
    fn default() -> Self {
        Self {
            include_thoughts: false,
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }
}

/// The API's two roles: function results travel on the user's side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WireRole {
    /// `user`: prompts and function results.
    #[default]
    User,
    /// `model`: answers.
    Model,
}

impl WireRole {
    /// The wire role of a node's role.
    pub fn of(role: Role) -> Self {
        match role {
            Role::User | Role::Tool | Role::Summary => WireRole::User,
            Role::Model => WireRole::Model,
        }
    }

    /// The role's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            WireRole::User => "user",
            WireRole::Model => "model",
        }
    }
}

/// One node rendered for one target: what a request needs of it, ready to send.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fragment {
    /// Its wire role (Gemini merges consecutive nodes of one role into one content).
    pub role: WireRole,
    /// Its parts (Gemini) or messages (OpenAI) as JSON objects separated by commas;
    /// empty when it has none.
    pub json: String,
    /// The ids of the calls of the latest answer up to this node (OpenAI: made up where a
    /// call had none), which the results that follow answer.
    pub call_ids: Vec<String>,
}

/// What a request carries besides the conversation.
#[derive(Debug, Clone, Copy)]
pub struct Extras<'a> {
    /// The session's function declarations (a JSON array).
    pub tools_json: Option<&'a str>,
    /// The session's system instruction.
    pub system: Option<&'a str>,
    /// Request settings.
    pub options: &'a RequestOptions,
}

/// A node's function results, each with the id of the call it answers: its own id, else
/// the id of the call at the same position in `calls` (the answer's calls, in order; a
/// family that makes up ids for calls without one answers them so).
pub fn results_with_ids<'a, 'c>(
    parts: &'a [Part],
    calls: &'c [String],
) -> impl Iterator<Item = (String, &'a str)> + use<'a, 'c> {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::FunctionResponse {
                id, response_json, ..
            } => Some((id, response_json.as_str())),
            _ => None,
        })
        .enumerate()
        .map(|(position, (id, response_json))| {
            let id = id
                .clone()
                .unwrap_or_else(|| calls.get(position).cloned().unwrap_or_default());
            (id, response_json)
        })
}
