//! Recording turns that happened elsewhere (a conversation through the Gemini-compatible
//! proxy): each turn becomes a node under the one before, and the head follows, as if it
//! had been sent here. Nothing is sent to the model.

use crate::model::{MoveKind, NodeRecord, Part, Role};
use crate::session::SessionError;
use crate::session::tree::NodeId;
use crate::time::now_ms;

use super::{Actor, HeadMove, RedoEffect};

impl Actor {
    /// Appends `turns` under `parent`; returns their node numbers, in order.
    pub(super) async fn record_turns(
        &mut self,
        parent: NodeId,
        turns: Vec<(Role, Vec<Part>)>,
    ) -> Result<Vec<NodeId>, SessionError> {
        self.refuse_if_busy()?;
        if !self.tree.contains(parent) {
            return Err(SessionError::wrong_state(format!(
                "session {} has no node {parent} to record under",
                self.record.id
            )));
        }
        let mut recorded = Vec::with_capacity(turns.len());
        let mut under = parent;
        for (role, parts) in turns {
            let id = self.tree.len() + 1;
            let node = NodeRecord {
                id,
                parent: under,
                role,
                parts,
                created_at_ms: now_ms(),
                model: None,
            };
            let kind = match role {
                Role::User => MoveKind::Prompt,
                Role::Model => MoveKind::Answer,
                Role::Tool => MoveKind::ToolResults,
            };
            let to_head = HeadMove {
                kind,
                to: id,
                redoes: None,
                redo: RedoEffect::Clear,
            };
            self.commit(Some(node), Some(to_head))
                .await
                .map_err(|e| e.error("a recorded turn"))?;
            recorded.push(id);
            under = id;
        }
        Ok(recorded)
    }
}
