//! Head moves: undo, back, redo, checkout. Each is one append to the move log.

use crate::session::SessionError;
use crate::session::outcome::{HeadOp, MoveOutcome};

use super::{Actor, ActorHandle, Command, HeadMove, RedoEffect, Reply, Run};
use crate::model::MoveKind;
use crate::session::outcome::SessionEvent;
use crate::session::tree::{NodeId, ROOT, TreeError};
use crate::text::first_line;

impl Actor {
    pub(super) async fn apply_move(&mut self, op: HeadOp) -> Result<MoveOutcome, SessionError> {
        self.refuse_change()?;
        // The head stays on what failed until a way out is chosen, so the recovery choices
        // only ever take out what failed.
        self.refuse_if_needs_recovery()?;
        let from = self.tree.head();
        let head_move = match op {
            HeadOp::Undo => HeadMove {
                kind: MoveKind::Undo,
                to: self.tree.undo_target().map_err(SessionError::from)?,
                redoes: None,
                redo: RedoEffect::PushThis,
            },
            HeadOp::Back => HeadMove {
                kind: MoveKind::Back,
                to: self.tree.back_target().map_err(SessionError::from)?,
                redoes: None,
                redo: RedoEffect::PushThis,
            },
            HeadOp::Redo => self.redo_move().await?,
            HeadOp::Checkout(node) => {
                if !self.tree.contains(node) {
                    return Err(TreeError::UnknownNode(node).into());
                }
                HeadMove {
                    kind: MoveKind::Checkout,
                    to: node,
                    redoes: None,
                    redo: RedoEffect::Clear,
                }
            }
        };
        self.commit(None, Some(head_move))
            .await
            .map_err(|e| e.error("the move"))?;
        let to = self.tree.head();
        Ok(MoveOutcome {
            session: self.record.id,
            op,
            from,
            to,
            head_summary: self.describe(to).await,
        })
    }

    /// `redo` takes back the undo-type move on top of the redo stack.
    async fn redo_move(&mut self) -> Result<HeadMove, SessionError> {
        let nothing = || {
            SessionError::wrong_state(
                "nothing to redo: there was no undo or back since the last prompt or checkout",
            )
        };
        let undone = crate::session::redo::redoable(&self.ctx.store, &self.record)
            .await
            .map_err(SessionError::from)?
            .ok_or_else(nothing)?;
        let seq = self.record.redo_top.ok_or_else(nothing)?;
        Ok(HeadMove {
            kind: MoveKind::Redo,
            to: undone.from,
            redoes: Some(seq),
            redo: RedoEffect::PopTo(undone.prev_redoable),
        })
    }

    /// "node 3 (user): first line" — where the head is now.
    pub(super) async fn describe(&mut self, node: NodeId) -> String {
        if node == ROOT {
            return "the start of the conversation".to_string();
        }
        match self.ctx.store.node(&self.record.id, node).await {
            Ok(record) => format!(
                "node {node} ({}): {}",
                record.role.as_str(),
                first_line(&record.text(), 60)
            ),
            Err(_) => format!("node {node}"),
        }
    }
}

/// [`ActorHandle::apply_move`]'s command.
pub(super) struct MoveCommand {
    op: HeadOp,
    reply: Reply<MoveOutcome>,
}

impl ActorHandle {
    /// Moves the head (undo, redo, back, checkout).
    pub async fn apply_move(&self, op: HeadOp) -> Result<MoveOutcome, SessionError> {
        self.call(|reply| Command::Move(MoveCommand { op, reply }))
            .await
    }
}

impl Run for MoveCommand {
    async fn run(self, actor: &mut Actor) {
        let result = actor.apply_move(self.op).await;
        if let Ok(outcome) = &result {
            actor.announce(SessionEvent::Moved(outcome.clone()));
        }
        let _ = self.reply.send(result);
    }
}
