//! One summary request: the summary so far (if any), the piece's nodes and the request
//! for a summary, sent with the session's tools and system instruction to
//! `context.compact_model` or the session's model chain, in a task of its own.

use std::sync::Arc;

use super::Compaction;
use crate::model::{NodeRecord, Part, Role};
use crate::provider::fragments;
use crate::services::{Endpoint, Live};
use crate::session::SessionError;
use crate::session::actor::Actor;
use crate::session::actor::context::Context;
use crate::session::actor::turn::{Launch, Phase, Stage};
use crate::time::now_ms;

/// What the model is asked, after the context it summarises.
const SUMMARY_REQUEST: &str = "Summarise the conversation so far for your own later use: \
    the summary will take the place of these turns in your context. Keep every fact, \
    decision, name, number, file path, identifier and piece of code that later turns may \
    need, the user's goals and preferences, what was done and what is still open. Write \
    the summary only, without a preamble, and call no function.";

impl Actor {
    /// The models asked for the summary: `context.compact_model`, else the session's chain.
    pub(super) fn summary_chain(&self, live: &Live) -> Result<Vec<Endpoint>, SessionError> {
        match &live.config.context.compact_model {
            Some(reference) => live.endpoint(reference).map(|e| vec![e]).map_err(|error| {
                SessionError::invalid(format!(
                    "context.compact_model `{reference}` cannot be asked: {error}"
                ))
            }),
            None => self.model_chain(live),
        }
    }

    /// Sends the request for the compaction's first piece, in a task of its own; a
    /// context that cannot be read ends the compaction with nothing changed.
    pub(super) async fn spawn_step(&mut self, mut compaction: Compaction) {
        let live = self.ctx.live.get();
        let endpoint = compaction.chain[0].clone();
        let context = match self.step_context(&mut compaction, &endpoint).await {
            Ok(context) => context,
            Err(error) => return self.compaction_failed(compaction, error.to_string()).await,
        };
        let body = match context.body_for(&endpoint, &live).await {
            Ok(body) => body,
            Err(error) => return self.compaction_failed(compaction, error.to_string()).await,
        };
        let pieces_left = compaction.pieces.len();
        self.life
            .enter(self.record.id, Phase::Compacting { pieces_left });
        let launch = Launch {
            turn: compaction.from,
            live,
            context,
            chain: compaction.chain.clone(),
            body,
            events: compaction.events.clone(),
        };
        self.launch(launch, Stage::Compacting(Box::new(compaction)));
    }

    /// The request for the first piece: the summary so far as a summary node, the piece's
    /// nodes, then the request for a summary.
    async fn step_context(
        &mut self,
        // Mutable only so the future need not share it (a compaction is not `Sync`).
        compaction: &mut Compaction,
        endpoint: &Endpoint,
    ) -> Result<Context, SessionError> {
        let store = self.ctx.store.clone();
        let piece: Vec<_> = compaction
            .pieces
            .front()
            .map(|piece| piece.iter().map(|node| node.id).collect())
            .unwrap_or_default();
        let mut nodes = Vec::with_capacity(piece.len() + 2);
        let next = self.tree.len() + 1;
        let lead = compaction.carried.as_ref().map(|text| NodeRecord {
            id: next,
            parent: 0,
            role: Role::Summary,
            parts: vec![Part::text(text.clone())],
            created_at_ms: now_ms(),
            model: None,
        });
        nodes.extend(lead.clone());
        for &id in &piece {
            nodes.push(store.node(&self.record.id, id).await?);
        }
        let mut ask = SUMMARY_REQUEST.to_string();
        if let Some(more) = &compaction.instructions {
            ask.push_str(&format!("\n\nAlso: {more}"));
        }
        let request = NodeRecord {
            id: next + 1,
            parent: piece.last().copied().unwrap_or(0),
            role: Role::User,
            parts: vec![Part::text(ask)],
            created_at_ms: now_ms(),
            model: None,
        };
        nodes.push(request.clone());
        let target = endpoint.target();
        Ok(Context {
            session: self.record.id,
            lead,
            path: piece,
            extra: Some(request),
            fragments: Arc::new(fragments(&target, &nodes)),
            rendered_for: (target.provider.to_string(), target.kind),
            tools_json: self.record.tools_json.clone(),
            system: self.record.system.clone(),
            store,
        })
    }
}
