//! *Needs recovery*: after a 400 or a preflight violation the session stops and asks. Sends
//! are refused until the user picks a way out; each way is a move in the tree, so nothing
//! is deleted and `redo` can take a rollback back.

use omni_proto::{ErrorKind, ErrorReply, Event, Recovered, RecoveryAction};
use tokio::sync::mpsc;

use super::send::done_with;
use super::{Actor, HeadMove, RecoverOutcome, RedoEffect, Reply};
use crate::errors::{reply, then, tree_error};
use crate::session::record::{MoveKind, Recovery};
use crate::session::tree::NodeId;
use crate::time::now_ms;

/// The options, as every refusal and the failed send itself print them.
fn options(id: &uuid::Uuid, reason: &str) -> String {
    let mut text =
        format!("session {id} needs recovery: {reason}\nChoose one with `omnictl recover`:\n");
    for action in RecoveryAction::ALL {
        text.push_str(&format!(
            "  {:<9} {}\n",
            action.flag(),
            action.explanation()
        ));
    }
    text.push_str(
        "or write the diagnostic bundle with `omnictl logs export` (the state stays). \
         Nothing is deleted: `omnictl redo` takes a rollback back.",
    );
    text
}

impl Actor {
    /// Refuses a send while a recovery choice is pending.
    pub(super) fn refuse_if_needs_recovery(&self) -> Result<(), ErrorReply> {
        match &self.record.needs_recovery {
            Some(recovery) => Err(reply(
                ErrorKind::NeedsRecovery,
                options(&self.record.id, &recovery.reason),
            )),
            None => Ok(()),
        }
    }

    /// Puts the session into *needs recovery* (durably) and returns the error with the
    /// options. The diagnostic record was written before this is called. `rollback_to`
    /// overrides where deep rollback goes (see [`Recovery::rollback_to`]).
    pub(super) async fn enter_recovery(
        &mut self,
        reason: &str,
        error_id: Option<String>,
        rollback_to: Option<NodeId>,
    ) -> ErrorReply {
        let recovery = Recovery {
            reason: reason.to_string(),
            error_id,
            at_ms: now_ms(),
            rollback_to,
        };
        if let Err(error) = self
            .commit_with(None, None, |r| r.needs_recovery = Some(recovery))
            .await
        {
            let also = error.reply("the recovery state").message;
            return reply(ErrorKind::Storage, then(reason, &format!("Also: {also}")));
        }
        tracing::warn!(session = %self.record.id, "session needs recovery: {reason}");
        reply(ErrorKind::NeedsRecovery, options(&self.record.id, reason))
    }

    /// Applies a recovery choice.
    pub(super) async fn recover(
        &mut self,
        action: RecoveryAction,
        events: mpsc::UnboundedSender<Event>,
        reply_to: Reply<RecoverOutcome>,
    ) {
        let moved = self.recovery_move(action).await;
        match (action, moved) {
            (_, Err(error)) => {
                let _ = reply_to.send(Err(error));
            }
            (RecoveryAction::Retry, Ok(_)) => {
                let turn = self.tree.head();
                let done = done_with(reply_to, RecoverOutcome::Answered);
                self.start_answering(turn, events, done).await;
            }
            (
                RecoveryAction::Deep | RecoveryAction::Clear | RecoveryAction::Ignore,
                Ok(recovered),
            ) => {
                let _ = reply_to.send(Ok(RecoverOutcome::Moved(recovered)));
            }
        }
    }

    /// Records the choice as a move (clearing the state in the same transaction).
    async fn recovery_move(&mut self, action: RecoveryAction) -> Result<Recovered, ErrorReply> {
        self.refuse_if_busy()?;
        let Some(recovery) = &self.record.needs_recovery else {
            return Err(reply(
                ErrorKind::WrongState,
                format!(
                    "session {} does not need recovery; nothing to do",
                    self.record.id
                ),
            ));
        };
        let deep_target = match recovery.rollback_to {
            Some(node) if self.tree.contains(node) => Ok(node),
            _ => self.tree.back_target(),
        };
        let from = self.tree.head();
        let (kind, to, redo) = match action {
            RecoveryAction::Deep => (
                MoveKind::DeepRollback,
                deep_target.map_err(tree_error)?,
                RedoEffect::PushThis,
            ),
            RecoveryAction::Clear => (
                MoveKind::ClearTurn,
                self.tree.clear_target().map_err(tree_error)?,
                RedoEffect::PushThis,
            ),
            RecoveryAction::Ignore => (MoveKind::Ignore, from, RedoEffect::Keep),
            RecoveryAction::Retry => (MoveKind::Retry, from, RedoEffect::Keep),
        };
        let head_move = HeadMove {
            kind,
            to,
            redoes: None,
            redo,
        };
        self.commit_with(None, Some(head_move), |r| r.needs_recovery = None)
            .await
            .map_err(|e| e.reply("the recovery choice"))?;
        tracing::info!(session = %self.record.id, ?action, from, to, "recovered");
        Ok(Recovered {
            session: self.record.id.to_string(),
            action,
            from,
            to,
            head_summary: self.describe(to),
        })
    }
}
