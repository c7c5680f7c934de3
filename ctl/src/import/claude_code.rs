//! Claude Code's project files (`~/.claude/projects/<project>/<session>.jsonl`): one JSON
//! record a line. Messages (`type` `user` / `assistant`) carry `uuid` and `parentUuid`, which
//! make a tree with every branch a rewind left; an answer streamed as several records shares
//! one `message.id`; tool calls are `tool_use` blocks and their results `tool_result` blocks
//! in the next user record. Bookkeeping records (`attachment`, `system`, `progress`, ...)
//! sit in the chain too and pass their place on to their children. A `summary` record names
//! a leaf in `leafUuid` and gives the conversation a title; one written after the last
//! message names the head (that is how a rewind is recorded), as a `last-prompt` record
//! does. Subagent conversations (`isSidechain`) are a session of their own only in a file
//! that holds nothing else.

use std::collections::HashMap;

use omni_proto::{Part, PartContent, Role, Usage};
use serde_json::Value;

use super::lines::{self, Record, text_or_json, time_ms};
use super::tree::{NewNode, SessionMeta, TreeBuilder, model_info, part, tokens};
use super::{ImportError, Input, Read, Warning};

/// The model Claude Code names on the notices it writes as answers (API errors, ...).
const SYNTHETIC: &str = "<synthetic>";

/// Whether `record` is a Claude Code record: a message with a `uuid` and a `sessionId`, or
/// one of its bookkeeping records.
pub(crate) fn looks_like(record: &Value) -> bool {
    let kind = record["type"].as_str().unwrap_or_default();
    let message = matches!(kind, "user" | "assistant" | "system" | "attachment");
    let marker = matches!(kind, "summary" | "last-prompt" | "queue-operation")
        && (record.get("leafUuid").is_some() || record.get("sessionId").is_some());
    (message && record.get("uuid").is_some() && record.get("sessionId").is_some()) || marker
}

/// Reads one project file as one session.
pub(crate) fn read(source: &Input<'_>, bytes: &[u8]) -> Result<Read, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let (records, mut warnings) = lines::records(source, &text);
    if !records.iter().any(|r| looks_like(&r.value)) {
        return Err(source.malformed("no Claude Code record in it"));
    }
    let main_only = records
        .iter()
        .any(|r| is_message(&r.value) && r.value["isSidechain"] != Value::Bool(true));
    let mut reader = Reader::new(source);
    reader.in_file = records
        .iter()
        .filter_map(|r| r.value["uuid"].as_str().map(str::to_string))
        .collect();
    for record in &records {
        reader.record(record, main_only);
    }
    warnings.append(&mut reader.warnings);
    if reader.sidechain_skipped > 0 {
        warnings.push(source.warn(
            None,
            format!(
                "{} subagent (sidechain) records left out: the session's own conversation is \
                 imported; import the subagent's file to have its own",
                reader.sidechain_skipped
            ),
        ));
    }
    let sessions = reader.finish().into_iter().collect();
    Ok(Read { sessions, warnings })
}

fn is_message(record: &Value) -> bool {
    matches!(record["type"].as_str(), Some("user" | "assistant"))
}

/// The state of one file's reading.
struct Reader<'a> {
    source: &'a Input<'a>,
    tree: TreeBuilder,
    warnings: Vec<Warning>,
    /// The API message id of each answer node, to join an answer's records.
    message_ids: HashMap<u64, String>,
    /// The name of each tool call, for the results that answer it.
    call_names: HashMap<String, String>,
    /// The last message's line and node.
    last_message: Option<(usize, u64)>,
    /// `leafUuid`s named by `summary` / `last-prompt` records: line, leaf, summary text.
    leaves: Vec<(usize, String, Option<String>)>,
    custom_title: Option<String>,
    session_id: Option<String>,
    sidechain_skipped: usize,
    /// Every uuid the file holds, to tell a parent that comes later (a cycle, or records
    /// out of order) from one that is not in the file at all.
    in_file: std::collections::HashSet<String>,
}

impl<'a> Reader<'a> {
    fn new(source: &'a Input<'a>) -> Self {
        Self {
            source,
            tree: TreeBuilder::default(),
            warnings: Vec::new(),
            message_ids: HashMap::new(),
            call_names: HashMap::new(),
            last_message: None,
            leaves: Vec::new(),
            custom_title: None,
            session_id: None,
            sidechain_skipped: 0,
            in_file: Default::default(),
        }
    }

