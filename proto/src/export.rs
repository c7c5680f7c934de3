//! Omni's own export format: one session's whole tree as JSON (`omnictl export --format
//! json`), which `omnictl import` reads back into an identical tree. The readers of other
//! tools' files (Claude Code, gemini-cli, Codex) produce the same shape, so every import
//! goes through one path in the daemon. The JSON Schema in `docs/` is generated from these
//! types; field names are a contract.

use serde::{Deserialize, Serialize};

use crate::model_info::ModelInfo;
use crate::view::{Part, Role};

/// The `format` every export carries, so a reader can tell an Omni export from anything else.
pub const EXPORT_FORMAT: &str = "omni.session";

/// The export format's version: a reader refuses a newer one by name.
pub const EXPORT_VERSION: u32 = 1;

/// One session: its settings, every node on every branch, the move log and the head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedSession {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// [`EXPORT_VERSION`] of the writer.
    pub version: u32,
    /// The session's id (a UUID) in the store it came from; a foreign file's own id, if any.
    pub id: String,
    /// The session's title.
    pub title: String,
    /// The title was set by the user rather than taken from the first prompt.
    #[serde(default)]
    pub title_set: bool,
    /// Where the conversation came from: `None` for one held through omnid itself,
    /// `anthropic proxy (claude-cli/...)` for a recorded one, `import (claude-code: FILE)`
    /// for an imported one.
    pub origin: Option<String>,
    /// The model the session asks (`PROVIDER/MODEL`), when it has its own.
    pub model: Option<String>,
    /// Models asked in turn when that one cannot answer.
    #[serde(default)]
    pub fallback: Vec<String>,
    /// The system instruction sent with every request, if any.
    pub system: Option<String>,
    /// Function declarations (a JSON array, as text) sent with every request, if any.
    pub tools_json: Option<String>,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// Last change, ms since the epoch.
    pub updated_at_ms: u64,
    /// The node the conversation continues from (0 = the empty start).
    pub head: u64,
    /// The undo-type move that `redo` would take back, if any.
    #[serde(default)]
    pub redo_top: Option<u64>,
    /// Every node, numbered from 1 in creation order; a parent always comes before its
    /// children.
    pub nodes: Vec<ExportedNode>,
    /// The move log, in order (empty for a foreign file: its head is `head`).
    #[serde(default)]
    pub moves: Vec<ExportedMove>,
}

/// One node of an exported tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedNode {
    /// The node's number within its session, from 1.
    pub id: u64,
    /// Its parent (0 = the empty start).
    pub parent: u64,
    /// Who produced it.
    pub role: Role,
    /// Its content, every part as stored.
    pub parts: Vec<Part>,
    /// Creation time, ms since the epoch.
    pub created_at_ms: u64,
    /// How a model node was produced (model, provider, usage).
    pub model: Option<ModelInfo>,
}

/// Why the head moved, as the export names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportedMoveKind {
    /// A new prompt became the head.
    Prompt,
    /// A model answer became the head.
    Answer,
    /// `undo`.
    Undo,
    /// `back`.
    Back,
    /// `redo`.
    Redo,
    /// `checkout`.
    Checkout,
    /// Function results became the head.
    ToolResults,
    /// Recovery by deep rollback.
    DeepRollback,
    /// Recovery by clearing the last node.
    ClearTurn,
    /// Recovery by ignoring the failure.
    Ignore,
    /// Recovery by sending the same context again.
    Retry,
    /// A compaction: its summary became the head.
    Compact,
}

/// One entry of an exported move log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedMove {
    /// Position in the log, from 1.
    pub seq: u64,
    /// What kind of move.
    pub kind: ExportedMoveKind,
    /// The head before.
    pub from: u64,
    /// The head after.
    pub to: u64,
    /// When, ms since the epoch.
    pub at_ms: u64,
    /// For undo-type moves: the redo candidate below this one.
    pub prev_redoable: Option<u64>,
    /// For `redo`: the move it took back.
    pub redoes: Option<u64>,
}

/// The formats `omnictl export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// The active path as a readable document.
    Markdown,
    /// The whole tree as one [`ExportedSession`].
    Json,
    /// One JSON object per line: the session (without nodes), then one node per line.
    Jsonl,
}

impl ExportFormat {
    /// Every format, for help and errors.
    pub const ALL: [ExportFormat; 3] = [Self::Markdown, Self::Json, Self::Jsonl];

    /// The name users type (`md`, `json`, `jsonl`), also the file extension.
    pub fn name(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Json => "json",
            Self::Jsonl => "jsonl",
        }
    }

    /// The format a user's name means (`markdown` is taken for `md`).
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Self::Markdown),
            "json" => Some(Self::Json),
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            _ => None,
        }
    }

    /// The media type of a download in this format.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Markdown => "text/markdown; charset=utf-8",
            Self::Json => "application/json",
            Self::Jsonl => "application/x-ndjson",
        }
    }
}

/// What an import did with one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ImportOutcome {
    /// The session's id in this store (the new one, or the one holding the same content).
    pub session: String,
    /// Its title.
    pub title: String,
    /// Nodes it holds.
    pub nodes: u64,
    /// `false`: the same content was imported before and nothing was added.
    pub added: bool,
    /// The file's id was taken by a different session, so it got a new one.
    pub new_id: bool,
}

/// The first line of a JSON lines export: the session without its nodes, marked as such.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExportedSessionLine {
    /// Always `"session"`.
    pub kind: String,
    /// The session, its `nodes` empty (each follows on a line of its own).
    #[serde(flatten)]
    pub session: ExportedSession,
}

/// The JSON Schema of an export (`docs/export.schema.json`), generated from these types.
pub fn export_schema() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(ExportedSession))
        .unwrap_or(serde_json::Value::Null);
    schema["description"] = format!(
        "One session exported by `omnictl export --format json` (format \"{EXPORT_FORMAT}\", \
         version {EXPORT_VERSION}): every node on every branch, the move log and the head. \
         `--format jsonl` writes the same object without its nodes (plus \"kind\": \
         \"session\") on the first line, then one node (ExportedNode) per line."
    )
    .into();
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/export.schema.json` is the generated schema; `OMNI_WRITE_SCHEMA=1 cargo test
    /// -p omni-proto export_schema` writes it after a change to the types.
    #[test]
    fn the_checked_in_export_schema_is_the_generated_one() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/export.schema.json");
        let generated = format!(
            "{}\n",
            serde_json::to_string_pretty(&export_schema()).unwrap_or_default()
        );
        if std::env::var_os("OMNI_WRITE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).unwrap_or_default();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "docs/export.schema.json differs from the export types; run \
             `OMNI_WRITE_SCHEMA=1 cargo test -p omni-proto export_schema` and commit the result"
        );
    }

    #[test]
    fn format_names_read_back() {
        for format in ExportFormat::ALL {
            assert_eq!(ExportFormat::parse(format.name()), Some(format));
        }
        assert_eq!(ExportFormat::parse("pdf"), None);
    }
}
