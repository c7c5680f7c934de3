//! gemini-cli's files under `~/.gemini/tmp/<project>/`:
//!
//! - saved chats (`/chat save TAG`, `/resume save TAG`): `checkpoint-<TAG>.json`, either
//!   `{"history": [Content...], "authType": ...}` or, from older versions, the bare list of
//!   Gemini API contents; the tag (URL-encoded in the name) is the title;
//! - checkpoints taken before a file-changing tool ran (`checkpoints/*.json`, for
//!   `/restore`): `{"clientHistory": [Content...], "toolCall": ..., "commitHash": ...}`;
//! - session files (`chats/session-<time>-<id>.json[l]`), read in [`super::gemini_session`].
//!
//! Saved chats and checkpoints hold one straight conversation and no model name.

use std::path::Path;

use omni_proto::Role;
use serde_json::Value;

use super::gemini_parts::{is_ignored_prompt, parts_of, role_of};
use super::gemini_session;
use super::lines::time_ms;
use super::tree::{NewNode, SessionMeta, TreeBuilder};
use super::{ImportError, Input, Read};

/// Whether a file is gemini-cli's: judged from its first JSON Lines records (a session
/// file's metadata line) or, for a whole-JSON file, its shape.
pub(crate) fn looks_like(path: &Path, text: &str, first: &[Value]) -> bool {
    if first.first().is_some_and(gemini_session::is_metadata) {
        return true;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return false;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => shape(&value).is_some(),
        Err(_) => name.starts_with("checkpoint-") && name.ends_with(".json"),
    }
}

/// The kinds of gemini-cli file.
enum Shape<'a> {
    /// A list of contents (a saved chat or a checkpoint's client history).
    Contents(&'a [Value]),
    /// A whole session record of the first format (`{sessionId, messages: [...]}`).
    Session,
}

fn shape(value: &Value) -> Option<Shape<'_>> {
    let is_contents = |list: &[Value]| {
        list.iter()
            .all(|item| item.get("role").is_some() && item["parts"].is_array())
    };
    let list = match value {
        Value::Array(list) => Some(list.as_slice()),
        Value::Object(_) => value["history"]
            .as_array()
            .filter(|list| is_contents(list))
            .or_else(|| value["clientHistory"].as_array())
            .map(Vec::as_slice),
        _ => None,
    };
    if let Some(list) = list.filter(|list| is_contents(list)) {
        return Some(Shape::Contents(list));
    }
    gemini_session::is_metadata(value).then_some(Shape::Session)
}

/// Reads one gemini-cli file.
pub(crate) fn read(source: &Input<'_>, bytes: &[u8]) -> Result<Read, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim_start();
    let whole = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        serde_json::from_str::<Value>(&text).ok()
    } else {
        None
    };
    match whole.as_ref().and_then(shape) {
        Some(Shape::Contents(list)) => Ok(contents(source, list)),
        Some(Shape::Session) => Ok(gemini_session::read_whole(source, whole.as_ref())),
        None => gemini_session::read_lines(source, &text),
    }
}

/// A saved chat or a checkpoint: one straight line of contents.
fn contents(source: &Input<'_>, list: &[Value]) -> Read {
    let mut tree = TreeBuilder::default();
    let mut warnings = Vec::new();
    let mut cursor = 0;
    let mut skipped_context = false;
    let taken_at = source
        .path
        .file_name()
        .and_then(|name| checkpoint_time(&name.to_string_lossy()));
    for (index, content) in list.iter().enumerate() {
        let parts = parts_of(&content["parts"]);
        if parts.is_empty() {
            let message = format!("content {} has no parts; skipped", index + 1);
            warnings.push(source.warn(None, message));
            continue;
        }
        let role = role_of(content["role"].as_str().unwrap_or_default(), &parts);
        // The context gemini-cli sends first, and the model's thanks for it, are no turns.
        if role == Role::User && is_ignored_prompt(&parts) {
            skipped_context |= cursor == 0;
            continue;
        }
        if role == Role::Model && skipped_context && cursor == 0 {
            skipped_context = false;
            continue;
        }
        let at_ms = time_ms(&content["timestamp"]).or(taken_at).unwrap_or(0);
        cursor = tree.push(
            None,
            cursor,
            NewNode {
                role,
                parts,
                at_ms,
                model: None,
            },
        );
    }
    let stem = source
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let tag = stem
        .as_deref()
        .and_then(|s| s.strip_prefix("checkpoint-"))
        .map(decode_tag);
    let meta = SessionMeta {
        id: stem.unwrap_or_default(),
        origin: source.origin(),
        title: tag,
        ..SessionMeta::default()
    };
    let sessions = tree.finish(meta, cursor).into_iter().collect();
    Read { sessions, warnings }
}

/// When a `/restore` checkpoint was taken, from its name (`2025-06-03T09-00-00_000Z-FILE-TOOL.json`:
/// an ISO time with `:` and `.` made `-` and `_`).
fn checkpoint_time(name: &str) -> Option<u64> {
    let stamp = name.get(..24)?;
    let (date, time) = stamp.split_once('T')?;
    let time = time.replacen('-', ":", 2).replacen('_', ".", 1);
    time_ms(&Value::from(format!("{date}T{time}")))
}

/// A saved chat's tag from its file name (gemini-cli URL-encodes it).
fn decode_tag(encoded: &str) -> String {
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| encoded.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                index += 3;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[path = "gemini_cli_tests.rs"]
mod tests;
