//! Histories the API would reject, found before they are sent: the request's contents are
//! checked with the same rules as a session's (`session/validate.rs`), after checking that
//! the roles alternate as sent (a session merges its own turns; a client's must already
//! be merged). With `proxy.history = "repair"` the known poisonings are fixed first:
//!
//! 1. **Roles that do not alternate**: consecutive contents of the same role are merged
//!    into one, their parts in order.
//! 2. **Function responses without a call**: responses in a content that does not follow
//!    a model content calling functions are dropped.
//! 3. **Function calls left unanswered**: calls in a model content that is not followed by
//!    a content of function responses are dropped (the model's text in it stays).
//!
//! A content left empty by a repair is dropped, and the merge runs again. Counts or names
//! that do not match between calls and responses are not repaired: which response was
//! meant for which call cannot be known.

use serde_json::{Value, json};

use crate::model::{NodeRecord, PartContent, Role};
use crate::provider::gemini::parts;
use crate::provider::gemini::wire::CandidateContent;
use crate::session::validate::{Violation, validate_nodes};

/// The contents of a request body, read once for the check and for recording.
#[derive(Default, serde::Deserialize)]
pub struct Sent {
    #[serde(default)]
    contents: Vec<CandidateContent>,
}

impl Sent {
    /// The contents of a generation request's body (none if it is not one).
    pub fn parse(body: &[u8]) -> Self {
        serde_json::from_slice(body).unwrap_or_default()
    }
}

/// The contents as nodes numbered from 1, as a session would hold them.
fn as_nodes(sent: &[CandidateContent]) -> Vec<NodeRecord> {
    sent.iter()
        .enumerate()
        .map(|(i, content)| {
            let parts = parts::from_content(content);
            let all_responses = !parts.is_empty()
                && parts
                    .iter()
                    .all(|p| matches!(p.content, PartContent::FunctionResponse { .. }));
            let role = match content.role.as_str() {
                "model" => Role::Model,
                _ if all_responses => Role::Tool,
                _ => Role::User,
            };
            NodeRecord {
                id: i as u64 + 1,
                parent: i as u64,
                role,
                parts,
                created_at_ms: 0,
                model: None,
            }
        })
        .collect()
}

/// The request's contents as turns.
pub fn turns(sent: &Sent) -> Vec<crate::proxy::record::Turn> {
    as_nodes(&sent.contents)
        .into_iter()
        .map(|node| (node.role, node.parts))
        .collect()
}

/// Whether the roles alternate as sent; else the first pair that does not.
fn check_alternation(sent: &[CandidateContent]) -> Result<(), Violation> {
    let role = |c: &CandidateContent| if c.role == "model" { "model" } else { "user" };
    for (i, pair) in sent.windows(2).enumerate() {
        if role(&pair[0]) == role(&pair[1]) {
            return Err(Violation {
                reason: format!(
                    "contents {} and {} are both the {}'s: roles must alternate",
                    i + 1,
                    i + 2,
                    role(&pair[0])
                ),
                nodes: vec![i as u64 + 1, i as u64 + 2],
            });
        }
    }
    Ok(())
}

/// Why the API would reject this request's history (contents are numbered from 1), if it
/// would. A body that is not a generation request is not checked.
pub fn check(sent: &Sent) -> Option<Violation> {
    if sent.contents.is_empty() {
        return None;
    }
    check_alternation(&sent.contents)
        .err()
        .or_else(|| validate_nodes(&as_nodes(&sent.contents)).err())
}

fn has(part: &Value, key: &str) -> bool {
    part.get(key).is_some()
}

fn role_of(content: &Value) -> &str {
    match content["role"].as_str() {
        Some("model") => "model",
        _ => "user",
    }
}

/// Merges consecutive contents of the same role; says how many merges it made.
fn merge_roles(contents: &mut Vec<Value>, changes: &mut Vec<String>) {
    let mut merged: Vec<Value> = Vec::new();
    for content in contents.drain(..) {
        match merged.last_mut() {
            Some(last) if role_of(last) == role_of(&content) => {
                let more = content["parts"].as_array().cloned().unwrap_or_default();
                if let Some(parts) = last["parts"].as_array_mut() {
                    parts.extend(more);
                }
                changes.push(format!(
                    "merged two consecutive {} contents",
                    role_of(&content)
                ));
            }
            _ => merged.push(content),
        }
    }
    *contents = merged;
}

