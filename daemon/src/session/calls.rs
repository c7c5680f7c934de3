//! The function calls waiting at a session's head, derived from the tree and the results
//! collected so far. Pure, shared by the actor (which accepts results) and the read-side
//! views (which show what is pending).

use super::outcome::PendingCall;
use crate::model::{PartContent, Role};

use super::tree::NodeId;
use crate::model::{NodeRecord, SessionRecord};

/// One function call of a model node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The call's id, when the model gave one.
    pub id: Option<String>,
    /// The function's name.
    pub name: String,
    /// Its arguments as JSON text.
    pub args_json: String,
}

impl Call {
    /// As shown to clients.
    pub fn pending(self, answered: bool) -> PendingCall {
        PendingCall {
            id: self.id,
            name: self.name,
            args_json: self.args_json,
            answered,
        }
    }

    /// `name` or `name (id ...)`, for messages.
    pub fn label(&self) -> String {
        match &self.id {
            Some(id) => format!("{} (id {id})", self.name),
            None => self.name.clone(),
        }
    }
}

/// The function calls of a node, in order.
pub fn calls_of(node: &NodeRecord) -> Vec<Call> {
    node.parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::FunctionCall {
                id,
                name,
                args_json,
            } => Some(Call {
                id: id.clone(),
                name: name.clone(),
                args_json: args_json.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Function calls at the head that wait for results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// The model node that made them (the head).
    pub node: NodeId,
    /// The calls, in order.
    pub calls: Vec<Call>,
    /// For each call, whether its result was submitted.
    pub answered: Vec<bool>,
}

impl Waiting {
    /// As shown to clients.
    pub fn pending(self) -> Vec<PendingCall> {
        self.calls
            .into_iter()
            .zip(self.answered)
            .map(|(call, answered)| call.pending(answered))
            .collect()
    }

    /// The labels of the calls still without a result.
    pub fn unanswered(&self) -> Vec<String> {
        self.calls
            .iter()
            .zip(&self.answered)
            .filter(|(_, done)| !**done)
            .map(|(call, _)| call.label())
            .collect()
    }
}

/// The calls at the head, if the head is a model node that made any.
pub fn waiting_at_head(record: &SessionRecord, head: Option<&NodeRecord>) -> Option<Waiting> {
    let head = head.filter(|n| n.id == record.head && n.role == Role::Model)?;
    let calls = calls_of(head);
    if calls.is_empty() {
        return None;
    }
    let mut answered = vec![false; calls.len()];
    if let Some(results) = record.tool_results.as_ref().filter(|r| r.node == head.id) {
        for (index, _) in &results.results {
            if let Some(slot) = answered.get_mut(*index as usize) {
                *slot = true;
            }
        }
    }
    Some(Waiting {
        node: head.id,
        calls,
        answered,
    })
}

/// The calls waiting at the head, as shown to clients.
pub fn pending_calls(record: &SessionRecord, head: Option<&NodeRecord>) -> Vec<PendingCall> {
    waiting_at_head(record, head)
        .map(Waiting::pending)
        .unwrap_or_default()
}
