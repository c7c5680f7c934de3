//! The one retry loop of a send: attempts share one budget and one deadline; each failure
//! is classified once; the circuit breaker is asked before every attempt; a stream that
//! broke mid-answer is discarded (and the client told) before the same request is sent
//! again. The request body is built once, so every attempt sends exactly the same context.

use std::sync::Arc;
use std::time::SystemTime;

use omni_proto::{Event, RetryNotice};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::provider::{Gemini, Phase};
use crate::resilience::{
    Breaker, Decision, Failure, FailureClass, GiveUp, Refused, RetryPolicy, classify,
};
use crate::session::answer::AnswerBuilder;

/// Everything one send's attempts need.
pub(super) struct AnswerJob {
    pub provider: Arc<Gemini>,
    pub breaker: Arc<Breaker>,
    pub policy: RetryPolicy,
    pub body: String,
    pub events: mpsc::UnboundedSender<Event>,
    pub cancel: CancellationToken,
}

/// How a send's attempts ended.
pub(super) enum SendOutcome {
    /// An attempt streamed a complete answer.
    Completed {
        answer: AnswerBuilder,
        attempts: u32,
    },
    /// Retrying stopped; `failure` is the last attempt's.
    Failed {
        failure: Failure,
        attempts: u32,
        gave_up: GiveUp,
    },
    /// Shutdown cut the send short; what the current attempt had received.
    Interrupted { answer: AnswerBuilder },
}

fn circuit_open(breaker: &Breaker, refused: Refused) -> Failure {
    let when = if refused.retry_in.is_zero() {
        "a probe request is in flight; try again in a moment".to_string()
    } else {
        format!(
            "it will be tried again in {:.1} s",
            refused.retry_in.as_secs_f64()
        )
    };
    Failure {
        class: FailureClass::CircuitOpen {
            retry_in: refused.retry_in,
        },
        phase: Phase::Connect,
        status: None,
        message: format!(
            "the model API at {} failed {} attempts in a row, so omnid is not sending to it \
             for now (circuit breaker open); {when}",
            breaker.endpoint(),
            refused.failures
        ),
    }
}

fn deadline_passed(policy: &RetryPolicy, streaming: bool) -> Failure {
    Failure {
        class: FailureClass::Timeout,
        phase: if streaming {
            Phase::Stream
        } else {
            Phase::Connect
        },
        status: None,
        message: format!(
            "the request deadline of {:.1} s passed before the answer was complete",
            policy.deadline.as_secs_f64()
        ),
    }
}

/// Runs attempts until one succeeds, retrying stops, or shutdown cancels.
pub(super) async fn answer_with_retries(job: AnswerJob) -> SendOutcome {
    let started = Instant::now();
    let deadline = started + job.policy.deadline;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let permit = match job.breaker.admit(std::time::Instant::now()) {
            Ok(permit) => permit,
            Err(refused) => {
                return SendOutcome::Failed {
                    failure: circuit_open(&job.breaker, refused),
                    attempts: attempt - 1,
                    gave_up: GiveUp::NotRetryable,
                };
            }
        };
        let mut answer = AnswerBuilder::default();
        let result = tokio::select! {
            result = tokio::time::timeout_at(deadline, job.provider.stream(&job.body, |update| {
                for event in answer.absorb(update) {
                    let _ = job.events.send(event);
                }
            })) => Some(result),
            _ = job.cancel.cancelled() => None,
        };
        let failure = match result {
            None => return SendOutcome::Interrupted { answer },
            Some(Ok(Ok(()))) => {
                permit.succeeded();
                return SendOutcome::Completed {
                    answer,
                    attempts: attempt,
                };
            }
            Some(Ok(Err(error))) => classify(&error, job.policy.max_delay, SystemTime::now()),
            Some(Err(_elapsed)) => deadline_passed(&job.policy, !answer.is_empty()),
        };
        if failure.class.is_transient() {
            permit.failed(std::time::Instant::now());
        } else {
            permit.succeeded();
        }
        let decision = job
            .policy
            .decide(attempt, &failure, started.elapsed(), fastrand::f64());
        let wait = match decision {
            Decision::GiveUp(gave_up) => {
                return SendOutcome::Failed {
                    failure,
                    attempts: attempt,
                    gave_up,
                };
            }
            Decision::Retry(wait) => wait,
        };
        tracing::warn!(
            attempt,
            max = job.policy.max_attempts,
            class = failure.class.name(),
            wait_ms = wait.as_millis() as u64,
            "attempt failed, retrying: {}",
            failure.message
        );
        let notice = RetryNotice {
            attempt,
            max_attempts: job.policy.max_attempts,
            class: failure.class.name().to_string(),
            message: failure.message,
            wait_ms: wait.as_millis() as u64,
            discarded_partial: !answer.is_empty(),
        };
        let _ = job.events.send(Event::Retrying(notice));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = job.cancel.cancelled() => {
                return SendOutcome::Interrupted { answer: AnswerBuilder::default() };
            }
        }
    }
}
