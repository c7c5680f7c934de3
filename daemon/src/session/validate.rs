//! Preflight validation: the history is checked against the API's rules before every
//! request, so a poisoned history never reaches the API. A violation names the offending
//! nodes.
//!
//! The rules: the conversation starts and ends with the user's turn; roles alternate after
//! merging; every content with function calls is immediately followed by one with the same
//! number of function responses, in the same order, with matching names (and ids when both
//! have one); no function responses without calls before them; no empty parts.

use crate::model::PartContent;

use crate::provider::{Content, SourcedPart, WireRole};
use crate::session::tree::NodeId;

/// Why a history may not be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Violation {
    /// What is wrong, naming the nodes.
    pub reason: String,
    /// The offending nodes.
    pub nodes: Vec<NodeId>,
}

fn describe(part: &SourcedPart) -> String {
    format!("node {} ({})", part.node, part.role.as_str())
}

fn violation(reason: String, nodes: impl IntoIterator<Item = NodeId>) -> Violation {
    let mut nodes: Vec<NodeId> = nodes.into_iter().collect();
    nodes.dedup();
    Violation { reason, nodes }
}

/// (name, id, origin) of each function call or response in a content.
/// A function call or result: its name, its id if it has one, and the part.
type Named<'a> = (&'a str, Option<&'a str>, &'a SourcedPart);

fn calls(content: &Content) -> Vec<Named<'_>> {
    content
        .parts
        .iter()
        .filter_map(|p| match &p.part.content {
            PartContent::FunctionCall { name, id, .. } => Some((name.as_str(), id.as_deref(), p)),
            _ => None,
        })
        .collect()
}

fn responses(content: &Content) -> Vec<Named<'_>> {
    content
        .parts
        .iter()
        .filter_map(|p| match &p.part.content {
            PartContent::FunctionResponse { name, id, .. } => {
                Some((name.as_str(), id.as_deref(), p))
            }
            _ => None,
        })
        .collect()
}

fn names(items: &[Named<'_>]) -> String {
    items
        .iter()
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_empty(part: &SourcedPart) -> bool {
    let no_signature = part.part.thought_signature.is_none();
    match &part.part.content {
        PartContent::Text(text) | PartContent::Thought(text) => text.is_empty() && no_signature,
        PartContent::FunctionCall { name, .. } | PartContent::FunctionResponse { name, .. } => {
            name.is_empty()
        }
        PartContent::Other { json } => json.trim().is_empty(),
    }
}

/// Checks the merged contents of a request.
pub fn validate(contents: &[Content]) -> Result<(), Violation> {
    check_start(contents)?;
    for (i, content) in contents.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| &contents[p]);
        check_turn(i, content, previous)?;
        check_calls_answered(i, content, contents.get(i + 1))?;
    }
    check_end(contents)
}

/// The conversation is not empty and starts with the user.
fn check_start(contents: &[Content]) -> Result<(), Violation> {
    let Some(first) = contents.first() else {
        return Err(violation(
            "the conversation is empty: there is nothing to send".into(),
            [],
        ));
    };
    if first.role != WireRole::User {
        let nodes = first.parts.iter().map(|p| p.node);
        return Err(violation(
            "the conversation does not start with a user turn".into(),
            nodes,
        ));
    }
    Ok(())
}

/// The conversation ends with the user: there is something to answer.
fn check_end(contents: &[Content]) -> Result<(), Violation> {
    let Some(last) = contents.last() else {
        return Ok(());
    };
    if last.role != WireRole::User {
        return Err(violation(
            "the conversation ends with the model's turn: there is nothing to answer".into(),
            last.parts.iter().map(|p| p.node),
        ));
    }
    Ok(())
}

/// One content on its own and after the one before: parts present and not empty, roles
/// alternating, function results only after function calls.
fn check_turn(i: usize, content: &Content, previous: Option<&Content>) -> Result<(), Violation> {
    if content.parts.is_empty() {
        let origin = content.parts.iter().map(|p| p.node);
        return Err(violation(format!("content {} has no parts", i + 1), origin));
    }
    if let Some(empty) = content.parts.iter().find(|p| is_empty(p)) {
        return Err(violation(
            format!("{} has an empty part", describe(empty)),
            [empty.node],
        ));
    }
    if previous.is_some_and(|p| p.role == content.role) {
        return Err(violation(
            format!(
                "two {} turns follow each other (content {} and {})",
                content.role.as_str(),
                i,
                i + 1
            ),
            content.parts.iter().map(|p| p.node),
        ));
    }
    let answered = responses(content);
    if !answered.is_empty() && previous.is_none_or(|p| calls(p).is_empty()) {
        return Err(violation(
            format!(
                "{} holds function results ({}) that follow no function call",
                describe(answered[0].2),
                names(&answered)
            ),
            answered.iter().map(|r| r.2.node),
        ));
    }
    Ok(())
}

/// The function calls a content makes are answered by the next content: as many results,
/// in the same order, with the same names (and ids, where both have one).
fn check_calls_answered(
    i: usize,
    content: &Content,
    next: Option<&Content>,
) -> Result<(), Violation> {
    let made = calls(content);
    if made.is_empty() {
        return Ok(());
    }
    let Some(next) = next else {
        return Err(violation(
            format!(
                "{} calls {} but no function results follow it; submit them with \
                 `omnictl tool-result`",
                describe(made[0].2),
                names(&made)
            ),
            made.iter().map(|c| c.2.node),
        ));
    };
    let results = responses(next);
    if results.len() != made.len() {
        let answer = results
            .first()
            .map_or_else(|| format!("content {}", i + 2), |r| describe(r.2));
        let offending = made
            .iter()
            .map(|c| c.2.node)
            .chain(next.parts.iter().map(|p| p.node));
        return Err(violation(
            format!(
                "{} calls {} function{} ({}) but {} answers {} ({})",
                describe(made[0].2),
                made.len(),
                if made.len() == 1 { "" } else { "s" },
                names(&made),
                answer,
                results.len(),
                names(&results)
            ),
            offending,
        ));
    }
    made.iter().zip(&results).try_for_each(check_pair)
}

/// A call and the result in its place agree on the name (and the id, where both have one).
fn check_pair(
    ((call_name, call_id, call), (result_name, result_id, result)): (&Named<'_>, &Named<'_>),
) -> Result<(), Violation> {
    let ids_differ = matches!((call_id, result_id), (Some(a), Some(b)) if a != b);
    if call_name == result_name && !ids_differ {
        return Ok(());
    }
    let id = |id: &Option<&str>| id.map(|id| format!(" (id {id})")).unwrap_or_default();
    Err(violation(
        format!(
            "{} answers {}{} where {} called {}{}",
            describe(result),
            result_name,
            id(result_id),
            describe(call),
            call_name,
            id(call_id)
        ),
        [call.node, result.node],
    ))
}

#[cfg(test)]
mod tests;
