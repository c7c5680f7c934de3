//! One actor per session: every change to a session goes through it, one at a time, in
//! order. While an answer streams, the actor stays responsive: other changes are refused
//! as busy rather than queued behind a long stream, and a shutdown interrupts the stream.

mod attempts;
mod cancel;
mod commit;
mod compact;
mod context;
mod events;
mod fallback;
mod finish;
mod handle;
mod health;
mod held;
mod inflight;
mod meta;
mod models;
mod moves;
mod record;
mod recovery;
mod requester;
mod send;
mod tools;
mod window;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use super::SessionError;
use super::outcome::{
    Answer, Cancelled, Compacted, HeadOp, MoveOutcome, PendingCall, Recovered, RecoveryChoice,
    SessionEvent,
};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::tree::Tree;
use crate::model::SessionRecord;
use crate::services::Services;
use crate::session::tree::NodeId;
use commit::{HeadMove, RedoEffect, Write};
pub use events::Following;
use events::{Events, Watchers};
use inflight::{InFlight, next_outcome};
pub use meta::{MetaChange, checked_title};
pub use record::{RecordedTurn, whole as recorded_whole};

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

enum Command {
    Send {
        prompt: String,
        replace: bool,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Answer>,
    },
    Retry {
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Answer>,
    },
    Move {
        op: HeadOp,
        reply: Reply<MoveOutcome>,
    },
    Resume {
        reply: Reply<bool>,
    },
    ToolResult {
        call_id: Option<String>,
        name: String,
        response_json: String,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<ToolOutcome>,
    },
    Recover {
        action: RecoveryChoice,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<RecoverOutcome>,
    },
    Cancel {
        reply: Reply<Cancelled>,
    },
    Record {
        parent: NodeId,
        turns: Vec<RecordedTurn>,
        reply: Reply<Vec<NodeId>>,
    },
    Watch {
        reply: Reply<events::Following>,
    },
    SetModel {
        reference: String,
        reply: Reply<()>,
    },
    Meta {
        change: MetaChange,
        reply: Reply<()>,
    },
    Close {
        reply: Reply<()>,
    },
    Compact {
        keep: Option<u32>,
        instructions: Option<String>,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Compacted>,
    },
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
    inflight: Option<InFlight>,
    /// The store failed in a way that leaves memory and store possibly apart: the actor
    /// ends, and the session is loaded again from the store on its next request.
    retired: bool,
    /// The registry's map of loaded sessions, which the actor leaves when it ends.
    loaded: Weak<Loaded>,
    /// Made by a client of omnid's own (not recorded from the proxy): its changes make
    /// it the current session.
    client_made: bool,
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

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Send {
                prompt,
                replace,
                events,
                reply,
            } => self.begin_send(prompt, replace, events, reply).await,
            Command::Retry { events, reply } => self.begin_retry(events, reply).await,
            Command::Move { op, reply } => {
                let result = self.apply_move(op).await;
                if let Ok(outcome) = &result {
                    self.announce(SessionEvent::Moved(outcome.clone()));
                }
                let _ = reply.send(result);
            }
            Command::Resume { reply } => {
                let result = self.resume().await;
                if result.is_ok() {
                    self.announce(SessionEvent::Resumed(self.record.id));
                }
                let _ = reply.send(result);
            }
            Command::Cancel { reply } => self.cancel(reply),
            Command::Record {
                parent,
                turns,
                reply,
            } => {
                let _ = reply.send(self.record_turns(parent, turns).await);
            }
            Command::Watch { reply } => {
                let in_flight = self.inflight.is_some();
                let _ = reply.send(Ok(self.watchers.subscribe(in_flight)));
            }
            Command::SetModel { reference, reply } => {
                let result = self.set_model(reference).await;
                self.announce_change(&result);
                let _ = reply.send(result);
            }
            Command::Meta { change, reply } => {
                let result = self.change_meta(change).await;
                self.announce_change(&result);
                let _ = reply.send(result);
            }
            Command::Close { reply } => {
                let closed = self.refuse_if_busy();
                if closed.is_ok() {
                    // Takes nothing more: the session is about to be purged.
                    self.retired = true;
                    self.inbox.close();
                }
                let _ = reply.send(closed);
            }
            Command::ToolResult {
                call_id,
                name,
                response_json,
                events,
                reply,
            } => {
                self.submit_tool_result(call_id, name, response_json, events, reply)
                    .await
            }
            Command::Recover {
                action,
                events,
                reply,
            } => self.recover(action, events, reply).await,
            Command::Compact {
                keep,
                instructions,
                events,
                reply,
            } => {
                let events = self.events(Some(events));
                self.begin_compact(keep, instructions, events, reply).await
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
