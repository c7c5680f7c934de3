//! Preparing a turn's answer: the wall seen coming (a compaction first, or a context over
//! its window refused), the context brought up to the path, the body assembled and
//! validated (preflight), then the attempts launched; and, at the end, telling the
//! session's watchers and the requester how the turn ended.

use super::{Launch, Phase, Stage};
use crate::diag::Cause;
use crate::provider::{Extras, assemble};
use crate::services::Live;
use crate::session::SessionError;
use crate::session::actor::context::Context;
use crate::session::actor::recovery::Unsent;
use crate::session::actor::requester::Done;
use crate::session::actor::{Actor, Events};
use crate::session::gauge::Gauge;
use crate::session::outcome::{Answer, SessionEvent};
use crate::session::tree::NodeId;
use crate::session::validate::Violation;

impl Actor {
    /// Answers the turn at the head, seeing the wall coming first: a context past
    /// `context.compact_at` of its window is compacted first when `context.auto_compact`
    /// is on, and one over the window (by the estimate) is not sent: the session needs
    /// recovery, whose menu offers compaction first.
    pub(in crate::session::actor) async fn start_answering(
        &mut self,
        turn: NodeId,
        events: Events,
        done: Done,
    ) {
        let live = self.ctx.live.get();
        let gauge = self.gauge_at(turn, &live).await;
        let settings = &live.config.context;
        if settings.auto_compact && gauge.past(settings.compact_at) {
            let keep = crate::session::actor::compact::DEFAULT_KEEP;
            let then = crate::session::actor::compact::Then::Answer {
                done,
                events: events.clone(),
            };
            let why = crate::session::actor::compact::Why::Auto;
            return self.start_compaction(keep, None, why, events, then).await;
        }
        let wall = gauge.past(100).then_some(gauge);
        self.answer_turn(turn, events, done, wall).await;
    }

    /// Answers the turn at the head whatever its size (after a compaction, or when the
    /// user asks for a retry): the API has the last word.
    pub(in crate::session::actor) async fn answer_unchecked(
        &mut self,
        turn: NodeId,
        events: Events,
        done: Done,
    ) {
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
        self.life.enter(self.record.id, Phase::Preparing);
        if let Err(error) = self.hold().await {
            return self.finish(done, Err(error)).await;
        }
        let live = self.ctx.live.get();
        let chain = match self.model_chain(&live) {
            Ok(chain) => chain,
            Err(error) => return self.finish(done, Err(error)).await,
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
        if let Err(error) = self
            .held
            .follow(&store, &self.record.id, &path, &target)
            .await
        {
            return self.finish(done, Err(error.into())).await;
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
            return self.finish(done, Err(error)).await;
        }
        if let Err(violation) = self.held.validate() {
            let error = self
                .refuse_preflight(turn, violation, url, body.text().into_owned(), &live)
                .await;
            return self.finish(done, Err(error)).await;
        }
        let launch = Launch {
            turn,
            live,
            context,
            chain,
            body,
            events,
        };
        self.launch(launch, Stage::Answering(done));
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

    /// Lets the session's lease go, then tells the session's watchers how a turn ended,
    /// then the requester.
    pub(in crate::session::actor) async fn finish(
        &mut self,
        done: Done,
        result: Result<Answer, SessionError>,
    ) {
        self.let_go().await;
        let how = if result.is_ok() { "answered" } else { "failed" };
        self.life.end(self.record.id, how);
        self.announce(match &result {
            Ok(answer) => SessionEvent::Answered(Box::new(answer.clone())),
            Err(error) => SessionEvent::Failed(error.clone()),
        });
        done(result);
    }
}
