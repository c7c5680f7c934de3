//! Committing a change: the node, the head move and the session record as one ordered
//! change, durable before anyone hears of it, and memory updated only once the store
//! has it. When the store fails, the actor finds out whether the change was kept after
//! all, so the client is told exactly what happened.

use crate::model::Role;

use super::Actor;
use crate::model::{MoveKind, MoveRecord, NodeRecord, SessionRecord};
use crate::session::SessionError;
use crate::session::tree::NodeId;
use crate::store::{Change, Recorded, StoreError};
use crate::text::title_of;
use crate::time::now_ms;

/// What a head move does to the redo stack.
pub(super) enum RedoEffect {
    /// A new prompt or a checkout: nothing to redo any more.
    Clear,
    /// An undo-type move: it becomes the next thing to redo.
    PushThis,
    /// A redo: the next candidate is the one below the move it took back.
    PopTo(Option<u64>),
    /// An answer: the stack is already empty (the prompt cleared it).
    Keep,
}

pub(super) struct HeadMove {
    pub kind: MoveKind,
    pub to: NodeId,
    pub redoes: Option<u64>,
    pub redo: RedoEffect,
}

/// How a change is written.
pub(super) struct Write {
    /// The proxy's index entry that comes with it.
    pub recorded: Option<Recorded>,
    /// Wait until it is durable (else the next durable commit makes it so, together with
    /// everything applied before).
    pub durable: bool,
    /// It is activity in the conversation: it moves the session's last activity and makes
    /// it the current session (a rename or an archiving does neither).
    pub activity: bool,
}

/// Whether a change that failed may have been kept anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kept {
    /// It was not: nothing changed.
    No,
    /// The store failed after the change was applied and cannot say yet.
    Unknown,
}

/// A change the store did not save.
#[derive(Debug)]
pub(super) struct NotSaved {
    pub error: StoreError,
    pub kept: Kept,
}

impl NotSaved {
    /// What the client hears, naming what was not saved ("the prompt", "the move").
    pub fn error(&self, what: &str) -> SessionError {
        if let StoreError::HeldElsewhere { .. } = &self.error {
            return SessionError::BusyElsewhere(self.error.to_string());
        }
        let message = match (&self.error, self.kept) {
            (StoreError::DiskFull { .. }, _) => format!(
                "disk full: {what} was not saved ({}). Free some space, then try again",
                self.error.to_string().trim_start_matches("disk full: ")
            ),
            (error, Kept::No) if error.is_disk_full() => {
                format!("disk full: {what} was not saved. Free some space, then try again")
            }
            (error, Kept::No) => format!("{what} was not saved: {error}"),
            (error, Kept::Unknown) => format!(
                "{what} may not have been saved: {error}. `omnictl history` shows what was \
                 kept once the store is back"
            ),
        };
        SessionError::Storage(message)
    }
}

impl Actor {
    /// Writes a node and/or a head move with the updated session record in one
    /// transaction, and returns once it is durable; memory follows the store.
    pub(super) async fn commit(
        &mut self,
        node: Option<NodeRecord>,
        head_move: Option<HeadMove>,
    ) -> Result<(), NotSaved> {
        self.commit_with(node, head_move, |_| {}).await
    }

    /// [`Actor::commit`], also applying `update` to the session record in the same
    /// transaction.
    pub(super) async fn commit_with(
        &mut self,
        node: Option<NodeRecord>,
        head_move: Option<HeadMove>,
        update: impl FnOnce(&mut SessionRecord),
    ) -> Result<(), NotSaved> {
        let durably = Write {
            recorded: None,
            durable: true,
            activity: true,
        };
        self.write(node, head_move, update, durably).await
    }

