//! Compaction: the model summarises the context up to its latest rounds, and the summary
//! is stored as a node under the head that stands for what it covers. It is a move like
//! the others: nothing leaves the tree, `undo` returns to the full context, `redo` brings
//! the compaction back. The summary requests run through the one retry loop in a task of
//! their own, like an answer (`step.rs`); what they produce is stored, or nothing is
//! (`done.rs`). A context too big for one request is summarised in pieces, each request
//! carrying the summary so far (`crate::session::pieces`).

mod done;
mod step;

use std::collections::VecDeque;

use super::requester::Done;
use super::{Actor, ActorHandle, Command, Events, Reply, Run};
use crate::model::ModelInfo;
use crate::services::Endpoint;
use crate::session::SessionError;
use crate::session::gauge::{Gauge, estimate};
use crate::session::outcome::{Compacted, Compacting, SessionEvent};
use crate::session::pieces::{Sized, split};
pub use crate::session::tree::DEFAULT_KEEP;
use crate::session::tree::{CompactionPlan, NodeId};

/// Who asked for a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Why {
    /// A client (`omnictl compact`, `/compact`, HTTP).
    Asked,
    /// `context.auto_compact`, before a send.
    Auto,
    /// The recovery menu's compact choice.
    Recovery,
}

impl Why {
    fn as_str(self) -> &'static str {
        match self {
            Why::Asked => "asked",
            Why::Auto => "auto",
            Why::Recovery => "recovery",
        }
    }
}

/// What happens once the summary is stored.
pub(super) enum Then {
    /// The client that asked hears what was done.
    Reply(Reply<Compacted>),
    /// The turn at the head is answered, from the compacted context.
    Answer { done: Done, events: Events },
}

impl Then {
    /// Tells whoever waits that the compaction did not happen.
    pub(super) fn fail(self, error: SessionError) {
        match self {
            Then::Reply(reply) => {
                let _ = reply.send(Err(error));
            }
            Then::Answer { done, .. } => done(Err(error)),
        }
    }
}

/// A compaction under way.
pub(super) struct Compaction {
    plan: CompactionPlan,
    instructions: Option<String>,
    why: Why,
    /// The head it was started at: the summary goes under it.
    from: NodeId,
    before: Gauge,
    then: Then,
    /// The pieces still to summarise; the first is being summarised now.
    pieces: VecDeque<Vec<Sized>>,
    /// The summary of the pieces done so far.
    carried: Option<String>,
    /// What the requests so far cost, summed into the summary's `ModelInfo`.
    spent: Option<ModelInfo>,
    /// The models asked, and where progress goes.
    chain: Vec<Endpoint>,
    events: Events,
}

impl Actor {
    /// `compact`: checks the session can be compacted now, then starts the summary request.
    pub(super) async fn begin_compact(
        &mut self,
        keep: Option<u32>,
        instructions: Option<String>,
        events: Events,
        reply: Reply<Compacted>,
    ) {
        if let Err(error) = self.refuse_compaction(false).await {
            let _ = reply.send(Err(error));
            return;
        }
        let keep = keep.unwrap_or(DEFAULT_KEEP);
        self.start_compaction(keep, instructions, Why::Asked, events, Then::Reply(reply))
            .await;
    }

    /// Whether the session takes a compaction now; `recovering`: the recovery menu asks.
    pub(super) async fn refuse_compaction(&mut self, recovering: bool) -> Result<(), SessionError> {
        self.refuse_change()?;
        if !recovering {
            self.refuse_if_needs_recovery()?;
        }
        self.refuse_if_suspended()?;
        self.refuse_if_calls_pending().await
    }

    /// Plans the compaction at the head, cuts what it covers into pieces that fit the
    /// summarising model's window, and starts the first summary request; `then` hears of
    /// a compaction that cannot start.
    pub(super) async fn start_compaction(
        &mut self,
        keep: u32,
        instructions: Option<String>,
        why: Why,
        events: Events,
        then: Then,
    ) {
        if let Err(error) = self.hold().await {
            return then.fail(error);
        }
        let live = self.ctx.live.get();
        let planned = self
            .tree
            .compaction_plan(keep)
            .map_err(SessionError::from)
            .and_then(|plan| Ok((self.summary_chain(&live)?, plan)));
        let (chain, plan) = match planned {
            Ok(planned) => planned,
            Err(error) => return self.give_up(then, error).await,
        };
        let pieces = match self.pieces_of(&plan, &chain[0], &live).await {
            Ok(pieces) => pieces,
            Err(error) => return self.give_up(then, error).await,
        };
        events.send(SessionEvent::Compacting(Compacting {
            session: self.record.id,
            covers: plan.covers.len() as u64,
            model: chain[0].reference.clone(),
            why: why.as_str().into(),
        }));
        tracing::info!(session = %self.record.id, covers = plan.covers.len(), pieces = pieces.len(), model = %chain[0].reference, why = why.as_str(), "compacting");
        let compaction = Compaction {
            before: self.gauge_at(self.tree.head(), &live).await,
            from: self.tree.head(),
            plan,
            instructions,
            why,
            then,
            pieces,
            carried: None,
            spent: None,
            chain,
            events: events.progress_only(),
        };
        self.spawn_step(compaction).await;
    }

    /// Lets the lease go, then tells whoever waits that the compaction did not happen.
    pub(super) async fn give_up(&mut self, then: Then, error: SessionError) {
        self.let_go().await;
        then.fail(error);
    }

    /// The covered nodes in pieces of at most half the summarising model's window (by
    /// the estimate), so each request has room for the summary so far and its own
    /// answer; one piece when the window is unknown.
    async fn pieces_of(
        &mut self,
        plan: &CompactionPlan,
        endpoint: &Endpoint,
        live: &crate::services::Live,
    ) -> Result<VecDeque<Vec<Sized>>, SessionError> {
        let mut covered = Vec::with_capacity(plan.covers.len());
        for &id in &plan.covers {
            let node = self.ctx.store.node(&self.record.id, id).await?;
            covered.push(Sized {
                id,
                role: node.role,
                tokens: estimate(&node),
            });
        }
        let windows = &self.ctx.windows;
        let window = windows.window(live, &endpoint.provider, endpoint.kind, &endpoint.model);
        Ok(split(&covered, window.map(|w| w.tokens / 2)))
    }
}

/// [`ActorHandle::compact`]'s command.
pub(in crate::session::actor) struct CompactCommand {
    keep: Option<u32>,
    instructions: Option<String>,
    events: tokio::sync::mpsc::UnboundedSender<SessionEvent>,
    reply: Reply<Compacted>,
}

impl ActorHandle {
    /// Compacts the context up to its `keep` latest rounds; the summary request's retries
    /// stream to `events`.
    pub async fn compact(
        &self,
        keep: Option<u32>,
        instructions: Option<String>,
        events: tokio::sync::mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<Compacted, SessionError> {
        self.call(|reply| {
            Command::Compact(CompactCommand {
                keep,
                instructions,
                events,
                reply,
            })
        })
        .await
    }
}

impl Run for CompactCommand {
    async fn run(self, actor: &mut Actor) {
        let events = actor.events(Some(self.events));
        actor
            .begin_compact(self.keep, self.instructions, events, self.reply)
            .await
    }
}
