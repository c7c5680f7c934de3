//! Compaction: the model summarises the context up to its latest rounds, and the summary
//! is stored as a node under the head that stands for what it covers. It is a move like
//! the others: nothing leaves the tree, `undo` returns to the full context, `redo` brings
//! the compaction back. The summary request runs through the one retry loop in its own
//! task, like an answer; a failed or cancelled one changes nothing.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::attempts::AnswerJob;
use super::context::Context;
use super::fallback::answer_with_retries;
use super::send::{Done, InFlight, Purpose};
use super::{Actor, Events, HeadMove, RedoEffect, Reply};
use crate::model::{MoveKind, NodeRecord, Part, PartContent, Role};
use crate::provider::{Extras, fragments};
use crate::services::{Endpoint, Live};
use crate::session::SessionError;
use crate::session::outcome::{Compacted, Compacting, SessionEvent};
pub use crate::session::tree::DEFAULT_KEEP;
use crate::session::tree::{CompactionPlan, NodeId};
use crate::time::now_ms;

/// What the model is asked, after the context it summarises.
const SUMMARY_REQUEST: &str = "Summarise the conversation so far for your own later use: \
    the summary will take the place of these turns in your context. Keep every fact, \
    decision, name, number, file path, identifier and piece of code that later turns may \
    need, the user's goals and preferences, what was done and what is still open. Write \
    the summary only, without a preamble, and call no function.";

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

/// A compaction under way.
pub(super) struct Compaction {
    plan: CompactionPlan,
    instructions: Option<String>,
    why: Why,
    /// The head it was started at: the summary goes under it.
    from: NodeId,
    before: crate::session::gauge::Gauge,
    then: Then,
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

impl Actor {
    /// `compact`: checks the session can be compacted now, then starts the summary request.
    pub(super) async fn begin_compact(
        &mut self,
        keep: Option<u32>,
        instructions: Option<String>,
        events: Events,
        reply: Reply<Compacted>,
    ) {
        if let Err(error) = self.refuse_compaction(false) {
            let _ = reply.send(Err(error));
            return;
        }
        let keep = keep.unwrap_or(DEFAULT_KEEP);
        self.start_compaction(keep, instructions, Why::Asked, events, Then::Reply(reply));
    }

    /// Whether the session takes a compaction now; `recovering`: the recovery menu asks.
    pub(super) fn refuse_compaction(&self, recovering: bool) -> Result<(), SessionError> {
        self.refuse_change()?;
        if !recovering {
            self.refuse_if_needs_recovery()?;
        }
        self.refuse_if_suspended()?;
        self.refuse_if_calls_pending()
    }

    /// Plans the compaction at the head and starts the summary request in its own task;
    /// `then` hears of a compaction that cannot start.
    pub(super) fn start_compaction(
        &mut self,
        keep: u32,
        instructions: Option<String>,
        why: Why,
        events: Events,
        then: Then,
    ) {
        let live = self.ctx.live.get();
        let prepared = self
            .tree
            .compaction_plan(keep)
            .map_err(SessionError::from)
            .and_then(|plan| {
                let chain = self.summary_chain(&live)?;
                Ok((plan, chain))
            });
        let (plan, chain) = match prepared {
            Ok(ready) => ready,
            Err(error) => return then.fail(error),
        };
        let endpoint = chain[0].clone();
        let context = match self.summary_context(&plan, instructions.as_deref(), &endpoint) {
            Ok(context) => context,
            Err(error) => return then.fail(error),
        };
        let before = self.gauge_at(self.tree.head(), &live);
        events.send(SessionEvent::Compacting(Compacting {
            session: self.record.id,
            covers: plan.covers.len() as u64,
            model: endpoint.reference.clone(),
            why: why.as_str(),
        }));
        tracing::info!(session = %self.record.id, covers = plan.covers.len(), model = %endpoint.reference, why = why.as_str(), "compacting");
        let compaction = Compaction {
            plan,
            instructions,
            why,
            from: self.tree.head(),
            before,
            then,
        };
        self.spawn_summary(
            live,
            chain,
            endpoint,
            context,
            events.progress_only(),
            compaction,
        );
    }

    /// The models asked for the summary: `context.compact_model`, else the session's chain.
    fn summary_chain(&self, live: &Live) -> Result<Vec<Endpoint>, SessionError> {
        match &live.config.context.compact_model {
            Some(reference) => live.endpoint(reference).map(|e| vec![e]).map_err(|error| {
                SessionError::invalid(format!(
                    "context.compact_model `{reference}` cannot be asked: {error}"
                ))
            }),
            None => self.model_chain(live),
        }
    }

