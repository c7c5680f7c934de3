//! One actor per session: every change to a session goes through it, one at a time, in
//! order. While an answer streams, the actor stays responsive: other changes are refused
//! as busy rather than queued behind a long stream, and a shutdown interrupts the stream.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use omni_proto::{
    Answer, ErrorKind, ErrorReply, Event, ModelInfo, MoveOp, MoveOutcome, Part, Role,
};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::answer::AnswerBuilder;
use super::current::CurrentSession;
use super::record::{MoveKind, MoveRecord, NodeRecord, SessionRecord};
use super::tree::{NodeId, ROOT, Tree};
use super::views::first_line;
use crate::errors::{reply, store_error, tree_error};
use crate::provider::{Gemini, ProviderError, RequestOptions, build_body};
use crate::store::{Change, Store};
use crate::time::now_ms;

/// What every actor shares: the store, the provider and the daemon's lifecycle.
pub struct SessionContext {
    /// The store.
    pub store: Arc<Store>,
    /// The model API.
    pub provider: Arc<Gemini>,
    /// The model name recorded on answers.
    pub model: String,
    /// Request settings.
    pub request_options: RequestOptions,
    /// Cancelled when the daemon shuts down.
    pub shutdown: CancellationToken,
    /// Tracks actor and stream tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// The most recently used session.
    pub current: Arc<CurrentSession>,
    /// Prompts being answered right now.
    pub sends_in_flight: Arc<AtomicU32>,
}

type Reply<T> = oneshot::Sender<Result<T, ErrorReply>>;

enum Command {
    Send {
        prompt: String,
        events: mpsc::UnboundedSender<Event>,
        reply: Reply<Answer>,
    },
    Move {
        op: MoveOp,
        reply: Reply<MoveOutcome>,
    },
}

/// How many commands may wait for an actor before callers are told it is busy.
const MAILBOX: usize = 32;

/// A cheap, cloneable way to talk to a session's actor.
#[derive(Clone)]
pub struct ActorHandle {
    id: Uuid,
    commands: mpsc::Sender<Command>,
}

impl ActorHandle {
    /// Starts the actor for a session whose record and tree were loaded from the store.
    pub fn spawn(ctx: Arc<SessionContext>, record: SessionRecord, tree: Tree) -> Self {
        let (commands, inbox) = mpsc::channel(MAILBOX);
        let id = record.id;
        let actor = Actor {
            ctx: ctx.clone(),
            record,
            tree,
            inbox,
            inflight: None,
        };
        ctx.tracker.spawn(actor.run());
        Self { id, commands }
    }

    async fn call<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, ErrorReply> {
        let (reply, answer) = oneshot::channel();
        self.commands.try_send(make(reply)).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => busy(self.id),
            mpsc::error::TrySendError::Closed(_) => shutting_down(),
        })?;
        answer.await.map_err(|_| shutting_down())?
    }

    /// Sends a prompt; events stream to `events` until the answer is stored.
    pub async fn send(
        &self,
        prompt: String,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<Answer, ErrorReply> {
        self.call(|reply| Command::Send {
            prompt,
            events,
            reply,
        })
        .await
    }

    /// Moves the head (undo, redo, back, checkout).
    pub async fn apply_move(&self, op: MoveOp) -> Result<MoveOutcome, ErrorReply> {
        self.call(|reply| Command::Move { op, reply }).await
    }
}

fn busy(id: Uuid) -> ErrorReply {
    reply(
        ErrorKind::Busy,
        format!("session {id} is busy answering a prompt; wait for the answer, then try again"),
    )
}

fn shutting_down() -> ErrorReply {
    reply(
        ErrorKind::ShuttingDown,
        "omnid is shutting down; try again once it is back",
    )
}

/// How a streamed answer ended.
enum SendOutcome {
    Completed(AnswerBuilder),
    Failed(ProviderError),
    Interrupted(AnswerBuilder),
}

struct InFlight {
    prompt: NodeId,
    task: JoinHandle<SendOutcome>,
    reply: Reply<Answer>,
    started: Instant,
}

