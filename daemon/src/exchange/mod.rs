//! The one retry loop: a request to the model API is attempted until one attempt succeeds
//! or retrying stops. Attempts share one budget and one deadline; each failure is
//! classified once; the circuit breaker is asked before every attempt (a request waits for
//! one probe at most, and gives up when that probe fails); every failed attempt, healed or
//! not, is written down before the client hears of it. What an
//! attempt is (a session's streamed answer, or a request passing through) is the
//! [`Exchange`]'s business; how attempts follow each other is this module's.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::diag::{AttemptTrace, Diagnostics, Report};
use crate::provider::{Phase, ProviderError};
use crate::resilience::{
    Breaker, Decision, Failure, FailureClass, GiveUp, Permit, Refused, RetryPolicy, classify,
};
use crate::services::Live;
use crate::text::count;

mod report;

pub use report::{Sent, attempt_report};

/// A wait before the next attempt, and why: what the client is told.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RetryNotice {
    /// Attempts that reached the API so far.
    pub attempt: u32,
    /// The attempt budget.
    pub max_attempts: u32,
    /// The failure's class name (`overloaded`, `circuit_open`, ...).
    pub class: String,
    /// What went wrong, with the API's own message.
    pub message: String,
    /// How long until the next attempt.
    pub wait_ms: u64,
    /// Text of the failed attempt had already gone out and is now discarded.
    pub discarded_partial: bool,
    /// The model asked next instead (`PROVIDER/MODEL`), when the failing one cannot answer.
    pub fallback_to: Option<String>,
}

/// How one attempt ended.
pub enum Attempt<D, P> {
    /// A cancel (or shutdown) cut it short; what had arrived.
    Cancelled(P),
    /// It succeeded.
    Done(D),
    /// It failed; `partial` says whether some of an answer had reached the client.
    Failed {
        /// The failure, classified.
        failure: Failure,
        /// The provider's error, for the diagnostic record.
        error: Option<ProviderError>,
        /// Something had already reached the client.
        partial: bool,
    },
}

/// One request as the retry loop sees it.
pub trait Exchange {
    /// What a successful attempt yields.
    type Done;
    /// What an attempt cut short by a cancel had received.
    type Partial: Default;

