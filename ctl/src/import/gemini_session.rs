//! gemini-cli's session files (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`,
//! subagents' under `chats/<parent id>/`), written as the conversation goes: a metadata line
//! (`sessionId`, `projectHash`, `startTime`, `kind`), then message records (`id`,
//! `timestamp`, `type` `user` / `gemini` / `info` / `error`, `content`; a `gemini` record
//! also `thoughts`, `toolCalls` with their `result`s, `tokens` and `model`). A record whose
//! id was seen before replaces it. `{"$rewindTo": ID}` takes that message and all after it
//! out of the conversation (kept here as a branch: what follows grows from before it);
//! `{"$set": {...}}` updates the metadata (`summary`, the title) or, with `messages`,
//! replaces the whole conversation (after a compression). Older versions wrote the same
//! record as one JSON document (`{sessionId, projectHash, messages: [...]}`).

use std::collections::HashMap;

use omni_proto::{ModelInfo, Part, PartContent, Role, Usage};
use serde_json::Value;

use super::gemini_parts::{is_ignored_prompt, parts_of, role_of};
use super::lines::{self, time_ms};
use super::tree::{NewNode, SessionMeta, TreeBuilder, model_info, part, tokens};
use super::{ImportError, Input, Read};

/// Whether `record` is a session's metadata (its first line, or the whole first format).
pub(crate) fn is_metadata(record: &Value) -> bool {
    record["sessionId"].is_string() && record["projectHash"].is_string()
}

/// Reads a session file of the JSON Lines format.
pub(crate) fn read_lines(source: &Input<'_>, text: &str) -> Result<Read, ImportError> {
    let (records, mut warnings) = lines::records(source, text);
    if !records.iter().any(|r| is_metadata(&r.value)) {
        return Err(source.malformed("no session metadata line (sessionId, projectHash)"));
    }
    let mut reader = Reader::default();
    for record in &records {
        let value = &record.value;
        if let Some(id) = value["$rewindTo"].as_str() {
            reader.rewind(id);
        } else if let Some(set) = value.get("$set") {
            reader.set(set);
        } else if value["id"].is_string() {
            reader.message(value);
        } else if is_metadata(value) {
            reader.set(value);
        } else {
            warnings.push(source.warn(Some(record.line), "not a session record; skipped"));
        }
    }
    Ok(Read {
        sessions: reader.finish(source).into_iter().collect(),
        warnings,
    })
}

/// Reads a session file of the first format: one JSON document.
pub(crate) fn read_whole(source: &Input<'_>, whole: Option<&Value>) -> Read {
    let mut reader = Reader::default();
    if let Some(value) = whole {
        reader.set(value);
    }
    Read {
        sessions: reader.finish(source).into_iter().collect(),
        warnings: Vec::new(),
    }
}

/// The state of one file's reading.
#[derive(Default)]
struct Reader {
    tree: TreeBuilder,
    cursor: u64,
    /// The metadata as merged so far.
    meta: serde_json::Map<String, Value>,
    /// The tool-results node that follows each answer with tool calls, by the answer's node.
    results: HashMap<u64, u64>,
    /// The model the latest answer read named: an answer record that names none (an
    /// update written without it) was made by it.
    last_model: Option<String>,
}

impl Reader {
    /// Merges metadata; `messages` in it replace the conversation.
    fn set(&mut self, set: &Value) {
        let Some(fields) = set.as_object() else {
            return;
        };
        for (key, value) in fields {
            if key == "messages" {
                self.replace(value.as_array().map(Vec::as_slice).unwrap_or_default());
            } else {
                self.meta.insert(key.clone(), value.clone());
            }
        }
    }

    /// The conversation becomes `messages`: those already read stay where they are when
    /// they continue the same path; the rest grow a new branch.
    fn replace(&mut self, messages: &[Value]) {
        self.cursor = 0;
        for message in messages.iter().filter(|m| m["id"].is_string()) {
            self.message(message);
        }
    }

    /// The message `id` and everything after it leave the conversation.
    fn rewind(&mut self, id: &str) {
        let node = ["user", "gemini"]
            .iter()
            .find_map(|kind| self.tree.node_of(&key(kind, id)));
        self.cursor = node
            .and_then(|node| self.tree.node_mut(node).map(|n| n.parent))
            .unwrap_or(0);
    }

    fn message(&mut self, record: &Value) {
        let kind = record["type"].as_str().unwrap_or_default();
        let at_ms = time_ms(&record["timestamp"]).unwrap_or(0);
        let (role, parts) = match kind {
            "user" => {
                let parts = parts_of(&record["content"]);
                if is_ignored_prompt(&parts) {
                    return;
                }
                (role_of("user", &parts), parts)
            }
            "gemini" => (Role::Model, answer_parts(record)),
            _ => return,
        };
        if parts.is_empty() || (role == Role::Tool && self.at_results()) {
            return;
        }
        let named = record["model"].as_str().map(str::to_string);
        if named.is_some() {
            self.last_model.clone_from(&named);
        }
        let model = (role == Role::Model).then(|| {
            let name = named.as_deref().or(self.last_model.as_deref());
            model_info("gemini", name.unwrap_or(UNKNOWN), usage(&record["tokens"]))
        });
        let key = key(kind, record["id"].as_str().unwrap_or_default());
        let node = self.place(
            &key,
            NewNode {
                role,
                parts,
                at_ms,
                model,
            },
        );
        self.cursor = node;
        self.tool_results(node, record, at_ms);
    }

