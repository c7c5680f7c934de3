//! Preflight validation: the history is checked against the API's rules before every
//! request, so a poisoned history never reaches the API. A violation names the offending
//! nodes.
//!
//! The rules: the conversation starts and ends with the user's turn; roles alternate after
//! merging; every content with function calls is immediately followed by one with the same
//! number of function responses, in the same order, with matching names (and ids when both
//! have one); no function responses without calls before them; no empty parts.
//!
//! The check reads each node's [`Shape`], what the rules look at and nothing more, so a
//! session can hold the shapes of its context and check it without its text.

use crate::model::{NodeRecord, Part, PartContent, Role};

use crate::provider::WireRole;
use crate::session::tree::NodeId;

/// What the rules look at in one part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartShape {
    /// A call, a result, or anything else.
    pub kind: PartKind,
    /// Nothing to send (empty text without a signature, a nameless call or result).
    pub empty: bool,
}

/// The kinds of part the rules tell apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartKind {
    /// A function call: its name and id.
    Call(String, Option<String>),
    /// A function result: its name and id.
    Response(String, Option<String>),
    /// Text, a thought, or a part of another kind.
    Other,
}

/// What the rules look at in one node: its number, role and parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The node.
    pub node: NodeId,
    /// Its role.
    pub role: Role,
    /// Its parts, in order.
    pub parts: Vec<PartShape>,
}

fn part_shape(part: &Part) -> PartShape {
    let no_signature = part.thought_signature.is_none();
    let (kind, empty) = match &part.content {
        PartContent::FunctionCall { name, id, .. } => {
            (PartKind::Call(name.clone(), id.clone()), name.is_empty())
        }
        PartContent::FunctionResponse { name, id, .. } => (
            PartKind::Response(name.clone(), id.clone()),
            name.is_empty(),
        ),
        PartContent::Text(text) | PartContent::Thought(text) => {
            (PartKind::Other, text.is_empty() && no_signature)
        }
        PartContent::Other { json } => (PartKind::Other, json.trim().is_empty()),
        // Never sent: the summary's text is.
        PartContent::Compaction { .. } => (PartKind::Other, false),
    };
    PartShape { kind, empty }
}

impl Shape {
    /// The shape of a node.
    pub fn of(node: &NodeRecord) -> Self {
        Self {
            node: node.id,
            role: node.role,
            parts: node.parts.iter().map(part_shape).collect(),
        }
    }
}

/// One part of a merged content and the node it came from.
#[derive(Clone, Copy)]
struct Sourced<'a> {
    node: NodeId,
    role: Role,
    part: &'a PartShape,
}

/// One content of the request: consecutive nodes of one wire role, merged.
struct Content<'a> {
    role: WireRole,
    nodes: &'a [Shape],
}

impl<'a> Content<'a> {
    /// Its parts, in order, with the node each came from.
    fn parts(&self) -> impl Iterator<Item = Sourced<'a>> + 'a {
        self.nodes.iter().flat_map(|shape| {
            shape.parts.iter().map(move |part| Sourced {
                node: shape.node,
                role: shape.role,
                part,
            })
        })
    }
}

/// Merges the context into contents, as the request merges them.
fn contents(shapes: &[Shape]) -> Vec<Content<'_>> {
    let mut contents = Vec::new();
    let mut start = 0;
    for end in 1..=shapes.len() {
        let role = WireRole::of(shapes[start].role);
        if end == shapes.len() || WireRole::of(shapes[end].role) != role {
            contents.push(Content {
                role,
                nodes: &shapes[start..end],
            });
            start = end;
        }
    }
    contents
}

/// Why a history may not be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Violation {
    /// What is wrong, naming the nodes.
    pub reason: String,
    /// The offending nodes.
    pub nodes: Vec<NodeId>,
}

fn describe(part: &Sourced<'_>) -> String {
    format!("node {} ({})", part.node, part.role.as_str())
}

fn violation(reason: String, nodes: impl IntoIterator<Item = NodeId>) -> Violation {
    let mut nodes: Vec<NodeId> = nodes.into_iter().collect();
    nodes.dedup();
    Violation { reason, nodes }
}

/// A function call or result: its name, its id if it has one, and where it is.
type Named<'a> = (&'a str, Option<&'a str>, Sourced<'a>);

fn calls<'a>(content: &Content<'a>) -> Vec<Named<'a>> {
    content
        .parts()
        .filter_map(|p| match &p.part.kind {
            PartKind::Call(name, id) => Some((name.as_str(), id.as_deref(), p)),
            _ => None,
        })
        .collect()
}

