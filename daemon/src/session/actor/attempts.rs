//! The one retry loop of a send: attempts share one budget and one deadline; each failure
//! is classified once; the circuit breaker is asked before every attempt; a stream that
//! broke mid-answer is discarded (and the client told) before the same request is sent
//! again. The request body is built once, so every attempt sends exactly the same context.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::session::outcome::{RetryNotice, SessionEvent};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::Events;
use crate::diag::{AttemptTrace, Cause, Diagnostics, Report, ResponseInfo};
use crate::provider::{Phase, ProviderError};
use crate::resilience::{
    Breaker, Decision, Failure, FailureClass, GiveUp, Permit, Refused, RetryPolicy, classify,
};
use crate::services::Live;
use crate::session::answer::AnswerBuilder;
use crate::session::tree::NodeId;
use crate::text::count;

/// Everything one send's attempts need.
pub(super) struct AnswerJob {
    /// The settings the send started with (a reload does not change them).
    pub live: Arc<Live>,
    pub diag: Arc<Diagnostics>,
    pub session: Uuid,
    /// The node being answered (a prompt or function results).
    pub turn: NodeId,
    pub body: String,
    pub events: Events,
    pub cancel: CancellationToken,
}

impl AnswerJob {
    /// What diagnostics need to know about a failed attempt.
    fn report(
        &self,
        attempt: u32,
        failure: &Failure,
        error: Option<&ProviderError>,
        timeline: &[AttemptTrace],
    ) -> Report {
        let response = match error {
            Some(ProviderError::Status {
                status,
                headers,
                body,
            }) => Some(ResponseInfo {
                status: *status,
                headers: headers.clone(),
                body: body.clone(),
            }),
            Some(ProviderError::InStream { body, .. }) => Some(ResponseInfo {
                status: 200,
                headers: vec![("content-type".into(), "text/event-stream".into())],
                body: body.clone(),
            }),
            _ => None,
        };
        Report {
            session: self.session,
            node: self.turn,
            attempt,
            max_attempts: self.live.config.retry.max_attempts,
            cause: Cause::Attempt {
                phase: failure.phase,
                class: failure.class.clone(),
            },
            message: failure.message.clone(),
            response,
            request_url: self.live.provider.url().to_string(),
            request_body: self.body.clone(),
            timeline: timeline.to_vec(),
        }
    }
}

fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
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
        /// The diagnostic record of the last failure, if one was written.
        error_id: Option<String>,
    },
    /// A client's cancel or shutdown cut the send short; what the current attempt had
    /// received.
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
            "the model API at {} failed {} in a row, so omnid is not sending to it for now \
             (circuit breaker open); {when}",
            breaker.endpoint(),
            count(refused.failures, "attempt")
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

/// How long to wait before asking again while another send's probe is in flight.
const PROBE_IN_FLIGHT_WAIT: Duration = Duration::from_millis(250);

/// What to do when the breaker refuses: wait for its probe (shown to the client like any
/// retry wait) if that falls within the send's deadline, else give up. Nothing was sent.
async fn wait_for_probe(job: &AnswerJob, refused: Refused, started: Instant, sent: u32) -> bool {
    let wait = if refused.retry_in.is_zero() {
        PROBE_IN_FLIGHT_WAIT
    } else {
        refused.retry_in
    };
    if started.elapsed() + wait >= job.live.config.retry.deadline {
        return false;
    }
    let notice = RetryNotice {
        attempt: sent,
        max_attempts: job.live.config.retry.max_attempts,
        class: FailureClass::CircuitOpen { retry_in: wait }
            .name()
            .to_string(),
        message: circuit_open(&job.live.breaker, refused).message,
        wait_ms: wait.as_millis() as u64,
        discarded_partial: false,
    };
    job.events.send(SessionEvent::Retrying(notice));
    tokio::select! {
        _ = tokio::time::sleep(wait) => true,
        _ = job.cancel.cancelled() => false,
    }
}

/// How one attempt ended.
enum Attempt {
    /// Shutdown cancelled it; what had arrived.
    Cancelled(AnswerBuilder),
    /// The whole answer arrived.
    Answered(AnswerBuilder),
    /// It failed, classified; `partial` says whether some of an answer had arrived.
    Failed {
        failure: Failure,
        error: Option<ProviderError>,
        partial: bool,
    },
}

/// Sends the request once, streaming what arrives to the client, until it ends, the
/// deadline passes, or shutdown cancels.
async fn attempt_once(job: &AnswerJob, deadline: Instant) -> Attempt {
    let mut answer = AnswerBuilder::default();
    let result = {
        let mut absorb = |update| {
            for event in answer.absorb(update) {
                job.events.send(event);
            }
        };
        let streaming = job.live.provider.stream(&job.body, &mut absorb);
        tokio::select! {
            result = tokio::time::timeout_at(deadline, streaming) => Some(result),
            _ = job.cancel.cancelled() => None,
        }
    };
    let partial = !answer.is_empty();
    match result {
        None => Attempt::Cancelled(answer),
        Some(Ok(Ok(()))) => Attempt::Answered(answer),
        Some(Ok(Err(error))) => Attempt::Failed {
            failure: classify(&error, job.live.config.retry.max_delay, SystemTime::now()),
            error: Some(error),
            partial,
        },
        Some(Err(_elapsed)) => Attempt::Failed {
            failure: deadline_passed(&job.live.config.retry, partial),
            error: None,
            partial,
        },
    }
}

