//! The retry policy: which failures are retried, and how long to wait before the next
//! attempt. Pure arithmetic (the jitter is passed in), so every rule is unit-tested; the
//! loop that applies it lives with the send path.

use std::time::Duration;

use super::classify::Failure;
use crate::provider::Phase;

/// One attempt budget and one overall deadline per send, shared by all its attempts.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// The first backoff step; it doubles with each retry.
    pub initial_delay: Duration,
    /// No wait is longer (and a server asking for longer means its quota is exhausted).
    pub max_delay: Duration,
    /// All attempts and waits of one send together.
    pub deadline: Duration,
    /// Retry streams that broke after they started (the partial answer is discarded).
    pub retry_stream_errors: bool,
}

/// Why a send stops retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUp {
    /// This kind of failure does not heal by retrying.
    NotRetryable,
    /// Every attempt of the budget was used.
    BudgetSpent,
    /// The next attempt could not start before the deadline.
    DeadlineWouldPass,
    /// The circuit breaker's probe failed: the endpoint is still down and the breaker open
    /// again, so another attempt would only wait for the next probe.
    ProbeFailed,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Wait this long, then try again.
    Retry(Duration),
    /// Stop and report the failure.
    GiveUp(GiveUp),
}

/// The decision table: which failures may heal by retrying.
///
/// Transient classes (see [`FailureClass::is_transient`]) are retried: always before any
/// response byte, and once a stream started only if the user allows it. Everything else
/// (cancelled, exhausted quota, bad request, auth, unknown model, blocked, open circuit)
/// never is.
pub fn is_retryable(failure: &Failure, retry_stream_errors: bool) -> bool {
    failure.class.is_transient() && (failure.phase == Phase::Connect || retry_stream_errors)
}

impl RetryPolicy {
    /// Exponential backoff with equal jitter: half the step is fixed, half is random
    /// (`jitter` in `[0, 1)`), so waits spread out but never collapse to zero.
    pub fn backoff(&self, failed_attempt: u32, jitter: f64) -> Duration {
        let exponent = failed_attempt.saturating_sub(1).min(30);
        let step = self
            .initial_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        step.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }

    /// Decides after attempt number `failed_attempt` (from 1) failed, `elapsed` into the
    /// send. The server's requested delay is the minimum wait; `max_delay` caps it.
    pub fn decide(
        &self,
        failed_attempt: u32,
        failure: &Failure,
        elapsed: Duration,
        jitter: f64,
    ) -> Decision {
        if !is_retryable(failure, self.retry_stream_errors) {
            return Decision::GiveUp(GiveUp::NotRetryable);
        }
        if failed_attempt >= self.max_attempts {
            return Decision::GiveUp(GiveUp::BudgetSpent);
        }
        let backoff = self.backoff(failed_attempt, jitter);
        let wait = failure
            .class
            .server_delay()
            .map_or(backoff, |server| server.max(backoff))
            .min(self.max_delay);
        if elapsed + wait >= self.deadline {
            return Decision::GiveUp(GiveUp::DeadlineWouldPass);
        }
        Decision::Retry(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resilience::classify::{FailureClass, NetworkCause};

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 5,
            initial_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
            deadline: Duration::from_secs(30),
            retry_stream_errors: true,
        }
    }

    fn failure(class: FailureClass, phase: Phase) -> Failure {
        Failure {
            class,
            phase,
            status: None,
            message: String::new(),
        }
    }