    /// Sends the request once; ends when it completes, fails, `deadline` passes or
    /// `cancel` fires.
    async fn attempt(
        &mut self,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Attempt<Self::Done, Self::Partial>;

    /// Tells the client that another attempt follows after a wait.
    fn retrying(&mut self, notice: RetryNotice);

    /// The diagnostic report of a failed attempt.
    fn report(
        &self,
        attempt: u32,
        failure: &Failure,
        error: Option<&ProviderError>,
        timeline: &[AttemptTrace],
    ) -> Report;
}

/// What the loop works with: the settings the request started with, diagnostics, and the
/// token that cancels it.
pub struct Setup {
    /// The settings in effect when the request started (a reload does not change them).
    pub live: Arc<Live>,
    /// Where failures are written down.
    pub diag: Arc<Diagnostics>,
    /// A client's cancel, or shutdown.
    pub cancel: CancellationToken,
    /// The circuit breaker of the endpoint the request goes to.
    pub breaker: Arc<Breaker>,
    /// Wait for an open breaker's probe (when the request has nowhere else to go), rather
    /// than fail at once.
    pub wait_for_probe: bool,
}

/// How the attempts ended.
pub enum Outcome<D, P> {
    /// An attempt succeeded.
    Completed {
        /// What it yielded.
        done: D,
        /// Attempts it took.
        attempts: u32,
    },
    /// Retrying stopped; `failure` is the last attempt's.
    Failed {
        /// The last failure.
        failure: Failure,
        /// Attempts that reached the API.
        attempts: u32,
        /// Why retrying stopped.
        gave_up: GiveUp,
        /// The diagnostic record of the last failure, if one was written.
        error_id: Option<String>,
    },
    /// A cancel or shutdown cut it short; what the current attempt had received.
    Interrupted(P),
}

/// The failure of an attempt the open breaker refused (nothing was sent).
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

/// The failure of an attempt still running when the request's deadline passed.
pub fn deadline_passed(policy: &RetryPolicy, streaming: bool) -> Failure {
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

/// Classifies a provider's error with the policy's ceiling on server-asked delays.
pub fn failure_of(error: &ProviderError, policy: &RetryPolicy) -> Failure {
    classify(error, policy.max_delay, SystemTime::now())
}

/// How long to wait before asking again while another request's probe is in flight.
const PROBE_IN_FLIGHT_WAIT: Duration = Duration::from_millis(250);

/// What to do when the breaker refuses: wait for its probe (shown to the client like any
/// retry wait) if that falls within the deadline, else give up. Nothing was sent.
async fn wait_for_probe<E: Exchange>(
    exchange: &mut E,
    setup: &Setup,
    refused: Refused,
    started: Instant,
    sent: u32,
) -> bool {
    let retry = &setup.live.config.retry;
    let wait = if refused.retry_in.is_zero() {
        PROBE_IN_FLIGHT_WAIT
    } else {
        refused.retry_in
    };
    if started.elapsed() + wait >= retry.deadline {
        return false;
    }
    exchange.retrying(RetryNotice {
        attempt: sent,
        max_attempts: retry.max_attempts,
        class: FailureClass::CircuitOpen { retry_in: wait }
            .name()
            .to_string(),
        message: circuit_open(&setup.breaker, refused).message,
        wait_ms: wait.as_millis() as u64,
        discarded_partial: false,
        fallback_to: None,
    });
    tokio::select! {
        _ = tokio::time::sleep(wait) => true,
        _ = setup.cancel.cancelled() => false,
    }
}

/// A permit for the next attempt from the circuit breaker; else how the request ends.
/// A request waits for one probe at most (`waited` says it has waited already): while a
/// probe is in flight it asks again shortly, but a breaker that opened again after its
/// wait means the probe failed, and the request fails at once.
async fn admit<E: Exchange>(
    exchange: &mut E,
    setup: &Setup,
    started: Instant,
    sent: u32,
    waited: &mut bool,
) -> Result<Permit, Outcome<E::Done, E::Partial>> {
    loop {
        let refused = match setup.breaker.admit(Instant::now().into_std()) {
            Ok(permit) => return Ok(permit),
            Err(refused) => refused,
        };
        if setup.cancel.is_cancelled() {
            return Err(Outcome::Interrupted(E::Partial::default()));
        }
        let probe_in_flight = refused.retry_in.is_zero();
        let may_wait = setup.wait_for_probe && (probe_in_flight || !*waited);
        if !may_wait || !wait_for_probe(exchange, setup, refused, started, sent).await {
            return Err(Outcome::Failed {
                failure: circuit_open(&setup.breaker, refused),
                attempts: sent,
                gave_up: GiveUp::NotRetryable,
                error_id: None,
            });
        }
        *waited = true;
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
        started_at: humantime::format_rfc3339_millis(started_at).to_string(),
        duration_ms: started.elapsed().as_millis() as u64,
        status: failure.status,
        class: Some(failure.class.name().to_string()),
        wait_ms: match decision {
            Decision::Retry(wait) => Some(wait.as_millis() as u64),
            Decision::GiveUp(_) => None,
        },
    }
}

/// Writes a failed attempt down (synced) before the client hears of it, healed or not: an
/// error status, a refused or reset connection, a cut or stalled stream. Returns the
/// record's id.
async fn note_failure<E: Exchange>(
    exchange: &E,
    setup: &Setup,
    timeline: &[AttemptTrace],
    failure: &Failure,
    error: Option<&ProviderError>,
) -> Option<String> {
    let attempt = timeline.last().map_or(0, |t| t.attempt);
    let report = exchange.report(attempt, failure, error, timeline);
    setup.diag.record(report, &setup.live.diag).await
}

/// Tells the client (and the log) that an attempt failed and another follows after `wait`.
fn announce_retry<E: Exchange>(
    exchange: &mut E,
    setup: &Setup,
    attempt: u32,
    failure: Failure,
    wait: Duration,
    partial: bool,
) {
    let max_attempts = setup.live.config.retry.max_attempts;
    tracing::warn!(
        attempt,
        max = max_attempts,
        class = failure.class.name(),
        wait_ms = wait.as_millis() as u64,
        "attempt failed, retrying: {}",
        failure.message
    );
    exchange.retrying(RetryNotice {
        attempt,
        max_attempts,
        class: failure.class.name().to_string(),
        message: failure.message,
        wait_ms: wait.as_millis() as u64,
        discarded_partial: partial,
        fallback_to: None,
    });
}

/// Runs attempts until one succeeds, retrying stops, or a cancel. An attempt the open
/// circuit breaker refuses is not an attempt: nothing reaches the API.
pub async fn run<E: Exchange>(exchange: &mut E, setup: &Setup) -> Outcome<E::Done, E::Partial> {
    let started = Instant::now();
    let retry = &setup.live.config.retry;
    let deadline = started + retry.deadline;
    let mut attempt = 0;
    let mut timeline: Vec<AttemptTrace> = Vec::new();
    let mut waited_for_probe = false;
    loop {
        let permit = match admit(exchange, setup, started, attempt, &mut waited_for_probe).await {
            Ok(permit) => permit,
            Err(outcome) => return outcome,
        };
        attempt += 1;
        let (attempt_started, started_at) = (Instant::now(), SystemTime::now());
        let (failure, error, partial) = match exchange.attempt(deadline, &setup.cancel).await {
            Attempt::Cancelled(partial) => return Outcome::Interrupted(partial),
            Attempt::Done(done) => {
                permit.succeeded();
                return Outcome::Completed {
                    done,
                    attempts: attempt,
                };
            }
            Attempt::Failed {
                failure,
                error,
                partial,
            } => (failure, error, partial),
        };
        let decision = match retry.decide(attempt, &failure, started.elapsed(), fastrand::f64()) {
            // The probe failed: the breaker is open again, and waiting for the next probe
            // would keep the client in silence for another cool-down.
            Decision::Retry(_) if permit.is_probe() && failure.class.is_transient() => {
                Decision::GiveUp(GiveUp::ProbeFailed)
            }
            decision => decision,
        };
        if failure.class.is_transient() {
            permit.failed(Instant::now().into_std());
        } else {
            permit.succeeded();
        }
        timeline.push(trace(
            attempt,
            started_at,
            attempt_started,
            &failure,
            &decision,
        ));
        let error_id = note_failure(exchange, setup, &timeline, &failure, error.as_ref()).await;
        let wait = match decision {
            Decision::GiveUp(gave_up) => {
                return Outcome::Failed {
                    failure,
                    attempts: attempt,
                    gave_up,
                    error_id,
                };
            }
            Decision::Retry(wait) => wait,
        };
        announce_retry(exchange, setup, attempt, failure, wait, partial);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = setup.cancel.cancelled() => return Outcome::Interrupted(E::Partial::default()),
        }
    }
}
