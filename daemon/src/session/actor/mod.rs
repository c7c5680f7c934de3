//! One actor per session: every change to a session goes through it, one at a time, in
//! order. While an answer streams, the actor stays responsive: other changes are refused
//! as busy rather than queued behind a long stream, and a shutdown interrupts the stream.

mod cancel;
mod close;
mod commit;
mod compact;
mod context;
mod events;
mod handle;
mod health;
mod held;
mod lease;
mod meta;
mod models;
mod moves;
mod record;
mod recovery;
mod requester;
mod send;
mod tools;
mod turn;
mod watch;
mod window;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use super::SessionError;
use super::outcome::{Answer, PendingCall, Recovered, SessionEvent};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::tree::Tree;
use crate::model::SessionRecord;
use crate::services::Services;
use crate::session::tree::NodeId;
use commit::{HeadMove, RedoEffect, Write};
use events::{Events, Watchers};
pub use meta::{MetaChange, checked_title};
pub use record::{RecordedTurn, whole as recorded_whole};
use turn::{Life, Turn, next_outcome};

type Reply<T> = oneshot::Sender<Result<T, SessionError>>;

pub use handle::ActorHandle;

/// What submitting a tool result led to.
#[derive(Debug)]
pub enum ToolOutcome {
    /// Stored; these calls (with which are answered) still wait.
    Stored(Vec<PendingCall>),
    /// Every call had its result; this is the model's continuation (boxed: an answer is
    /// far larger than the list of calls).
    Answered(Box<Answer>),
}

/// What a recovery choice led to.
#[derive(Debug)]
pub enum RecoverOutcome {
    /// The head moved (or stayed, for `--ignore`).
    Moved(Recovered),
    /// `--retry` (or compact) got an answer.
    Answered(Box<Answer>),
}

/// A command the actor runs, one at a time, in order: its arguments and where its reply
/// goes, and what the actor does with it. Each lives in the file of its work, with the
/// [`ActorHandle`] method that sends it.
trait Run {
    /// Does it (and replies).
    async fn run(self, actor: &mut Actor);
}

