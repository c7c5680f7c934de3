//! Recording turns that happened elsewhere (a conversation through the
//! proxy, in any API it serves): each turn becomes a node under the one before, and the head follows, as if it
//! had been sent here. Nothing is sent to the model. Each turn's node goes with its entry
//! in the store's `chains` index, written after the session record, and the whole
//! recording is made durable by one commit at its end (one shared sync).

use crate::model::{ModelInfo, MoveKind, NodeRecord, Part, Role};
use crate::session::SessionError;
use crate::session::tree::NodeId;
use crate::time::now_ms;

use super::{Actor, HeadMove, RedoEffect, Write};
use crate::store::{ChainHash, Recorded};

/// A turn to record.
#[derive(Debug)]
pub struct RecordedTurn {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub parts: Vec<Part>,
    /// The hash of the conversation up to it.
    pub chain: ChainHash,
    /// For the answer the proxy relayed: the model, its usage, attempts and time.
    pub model: Option<ModelInfo>,
}

impl Actor {
    /// Appends `turns` under `parent`, each with the hash of the conversation up to it;
    /// returns their node numbers, in order, once all of them are durable.
    pub(super) async fn record_turns(
        &mut self,
        parent: NodeId,
        turns: Vec<RecordedTurn>,
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
        let last = turns.len();
        for (index, turn) in turns.into_iter().enumerate() {
            let RecordedTurn {
                role,
                parts,
                chain,
                model,
            } = turn;
            let id = self.tree.len() + 1;
            let node = NodeRecord {
                id,
                parent: under,
                role,
                parts,
                created_at_ms: now_ms(),
                model,
            };
            let kind = match role {
                Role::User | Role::Summary => MoveKind::Prompt,
                Role::Model => MoveKind::Answer,
                Role::Tool => MoveKind::ToolResults,
            };
            let to_head = HeadMove {
                kind,
                to: id,
                redoes: None,
                redo: RedoEffect::Clear,
            };
            let how = Write {
                recorded: Some(Recorded::Chain(chain)),
                durable: index + 1 == last,
                activity: true,
            };
            self.write(Some(node), Some(to_head), |_| {}, how)
                .await
                .map_err(|e| e.error("a recorded turn"))?;
            recorded.push(id);
            under = id;
        }
        Ok(recorded)
    }
}