/// Drops function calls no response follows and responses no call precedes.
fn drop_unmatched(contents: &mut [Value], changes: &mut Vec<String>) {
    let calls_at: Vec<bool> = contents
        .iter()
        .map(|c| role_of(c) == "model" && parts_of(c).iter().any(|p| has(p, "functionCall")))
        .collect();
    let responses_at: Vec<bool> = contents
        .iter()
        .map(|c| parts_of(c).iter().any(|p| has(p, "functionResponse")))
        .collect();
    for (i, content) in contents.iter_mut().enumerate() {
        let answered = responses_at.get(i + 1).copied().unwrap_or(false);
        let called = i > 0 && calls_at[i - 1];
        let (key, what) = if calls_at[i] && !answered {
            ("functionCall", "an unanswered function call")
        } else if responses_at[i] && !called {
            ("functionResponse", "a function response without a call")
        } else {
            continue;
        };
        if let Some(parts) = content["parts"].as_array_mut() {
            let before = parts.len();
            parts.retain(|p| !has(p, key));
            for _ in parts.len()..before {
                changes.push(format!("dropped {what} from content {}", i + 1));
            }
        }
    }
}

fn parts_of(content: &Value) -> Vec<Value> {
    content["parts"].as_array().cloned().unwrap_or_default()
}

/// The body with the known poisonings repaired, and what changed (nothing: `None`).
pub fn repair(body: &[u8]) -> Option<(Vec<u8>, Vec<String>)> {
    let mut request: Value = serde_json::from_slice(body).ok()?;
    let mut contents = request["contents"].as_array().cloned()?;
    let mut changes = Vec::new();
    merge_roles(&mut contents, &mut changes);
    drop_unmatched(&mut contents, &mut changes);
    let before = contents.len();
    contents.retain(|c| !parts_of(c).is_empty());
    for _ in contents.len()..before {
        changes.push("dropped a content left empty".to_string());
    }
    merge_roles(&mut contents, &mut changes);
    if changes.is_empty() {
        return None;
    }
    request["contents"] = json!(contents);
    Some((serde_json::to_vec(&request).ok()?, changes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(contents: Value) -> Vec<u8> {
        json!({"contents": contents, "generationConfig": {"temperature": 0}})
            .to_string()
            .into_bytes()
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "parts": [{"text": text}]})
    }

    fn model_calling(name: &str) -> Value {
        json!({"role": "model", "parts": [{"text": "let me look"}, {"functionCall": {"name": name, "args": {}}}]})
    }

    fn response(name: &str) -> Value {
        json!({"role": "user", "parts": [{"functionResponse": {"name": name, "response": {"output": 1}}}]})
    }

    #[test]
    fn a_healthy_history_passes_and_needs_no_repair() {
        let healthy = body(json!([user("a"), model_calling("f"), response("f")]));
        assert_eq!(check(&Sent::parse(&healthy)), None);
        assert_eq!(repair(&healthy), None);
    }

    #[test]
    fn each_poisoning_is_named_with_its_content() {
        let twice = body(json!([user("a"), user("b")]));
        assert!(
            check(&Sent::parse(&twice))
                .unwrap()
                .reason
                .contains("contents 1 and 2")
        );
        let unanswered = body(json!([user("a"), model_calling("f"), user("b")]));
        let found = check(&Sent::parse(&unanswered)).unwrap();
        assert!(found.nodes.contains(&2), "{found:?}");
        let orphan = body(json!([
            user("a"),
            json!({"role": "model", "parts": [{"text": "hi"}]}),
            response("f")
        ]));
        assert!(check(&Sent::parse(&orphan)).is_some());
    }

    #[test]
    fn repairs_merge_roles_and_drop_unmatched_calls_and_responses() {
        let poisoned = body(json!([user("a"), user("b"), model_calling("f"), user("c")]));
        let (fixed, changes) = repair(&poisoned).unwrap();
        assert_eq!(check(&Sent::parse(&fixed)), None, "{changes:?}");
        let fixed: Value = serde_json::from_slice(&fixed).unwrap();
        assert_eq!(
            fixed["generationConfig"]["temperature"], 0,
            "the rest is kept"
        );
        let contents = fixed["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 3);
        assert_eq!(
            contents[0]["parts"].as_array().unwrap().len(),
            2,
            "a and b merged"
        );
        assert_eq!(contents[1]["parts"], json!([{"text": "let me look"}]));
        assert!(
            changes
                .iter()
                .any(|c| c.contains("unanswered function call")),
            "{changes:?}"
        );

        let orphan = body(json!([
            user("a"),
            json!({"role": "model", "parts": [{"text": "hi"}]}),
            response("f")
        ]));
        let (fixed, _) = repair(&orphan).unwrap();
        let fixed: Value = serde_json::from_slice(&fixed).unwrap();
        assert_eq!(
            fixed["contents"].as_array().unwrap().len(),
            2,
            "the empty content is gone"
        );
    }
}