/// Adds a failed attempt to the timeline and, when the API answered with an error status
/// or the send gives up, writes it down (synced) before the client hears of it or
/// anything changes. Returns the record's id, if one was written.
async fn note_failure(
    job: &AnswerJob,
    timeline: &mut Vec<AttemptTrace>,
    trace: AttemptTrace,
    failure: &Failure,
    error: Option<&ProviderError>,
    decision: &Decision,
) -> Option<String> {
    let attempt = trace.attempt;
    timeline.push(trace);
    let http_error = failure.status.is_some_and(|s| s >= 400);
    if !http_error && !matches!(decision, Decision::GiveUp(_)) {
        return None;
    }
    let report = job.report(attempt, failure, error, timeline);
    job.diag.record(report, &job.live.diag).await
}

/// Tells the client (and the log) that an attempt failed and another follows after `wait`.
fn announce_retry(job: &AnswerJob, attempt: u32, failure: Failure, wait: Duration, partial: bool) {
    tracing::warn!(
        attempt,
        max = job.live.config.retry.max_attempts,
        class = failure.class.name(),
        wait_ms = wait.as_millis() as u64,
        "attempt failed, retrying: {}",
        failure.message
    );
    let notice = RetryNotice {
        attempt,
        max_attempts: job.live.config.retry.max_attempts,
        class: failure.class.name().to_string(),
        message: failure.message,
        wait_ms: wait.as_millis() as u64,
        discarded_partial: partial,
    };
    job.events.send(SessionEvent::Retrying(notice));
}

/// A permit for the next attempt from the circuit breaker, waiting for its probe when that
/// falls within the deadline; else how the send ends.
async fn admit(job: &AnswerJob, started: Instant, sent: u32) -> Result<Permit, SendOutcome> {
    loop {
        let refused = match job.live.breaker.admit(Instant::now().into_std()) {
            Ok(permit) => return Ok(permit),
            Err(refused) => refused,
        };
        if job.cancel.is_cancelled() {
            let answer = AnswerBuilder::default();
            return Err(SendOutcome::Interrupted { answer });
        }
        if !wait_for_probe(job, refused, started, sent).await {
            return Err(SendOutcome::Failed {
                failure: circuit_open(&job.live.breaker, refused),
                attempts: sent,
                gave_up: GiveUp::NotRetryable,
                error_id: None,
            });
        }
    }
}

/// The timeline's entry for a failed attempt.
fn trace(
    attempt: u32,
    started_at: SystemTime,
    started: Instant,
    failure: &Failure,
    decision: &Decision,
) -> AttemptTrace {
    AttemptTrace {
        attempt,
        started_at: rfc3339(started_at),
        duration_ms: started.elapsed().as_millis() as u64,
        status: failure.status,
        class: Some(failure.class.name().to_string()),
        wait_ms: match decision {
            Decision::Retry(wait) => Some(wait.as_millis() as u64),
            Decision::GiveUp(_) => None,
        },
    }
}

/// Runs attempts until one succeeds, retrying stops, or shutdown cancels. An attempt the
/// open circuit breaker refuses is not an attempt: nothing reaches the API.
pub(super) async fn answer_with_retries(job: AnswerJob) -> SendOutcome {
    let started = Instant::now();
    let deadline = started + job.live.config.retry.deadline;
    let mut attempt = 0;
    let mut timeline: Vec<AttemptTrace> = Vec::new();
    loop {
        let permit = match admit(&job, started, attempt).await {
            Ok(permit) => permit,
            Err(outcome) => return outcome,
        };
        attempt += 1;
        let (attempt_started, started_at) = (Instant::now(), SystemTime::now());
        let (failure, error, partial) = match attempt_once(&job, deadline).await {
            Attempt::Cancelled(answer) => return SendOutcome::Interrupted { answer },
            Attempt::Answered(answer) => {
                permit.succeeded();
                return SendOutcome::Completed {
                    answer,
                    attempts: attempt,
                };
            }
            Attempt::Failed {
                failure,
                error,
                partial,
            } => (failure, error, partial),
        };
        if failure.class.is_transient() {
            permit.failed(Instant::now().into_std());
        } else {
            permit.succeeded();
        }
        let retry = &job.live.config.retry;
        let decision = retry.decide(attempt, &failure, started.elapsed(), fastrand::f64());
        let trace = trace(attempt, started_at, attempt_started, &failure, &decision);
        let error_id = note_failure(
            &job,
            &mut timeline,
            trace,
            &failure,
            error.as_ref(),
            &decision,
        )
        .await;
        let wait = match decision {
            Decision::GiveUp(gave_up) => {
                return SendOutcome::Failed {
                    failure,
                    attempts: attempt,
                    gave_up,
                    error_id,
                };
            }
            Decision::Retry(wait) => wait,
        };
        announce_retry(&job, attempt, failure, wait, partial);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = job.cancel.cancelled() => {
                return SendOutcome::Interrupted { answer: AnswerBuilder::default() };
            }
        }
    }
}
