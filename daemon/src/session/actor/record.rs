//! Recording turns that happened elsewhere (a conversation through the proxy, in any API
//! it serves): each turn becomes a node under the one before, and the head follows, as if
//! it had been sent here. Nothing is sent to the model. Each turn's node goes with its
//! entry in the store's `chains` index, written after the session record.
//!
//! A conversation that continues a session is recorded by the session's actor, every
//! turn applied and the last one's commit making them all durable (one shared sync). A
//! new conversation is a new session written whole ([`whole`]), with no actor at all.

use crate::model::{ModelInfo, MoveKind, MoveRecord, NodeRecord, Part, Role, SessionRecord};
use crate::session::SessionError;
use crate::session::tree::NodeId;
use crate::time::now_ms;

use super::commit::next_record;
use super::{Actor, ActorHandle, Command, HeadMove, RedoEffect, Reply, Run, Write};
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

impl RecordedTurn {
    /// The turn as node `id` under `parent`, the head move to it, and its chain hash.
    fn into_node(self, id: NodeId, parent: NodeId) -> (NodeRecord, HeadMove, ChainHash) {
        let kind = match self.role {
            Role::User | Role::Summary => MoveKind::Prompt,
            Role::Model => MoveKind::Answer,
            Role::Tool => MoveKind::ToolResults,
        };
        let node = NodeRecord {
            id,
            parent,
            role: self.role,
            parts: self.parts,
            created_at_ms: now_ms(),
            model: self.model,
        };
        let to_head = HeadMove {
            kind,
            to: id,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        (node, to_head, self.chain)
    }
}

/// A new session of recorded turns, whole: its record after them, its nodes and moves, and
/// each node's chain hash.
pub struct Whole {
    /// The record after the last turn.
    pub record: SessionRecord,
    /// One node per turn, numbered from 1.
    pub nodes: Vec<NodeRecord>,
    /// The head's move to each node.
    pub moves: Vec<MoveRecord>,
    /// Each node's chain hash, for the `chains` index.
    pub chains: Vec<(ChainHash, NodeId)>,
}

/// `turns` recorded one after the other in the new session `record`, as the actor would
/// record them: the same nodes, moves and record.
pub fn whole(mut record: SessionRecord, turns: Vec<RecordedTurn>) -> Whole {
    let (mut nodes, mut moves) = (Vec::new(), Vec::new());
    let mut chains = Vec::with_capacity(turns.len());
    for turn in turns {
        let id = record.nodes + 1;
        let (node, to_head, chain) = turn.into_node(id, record.head);
        let (next, mv) = next_record(&record, Some(&node), Some(to_head), |_| {});
        record = next;
        moves.extend(mv);
        chains.push((chain, id));
        nodes.push(node);
    }
    Whole {
        record,
        nodes,
        moves,
        chains,
    }
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
            let id = self.tree.len() + 1;
            let (node, to_head, chain) = turn.into_node(id, under);
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

/// [`ActorHandle::record`]'s command.
pub(super) struct RecordCommand {
    parent: NodeId,
    turns: Vec<RecordedTurn>,
    reply: Reply<Vec<NodeId>>,
}

impl ActorHandle {
    /// Records turns that happened elsewhere under `parent`, each with its conversation's
    /// chain hash; returns their nodes once they are durable.
    pub async fn record(
        &self,
        parent: NodeId,
        turns: Vec<RecordedTurn>,
    ) -> Result<Vec<NodeId>, SessionError> {
        self.call(|reply| {
            Command::Record(RecordCommand {
                parent,
                turns,
                reply,
            })
        })
        .await
    }
}

impl Run for RecordCommand {
    async fn run(self, actor: &mut Actor) {
        let _ = self
            .reply
            .send(actor.record_turns(self.parent, self.turns).await);
    }
}