    /// Writes a change as `how` says; memory follows the store.
    pub(super) async fn write(
        &mut self,
        node: Option<NodeRecord>,
        head_move: Option<HeadMove>,
        update: impl FnOnce(&mut SessionRecord),
        how: Write,
    ) -> Result<(), NotSaved> {
        let (mut record, mv) = next_record(&self.record, node.as_ref(), head_move, update);
        if !how.activity {
            record.updated_at_ms = self.record.updated_at_ms;
        }
        let change = Change {
            session: &record,
            node: node.as_ref(),
            mv: mv.as_ref(),
            recorded: how.recorded,
            fence: self.lease.as_ref().map(crate::store::Lease::fence),
        };
        let written = if how.durable {
            self.ctx.store.commit(&change).await
        } else {
            self.ctx.store.apply(&change).await
        };
        if let Err(error) = written {
            let outcome = self.kept_anyway(&record, error).await;
            if outcome.as_ref().is_err_and(|e| e.kept == Kept::Unknown) {
                tracing::warn!(session = %record.id, "the store may or may not hold the last change; the session will be loaded again");
                self.retired = true;
            }
            outcome?;
        }
        // Memory follows the store.
        if let Some(node) = &node {
            let pushed = match node.role {
                Role::Summary => self.tree.push_summary(node.parent, node.resumes_at()),
                Role::User | Role::Model | Role::Tool => self.tree.push(node.parent, node.role),
            };
            debug_assert_eq!(pushed, Ok(node.id));
        }
        if let Some(mv) = &mv {
            let moved = self.tree.set_head(mv.to);
            debug_assert!(moved.is_ok());
        }
        if let Some(info) = node.as_ref().and_then(|node| node.model.as_ref()) {
            self.ctx.usage_today.count(info, now_ms());
        }
        self.record = record;
        if let Some(held) = self
            .holds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            *held = self.record.clone();
        }
        if self.client_made && how.activity {
            self.ctx.current.set(self.record.id);
        }
        Ok(())
    }

    /// After a failed commit: whether the change is in the store after all (a sync that
    /// failed after the change was applied; the store has opened itself again). If it is
    /// and can now be made durable, the commit succeeded; otherwise the error says whether
    /// anything may have been kept.
    async fn kept_anyway(
        &mut self,
        record: &SessionRecord,
        error: StoreError,
    ) -> Result<(), NotSaved> {
        let store = self.ctx.store.clone();
        let elsewhere = matches!(
            error,
            StoreError::ChangedElsewhere { .. }
                | StoreError::HeldElsewhere { .. }
                | StoreError::LeaseLost { .. }
        );
        if elsewhere {
            // Nothing was written, and what this actor holds is (or is about to be) behind
            // the store.
            tracing::info!(session = %record.id, %error, "another omnid has the session; it is read again");
            self.retired = true;
        }
        if elsewhere || matches!(error, StoreError::DiskFull { .. }) {
            // Refused before anything was written.
            return Err(NotSaved {
                error,
                kept: Kept::No,
            });
        }
        match store.session(&record.id).await {
            Ok(Some(stored)) if stored == *record => match store.sync().await {
                Ok(()) => {
                    tracing::info!(session = %record.id, "a change the store failed to sync was kept, and is durable now");
                    Ok(())
                }
                Err(_) => Err(NotSaved {
                    error,
                    kept: Kept::Unknown,
                }),
            },
            Ok(Some(stored)) if stored == self.record => Err(NotSaved {
                error,
                kept: Kept::No,
            }),
            _ => Err(NotSaved {
                error,
                kept: Kept::Unknown,
            }),
        }
    }
}

/// The session record after a change to `current` (a node added, the head moved, `update`
/// applied), and the move it appends: one rule for the actor's commits and for a
/// conversation recorded whole.
pub(in crate::session) fn next_record(
    current: &SessionRecord,
    node: Option<&NodeRecord>,
    head_move: Option<HeadMove>,
    update: impl FnOnce(&mut SessionRecord),
) -> (SessionRecord, Option<MoveRecord>) {
    let now = now_ms();
    let mut record = current.clone();
    record.updated_at_ms = now;
    if head_move.is_some() {
        // Results collected for the calls at the old head no longer apply.
        record.tool_results = None;
    }
    update(&mut record);
    if let Some(node) = node {
        record.nodes = node.id;
        if record.title.is_empty() && !record.title_set && node.role == Role::User {
            record.title = title_of(&node.text());
        }
        if let Some(info) = &node.model {
            record.count_usage(info);
        }
    }
    let mv = head_move.map(|m| {
        record.moves += 1;
        let prev_redoable = match m.redo {
            RedoEffect::PushThis => current.redo_top,
            _ => None,
        };
        record.redo_top = match m.redo {
            RedoEffect::Clear => None,
            RedoEffect::PushThis => Some(record.moves),
            RedoEffect::PopTo(below) => below,
            RedoEffect::Keep => current.redo_top,
        };
        record.head = m.to;
        MoveRecord {
            seq: record.moves,
            kind: m.kind,
            from: current.head,
            to: m.to,
            at_ms: now,
            prev_redoable,
            redoes: m.redoes,
        }
    });
    (record, mv)
}