    /// The summary request's context: the covered nodes, then the request for a summary.
    fn summary_context(
        &self,
        plan: &CompactionPlan,
        instructions: Option<&str>,
        endpoint: &Endpoint,
    ) -> Result<Context, SessionError> {
        let store = self.ctx.store.clone();
        let mut nodes = plan
            .covers
            .iter()
            .map(|&id| store.node(&self.record.id, id))
            .collect::<Result<Vec<_>, _>>()?;
        let mut ask = SUMMARY_REQUEST.to_string();
        if let Some(more) = instructions {
            ask.push_str(&format!("\n\nAlso: {more}"));
        }
        let request = NodeRecord {
            id: self.tree.len() + 1,
            parent: *plan.covers.last().unwrap_or(&0),
            role: Role::User,
            parts: vec![Part::text(ask)],
            created_at_ms: now_ms(),
            model: None,
        };
        nodes.push(request.clone());
        let target = endpoint.target();
        Ok(Context {
            session: self.record.id,
            path: plan.covers.clone(),
            extra: Some(request),
            fragments: Arc::new(fragments(&target, &nodes)),
            rendered_for: (target.provider.to_string(), target.kind),
            tools_json: self.record.tools_json.clone(),
            system: self.record.system.clone(),
            store,
        })
    }

    fn spawn_summary(
        &mut self,
        live: Arc<Live>,
        chain: Vec<Endpoint>,
        endpoint: Endpoint,
        context: Context,
        events: Events,
        compaction: Compaction,
    ) {
        let target = endpoint.target();
        let extras = Extras {
            tools_json: context.tools_json.as_deref(),
            system: context.system.as_deref(),
            options: &live.config.provider.request,
        };
        let body = crate::provider::assemble(&target, &context.fragments, extras);
        let cancel = self.ctx.shutdown.child_token();
        let turn = compaction.from;
        let job = AnswerJob {
            live: live.clone(),
            diag: self.ctx.diag.clone(),
            session: self.record.id,
            turn,
            context,
            chain,
            endpoint,
            body,
            events,
            cancel: cancel.clone(),
            streamed_partial: false,
        };
        self.ctx
            .counters
            .sends_in_flight
            .fetch_add(1, Ordering::Relaxed);
        let task = self.ctx.tracker.spawn(answer_with_retries(job));
        self.inflight = Some(InFlight {
            turn,
            task,
            purpose: Purpose::Compact(Box::new(compaction)),
            started: Instant::now(),
            live,
            cancel,
            cancellers: Vec::new(),
        });
    }

    /// Stores the summary and moves the head to it (ending *needs recovery* in the same
    /// commit when the recovery menu asked), then tells whoever waits.
    pub(super) async fn store_compaction(
        &mut self,
        compaction: Compaction,
        summary: String,
        model: crate::model::ModelInfo,
    ) {
        let Compaction {
            plan,
            instructions,
            why,
            from,
            before,
            then,
        } = compaction;
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: from,
            role: Role::Summary,
            parts: vec![
                Part::text(summary.clone()),
                Part::from(PartContent::Compaction {
                    resumes_at: plan.resumes_at,
                    instructions,
                }),
            ],
            created_at_ms: now_ms(),
            model: Some(model.clone()),
        };
        let id = node.id;
        let to_summary = HeadMove {
            kind: MoveKind::Compact,
            to: id,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        let recovering = why == Why::Recovery;
        let stored = self
            .commit_with(Some(node), Some(to_summary), |record| {
                if recovering {
                    record.needs_recovery = None;
                }
            })
            .await;
        if let Err(error) = stored {
            return then.fail(error.error("the compaction's summary"));
        }
        let live = self.ctx.live.get();
        let compacted = Compacted {
            session: self.record.id,
            node: id,
            from,
            covers: plan.covers,
            resumes_at: plan.resumes_at,
            text: summary,
            model,
            before,
            after: self.gauge_at(id, &live),
        };
        tracing::info!(session = %self.record.id, summary = id, covered = compacted.covers.len(), "compacted");
        let event = SessionEvent::Compacted(Box::new(compacted.clone()));
        match then {
            Then::Reply(reply) => {
                self.announce(event);
                let _ = reply.send(Ok(compacted));
            }
            Then::Answer { done, events } => {
                events.send(event);
                self.answer_unchecked(id, events, done).await;
            }
        }
    }

    /// What a summary request that did not complete means: nothing changed.
    pub(super) fn compaction_failed(&self, compaction: Compaction, why: String) {
        tracing::warn!(session = %self.record.id, "compaction failed: {why}");
        let message = format!(
            "the compaction did not happen: {why}. Nothing changed: the session is as it was"
        );
        let error = match compaction.why {
            Why::Asked => SessionError::Upstream(message),
            Why::Auto | Why::Recovery => SessionError::Upstream(format!(
                "{message}, and node {} still waits for its answer (send again, or `omnictl \
                 compact` with a smaller `--keep`)",
                compaction.from
            )),
        };
        self.announce(SessionEvent::Failed(error.clone()));
        compaction.then.fail(error);
    }
}