    fn record(&mut self, record: &Record, main_only: bool) {
        let value = &record.value;
        if self.session_id.is_none() {
            self.session_id = value["sessionId"].as_str().map(str::to_string);
        }
        match value["type"].as_str().unwrap_or_default() {
            "user" | "assistant" if main_only && value["isSidechain"] == Value::Bool(true) => {
                self.sidechain_skipped += 1;
            }
            "user" | "assistant" => self.message(record),
            "summary" | "last-prompt" => {
                if let Some(leaf) = value["leafUuid"].as_str() {
                    let summary = value["summary"].as_str().map(str::to_string);
                    self.leaves.push((record.line, leaf.to_string(), summary));
                }
            }
            "custom-title" => {
                self.custom_title = value["customTitle"].as_str().map(str::to_string);
            }
            _ => {
                if let Some(uuid) = value["uuid"].as_str() {
                    let parent = self.parent_of(record);
                    self.tree.alias(uuid, parent);
                }
            }
        }
    }

    /// The node a record hangs under: its `parentUuid`'s (or, after a compaction, its
    /// `logicalParentUuid`'s), or the start when it names none or one not in the file.
    fn parent_of(&mut self, record: &Record) -> u64 {
        let value = &record.value;
        let named = value["parentUuid"]
            .as_str()
            .or_else(|| value["logicalParentUuid"].as_str());
        let Some(parent) = named else { return 0 };
        match self.tree.node_of(parent) {
            Some(node) => node,
            None => {
                let why = if self.in_file.contains(parent) {
                    format!(
                        "its parent {parent} comes later in the file (a cycle of parents, or \
                         records out of order); read as a new start"
                    )
                } else {
                    format!("its parent {parent} is not in the file; read as a new start")
                };
                self.warnings.push(self.source.warn(Some(record.line), why));
                0
            }
        }
    }

    fn message(&mut self, record: &Record) {
        let value = &record.value;
        let Some(uuid) = value["uuid"].as_str() else {
            let warning = self
                .source
                .warn(Some(record.line), "a message without a uuid; skipped");
            self.warnings.push(warning);
            return;
        };
        if self.tree.node_of(uuid).is_some() {
            let warning = self.source.warn(
                Some(record.line),
                format!("uuid {uuid} was used by an earlier message; this one is read too, and later records naming it hang under this one"),
            );
            self.warnings.push(warning);
        }
        let parent = self.parent_of(record);
        let at_ms = time_ms(&value["timestamp"]).unwrap_or(0);
        let node = if value["isMeta"] == Value::Bool(true) {
            parent
        } else if value["type"] == "assistant" {
            self.answer(&value["message"], parent, at_ms)
        } else {
            self.prompt(&value["message"], parent, at_ms)
        };
        self.tree.alias(uuid, node);
        if node != parent {
            self.last_message = Some((record.line, node));
        }
    }

    /// An assistant record: a new answer node, or more of the answer its parent is.
    fn answer(&mut self, message: &Value, parent: u64, at_ms: u64) -> u64 {
        let parts: Vec<Part> = blocks(&message["content"])
            .iter()
            .map(|block| self.said(block))
            .collect();
        let message_id = message["id"].as_str().unwrap_or_default().to_string();
        let usage = usage(&message["usage"]);
        let joins = !message_id.is_empty() && self.message_ids.get(&parent) == Some(&message_id);
        if joins && let Some(node) = self.tree.node_mut(parent) {
            node.parts.extend(parts);
            if let Some(info) = node.model.as_mut() {
                info.usage = usage.or(info.usage);
                info.finish_reason = stop_reason(message).or(info.finish_reason.take());
            }
            return parent;
        }
        if parts.is_empty() {
            return parent;
        }
        let model = message["model"].as_str().unwrap_or("unknown");
        let mut info = model_info("anthropic", model, usage);
        info.finish_reason = stop_reason(message);
        // Claude Code's own error notices are written as answers of a model it calls
        // `<synthetic>`: they are kept, but say nothing of a model or its usage.
        let info = (model != SYNTHETIC).then_some(info);
        let role = Role::Model;
        let node = NewNode {
            role,
            parts,
            at_ms,
            model: info,
        };
        let id = self.tree.push(None, parent, node);
        self.message_ids.insert(id, message_id);
        id
    }

