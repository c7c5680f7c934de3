//! *Needs recovery*: after a 400 or a preflight violation the session stops and asks. Sends
//! are refused until the user picks a way out; each way is a move in the tree, so nothing
//! is deleted and `redo` can take a rollback back.

use crate::session::SessionError;
use crate::session::outcome::{Recovered, RecoveryChoice, SessionEvent};
use tokio::sync::mpsc;

use super::compact::{DEFAULT_KEEP, Then, Why};
use super::requester::done_with;
use super::{Actor, ActorHandle, Command, HeadMove, RecoverOutcome, RedoEffect, Reply, Run};
use crate::diag::{Cause, Report};
use crate::model::{MoveKind, Recovery};
use crate::services::Live;
use crate::session::tree::NodeId;
use crate::text::then;
use crate::time::now_ms;

/// A request refused before it was sent.
pub(super) struct Unsent {
    /// The turn it would have answered.
    pub turn: NodeId,
    /// Why it was refused.
    pub cause: Cause,
    /// What the user is told.
    pub message: String,
    /// Where it would have gone, and its headers.
    pub request: (String, Vec<(String, String)>),
    /// Its body.
    pub body: String,
}

impl Actor {
    /// Refuses a send while a recovery choice is pending.
    pub(super) fn refuse_if_needs_recovery(&self) -> Result<(), SessionError> {
        match &self.record.needs_recovery {
            Some(recovery) => Err(SessionError::NeedsRecovery {
                session: self.record.id,
                reason: recovery.reason.clone(),
            }),
            None => Ok(()),
        }
    }

    /// A request refused before it was sent (preflight, or over the window): recorded as
    /// it would have gone out, then the session needs recovery.
    pub(super) async fn refuse_unsent(
        &mut self,
        unsent: Unsent,
        rollback_to: Option<NodeId>,
        live: &Live,
    ) -> SessionError {
        let Unsent {
            turn,
            cause,
            message,
            request: (request_url, request_headers),
            body,
        } = unsent;
        let report = Report {
            session: Some(self.record.id),
            node: turn,
            attempt: 0,
            max_attempts: live.config.retry.max_attempts,
            cause,
            message,
            response: None,
            request_url,
            request_headers,
            request_body: body,
            timeline: Vec::new(),
        };
        let reason = report.message.clone();
        tracing::warn!(session = %self.record.id, turn, "{reason}");
        let error_id = self.ctx.diag.record(report, &live.diag).await;
        self.enter_recovery(&reason, error_id, rollback_to).await
    }

