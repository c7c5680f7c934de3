//! Codex CLI's rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one record a
//! line, `{timestamp, type, payload}`. `session_meta` names the session (the first one: a
//! forked file repeats its parent's after it); `turn_context` the model of the turns that
//! follow; `response_item`s are the Responses API items exchanged (`message`, `reasoning`,
//! `function_call` / `custom_tool_call` / `local_shell_call` and their `*_output`s);
//! `event_msg`s of type `token_count` carry each answer's usage, and `thread_rolled_back`
//! says the newest N user turns were taken back, which makes a branch: what follows grows
//! from before them. Messages the harness injects (developer instructions, the environment
//! context) are not prompts and are left out. Files of Codex's first format (bare items
//! after an `{id, timestamp, instructions}` line) read the same way.

use std::collections::HashMap;

use omni_proto::{Part, PartContent, Role, Usage};
use serde_json::Value;

use super::lines::{self, Record, text_or_json, time_ms};
use super::tree::{NewNode, SessionMeta, TreeBuilder, model_info, part, tokens};
use super::{ImportError, Input, Read};

/// Prefixes of the user-role messages Codex writes itself.
const INJECTED: [&str; 6] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<skills_instructions>",
    "<turn_aborted>",
];

/// Whether `record` is a rollout record.
pub(crate) fn looks_like(record: &Value) -> bool {
    let kind = record["type"].as_str().unwrap_or_default();
    let wrapped = record.get("payload").is_some()
        && matches!(
            kind,
            "session_meta" | "response_item" | "turn_context" | "event_msg"
        );
    let first_format = record.get("instructions").is_some()
        && record.get("id").is_some()
        && record.get("timestamp").is_some();
    wrapped || first_format
}

/// Reads one rollout file as one session.
pub(crate) fn read(source: &Input<'_>, bytes: &[u8]) -> Result<Read, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let (records, warnings) = lines::records(source, &text);
    if !records.iter().any(|r| looks_like(&r.value)) {
        return Err(source.malformed("no rollout record in it"));
    }
    let mut reader = Reader::default();
    for record in &records {
        reader.record(record);
    }
    let stem = source
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let meta = SessionMeta {
        id: reader.session_id.take().or(stem).unwrap_or_default(),
        origin: source.origin(),
        created_at_ms: reader.created_at_ms,
        ..SessionMeta::default()
    };
    let head = reader.cursor;
    let sessions = reader.tree.finish(meta, head).into_iter().collect();
    Ok(Read { sessions, warnings })
}

/// The state of one file's reading.
#[derive(Default)]
struct Reader {
    tree: TreeBuilder,
    /// The node the next one grows from.
    cursor: u64,
    /// The cursor's node is an answer whose usage came: the next item starts another.
    closed: bool,
    /// The prompts on the path to the cursor, oldest first (for rollbacks).
    prompts: Vec<u64>,
    call_names: HashMap<String, String>,
    model: Option<String>,
    session_id: Option<String>,
    created_at_ms: Option<u64>,
}

impl Reader {
    fn record(&mut self, record: &Record) {
        let value = &record.value;
        let at_ms = time_ms(&value["timestamp"]).unwrap_or(0);
        let payload = &value["payload"];
        match value["type"].as_str().unwrap_or_default() {
            "session_meta" => self.meta(payload, at_ms),
            "turn_context" => {
                if let Some(model) = payload["model"].as_str() {
                    self.model = Some(model.to_string());
                }
            }
            "response_item" => self.item(payload, at_ms),
            "event_msg" => self.event(payload),
            "token_usage_record" => self.usage(&payload["usage"]),
            _ if value.get("payload").is_none() && value.get("instructions").is_some() => {
                self.meta(value, at_ms);
            }
            _ if value.get("payload").is_none() => self.item(value, at_ms),
            _ => {}
        }
    }

    fn meta(&mut self, payload: &Value, at_ms: u64) {
        if self.session_id.is_none() {
            self.session_id = payload["id"].as_str().map(str::to_string);
            self.created_at_ms = time_ms(&payload["timestamp"]).or(Some(at_ms));
        }
    }

    fn event(&mut self, payload: &Value) {
        match payload["type"].as_str().unwrap_or_default() {
            "token_count" => self.usage(&payload["info"]["last_token_usage"]),
            "thread_rolled_back" => {
                let turns = payload["num_turns"].as_u64().unwrap_or(0);
                let turns = usize::try_from(turns).unwrap_or(usize::MAX);
                let keep = self.prompts.len().saturating_sub(turns);
                let first_dropped = self.prompts.get(keep).copied();
                self.prompts.truncate(keep);
                self.cursor = first_dropped
                    .and_then(|node| self.tree.node_mut(node).map(|n| n.parent))
                    .unwrap_or(self.cursor);
                self.closed = true;
            }
            _ => {}
        }
    }