fn responses<'a>(content: &Content<'a>) -> Vec<Named<'a>> {
    content
        .parts()
        .filter_map(|p| match &p.part.kind {
            PartKind::Response(name, id) => Some((name.as_str(), id.as_deref(), p)),
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

fn is_empty(part: &Sourced<'_>) -> bool {
    part.part.empty
}

/// Checks a context, given as its nodes' shapes in order.
pub fn validate(shapes: &[Shape]) -> Result<(), Violation> {
    if shapes.is_empty() {
        return validate_contents(&[]);
    }
    validate_contents(&contents(shapes))
}

/// Checks a context whose first `checked` shapes are (a start of) a context that passed
/// [`validate`] before: only the contents at its end are checked again, so a send at turn
/// 10,000 checks what it adds, not the whole history. The answer, and its reason, are
/// those of [`validate`].
///
/// Why this is enough: merging depends only on neighbouring roles, so every content that
/// ends before the one holding shape `checked - 1` is the same as before, and so are the
/// rules on each of them but the last one's calls, which the next content answers.
pub fn validate_after(shapes: &[Shape], checked: usize) -> Result<(), Violation> {
    if checked == 0 || checked > shapes.len() {
        return validate(shapes);
    }
    let last_checked = run_start(shapes, checked - 1);
    let from = match last_checked.checked_sub(1) {
        Some(before) => run_start(shapes, before),
        None => 0,
    };
    if from == 0 {
        return validate(shapes);
    }
    // A violation names contents by their number in the whole request: the whole is
    // checked again to name it (only when there is one, so rarely).
    check_contents(&contents(&shapes[from..]), true).or_else(|_| validate(shapes))
}

/// Where the run of one wire role that holds shape `at` starts.
fn run_start(shapes: &[Shape], at: usize) -> usize {
    let role = WireRole::of(shapes[at].role);
    shapes[..at]
        .iter()
        .rposition(|shape| WireRole::of(shape.role) != role)
        .map_or(0, |before| before + 1)
}

/// Checks a context given as its nodes.
pub fn validate_nodes(nodes: &[NodeRecord]) -> Result<(), Violation> {
    let shapes: Vec<Shape> = nodes.iter().map(Shape::of).collect();
    validate(&shapes)
}

/// Checks the merged contents of a request.
fn validate_contents(contents: &[Content<'_>]) -> Result<(), Violation> {
    check_start(contents)?;
    check_contents(contents, false)
}

/// Checks contents; when `first_checked`, the first one was checked on its own and after
/// the one before already.
fn check_contents(contents: &[Content<'_>], first_checked: bool) -> Result<(), Violation> {
    for (i, content) in contents.iter().enumerate() {
        if !(first_checked && i == 0) {
            let previous = i.checked_sub(1).map(|p| &contents[p]);
            check_turn(i, content, previous)?;
        }
        check_calls_answered(i, content, contents.get(i + 1))?;
    }
    check_end(contents)
}

/// The conversation is not empty and starts with the user.
fn check_start(contents: &[Content<'_>]) -> Result<(), Violation> {
    let Some(first) = contents.first() else {
        return Err(violation(
            "the conversation is empty: there is nothing to send".into(),
            [],
        ));
    };
    if first.role != WireRole::User {
        let nodes = first.parts().map(|p| p.node);
        return Err(violation(
            "the conversation does not start with a user turn".into(),
            nodes,
        ));
    }
    Ok(())
}

/// The conversation ends with the user: there is something to answer.
fn check_end(contents: &[Content<'_>]) -> Result<(), Violation> {
    let Some(last) = contents.last() else {
        return Ok(());
    };
    if last.role != WireRole::User {
        return Err(violation(
            "the conversation ends with the model's turn: there is nothing to answer".into(),
            last.parts().map(|p| p.node),
        ));
    }
    Ok(())
}

/// One content on its own and after the one before: parts present and not empty, roles
/// alternating, function results only after function calls.
fn check_turn(
    i: usize,
    content: &Content<'_>,
    previous: Option<&Content<'_>>,
) -> Result<(), Violation> {
    if content.parts().next().is_none() {
        let origin = content.nodes.iter().map(|n| n.node);
        return Err(violation(format!("content {} has no parts", i + 1), origin));
    }
    if let Some(empty) = content.parts().find(is_empty) {
        return Err(violation(
            format!("{} has an empty part", describe(&empty)),
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
            content.parts().map(|p| p.node),
        ));
    }
    let answered = responses(content);
    if !answered.is_empty() && previous.is_none_or(|p| calls(p).is_empty()) {
        return Err(violation(
            format!(
                "{} holds function results ({}) that follow no function call",
                describe(&answered[0].2),
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
    content: &Content<'_>,
    next: Option<&Content<'_>>,
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
                describe(&made[0].2),
                names(&made)
            ),
            made.iter().map(|c| c.2.node),
        ));
    };
    let results = responses(next);
    if results.len() != made.len() {
        let answer = results
            .first()
            .map_or_else(|| format!("content {}", i + 2), |r| describe(&r.2));
        let offending = made
            .iter()
            .map(|c| c.2.node)
            .chain(next.parts().map(|p| p.node));
        return Err(violation(
            format!(
                "{} calls {} function{} ({}) but {} answers {} ({})",
                describe(&made[0].2),
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