    /// A user record: a prompt, or tool results (joined with the results just before them).
    fn prompt(&mut self, message: &Value, parent: u64, at_ms: u64) -> u64 {
        let parts: Vec<Part> = blocks(&message["content"])
            .iter()
            .map(|block| self.answered(block))
            .collect();
        if parts.is_empty() {
            return parent;
        }
        let results = parts
            .first()
            .is_some_and(|part| matches!(part.content, PartContent::FunctionResponse { .. }));
        let role = if results { Role::Tool } else { Role::User };
        if results
            && let Some(node) = self.tree.node_mut(parent)
            && node.role == Role::Tool
        {
            node.parts.extend(parts);
            return parent;
        }
        self.tree.push(
            None,
            parent,
            NewNode {
                role,
                parts,
                at_ms,
                model: None,
            },
        )
    }

    /// One block of an answer.
    fn said(&mut self, block: &Value) -> Part {
        match block["type"].as_str().unwrap_or_default() {
            "text" => Part::text(block["text"].as_str().unwrap_or_default()),
            "thinking" => Part {
                content: PartContent::Thought(
                    block["thinking"].as_str().unwrap_or_default().into(),
                ),
                thought_signature: block["signature"].as_str().map(str::to_string),
            },
            "tool_use" => {
                let id = block["id"].as_str().unwrap_or_default().to_string();
                let name = block["name"].as_str().unwrap_or_default().to_string();
                self.call_names.insert(id.clone(), name.clone());
                part(PartContent::FunctionCall {
                    id: Some(id),
                    name,
                    args_json: block["input"].to_string(),
                })
            }
            _ => other(block),
        }
    }

    /// One block of a user record.
    fn answered(&self, block: &Value) -> Part {
        match block["type"].as_str().unwrap_or_default() {
            "text" => Part::text(block["text"].as_str().unwrap_or_default()),
            "tool_result" => {
                let id = block["tool_use_id"].as_str().unwrap_or_default();
                let name = self.call_names.get(id).cloned().unwrap_or_default();
                part(PartContent::FunctionResponse {
                    id: Some(id.to_string()),
                    name,
                    response_json: text_or_json(&block["content"]),
                })
            }
            _ => other(block),
        }
    }

    /// The session: the head is the last message, unless a `summary` or `last-prompt`
    /// record written after it names another leaf of this file.
    fn finish(self) -> Option<super::ExportedSession> {
        let (last_line, last_node) = self.last_message.unwrap_or((0, self.tree.last()));
        let head = self
            .leaves
            .iter()
            .rev()
            .filter(|(line, _, _)| *line > last_line)
            .find_map(|(_, leaf, _)| self.tree.node_of(leaf))
            .unwrap_or(last_node);
        let summary = self
            .leaves
            .iter()
            .rev()
            .find_map(|(_, leaf, summary)| self.tree.node_of(leaf).and(summary.clone()));
        let title_set = self.custom_title.is_some();
        let stem = self
            .source
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned());
        let meta = SessionMeta {
            id: self.session_id.or(stem).unwrap_or_default(),
            origin: self.source.origin(),
            title: self.custom_title.or(summary),
            title_set,
            ..SessionMeta::default()
        };
        self.tree.finish(meta, head)
    }
}

/// A message's content as blocks: a plain string is one text block.
fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) if text.is_empty() => Vec::new(),
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        _ => Vec::new(),
    }
}

fn other(block: &Value) -> Part {
    part(PartContent::Other {
        json: block.to_string(),
    })
}

fn stop_reason(message: &Value) -> Option<String> {
    message["stop_reason"].as_str().map(str::to_string)
}

/// Anthropic's usage: `input_tokens` counts only what no cache served, so the tokens read
/// from and written to the cache are added to make the whole prompt.
fn usage(usage: &Value) -> Option<Usage> {
    if !usage.is_object() {
        return None;
    }
    let cached = tokens(&usage["cache_read_input_tokens"]);
    let prompt = tokens(&usage["input_tokens"])
        .saturating_add(tokens(&usage["cache_creation_input_tokens"]))
        .saturating_add(cached);
    let answer = tokens(&usage["output_tokens"]);
    Some(Usage {
        prompt_tokens: prompt,
        answer_tokens: answer,
        thought_tokens: 0,
        total_tokens: prompt.saturating_add(answer),
        cached_tokens: cached,
    })
}

#[cfg(test)]
#[path = "claude_code_tests.rs"]
mod tests;
