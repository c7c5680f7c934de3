//! A session as a readable Markdown document: its title, model and date, then the turns
//! of the path to the head (prompts and answers as text, function calls and results as
//! fenced JSON blocks); with `all`, the turns out of the context too, struck through.

use std::fmt::Write;
use std::time::{Duration, UNIX_EPOCH};

use omni_proto::{Entry, HistoryView, PartContent, RevertReason, Role};

use crate::model::SessionRecord;

/// The document for `history` (every node with `all`, else the path to the head).
pub fn markdown(record: &SessionRecord, origin: Option<&str>, history: &HistoryView) -> String {
    let mut out = String::new();
    let title = if record.title.trim().is_empty() {
        "Untitled session"
    } else {
        record.title.trim()
    };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(out, "- Session: `{}`", record.id);
    let _ = writeln!(out, "- Model: {}", model_of(record, history));
    let _ = writeln!(out, "- Created: {}", date(record.created_at_ms));
    let _ = writeln!(out, "- Last activity: {}", date(record.updated_at_ms));
    if let Some(origin) = origin {
        let _ = writeln!(out, "- Origin: {origin}");
    }
    for entry in &history.entries {
        out.push('\n');
        turn(&mut out, entry);
    }
    out
}

/// The session's own model, else the model of its first answer, else the daemon's.
fn model_of(record: &SessionRecord, history: &HistoryView) -> String {
    if let Some(model) = &record.model {
        return model.clone();
    }
    history
        .entries
        .iter()
        .find_map(|e| e.model.as_ref())
        .map(|m| format!("{}/{}", m.provider, m.model))
        .unwrap_or_else(|| "the daemon's default".into())
}

fn date(ms: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

fn heading(entry: &Entry) -> String {
    let who = match (entry.role, &entry.model) {
        (Role::User, _) => "User".to_string(),
        (Role::Tool, _) => "Function results".to_string(),
        (Role::Model, Some(m)) => format!("Model ({}/{})", m.provider, m.model),
        (Role::Model, None) => "Model".to_string(),
        (Role::Summary, _) => "Summary (a compaction)".to_string(),
    };
    match entry
        .why_reverted
        .or(entry.reverted.then_some(RevertReason::OtherBranch))
    {
        Some(why) => format!(
            "## ~~{who}~~ (node {}, reverted: {})",
            entry.id,
            reason(why)
        ),
        None if entry.compacted => format!("## {who} (node {}, compacted)", entry.id),
        None => format!("## {who} (node {})", entry.id),
    }
}

fn reason(why: RevertReason) -> &'static str {
    match why {
        RevertReason::Undone => "undone",
        RevertReason::Rewound => "taken back",
        RevertReason::Recovered => "rolled back in recovery",
        RevertReason::Interrupted => "interrupted",
        RevertReason::OtherBranch => "another branch",
    }
}

fn turn(out: &mut String, entry: &Entry) {
    let _ = writeln!(out, "{}\n", heading(entry));
    for part in &entry.parts {
        match &part.content {
            PartContent::Text(text) if entry.reverted => {
                for line in text.lines() {
                    let line = line.trim_end();
                    let _ = match line.is_empty() {
                        true => writeln!(out),
                        false => writeln!(out, "~~{line}~~"),
                    };
                }
                out.push('\n');
            }
            PartContent::Text(text) => {
                let _ = writeln!(out, "{}\n", text.trim_end());
            }
            PartContent::Thought(text) => {
                for line in text.lines() {
                    let _ = writeln!(out, "> {line}");
                }
                out.push('\n');
            }
            PartContent::FunctionCall {
                name, args_json, ..
            } => fenced(out, &format!("Call `{name}`"), args_json),
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => fenced(out, &format!("Result of `{name}`"), response_json),
            PartContent::Other { json } => fenced(out, "Other content", json),
            PartContent::Compaction { .. } => {
                if let Some(compaction) = &entry.compaction {
                    let covers = compaction.covers.len();
                    let _ = writeln!(out, "_This summary stands for {covers} earlier nodes._\n");
                }
            }
        }
    }
}

/// A labelled fenced JSON block, pretty-printed when it parses; the fence is longer than
/// any run of backticks inside.
fn fenced(out: &mut String, label: &str, json: &str) {
    let body = serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| json.to_string());
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{label}:\n\n{fence}json\n{body}\n{fence}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_is_longer_than_any_backticks_inside() {
        let mut out = String::new();
        fenced(
            &mut out,
            "Result",
            r#"{"text": "```rust\nfn main() {}\n```"}"#,
        );
        assert!(out.contains("````json\n"), "{out}");
    }
}
