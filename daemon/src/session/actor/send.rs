//! `Send` and `Retry`: a prompt stored durably (in place of pending ones, if asked) and
//! answered, or the turn pending at the head answered again. Answering itself is the
//! turn's (`turn/`).

use crate::model::{Part, Role};
use crate::session::SessionError;
use crate::session::outcome::{Answer, SessionEvent};
use tokio::sync::mpsc;

use super::requester::done_with;
use super::{Actor, ActorHandle, Command, HeadMove, RedoEffect, Reply, Run};
use crate::model::{MoveKind, NodeRecord};
use crate::session::tree::{NodeId, ROOT};
use crate::time::now_ms;

impl Actor {
    /// `send`: stores the prompt durably (`replace`: in place of a pending one), then
    /// answers it.
    pub(super) async fn begin_send(
        &mut self,
        prompt: String,
        replace: bool,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Answer>,
    ) {
        let done = done_with(reply, |answer| answer);
        match self.store_prompt(prompt, replace).await {
            Ok(turn) => {
                let events = self.events(Some(events));
                events.send(SessionEvent::PromptStored {
                    session: self.record.id,
                    node: turn,
                });
                self.start_answering(turn, events, done).await;
            }
            Err(error) => {
                self.let_go().await;
                done(Err(error))
            }
        }
    }

    /// `retry`: answers the turn at the head again, exactly as stored (a send that failed
    /// left its prompt there).
    pub(super) async fn begin_retry(
        &mut self,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Answer>,
    ) {
        let done = done_with(reply, |answer| answer);
        match self.pending_turn() {
            Ok(turn) => {
                let events = self.events(Some(events));
                self.start_answering(turn, events, done).await;
            }
            Err(error) => done(Err(error)),
        }
    }

    /// The turn at the head that waits for an answer: a prompt, or function results.
    fn pending_turn(&self) -> Result<NodeId, SessionError> {
        self.refuse_change()?;
        self.refuse_if_needs_recovery()?;
        self.refuse_if_suspended()?;
        let head = self.tree.head();
        match self.tree.role(head) {
            Some(Role::User | Role::Tool) => Ok(head),
            // A compaction made while a turn waited: the summary stands in for its context.
            Some(Role::Summary) if self.tree.awaits_answer(head) => Ok(head),
            Some(Role::Summary) => Err(SessionError::wrong_state(format!(
                "nothing to retry: the head, node {head}, is a compaction's summary; send a \
                 new prompt"
            ))),
            Some(Role::Model) => Err(SessionError::wrong_state(format!(
                "nothing to retry: the head, node {head}, is the model's answer; send a new \
                 prompt (or undo to ask again)"
            ))),
            None => Err(SessionError::wrong_state(
                "nothing to retry: the session has no turns at its head",
            )),
        }
    }

    /// Stores a prompt and moves the head to it, in one commit. With `replace`, the
    /// prompts pending at the head (a failed or cancelled send's) leave the path: the new
    /// one takes their place, and when the session needed recovery because of them, that
    /// ends with the same commit. Everything is checked before anything is written.
    async fn store_prompt(
        &mut self,
        prompt: String,
        replace: bool,
    ) -> Result<NodeId, SessionError> {
        self.refuse_change()?;
        let pending = self.tree.prompts_ending_at(self.tree.head());
        let replaced = pending.first().filter(|_| replace).copied();
        if replaced.is_none() {
            self.refuse_if_needs_recovery()?;
        }
        self.refuse_if_suspended()?;
        self.refuse_if_calls_pending().await?;
        if prompt.trim().is_empty() {
            return Err(SessionError::invalid(
                "the prompt is empty; nothing was sent",
            ));
        }
        // The turn is this instance's from its prompt on.
        self.hold().await?;
        let parent = match replaced {
            Some(oldest) => self.tree.parent(oldest).unwrap_or(ROOT),
            None => self.tree.head(),
        };
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent,
            role: Role::User,
            parts: vec![Part::text(prompt)],
            created_at_ms: now_ms(),
            model: None,
        };
        let turn = node.id;
        let to_head = HeadMove {
            kind: MoveKind::Prompt,
            to: turn,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        self.commit_with(Some(node), Some(to_head), |record| {
            if replaced.is_some() {
                record.needs_recovery = None;
            }
        })
        .await
        .map_err(|e| e.error("the prompt"))?;
        if replaced.is_some() {
            tracing::info!(session = %self.record.id, turn, replaced = ?pending, "a prompt took the place of pending ones");
        }
        Ok(turn)
    }
}

/// [`ActorHandle::send`]'s command.
pub(super) struct SendCommand {
    prompt: String,
    replace: bool,
    events: mpsc::UnboundedSender<SessionEvent>,
    reply: Reply<Answer>,
}

/// [`ActorHandle::retry`]'s command.
pub(super) struct RetryCommand {
    events: mpsc::UnboundedSender<SessionEvent>,
    reply: Reply<Answer>,
}

impl ActorHandle {
    /// Sends a prompt (`replace`: in place of a pending one); events stream to `events`
    /// until the answer is stored.
    pub async fn send(
        &self,
        prompt: String,
        replace: bool,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<Answer, SessionError> {
        self.call(|reply| {
            Command::Send(SendCommand {
                prompt,
                replace,
                events,
                reply,
            })
        })
        .await
    }

    /// Answers the pending turn at the head again, as it is; events stream to `events`.
    pub async fn retry(
        &self,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<Answer, SessionError> {
        self.call(|reply| Command::Retry(RetryCommand { events, reply }))
            .await
    }
}

impl Run for SendCommand {
    async fn run(self, actor: &mut Actor) {
        actor
            .begin_send(self.prompt, self.replace, self.events, self.reply)
            .await
    }
}

impl Run for RetryCommand {
    async fn run(self, actor: &mut Actor) {
        actor.begin_retry(self.events, self.reply).await
    }
}