    /// Puts the session into *needs recovery* (durably) and returns the error with the
    /// options. The diagnostic record was written before this is called. `rollback_to`
    /// overrides where deep rollback goes (see [`Recovery::rollback_to`]).
    pub(super) async fn enter_recovery(
        &mut self,
        reason: &str,
        error_id: Option<String>,
        rollback_to: Option<NodeId>,
    ) -> SessionError {
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
            let also = error.error("the recovery state").to_string();
            return SessionError::Storage(then(reason, &format!("Also: {also}")));
        }
        tracing::warn!(session = %self.record.id, "session needs recovery: {reason}");
        SessionError::NeedsRecovery {
            session: self.record.id,
            reason: reason.to_string(),
        }
    }

    /// Applies a recovery choice.
    pub(super) async fn recover(
        &mut self,
        action: RecoveryChoice,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply_to: Reply<RecoverOutcome>,
    ) {
        if action == RecoveryChoice::Compact {
            return self.recover_by_compacting(events, reply_to).await;
        }
        let moved = self.recovery_move(action).await;
        if let Ok(recovered) = &moved {
            self.announce(SessionEvent::Recovered(recovered.clone()));
        }
        match (action, moved) {
            (_, Err(error)) => {
                let _ = reply_to.send(Err(error));
            }
            (RecoveryChoice::Retry, Ok(_)) => {
                let turn = self.tree.head();
                let done = done_with(reply_to, |answer| {
                    RecoverOutcome::Answered(Box::new(answer))
                });
                let events = self.events(Some(events));
                // The user chose to send as it is: the API has the last word on its size.
                self.answer_unchecked(turn, events, done).await;
            }
            (
                RecoveryChoice::Deep
                | RecoveryChoice::Clear
                | RecoveryChoice::Ignore
                | RecoveryChoice::Compact,
                Ok(recovered),
            ) => {
                let _ = reply_to.send(Ok(RecoverOutcome::Moved(recovered)));
            }
        }
    }

    /// Compacts (the state ends with the summary's commit), then answers the turn waiting
    /// at the head. A compaction that fails leaves the session needing recovery.
    async fn recover_by_compacting(
        &mut self,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply_to: Reply<RecoverOutcome>,
    ) {
        let done = done_with(reply_to, |answer| {
            RecoverOutcome::Answered(Box::new(answer))
        });
        let then_answer = |events| Then::Answer { done, events };
        let events = self.events(Some(events));
        if let Err(error) = self.refuse_compaction(true).await {
            return then_answer(events).fail(error);
        }
        if self.record.needs_recovery.is_none() {
            let error = SessionError::wrong_state(format!(
                "session {} does not need recovery; `omnictl compact` compacts it",
                self.record.id
            ));
            return then_answer(events).fail(error);
        }
        let then = then_answer(events.clone());
        self.start_compaction(DEFAULT_KEEP, None, Why::Recovery, events, then)
            .await;
    }

    /// Records the choice as a move (clearing the state in the same transaction).
    async fn recovery_move(&mut self, action: RecoveryChoice) -> Result<Recovered, SessionError> {
        self.refuse_change()?;
        let Some(recovery) = &self.record.needs_recovery else {
            return Err(SessionError::wrong_state(format!(
                "session {} does not need recovery; nothing to do",
                self.record.id
            )));
        };
        let deep_target = self.tree.deep_rollback_target(recovery.rollback_to);
        let from = self.tree.head();
        let (kind, to, redo) = match action {
            RecoveryChoice::Deep => (
                MoveKind::DeepRollback,
                deep_target.map_err(SessionError::from)?,
                RedoEffect::PushThis,
            ),
            RecoveryChoice::Clear => (
                MoveKind::ClearTurn,
                self.tree.clear_target().map_err(SessionError::from)?,
                RedoEffect::PushThis,
            ),
            RecoveryChoice::Ignore => (MoveKind::Ignore, from, RedoEffect::Keep),
            RecoveryChoice::Retry => (MoveKind::Retry, from, RedoEffect::Keep),
            RecoveryChoice::Compact => {
                return Err(SessionError::Internal(
                    "compaction is not a plain move".into(),
                ));
            }
        };
        let head_move = HeadMove {
            kind,
            to,
            redoes: None,
            redo,
        };
        self.commit_with(None, Some(head_move), |r| r.needs_recovery = None)
            .await
            .map_err(|e| e.error("the recovery choice"))?;
        tracing::info!(session = %self.record.id, ?action, from, to, "recovered");
        Ok(Recovered {
            session: self.record.id,
            choice: action,
            from,
            to,
            head_summary: self.describe(to).await,
        })
    }
}

/// [`ActorHandle::recover`]'s command.
pub(super) struct RecoverCommand {
    action: RecoveryChoice,
    events: mpsc::UnboundedSender<SessionEvent>,
    reply: Reply<RecoverOutcome>,
}

impl ActorHandle {
    /// Applies a recovery choice; `--retry` streams its answer to `events`.
    pub async fn recover(
        &self,
        action: RecoveryChoice,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<RecoverOutcome, SessionError> {
        self.call(|reply| {
            Command::Recover(RecoverCommand {
                action,
                events,
                reply,
            })
        })
        .await
    }
}

impl Run for RecoverCommand {
    async fn run(self, actor: &mut Actor) {
        actor.recover(self.action, self.events, self.reply).await
    }
}
