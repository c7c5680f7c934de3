//! The way in to a session's actor: a cheap, cloneable handle whose methods each send one
//! command and wait for its reply.

use std::sync::{Arc, Weak};

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::events::Watchers;
use super::{Actor, Command, Loaded, MAILBOX, RecoverOutcome, Reply, ToolOutcome};
use crate::model::SessionRecord;
use crate::services::Services;
use crate::session::SessionError;
use crate::session::outcome::{
    Answer, Cancelled, HeadOp, MoveOutcome, RecoveryChoice, SessionEvent,
};
use crate::session::tree::{NodeId, Tree};

/// A cheap, cloneable way to talk to a session's actor.
#[derive(Clone)]
pub struct ActorHandle {
    id: Uuid,
    commands: mpsc::Sender<Command>,
}

impl ActorHandle {
    /// Starts the actor for a session whose record and tree were loaded from the store;
    /// it leaves `loaded` (the registry's map) when it ends.
    pub fn spawn(
        ctx: Arc<Services>,
        record: SessionRecord,
        tree: Tree,
        loaded: Weak<Loaded>,
    ) -> Self {
        let (commands, inbox) = mpsc::channel(MAILBOX);
        let id = record.id;
        let actor = Actor {
            ctx: ctx.clone(),
            record,
            tree,
            inbox,
            watchers: Watchers::default(),
            held: Default::default(),
            measured: None,
            inflight: None,
            retired: false,
            client_made: ctx.store.origin(&id).is_none(),
            loaded,
        };
        ctx.tracker.spawn(actor.run());
        Self { id, commands }
    }

    /// Whether the actor has ended (shutdown, or retired after a store failure).
    pub fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }

    async fn call<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, SessionError> {
        let (reply, answer) = oneshot::channel();
        self.commands.try_send(make(reply)).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => SessionError::Busy(self.id),
            mpsc::error::TrySendError::Closed(_) => SessionError::Unloaded(self.id),
        })?;
        answer.await.map_err(|_| SessionError::shutting_down())?
    }

    /// Sends a prompt (`replace`: in place of a pending one); events stream to `events`
    /// until the answer is stored.
    pub async fn send(
        &self,
        prompt: String,
        replace: bool,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<Answer, SessionError> {
        self.call(|reply| Command::Send {
            prompt,
            replace,
            events,
            reply,
        })
        .await
    }

    /// Answers the pending turn at the head again, as it is; events stream to `events`.
    pub async fn retry(
        &self,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<Answer, SessionError> {
        self.call(|reply| Command::Retry { events, reply }).await
    }

    /// Moves the head (undo, redo, back, checkout).
    pub async fn apply_move(&self, op: HeadOp) -> Result<MoveOutcome, SessionError> {
        self.call(|reply| Command::Move { op, reply }).await
    }

    /// Lifts a suspension; returns whether the session was suspended.
    pub async fn resume(&self) -> Result<bool, SessionError> {
        self.call(|reply| Command::Resume { reply }).await
    }

    /// Submits one function result; once all are in, the continuation streams to `events`.
    pub async fn tool_result(
        &self,
        call_id: Option<String>,
        name: String,
        response_json: String,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<ToolOutcome, SessionError> {
        self.call(|reply| Command::ToolResult {
            call_id,
            name,
            response_json,
            events,
            reply,
        })
        .await
    }

    /// Applies a recovery choice; `--retry` streams its answer to `events`.
    pub async fn recover(
        &self,
        action: RecoveryChoice,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<RecoverOutcome, SessionError> {
        self.call(|reply| Command::Recover {
            action,
            events,
            reply,
        })
        .await
    }

    /// Compacts the context up to its `keep` latest rounds; the summary request's retries
    /// stream to `events`.
    pub async fn compact(
        &self,
        keep: Option<u32>,
        instructions: Option<String>,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<super::Compacted, SessionError> {
        self.call(|reply| Command::Compact {
            keep,
            instructions,
            events,
            reply,
        })
        .await
    }

    /// Records turns that happened elsewhere under `parent`, each with its conversation's
    /// chain hash; returns their nodes once they are durable.
    pub async fn record(
        &self,
        parent: NodeId,
        turns: Vec<super::RecordedTurn>,
    ) -> Result<Vec<NodeId>, SessionError> {
        self.call(|reply| Command::Record {
            parent,
            turns,
            reply,
        })
        .await
    }

    /// Cancels the answer in flight; answers once the partial answer is stored.
    pub async fn cancel(&self) -> Result<Cancelled, SessionError> {
        self.call(|reply| Command::Cancel { reply }).await
    }

    /// Switches the model the session asks, from its next send on.
    pub async fn set_model(&self, reference: String) -> Result<(), SessionError> {
        self.call(|reply| Command::SetModel { reference, reply })
            .await
    }

    /// Renames the session, or moves it to or from the archive or the trash.
    pub async fn change_meta(&self, change: super::MetaChange) -> Result<(), SessionError> {
        self.call(|reply| Command::Meta { change, reply }).await
    }

    /// Ends the actor once nothing is in flight (refused while an answer streams): the
    /// session is about to be purged.
    pub async fn close(&self) -> Result<(), SessionError> {
        self.call(|reply| Command::Close { reply }).await
    }

    /// Follows the session: what the turn in flight streamed so far, then every event of
    /// every request from now on, and each change once stored. A watched session stays
    /// loaded; the stream ends when the daemon stops.
    pub async fn watch(&self) -> Result<super::Following, SessionError> {
        self.call(|reply| Command::Watch { reply }).await
    }
}
