//! A send walks its model chain: the session's model, then its fallbacks. When one model
//! cannot answer for reasons of its own (quota exhausted, circuit breaker open, still
//! overloaded after every retry), the same context goes to the next, and the client is
//! told which. A request the API rejects (a 400) never moves on: the context is at fault,
//! not the model.

use super::Phase;
use super::attempts::{AnswerJob, SendOutcome};
use crate::exchange::{self, Exchange, Outcome, Setup};
use crate::provider::RequestBody;
use crate::resilience::{Failure, FailureClass, GiveUp};
use crate::services::Endpoint;
use crate::session::answer::AnswerBuilder;
use crate::session::outcome::RetryNotice;

/// Whether a failure is the model's own trouble, so the next model may answer.
pub(in crate::session::actor) fn falls_back(failure: &Failure, gave_up: GiveUp) -> bool {
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

/// The body for the next model of the chain, if the failure lets it answer and the
/// context can be rendered for it.
async fn next_body(job: &AnswerJob, next: &Endpoint) -> Option<RequestBody> {
    match job.context.body_for(next, &job.live).await {
        Ok(body) => Some(body),
        Err(error) => {
            tracing::error!(session = %job.session, %error, model = %next.reference, "cannot render the context for the fallback model");
            None
        }
    }
}

/// Runs the send's attempts at each model of its chain in turn (see `crate::exchange::run`)
/// until one answers or one fails in a way the next cannot help.
pub(in crate::session::actor) async fn answer_with_retries(mut job: AnswerJob) -> SendOutcome {
    let chain = std::mem::take(&mut job.chain);
    let mut spent = 0;
    for (index, endpoint) in chain.iter().enumerate() {
        let next = chain.get(index + 1);
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
                let moving_on = match next.filter(|_| falls_back(failure, *gave_up)) {
                    Some(next) => next_body(&job, next).await.map(|body| (next, body)),
                    None => None,
                };
                if let Some((next, body)) = moving_on {
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
                    let from = endpoint.reference.clone();
                    let to = next.reference.clone();
                    job.life.enter(job.session, Phase::FallingBack { from, to });
                    job.streamed_partial = false;
                    job.attempt = 0;
                    job.body = body;
                    job.endpoint = next.clone();
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
