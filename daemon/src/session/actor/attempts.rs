//! A session's answer as an [`Exchange`]: each attempt streams what arrives to the client
//! through an [`AnswerBuilder`]; a stream that broke mid-answer is discarded (and the
//! client told) before the same request is sent again. The request body is built once per
//! model, so every attempt at one model sends exactly the same context. The loop itself is
//! `crate::exchange`'s.
//!
//! A send walks its model chain: the session's model, then its fallbacks. When one model
//! cannot answer for reasons of its own (quota exhausted, circuit breaker open, still
//! overloaded after every retry), the same context goes to the next, and the client is
//! told which. A request the API rejects (a 400) never moves on: the context is at fault,
//! not the model.

use std::sync::Arc;

use crate::session::outcome::{RetryNotice, SessionEvent};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::Events;
use crate::diag::{AttemptTrace, Diagnostics, Report};
use crate::exchange::{
    self, Attempt, Exchange, Outcome, Sent, Setup, attempt_report, deadline_passed, failure_of,
};
use crate::model::NodeRecord;
use crate::provider::{ProviderError, body};
use crate::resilience::{Failure, FailureClass, GiveUp};
use crate::services::{Endpoint, Live};
use crate::session::answer::AnswerBuilder;
use crate::session::tree::NodeId;

/// What a request is made of, whichever model it goes to.
pub(super) struct Context {
    /// The path from the start to the turn being answered.
    pub nodes: Vec<NodeRecord>,
    /// The session's function declarations.
    pub tools_json: Option<String>,
    /// The session's system instruction.
    pub system: Option<String>,
}

impl Context {
    /// The request body for `endpoint`.
    pub fn body_for(&self, endpoint: &Endpoint, live: &Live) -> String {
        body(
            &endpoint.target(),
            &self.nodes,
            self.tools_json.as_deref(),
            self.system.as_deref(),
            &live.config.provider.request,
        )
    }
}

/// Everything one send's attempts need.
pub(super) struct AnswerJob {
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
    pub body: String,
    pub events: Events,
    pub cancel: CancellationToken,
    /// The last attempt failed after some of its answer reached the client.
    pub streamed_partial: bool,
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
            body: &self.body,
        };
        let max = self.live.config.retry.max_attempts;
        attempt_report(sent, max, attempt, failure, error, timeline)
    }
}

/// How a send's attempts ended (a complete answer, a failure, or what a cancel cut
/// short), and the model that was asked last: the one that answered, if one did.
pub(super) struct SendOutcome {
    pub outcome: Outcome<AnswerBuilder, AnswerBuilder>,
    pub asked: Endpoint,
}

/// Whether a failure is the model's own trouble, so the next model may answer.
pub(super) fn falls_back(failure: &Failure, gave_up: GiveUp) -> bool {
    match failure.class {
        FailureClass::QuotaExhausted { .. } | FailureClass::CircuitOpen { .. } => true,
        FailureClass::Overloaded { .. } => gave_up != GiveUp::NotRetryable,
        FailureClass::Cancelled
        | FailureClass::Network(_)
        | FailureClass::Timeout
        | FailureClass::RateLimited { .. }
        | FailureClass::ServerError { .. }
        | FailureClass::BadRequest { .. }
        | FailureClass::ContextTooLong
        | FailureClass::Auth
        | FailureClass::ModelNotFound
        | FailureClass::InvalidStream
        | FailureClass::Blocked => false,
    }
}

/// Runs the send's attempts at each model of its chain in turn (see `crate::exchange::run`)
/// until one answers or one fails in a way the next cannot help.
pub(super) async fn answer_with_retries(mut job: AnswerJob) -> SendOutcome {
    let chain = std::mem::take(&mut job.chain);
    let mut spent = 0;
    for (index, endpoint) in chain.iter().enumerate() {
        let next = chain.get(index + 1);
        if index > 0 {
            job.body = job.context.body_for(endpoint, &job.live);
            job.endpoint = endpoint.clone();
        }
        let setup = Setup {
            live: job.live.clone(),
            diag: job.diag.clone(),
            cancel: job.cancel.clone(),
            breaker: endpoint.breaker.clone(),
            wait_for_probe: next.is_none(),
        };
        let mut outcome = exchange::run(&mut job, &setup).await;
        match &mut outcome {
            Outcome::Completed { attempts, .. } => *attempts += spent,
            Outcome::Failed {
                failure,
                attempts,
                gave_up,
                ..
            } => {
                spent += *attempts;
                if let Some(next) = next
                    && falls_back(failure, *gave_up)
                {
                    job.retrying(RetryNotice {
                        attempt: spent,
                        max_attempts: job.live.config.retry.max_attempts,
                        class: failure.class.name().to_string(),
                        message: format!(
                            "{} could not answer: {}; asking {} instead",
                            endpoint.reference, failure.message, next.reference
                        ),
                        wait_ms: 0,
                        discarded_partial: job.streamed_partial,
                        fallback_to: Some(next.reference.clone()),
                    });
                    job.streamed_partial = false;
                    continue;
                }
                *attempts = spent;
            }
            Outcome::Interrupted(_) => {}
        }
        return SendOutcome {
            outcome,
            asked: endpoint.clone(),
        };
    }
    // The chain is never empty: the session's own model comes first.
    SendOutcome {
        outcome: Outcome::Interrupted(AnswerBuilder::default()),
        asked: job.endpoint,
    }
}