/// The actor's commands, each `Variant(its command struct)`: the mailbox's enum and its
/// dispatch.
macro_rules! commands {
    ($($(#[cfg($cfg:meta)])? $variant:ident($command:ty),)*) => {
        enum Command {
            $($(#[cfg($cfg)])? $variant($command),)*
        }

        impl Actor {
            async fn handle(&mut self, command: Command) {
                match command {
                    $($(#[cfg($cfg)])? Command::$variant(command) => command.run(self).await,)*
                }
            }
        }
    };
}

commands! {
    Send(send::SendCommand),
    Retry(send::RetryCommand),
    Move(moves::MoveCommand),
    Resume(health::ResumeCommand),
    ToolResult(tools::ToolResultCommand),
    Recover(recovery::RecoverCommand),
    Cancel(cancel::CancelCommand),
    Record(record::RecordCommand),
    Watch(watch::WatchCommand),
    SetModel(models::SetModelCommand),
    Meta(meta::MetaCommand),
    Close(close::CloseCommand),
    Compact(compact::CompactCommand),
    // The tests' look at the last turn's life.
    #[cfg(test)]
    LastLife(tests::LastLifeCommand),
}

/// How long an actor with nothing to do stays loaded by default (`session_idle_secs`).
#[cfg(test)]
pub const IDLE_STOP: std::time::Duration = std::time::Duration::from_secs(300);

/// How long the actor of a recorded conversation no one follows stays loaded idle.
const RECORDED_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

/// How many commands may wait for an actor before callers are told it is busy.
const MAILBOX: usize = 32;

struct Actor {
    ctx: Arc<Services>,
    record: SessionRecord,
    tree: Tree,
    inbox: mpsc::Receiver<Command>,
    /// Clients following the session (`attach`).
    watchers: Watchers,
    /// The context as it is sent, held between sends.
    held: held::Held,
    /// The last node whose context was measured, and its size (see `gauge::measure`).
    measured: Option<(NodeId, crate::session::gauge::ContextSize)>,
    /// The turn in flight, if any: while there is one, changes are refused as busy.
    inflight: Option<Turn>,
    /// The phases of the turn under way (prepared, compacted, asked, stored), in order.
    life: Life,
    /// The store failed in a way that leaves memory and store possibly apart: the actor
    /// ends, and the session is loaded again from the store on its next request.
    retired: bool,
    /// The registry's map of loaded sessions, which the actor leaves when it ends.
    loaded: Weak<Loaded>,
    /// Made by a client of omnid's own (not recorded from the proxy): its changes make
    /// it the current session.
    client_made: bool,
    /// What the handles say the actor holds (see [`handle::Holds`]).
    holds: handle::Holds,
    /// The session's lease on a shared store, held while a turn or compaction is in
    /// flight (`lease.rs`).
    lease: Option<crate::store::Lease>,
}

/// The registry's map of loaded sessions and their actors.
pub type Loaded = Mutex<HashMap<Uuid, ActorHandle>>;

impl Actor {
    /// Handles commands and finishes sends until the session has been idle for
    /// `session_idle_secs` (or the daemon shuts down, or a store failure retires the actor). An
    /// idle actor stops taking commands, handles those already queued, and ends; the next
    /// request loads the session again, so memory follows the sessions in use.
    async fn run(mut self) {
        let shutdown = self.ctx.shutdown.clone();
        let mut inbox_open = true;
        let idle = tokio::time::sleep(self.idle_stop());
        tokio::pin!(idle);
        loop {
            tokio::select! {
                outcome = next_outcome(&mut self.inflight) => self.finish_send(outcome).await,
                command = self.inbox.recv(), if inbox_open => match command {
                    Some(command) => self.handle(command).await,
                    None => inbox_open = false,
                },
                _ = shutdown.cancelled(), if self.inflight.is_none() => break,
                _ = &mut idle, if self.inflight.is_none() => {
                    if self.unload_if_idle() {
                        break;
                    }
                }
            }
            if self.inflight.is_none() {
                // Whatever ended the change (or kept it from starting), nothing is in
                // flight: the lease goes (the usual ends let it go before replying).
                self.let_go().await;
            }
            if (self.retired || !inbox_open) && self.inflight.is_none() {
                break;
            }
            idle.as_mut()
                .reset(tokio::time::Instant::now() + self.idle_stop());
        }
        self.leave_registry();
    }

    /// How long the actor stays loaded with nothing to do (the setting in effect now); a
    /// conversation recorded through the proxy, which no one follows, at most
    /// [`RECORDED_IDLE`]: an agent's next request loads it again at once, and a burst of
    /// agents leaves no thousand actors (and the contexts they hold) behind.
    fn idle_stop(&self) -> std::time::Duration {
        let setting = self.ctx.live.get().config.session_idle;
        if self.client_made || self.watchers.count() > 0 {
            setting
        } else {
            setting.min(RECORDED_IDLE)
        }
    }

    /// Leaves the registry's map if nothing is queued, closing the inbox under the map's
    /// lock: a request either got in first (and the actor stays), or finds the session
    /// unloaded and loads it again. Never two actors for one session.
    fn unload_if_idle(&mut self) -> bool {
        let Some(loaded) = self.loaded.upgrade() else {
            return true;
        };
        let mut loaded = loaded.lock().unwrap_or_else(|p| p.into_inner());
        if !self.inbox.is_empty() || self.watchers.count() > 0 {
            return false;
        }
        self.inbox.close();
        loaded.remove(&self.record.id);
        tracing::debug!(session = %self.record.id, "unloaded after being idle");
        // What it held (the tree, the context) goes back to the system with the next trim.
        crate::memory::freed();
        true
    }

    /// On any other end (shutdown, a store failure): leaves the map if the entry is ours.
    fn leave_registry(&mut self) {
        self.inbox.close();
        if let Some(loaded) = self.loaded.upgrade() {
            let mut loaded = loaded.lock().unwrap_or_else(|p| p.into_inner());
            if loaded
                .get(&self.record.id)
                .is_some_and(ActorHandle::is_closed)
            {
                loaded.remove(&self.record.id);
            }
        }
    }

    /// Tells the session's watchers about a stored change.
    fn announce(&self, change: SessionEvent) {
        self.events(None).send(change);
    }

    /// Tells followers that the session's own fields (title, model, archive) changed.
    fn announce_change(&self, result: &Result<(), SessionError>) {
        if result.is_ok() {
            self.announce(SessionEvent::Changed(self.record.id));
        }
    }

    /// An outlet for a request's events: to `requester` and the session's watchers.
    fn events(&self, requester: Option<mpsc::UnboundedSender<SessionEvent>>) -> Events {
        Events::new(requester, self.watchers.clone())
    }

    /// Refuses a change to the conversation while the session is busy or in the trash.
    fn refuse_change(&self) -> Result<(), SessionError> {
        self.refuse_if_busy()?;
        if self.record.deleted_at_ms.is_some() {
            return Err(SessionError::wrong_state(format!(
                "session {} is in the trash; `omnictl restore` takes it back",
                self.record.id
            )));
        }
        Ok(())
    }

    fn refuse_if_busy(&self) -> Result<(), SessionError> {
        if self.ctx.shutdown.is_cancelled() {
            return Err(SessionError::shutting_down());
        }
        if self.inflight.is_some() {
            return Err(SessionError::Busy(self.record.id));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
