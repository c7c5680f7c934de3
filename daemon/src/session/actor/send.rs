//! Answering a turn: a prompt, a set of function results, or `recover --retry` all end
//! here. The context is validated (preflight), the attempts run in their own task, and what
//! they produce is stored before the requester hears back.

use crate::model::{Part, Role};
use crate::session::SessionError;
use crate::session::outcome::{Answer, SessionEvent};
use tokio::sync::mpsc;

use super::context::Context;
use super::inflight::{Launch, Purpose};
use super::recovery::Unsent;
use super::requester::{Done, done_with};
use super::{Actor, ActorHandle, Command, Events, HeadMove, RedoEffect, Reply, Run};
use crate::diag::Cause;
use crate::model::{MoveKind, NodeRecord};
use crate::provider::{Extras, assemble};
use crate::services::Live;
use crate::session::gauge::Gauge;
use crate::session::tree::{NodeId, ROOT};
use crate::session::validate::Violation;
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
            Err(error) => done(Err(error)),
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
        self.refuse_if_calls_pending()?;
        if prompt.trim().is_empty() {
            return Err(SessionError::invalid(
                "the prompt is empty; nothing was sent",
            ));
        }
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

    /// Answers the turn at the head, seeing the wall coming first: a context past
    /// `context.compact_at` of its window is compacted first when `context.auto_compact`
    /// is on, and one over the window (by the estimate) is not sent: the session needs
    /// recovery, whose menu offers compaction first.
    pub(super) async fn start_answering(&mut self, turn: NodeId, events: Events, done: Done) {
        let live = self.ctx.live.get();
        let gauge = self.gauge_at(turn, &live);
        let settings = &live.config.context;
        if settings.auto_compact && gauge.past(settings.compact_at) {
            let keep = super::compact::DEFAULT_KEEP;
            let then = super::compact::Then::Answer {
                done,
                events: events.clone(),
            };
            let why = super::compact::Why::Auto;
            return self.start_compaction(keep, None, why, events, then);
        }
        let wall = gauge.past(100).then_some(gauge);
        self.answer_turn(turn, events, done, wall).await;
    }

    /// Answers the turn at the head whatever its size (after a compaction, or when the
    /// user asks for a retry): the API has the last word.
    pub(super) async fn answer_unchecked(&mut self, turn: NodeId, events: Events, done: Done) {
        self.answer_turn(turn, events, done, None).await;
    }

    /// Answers the turn at the head: validates the context, then runs the attempts in their
    /// own task. A violation never reaches the API: it is recorded and the session needs
    /// recovery. The body is assembled from the context the session holds, which reads
    /// from the store only what is new on the path (`held.rs`).
    /// `over_window`: the context is over its window by the estimate: it is refused like
    /// a preflight violation, and the recovery menu offers compaction first.
    async fn answer_turn(
        &mut self,
        turn: NodeId,
        events: Events,
        done: Done,
        over_window: Option<Gauge>,
    ) {
        let live = self.ctx.live.get();
        let chain = match self.model_chain(&live) {
            Ok(chain) => chain,
            Err(error) => return self.finish(done, Err(error)),
        };
        let prompts = self.tree.prompts_ending_at(turn);
        if prompts.len() > 1 {
            events.send(SessionEvent::PromptsMerged {
                session: self.record.id,
                prompts,
            });
        }
        let endpoint = chain[0].clone();
        self.learn_window(&endpoint);
        let target = endpoint.target();
        let path = self.tree.context_path(turn);
        let store = self.ctx.store.clone();
        if let Err(error) = self.held.follow(&store, &self.record.id, &path, &target) {
            return self.finish(done, Err(error.into()));
        }
        let context = Context {
            session: self.record.id,
            lead: None,
            path,
            extra: None,
            fragments: self.held.fragments(),
            rendered_for: (target.provider.to_string(), target.kind),
            tools_json: self.record.tools_json.clone(),
            system: self.record.system.clone(),
            store,
        };
        let extras = Extras {
            tools_json: context.tools_json.as_deref(),
            system: context.system.as_deref(),
            options: &live.config.provider.request,
        };
        let body = assemble(&target, &context.fragments, extras);
        let url = (endpoint.api.url().to_string(), endpoint.api.headers());
        if let Some(gauge) = over_window {
            let error = self
                .refuse_over_window(turn, &gauge, url, body.text().into_owned(), &live)
                .await;
            return self.finish(done, Err(error));
        }
        if let Err(violation) = self.held.validate() {
            let error = self
                .refuse_preflight(turn, violation, url, body.text().into_owned(), &live)
                .await;
            return self.finish(done, Err(error));
        }
        let launch = Launch {
            turn,
            live,
            context,
            chain,
            body,
            events,
        };
        self.launch(launch, Purpose::Answer(done));
    }

    /// A context that breaks the API's rules: recorded, and the session needs recovery.
    async fn refuse_preflight(
        &mut self,
        turn: NodeId,
        violation: Violation,
        request: (String, Vec<(String, String)>),
        request_body: String,
        live: &Live,
    ) -> SessionError {
        // Deep rollback drops the round that holds the earliest offending node.
        let rollback_to = violation
            .nodes
            .iter()
            .min()
            .and_then(|&first| self.tree.round_start(first).ok());
        let before = match rollback_to {
            Some(0) => " (`recover --deep` goes back to the start)".to_string(),
            Some(node) => format!(" (`recover --deep` goes back to node {node})"),
            None => String::new(),
        };
        let unsent = Unsent {
            turn,
            cause: Cause::Preflight,
            message: format!("preflight validation refused the request: {violation}{before}"),
            request,
            body: request_body,
        };
        self.refuse_unsent(unsent, rollback_to, live).await
    }

    /// Tells the session's watchers how a turn ended, then the requester.
    pub(super) fn finish(&self, done: Done, result: Result<Answer, SessionError>) {
        self.announce(match &result {
            Ok(answer) => SessionEvent::Answered(Box::new(answer.clone())),
            Err(error) => SessionEvent::Failed(error.clone()),
        });
        done(result);
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