    /// Whether function results are already read where the cursor is: the results of an
    /// answer's `toolCalls` (a conversation written again after a resume or a compression
    /// repeats them as user messages). The cursor moves onto them.
    fn at_results(&mut self) -> bool {
        if let Some(&results) = self.results.get(&self.cursor) {
            self.cursor = results;
        }
        self.tree
            .node_mut(self.cursor)
            .is_some_and(|node| node.role == Role::Tool)
    }

    /// Adds the message, or replaces it when it was read before on the same path (an
    /// update of the record, or the conversation written again).
    fn place(&mut self, key: &str, new: NewNode) -> u64 {
        let cursor = self.cursor;
        if let Some(node) = self.tree.node_of(key) {
            let below_its_results = self.results.get(&node) == Some(&cursor);
            if let Some(existing) = self.tree.node_mut(node)
                && (existing.parent == cursor || node == cursor || below_its_results)
            {
                existing.parts = new.parts;
                existing.model = merged(existing.model.take(), new.model);
                return node;
            }
        }
        self.tree.push(Some(key), cursor, new)
    }

    /// The results of an answer's tool calls, as the node after it.
    fn tool_results(&mut self, answer: u64, record: &Value, at_ms: u64) {
        let calls = record["toolCalls"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let parts: Vec<Part> = calls
            .iter()
            .flat_map(|call| parts_of(&call["result"]))
            .collect();
        if parts.is_empty() {
            return;
        }
        if let Some(&node) = self.results.get(&answer)
            && let Some(existing) = self.tree.node_mut(node)
        {
            existing.parts = parts;
            self.cursor = node;
            return;
        }
        let role = Role::Tool;
        let node = self.tree.push(
            None,
            answer,
            NewNode {
                role,
                parts,
                at_ms,
                model: None,
            },
        );
        self.results.insert(answer, node);
        self.cursor = node;
    }

    fn finish(self, source: &Input<'_>) -> Option<omni_proto::ExportedSession> {
        let text = |key: &str| {
            self.meta
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let meta = SessionMeta {
            id: text("sessionId").unwrap_or_default(),
            origin: source.origin(),
            title: text("summary"),
            created_at_ms: self.meta.get("startTime").and_then(time_ms),
            updated_at_ms: self.meta.get("lastUpdated").and_then(time_ms),
            ..SessionMeta::default()
        };
        self.tree.finish(meta, self.cursor)
    }
}

/// An answer's parts: its thoughts, its content, then the tool calls its content does
/// not already hold.
fn answer_parts(record: &Value) -> Vec<Part> {
    let thoughts = record["thoughts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let subject = t["subject"].as_str().unwrap_or_default();
            let description = t["description"].as_str().unwrap_or_default();
            let text = format!("**{subject}** {description}").trim().to_string();
            part(PartContent::Thought(text))
        });
    let content = parts_of(&record["content"]);
    let in_content = |id: Option<&str>| {
        content.iter().any(|part| match &part.content {
            PartContent::FunctionCall { id: Some(seen), .. } => Some(seen.as_str()) == id,
            _ => false,
        })
    };
    let calls: Vec<Part> = record["toolCalls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|call| !in_content(call["id"].as_str()))
        .map(|call| {
            part(PartContent::FunctionCall {
                id: call["id"].as_str().map(str::to_string),
                name: call["name"].as_str().unwrap_or_default().to_string(),
                args_json: call
                    .get("args")
                    .map_or_else(|| "{}".to_string(), Value::to_string),
            })
        })
        .collect();
    thoughts.chain(content).chain(calls).collect()
}

/// gemini-cli's token counts (`input`, `output`, `cached`, `thoughts`, `total`).
fn usage(tokens_of: &Value) -> Option<Usage> {
    tokens_of.is_object().then(|| Usage {
        prompt_tokens: tokens(&tokens_of["input"]),
        answer_tokens: tokens(&tokens_of["output"]),
        thought_tokens: tokens(&tokens_of["thoughts"]),
        total_tokens: tokens(&tokens_of["total"]),
        cached_tokens: tokens(&tokens_of["cached"]),
    })
}

#[cfg(test)]
#[path = "gemini_session_tests.rs"]
mod tests;

/// The tree's key of a message: gemini-cli gives an answer and the function results
/// written after it the same id.
fn key(kind: &str, id: &str) -> String {
    format!("{kind}:{id}")
}

/// The model name of an answer no record of the file names a model for.
const UNKNOWN: &str = "unknown";

/// An answer's model after an update of its record: the update's, except that what the
/// update leaves out (a model, its usage) is kept from before.
fn merged(before: Option<ModelInfo>, update: Option<ModelInfo>) -> Option<ModelInfo> {
    match (before, update) {
        (Some(before), Some(mut update)) => {
            if update.model == UNKNOWN {
                update.model = before.model;
            }
            update.usage = update.usage.or(before.usage);
            Some(update)
        }
        (before, update) => update.or(before),
    }
}