    /// One Responses API item: a prompt, a piece of an answer, or a tool's output.
    fn item(&mut self, item: &Value, at_ms: u64) {
        match item["type"].as_str().unwrap_or_default() {
            "message" => match item["role"].as_str().unwrap_or_default() {
                "user" => self.prompt(item, at_ms),
                "assistant" => {
                    let parts = texts(&item["content"])
                        .into_iter()
                        .map(Part::text)
                        .collect();
                    self.add(Role::Model, parts, at_ms);
                }
                _ => {}
            },
            "reasoning" => {
                let summary = item["summary"].as_array().into_iter().flatten();
                let content = item["content"].as_array().into_iter().flatten();
                let parts = summary
                    .chain(content)
                    .filter_map(|piece| piece["text"].as_str())
                    .map(|text| part(PartContent::Thought(text.to_string())))
                    .collect();
                self.add(Role::Model, parts, at_ms);
            }
            "function_call_output" | "custom_tool_call_output" => {
                let id = item["call_id"].as_str().unwrap_or_default().to_string();
                let name = self.call_names.get(&id).cloned().unwrap_or_default();
                let response_json = text_or_json(&item["output"]);
                let result = PartContent::FunctionResponse {
                    id: Some(id),
                    name,
                    response_json,
                };
                self.add(Role::Tool, vec![part(result)], at_ms);
            }
            "compacted" | "ghost_snapshot" => {}
            _ => {
                let call = self.call(item);
                self.add(Role::Model, vec![call], at_ms);
            }
        }
    }

    /// A tool call of any kind, or an item Omni does not interpret kept as it is.
    fn call(&mut self, item: &Value) -> Part {
        let kind = item["type"].as_str().unwrap_or_default();
        let (name, args_json) = match kind {
            "function_call" => (
                item["name"].as_str().unwrap_or_default().to_string(),
                text_or_json(&item["arguments"]),
            ),
            "custom_tool_call" => (
                item["name"].as_str().unwrap_or_default().to_string(),
                serde_json::json!({"input": item["input"]}).to_string(),
            ),
            "local_shell_call" => ("local_shell".to_string(), item["action"].to_string()),
            _ => {
                return part(PartContent::Other {
                    json: item.to_string(),
                });
            }
        };
        let id = item["call_id"].as_str().unwrap_or_default().to_string();
        self.call_names.insert(id.clone(), name.clone());
        part(PartContent::FunctionCall {
            id: Some(id),
            name,
            args_json,
        })
    }

    fn prompt(&mut self, item: &Value, at_ms: u64) {
        let texts = texts(&item["content"]);
        let injected = texts
            .first()
            .is_some_and(|text| INJECTED.iter().any(|p| text.trim_start().starts_with(p)));
        if texts.is_empty() || injected {
            return;
        }
        let parts = texts.into_iter().map(Part::text).collect();
        let node = NewNode {
            role: Role::User,
            parts,
            at_ms,
            model: None,
        };
        self.cursor = self.tree.push(None, self.cursor, node);
        self.prompts.push(self.cursor);
        self.closed = false;
    }

    /// Adds `parts` to the node at the cursor when it is an open one of `role`, else a new one.
    fn add(&mut self, role: Role, parts: Vec<Part>, at_ms: u64) {
        if parts.is_empty() {
            return;
        }
        let open = !self.closed || role != Role::Model;
        if open
            && let Some(node) = self.tree.node_mut(self.cursor)
            && node.role == role
        {
            node.parts.extend(parts);
            return;
        }
        let model = (role == Role::Model).then(|| {
            let name = self.model.as_deref().unwrap_or("unknown");
            model_info("openai", name, None)
        });
        self.cursor = self.tree.push(
            None,
            self.cursor,
            NewNode {
                role,
                parts,
                at_ms,
                model,
            },
        );
        self.closed = false;
    }

    /// An answer's usage (OpenAI counts cached and reasoning tokens inside input and output).
    fn usage(&mut self, usage: &Value) {
        if !usage.is_object() {
            return;
        }
        let Some(node) = self.tree.node_mut(self.cursor) else {
            return;
        };
        let Some(info) = node.model.as_mut() else {
            return;
        };
        info.usage = Some(Usage {
            prompt_tokens: tokens(&usage["input_tokens"]),
            answer_tokens: tokens(&usage["output_tokens"]),
            thought_tokens: tokens(&usage["reasoning_output_tokens"]),
            total_tokens: tokens(&usage["total_tokens"]),
            cached_tokens: tokens(&usage["cached_input_tokens"]),
        });
        self.closed = true;
    }
}

/// The texts of a message's content (`input_text` / `output_text` pieces, or a string).
fn texts(content: &Value) -> Vec<String> {
    match content {
        Value::String(text) => vec![text.clone()],
        Value::Array(pieces) => pieces
            .iter()
            .filter_map(|piece| piece["text"].as_str())
            .filter(|text| !text.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
#[path = "codex_tests.rs"]
mod tests;