/// What a head move does to the redo stack.
enum RedoEffect {
    /// A new prompt or a checkout: nothing to redo any more.
    Clear,
    /// An undo-type move: it becomes the next thing to redo.
    PushThis,
    /// A redo: the next candidate is the one below the move it took back.
    PopTo(Option<u64>),
    /// An answer: the stack is already empty (the prompt cleared it).
    Keep,
}

struct HeadMove {
    kind: MoveKind,
    to: NodeId,
    redoes: Option<u64>,
    redo: RedoEffect,
}

struct Actor {
    ctx: Arc<SessionContext>,
    record: SessionRecord,
    tree: Tree,
    inbox: mpsc::Receiver<Command>,
    inflight: Option<InFlight>,
}

async fn next_outcome(
    inflight: &mut Option<InFlight>,
) -> Result<SendOutcome, tokio::task::JoinError> {
    match inflight {
        Some(send) => (&mut send.task).await,
        None => std::future::pending().await,
    }
}

impl Actor {
    async fn run(mut self) {
        let shutdown = self.ctx.shutdown.clone();
        let mut inbox_open = true;
        loop {
            tokio::select! {
                outcome = next_outcome(&mut self.inflight) => self.finish_send(outcome).await,
                command = self.inbox.recv(), if inbox_open => match command {
                    Some(command) => self.handle(command).await,
                    None => inbox_open = false,
                },
                _ = shutdown.cancelled(), if self.inflight.is_none() => break,
            }
            if !inbox_open && self.inflight.is_none() {
                break;
            }
        }
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Send {
                prompt,
                events,
                reply,
            } => {
                let started = self.start_send(prompt, events).await;
                match started {
                    Ok((prompt, task)) => {
                        self.inflight = Some(InFlight {
                            prompt,
                            task,
                            reply,
                            started: Instant::now(),
                        });
                    }
                    Err(error) => {
                        let _ = reply.send(Err(error));
                    }
                }
            }
            Command::Move { op, reply } => {
                let result = self.apply_move(op).await;
                let _ = reply.send(result);
            }
        }
    }

    /// Stores the prompt durably, then starts streaming the answer in its own task.
    async fn start_send(
        &mut self,
        prompt: String,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<(NodeId, JoinHandle<SendOutcome>), ErrorReply> {
        self.refuse_if_busy()?;
        if prompt.trim().is_empty() {
            return Err(reply(
                ErrorKind::InvalidRequest,
                "the prompt is empty; nothing was sent",
            ));
        }
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: self.tree.head(),
            role: Role::User,
            parts: vec![Part::text(prompt)],
            created_at_ms: now_ms(),
            model: None,
        };
        let prompt_node = node.id;
        let to_head = HeadMove {
            kind: MoveKind::Prompt,
            to: prompt_node,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        self.commit(Some(node), Some(to_head)).await?;
        let _ = events.send(Event::PromptStored {
            session: self.record.id.to_string(),
            node: prompt_node,
        });

        let context = self
            .tree
            .path_to(prompt_node)
            .into_iter()
            .map(|id| self.ctx.store.node(&self.record.id, id))
            .collect::<Result<Vec<_>, _>>()
            .map_err(store_error)?;
        let body = build_body(&context, &self.ctx.request_options);
        let provider = self.ctx.provider.clone();
        let cancel = self.ctx.shutdown.clone();
        self.ctx.sends_in_flight.fetch_add(1, Ordering::Relaxed);
        let task = self
            .ctx
            .tracker
            .spawn(stream_answer(provider, body, events, cancel));
        Ok((prompt_node, task))
    }

    /// Stores what the stream produced and answers the client.
    async fn finish_send(&mut self, outcome: Result<SendOutcome, tokio::task::JoinError>) {
        let Some(send) = self.inflight.take() else {
            return;
        };
        self.ctx.sends_in_flight.fetch_sub(1, Ordering::Relaxed);
        let latency_ms = send.started.elapsed().as_millis() as u64;
        let result = match outcome {
            Ok(SendOutcome::Completed(answer)) => {
                self.store_answer(send.prompt, answer, latency_ms, false)
                    .await
            }
            Ok(SendOutcome::Failed(error)) => Err(reply(
                ErrorKind::UpstreamFailure,
                format!(
                    "{error}. Your prompt is saved as node {} and stays in the context: \
                     send again to continue (both prompts are sent), or `omnictl back` to drop it",
                    send.prompt
                ),
            )),
            Ok(SendOutcome::Interrupted(answer)) => Err(self
                .store_interrupted(send.prompt, answer, latency_ms)
                .await),
            Err(join) => Err(reply(
                ErrorKind::Internal,
                format!(
                    "the answer task failed ({join}); your prompt is saved as node {}",
                    send.prompt
                ),
            )),
        };
        let _ = send.reply.send(result);
    }

    fn model_info(&self, answer: &AnswerBuilder, latency_ms: u64, interrupted: bool) -> ModelInfo {
        ModelInfo {
            model: self.ctx.model.clone(),
            model_version: answer.model_version.clone(),
            finish_reason: answer.finish_reason.clone(),
            usage: answer.usage,
            attempts: 1,
            latency_ms,
            interrupted,
        }
    }

    async fn store_answer(
        &mut self,
        prompt: NodeId,
        answer: AnswerBuilder,
        latency_ms: u64,
        interrupted: bool,
    ) -> Result<Answer, ErrorReply> {
        let model = self.model_info(&answer, latency_ms, interrupted);
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: prompt,
            role: Role::Model,
            parts: answer.parts,
            created_at_ms: now_ms(),
            model: Some(model.clone()),
        };
        let (id, text) = (node.id, node.text());
        let to_head = HeadMove {
            kind: MoveKind::Answer,
            to: id,
            redoes: None,
            redo: RedoEffect::Keep,
        };
        self.commit(Some(node), (!interrupted).then_some(to_head))
            .await?;
        Ok(Answer {
            session: self.record.id.to_string(),
            prompt_node: prompt,
            node: id,
            text,
            model,
        })
    }

    /// A shutdown cut the stream: whatever arrived is kept as an *interrupted* node beside
    /// the prompt, off the path to the head, so it is visible but never sent to the model.
    async fn store_interrupted(
        &mut self,
        prompt: NodeId,
        answer: AnswerBuilder,
        latency_ms: u64,
    ) -> ErrorReply {
        let kept = if answer.is_empty() {
            "nothing had arrived yet".to_string()
        } else {
            match self.store_answer(prompt, answer, latency_ms, true).await {
                Ok(stored) => format!(
                    "the partial answer is kept as node {} (interrupted, not in the context)",
                    stored.node
                ),
                Err(error) => format!("the partial answer could not be kept: {error}"),
            }
        };
        reply(
            ErrorKind::ShuttingDown,
            format!(
                "omnid is shutting down and interrupted the answer; {kept}. Your prompt is \
                 saved as node {prompt}"
            ),
        )
    }

    fn refuse_if_busy(&self) -> Result<(), ErrorReply> {
        if self.ctx.shutdown.is_cancelled() {
            return Err(shutting_down());
        }
        if self.inflight.is_some() {
            return Err(busy(self.record.id));
        }
        Ok(())
    }

    async fn apply_move(&mut self, op: MoveOp) -> Result<MoveOutcome, ErrorReply> {
        self.refuse_if_busy()?;
        let from = self.tree.head();
        let head_move = match op {
            MoveOp::Undo => HeadMove {
                kind: MoveKind::Undo,
                to: self.tree.undo_target().map_err(tree_error)?,
                redoes: None,
                redo: RedoEffect::PushThis,
            },
            MoveOp::Back => HeadMove {
                kind: MoveKind::Back,
                to: self.tree.back_target().map_err(tree_error)?,
                redoes: None,
                redo: RedoEffect::PushThis,
            },
            MoveOp::Redo => self.redo_move()?,
            MoveOp::Checkout { node } => {
                if !self.tree.contains(node) {
                    return Err(tree_error(super::tree::TreeError::UnknownNode(node)));
                }
                HeadMove {
                    kind: MoveKind::Checkout,
                    to: node,
                    redoes: None,
                    redo: RedoEffect::Clear,
                }
            }
        };
        self.commit(None, Some(head_move)).await?;
        let to = self.tree.head();
        Ok(MoveOutcome {
            session: self.record.id.to_string(),
            op,
            from,
            to,
            head_summary: self.describe(to),
        })
    }

    /// `redo` takes back the undo-type move on top of the redo stack.
    fn redo_move(&self) -> Result<HeadMove, ErrorReply> {
        let nothing = || {
            reply(
                ErrorKind::WrongState,
                "nothing to redo: there was no undo or back since the last prompt or checkout",
            )
        };
        let seq = self.record.redo_top.ok_or_else(nothing)?;
        let undone = self
            .ctx
            .store
            .move_record(&self.record.id, seq)
            .map_err(store_error)?
            .ok_or_else(nothing)?;
        if undone.to != self.tree.head() || !undone.kind.is_undo_type() {
            return Err(nothing());
        }
        Ok(HeadMove {
            kind: MoveKind::Redo,
            to: undone.from,
            redoes: Some(seq),
            redo: RedoEffect::PopTo(undone.prev_redoable),
        })
    }

    /// "node 3 (user): first line" — where the head is now.
    fn describe(&self, node: NodeId) -> String {
        if node == ROOT {
            return "the start of the conversation".to_string();
        }
        match self.ctx.store.node(&self.record.id, node) {
            Ok(record) => format!(
                "node {node} ({}): {}",
                record.role.as_str(),
                first_line(&record.text(), 60)
            ),
            Err(_) => format!("node {node}"),
        }
    }

    /// Writes a node and/or a head move with the updated session record in one
    /// transaction, updates memory to match, and returns once it is durable.
    async fn commit(
        &mut self,
        node: Option<NodeRecord>,
        head_move: Option<HeadMove>,
    ) -> Result<(), ErrorReply> {
        let now = now_ms();
        let mut record = self.record.clone();
        record.updated_at_ms = now;
        if let Some(node) = &node {
            record.nodes = node.id;
            if record.title.is_empty() && node.role == Role::User {
                record.title = first_line(&node.text(), 80);
            }
        }
        let mv = head_move.map(|m| {
            record.moves += 1;
            let prev_redoable = match m.redo {
                RedoEffect::PushThis => self.record.redo_top,
                _ => None,
            };
            record.redo_top = match m.redo {
                RedoEffect::Clear => None,
                RedoEffect::PushThis => Some(record.moves),
                RedoEffect::PopTo(below) => below,
                RedoEffect::Keep => self.record.redo_top,
            };
            record.head = m.to;
            MoveRecord {
                seq: record.moves,
                kind: m.kind,
                from: self.record.head,
                to: m.to,
                at_ms: now,
                prev_redoable,
                redoes: m.redoes,
            }
        });
        let store = self.ctx.store.clone();
        store
            .apply(&Change {
                session: &record,
                node: node.as_ref(),
                mv: mv.as_ref(),
            })
            .map_err(|e| {
                reply(
                    ErrorKind::Internal,
                    format!("could not store the change ({e}); nothing was changed"),
                )
            })?;
        // Memory follows the store.
        if let Some(node) = &node {
            let pushed = self.tree.push(node.parent, node.role);
            debug_assert_eq!(pushed, Ok(node.id));
        }
        if let Some(mv) = &mv {
            let moved = self.tree.set_head(mv.to);
            debug_assert!(moved.is_ok());
        }
        self.record = record;
        self.ctx.current.set(self.record.id);
        store.sync().await.map_err(|e| {
            reply(
                ErrorKind::Internal,
                format!("the change was saved but could not be flushed to disk: {e}"),
            )
        })
    }
}

/// Streams one answer, forwarding events to the client; a shutdown interrupts it and hands
/// back what had arrived.
async fn stream_answer(
    provider: Arc<Gemini>,
    body: String,
    events: mpsc::UnboundedSender<Event>,
    cancel: CancellationToken,
) -> SendOutcome {
    let mut answer = AnswerBuilder::default();
    let result = tokio::select! {
        result = provider.stream(&body, |update| {
            for event in answer.absorb(update) {
                let _ = events.send(event);
            }
        }) => Some(result),
        _ = cancel.cancelled() => None,
    };
    match result {
        Some(Ok(())) => SendOutcome::Completed(answer),
        Some(Err(error)) => SendOutcome::Failed(error),
        None => SendOutcome::Interrupted(answer),
    }
}
