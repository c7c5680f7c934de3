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
fn calls(content: &Content) -> Vec<(&str, Option<&str>, &SourcedPart)> {
    content
        .parts
        .iter()
        .filter_map(|p| match &p.part.content {
            PartContent::FunctionCall { name, id, .. } => Some((name.as_str(), id.as_deref(), p)),
            _ => None,
        })
        .collect()
}

fn responses(content: &Content) -> Vec<(&str, Option<&str>, &SourcedPart)> {
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

fn names(items: &[(&str, Option<&str>, &SourcedPart)]) -> String {
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
    for (i, content) in contents.iter().enumerate() {
        let origin: Vec<NodeId> = content.parts.iter().map(|p| p.node).collect();
        if content.parts.is_empty() {
            return Err(violation(format!("content {} has no parts", i + 1), origin));
        }
        if let Some(empty) = content.parts.iter().find(|p| is_empty(p)) {
            return Err(violation(
                format!("{} has an empty part", describe(empty)),
                [empty.node],
            ));
        }
        if i > 0 && contents[i - 1].role == content.role {
            return Err(violation(
                format!(
                    "two {} turns follow each other (content {} and {})",
                    content.role.as_str(),
                    i,
                    i + 1
                ),
                origin,
            ));
        }
        let answered = responses(content);
        let previous_calls = if i > 0 {
            calls(&contents[i - 1])
        } else {
            Vec::new()
        };
        if !answered.is_empty() && previous_calls.is_empty() {
            return Err(violation(
                format!(
                    "{} holds function results ({}) that follow no function call",
                    describe(answered[0].2),
                    names(&answered)
                ),
                answered.iter().map(|r| r.2.node),
            ));
        }
        let made = calls(content);
        if made.is_empty() {
            continue;
        }
        let Some(next) = contents.get(i + 1) else {
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
        let offending = || {
            made.iter()
                .map(|c| c.2.node)
                .chain(next.parts.iter().map(|p| p.node))
        };
        if results.len() != made.len() {
            let answer = results
                .first()
                .map_or_else(|| format!("content {}", i + 2), |r| describe(r.2));
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
                offending(),
            ));
        }
        for ((call_name, call_id, call), (result_name, result_id, result)) in
            made.iter().zip(&results)
        {
            let ids_differ = matches!((call_id, result_id), (Some(a), Some(b)) if a != b);
            if call_name != result_name || ids_differ {
                return Err(violation(
                    format!(
                        "{} answers {}{} where {} called {}{}",
                        describe(result),
                        result_name,
                        result_id
                            .map(|id| format!(" (id {id})"))
                            .unwrap_or_default(),
                        describe(call),
                        call_name,
                        call_id.map(|id| format!(" (id {id})")).unwrap_or_default()
                    ),
                    [call.node, result.node],
                ));
            }
        }
    }
    let last = contents.last().map(|c| c.role);
    if last != Some(WireRole::User) {
        let nodes = contents
            .last()
            .into_iter()
            .flat_map(|c| c.parts.iter().map(|p| p.node));
        return Err(violation(
            "the conversation ends with the model's turn: there is nothing to answer".into(),
            nodes,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeRecord;
    use crate::model::{Part, Role};
    use crate::provider::contents;

    fn node(id: u64, role: Role, parts: Vec<PartContent>) -> NodeRecord {
        NodeRecord {
            id,
            parent: id - 1,
            role,
            parts: parts
                .into_iter()
                .map(|content| Part {
                    content,
                    thought_signature: None,
                })
                .collect(),
            created_at_ms: 0,
            model: None,
        }
    }

    fn text(t: &str) -> PartContent {
        PartContent::Text(t.into())
    }

    fn call(name: &str, id: Option<&str>) -> PartContent {
        PartContent::FunctionCall {
            id: id.map(str::to_string),
            name: name.into(),
            args_json: "{}".into(),
        }
    }

    fn result(name: &str, id: Option<&str>) -> PartContent {
        PartContent::FunctionResponse {
            id: id.map(str::to_string),
            name: name.into(),
            response_json: "{}".into(),
        }
    }

    fn check(nodes: &[NodeRecord]) -> Result<(), Violation> {
        validate(&contents(nodes))
    }

    #[test]
    fn a_valid_tool_loop_passes() {
        let history = [
            node(1, Role::User, vec![text("weather and time?")]),
            node(
                2,
                Role::Model,
                vec![call("weather", Some("a")), call("time", Some("b"))],
            ),
            node(
                3,
                Role::Tool,
                vec![result("weather", Some("a")), result("time", Some("b"))],
            ),
        ];
        assert_eq!(check(&history), Ok(()));
    }

    #[test]
    fn fewer_results_than_calls_names_both_nodes() {
        let history = [
            node(1, Role::User, vec![text("q")]),
            node(
                2,
                Role::Model,
                vec![call("weather", None), call("time", None)],
            ),
            node(3, Role::Tool, vec![result("weather", None)]),
        ];
        let v = check(&history).unwrap_err();
        assert_eq!(
            v.reason,
            "node 2 (model) calls 2 functions (weather, time) but node 3 (tool) answers 1 (weather)"
        );
        assert_eq!(v.nodes, [2, 3]);
    }

    #[test]
    fn names_and_ids_must_match_in_order() {
        let swapped = [
            node(1, Role::User, vec![text("q")]),
            node(
                2,
                Role::Model,
                vec![call("weather", None), call("time", None)],
            ),
            node(
                3,
                Role::Tool,
                vec![result("time", None), result("weather", None)],
            ),
        ];
        assert!(
            check(&swapped)
                .unwrap_err()
                .reason
                .contains("answers time where node 2 (model) called weather")
        );
        let wrong_id = [
            node(1, Role::User, vec![text("q")]),
            node(2, Role::Model, vec![call("weather", Some("a"))]),
            node(3, Role::Tool, vec![result("weather", Some("z"))]),
        ];
        assert!(check(&wrong_id).unwrap_err().reason.contains("(id z)"));
    }

    #[test]
    fn calls_without_results_and_results_without_calls_are_refused() {
        let unanswered = [
            node(1, Role::User, vec![text("q")]),
            node(2, Role::Model, vec![call("weather", None)]),
            node(3, Role::User, vec![text("never mind")]),
        ];
        let v = check(&unanswered).unwrap_err();
        assert!(
            v.reason
                .contains("calls 1 function (weather) but content 3 answers 0"),
            "{}",
            v.reason
        );
        let orphan = [
            node(1, Role::User, vec![text("q")]),
            node(2, Role::Model, vec![text("a")]),
            node(3, Role::Tool, vec![result("weather", None)]),
        ];
        assert!(
            check(&orphan)
                .unwrap_err()
                .reason
                .contains("follow no function call")
        );
        let pending = [
            node(1, Role::User, vec![text("q")]),
            node(2, Role::Model, vec![call("weather", None)]),
        ];
        assert!(
            check(&pending)
                .unwrap_err()
                .reason
                .contains("no function results follow")
        );
    }

    #[test]
    fn empty_parts_and_wrong_ends_are_refused() {
        let empty = [node(1, Role::User, vec![text("")])];
        assert_eq!(
            check(&empty).unwrap_err().reason,
            "node 1 (user) has an empty part"
        );
        let ends_with_model = [
            node(1, Role::User, vec![text("q")]),
            node(2, Role::Model, vec![text("a")]),
        ];
        assert!(
            check(&ends_with_model)
                .unwrap_err()
                .reason
                .contains("ends with the model's turn")
        );
        let starts_with_model = [node(1, Role::Model, vec![text("a")])];
        assert!(
            check(&starts_with_model)
                .unwrap_err()
                .reason
                .contains("does not start with a user turn")
        );
        assert!(check(&[]).is_err());
    }

    #[test]
    fn an_empty_text_part_carrying_a_signature_is_fine() {
        let mut answer = node(2, Role::Model, vec![text("a"), text("")]);
        answer.parts[1].thought_signature = Some("sig".into());
        let history = [
            node(1, Role::User, vec![text("q")]),
            answer,
            node(3, Role::User, vec![text("q2")]),
        ];
        assert_eq!(check(&history), Ok(()));
    }
}
