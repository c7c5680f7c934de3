//! A session's answer as an [`Exchange`]: each attempt streams what arrives to the client
//! through an [`AnswerBuilder`]; a stream that broke mid-answer is discarded (and the
//! client told) before the same request is sent again. The request body is built once per
//! model, so every attempt at one model sends exactly the same context. The loop itself is
//! `crate::exchange`'s; walking the model chain is `fallback.rs`'s.

use std::sync::Arc;

use crate::session::outcome::{RetryNotice, SessionEvent};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::{Life, Phase};
use crate::diag::{AttemptTrace, Diagnostics, Report};
use crate::exchange::{
    Attempt, Exchange, Outcome, Sent, attempt_report, deadline_passed, failure_of,
};
use crate::provider::{ProviderError, RequestBody};
use crate::resilience::Failure;
use crate::services::{Endpoint, Live};
use crate::session::actor::Events;
use crate::session::actor::context::Context;
use crate::session::answer::AnswerBuilder;
use crate::session::tree::NodeId;

/// Everything one send's attempts need.
pub(in crate::session::actor) struct AnswerJob {
    /// The settings the send started with (a reload does not change them).
    pub live: Arc<Live>,
    pub diag: Arc<Diagnostics>,
    pub session: Uuid,
    /// The node being answered (a prompt or function results).
    pub turn: NodeId,
    pub context: Context,
    /// The models to ask, in order: the session's own first.
    pub chain: Vec<Endpoint>,
    /// The model being asked now, and the body it is sent.
    pub endpoint: Endpoint,
    pub body: RequestBody,
    pub events: Events,
    pub cancel: CancellationToken,
    /// The last attempt failed after some of its answer reached the client.
    pub streamed_partial: bool,
    /// The turn's phases, which each attempt moves on.
    pub life: Life,
    /// Attempts made at `endpoint` so far.
    pub attempt: u32,
}

impl Exchange for AnswerJob {
    type Done = AnswerBuilder;
    type Partial = AnswerBuilder;

    /// Sends the request once, streaming what arrives to the client, until it ends, the
    /// deadline passes, or a cancel.
    async fn attempt(
        &mut self,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Attempt<AnswerBuilder, AnswerBuilder> {
        self.attempt += 1;
        let asking = Phase::Asking {
            model: self.endpoint.reference.clone(),
            attempt: self.attempt,
        };
        self.life.enter(self.session, asking);
        let mut answer = AnswerBuilder::default();
        let result = {
            let events = &self.events;
            let mut absorb = |update| {
                for event in answer.absorb(update) {
                    events.send(event);
                }
            };
            let streaming = self.endpoint.api.stream(&self.body, &mut absorb);
            tokio::select! {
                result = tokio::time::timeout_at(deadline, streaming) => Some(result),
                _ = cancel.cancelled() => None,
            }
        };
        let partial = !answer.is_empty();
        self.streamed_partial = partial;
        let retry = &self.live.config.retry;
        match result {
            None => Attempt::Cancelled(answer),
            Some(Ok(Ok(()))) => Attempt::Done(answer),
            Some(Ok(Err(error))) => Attempt::Failed {
                failure: failure_of(&error, retry),
                error: Some(error),
                partial,
            },
            Some(Err(_elapsed)) => Attempt::Failed {
                failure: deadline_passed(retry, partial),
                error: None,
                partial,
            },
        }
    }

    fn retrying(&mut self, notice: RetryNotice) {
        self.events.send(SessionEvent::Retrying(notice));
    }

    fn report(
        &self,
        attempt: u32,
        failure: &Failure,
        error: Option<&ProviderError>,
        timeline: &[AttemptTrace],
    ) -> Report {
        let sent = Sent {
            session: Some(self.session),
            node: self.turn,
            url: self.endpoint.api.url(),
            headers: self.endpoint.api.headers(),
            body: &self.body.text(),
        };
        let max = self.live.config.retry.max_attempts;
        attempt_report(sent, max, attempt, failure, error, timeline)
    }
}

/// How a send's attempts ended (a complete answer, a failure, or what a cancel cut
/// short), and the model that was asked last: the one that answered, if one did.
pub(in crate::session::actor) struct SendOutcome {
    pub outcome: Outcome<AnswerBuilder, AnswerBuilder>,
    pub asked: Endpoint,
}