    #[test]
    fn the_decision_table() {
        let p = policy();
        let decide = |class, phase| p.decide(1, &failure(class, phase), Duration::ZERO, 0.0);
        let retried = |d: Decision| matches!(d, Decision::Retry(_));
        assert!(retried(decide(
            FailureClass::Network(NetworkCause::Reset),
            Phase::Connect
        )));
        assert!(retried(decide(FailureClass::Timeout, Phase::Connect)));
        assert!(retried(decide(
            FailureClass::RateLimited { server_delay: None },
            Phase::Connect
        )));
        assert!(retried(decide(
            FailureClass::Overloaded { server_delay: None },
            Phase::Connect
        )));
        assert!(retried(decide(
            FailureClass::ServerError { server_delay: None },
            Phase::Connect
        )));
        assert!(retried(decide(FailureClass::InvalidStream, Phase::Stream)));
        let never = Decision::GiveUp(GiveUp::NotRetryable);
        assert_eq!(decide(FailureClass::Cancelled, Phase::Stream), never);
        assert_eq!(
            decide(
                FailureClass::QuotaExhausted { resets_in: None },
                Phase::Connect
            ),
            never
        );
        let bad = FailureClass::BadRequest {
            mismatched_function_parts: false,
        };
        assert_eq!(decide(bad, Phase::Connect), never);
        assert_eq!(decide(FailureClass::Auth, Phase::Connect), never);
        assert_eq!(decide(FailureClass::ModelNotFound, Phase::Connect), never);
        assert_eq!(decide(FailureClass::Blocked, Phase::Connect), never);
    }

    #[test]
    fn stream_errors_are_retried_only_when_allowed() {
        let mut p = policy();
        p.retry_stream_errors = false;
        let cut = failure(
            FailureClass::Network(NetworkCause::UnexpectedEof),
            Phase::Stream,
        );
        assert_eq!(
            p.decide(1, &cut, Duration::ZERO, 0.0),
            Decision::GiveUp(GiveUp::NotRetryable)
        );
        let refused = failure(FailureClass::Network(NetworkCause::Refused), Phase::Connect);
        assert!(matches!(
            p.decide(1, &refused, Duration::ZERO, 0.0),
            Decision::Retry(_)
        ));
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let p = policy();
        assert_eq!(p.backoff(1, 0.0), Duration::from_millis(50));
        assert_eq!(p.backoff(1, 1.0), Duration::from_millis(100));
        assert_eq!(p.backoff(2, 1.0), Duration::from_millis(200));
        assert_eq!(p.backoff(3, 0.5), Duration::from_millis(300));
        assert_eq!(
            p.backoff(10, 1.0),
            Duration::from_secs(2),
            "capped at max_delay"
        );
        assert_eq!(
            p.backoff(u32::MAX, 1.0),
            Duration::from_secs(2),
            "no overflow"
        );
    }

    #[test]
    fn the_servers_delay_is_the_minimum_wait_and_the_cap_still_holds() {
        let p = policy();
        let asked = |secs| {
            failure(
                FailureClass::RateLimited {
                    server_delay: Some(Duration::from_millis(secs)),
                },
                Phase::Connect,
            )
        };
        assert_eq!(
            p.decide(1, &asked(1000), Duration::ZERO, 0.0),
            Decision::Retry(Duration::from_secs(1))
        );
        assert_eq!(
            p.decide(1, &asked(10), Duration::ZERO, 1.0),
            Decision::Retry(Duration::from_millis(100))
        );
        assert_eq!(
            p.decide(1, &asked(9000), Duration::ZERO, 0.0),
            Decision::Retry(Duration::from_secs(2))
        );
    }

    #[test]
    fn the_budget_and_the_deadline_end_retrying() {
        let p = policy();
        let overloaded = failure(
            FailureClass::Overloaded { server_delay: None },
            Phase::Connect,
        );
        assert!(matches!(
            p.decide(4, &overloaded, Duration::ZERO, 0.0),
            Decision::Retry(_)
        ));
        assert_eq!(
            p.decide(5, &overloaded, Duration::ZERO, 0.0),
            Decision::GiveUp(GiveUp::BudgetSpent)
        );
        assert_eq!(
            p.decide(1, &overloaded, Duration::from_millis(29_960), 0.0),
            Decision::GiveUp(GiveUp::DeadlineWouldPass)
        );
    }
}
