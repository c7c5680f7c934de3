//! A circuit breaker per model endpoint: after a run of failed attempts it opens and sends
//! fail fast; after a cool-down one probe goes through (half-open); its success closes the
//! circuit, its failure opens it again.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
enum State {
    Closed,
    Open { until: Instant },
    HalfOpen { probing: bool },
}

#[derive(Debug)]
struct Inner {
    state: State,
    consecutive_failures: u32,
}

/// The breaker guarding one endpoint.
#[derive(Debug)]
pub struct Breaker {
    endpoint: String,
    threshold: u32,
    cooldown: Duration,
    inner: Mutex<Inner>,
}

/// Where a breaker stands, for `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    /// Requests flow.
    Closed,
    /// Requests fail fast until the cool-down ends.
    Open,
    /// One probe request may go through; its outcome decides.
    HalfOpen,
}

/// One endpoint's breaker as `status` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakerStatus {
    /// The endpoint it guards.
    pub endpoint: String,
    /// Its state.
    pub state: BreakerState,
    /// Failed attempts in a row.
    pub consecutive_failures: u32,
    /// While open: time until a probe is let through.
    pub next_probe_in_ms: Option<u64>,
}

/// A request refused because the circuit is open (or a probe is already out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// How long until a probe may go through.
    pub retry_in: Duration,
    /// Failed attempts in a row so far.
    pub failures: u32,
}

/// Leave to send one request. Report its outcome with [`Permit::succeeded`] or
/// [`Permit::failed`]; dropped unreported (a cancelled request), it frees the probe slot.
#[derive(Debug)]
pub struct Permit {
    breaker: Arc<Breaker>,
    probe: bool,
    reported: bool,
}

impl Breaker {
    /// A closed breaker that opens after `threshold` failed attempts in a row and stays
    /// open for `cooldown`.
    pub fn new(endpoint: impl Into<String>, threshold: u32, cooldown: Duration) -> Arc<Self> {
        Arc::new(Self {
            endpoint: endpoint.into(),
            threshold: threshold.max(1),
            cooldown,
            inner: Mutex::new(Inner {
                state: State::Closed,
                consecutive_failures: 0,
            }),
        })
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The endpoint it guards.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Asks to send a request now.
    pub fn admit(self: &Arc<Self>, now: Instant) -> Result<Permit, Refused> {
        let mut inner = self.inner();
        let probe = match inner.state {
            State::Closed => false,
            State::Open { until } if now >= until => {
                inner.state = State::HalfOpen { probing: true };
                true
            }
            State::Open { until } => {
                return Err(Refused {
                    retry_in: until - now,
                    failures: inner.consecutive_failures,
                });
            }
            State::HalfOpen { probing: true } => {
                return Err(Refused {
                    retry_in: Duration::ZERO,
                    failures: inner.consecutive_failures,
                });
            }
            State::HalfOpen { probing: false } => {
                inner.state = State::HalfOpen { probing: true };
                true
            }
        };
        Ok(Permit {
            breaker: self.clone(),
            probe,
            reported: false,
        })
    }

    /// State, failure count and time to the next probe, for `omnictl status`.
    pub fn status(&self, now: Instant) -> BreakerStatus {
        let inner = self.inner();
        let (state, next_probe_in_ms) = match inner.state {
            State::Closed => (BreakerState::Closed, None),
            State::Open { until } => (
                BreakerState::Open,
                Some(until.saturating_duration_since(now).as_millis() as u64),
            ),
            State::HalfOpen { .. } => (BreakerState::HalfOpen, Some(0)),
        };
        BreakerStatus {
            endpoint: self.endpoint.clone(),
            state,
            consecutive_failures: inner.consecutive_failures,
            next_probe_in_ms,
        }
    }
}

impl Permit {
    /// Whether this request is the half-open breaker's probe: its outcome decides whether
    /// the circuit closes.
    pub fn is_probe(&self) -> bool {
        self.probe
    }

    /// The request succeeded (or failed in a way that proves the endpoint is up).
    pub fn succeeded(mut self) {
        self.reported = true;
        let mut inner = self.breaker.inner();
        inner.consecutive_failures = 0;
        inner.state = State::Closed;
    }

    /// The request failed in a way that says the endpoint is unhealthy.
    pub fn failed(mut self, now: Instant) {
        self.reported = true;
        let breaker = self.breaker.clone();
        let mut inner = breaker.inner();
        inner.consecutive_failures = inner.consecutive_failures.saturating_add(1);
        if self.probe || inner.consecutive_failures >= breaker.threshold {
            inner.state = State::Open {
                until: now + breaker.cooldown,
            };
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.probe && !self.reported {
            let mut inner = self.breaker.inner();
            if let State::HalfOpen { .. } = inner.state {
                inner.state = State::HalfOpen { probing: false };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COOL: Duration = Duration::from_secs(10);

    #[test]
    fn opens_after_a_run_of_failures_then_fails_fast() {
        let breaker = Breaker::new("e", 3, COOL);
        let t0 = Instant::now();
        for _ in 0..3 {
            breaker.admit(t0).unwrap().failed(t0);
        }
        let refused = breaker.admit(t0 + Duration::from_secs(4)).unwrap_err();
        assert_eq!(refused.retry_in, Duration::from_secs(6));
        assert_eq!(refused.failures, 3);
        assert_eq!(breaker.status(t0).state, BreakerState::Open);
        assert_eq!(breaker.status(t0).next_probe_in_ms, Some(10_000));
    }

    #[test]
    fn a_success_in_between_resets_the_run() {
        let breaker = Breaker::new("e", 2, COOL);
        let t0 = Instant::now();
        breaker.admit(t0).unwrap().failed(t0);
        breaker.admit(t0).unwrap().succeeded();
        breaker.admit(t0).unwrap().failed(t0);
        assert!(
            breaker.admit(t0).is_ok(),
            "one failure after a success does not open it"
        );
    }

    #[test]
    fn half_open_lets_one_probe_through_and_its_outcome_decides() {
        let breaker = Breaker::new("e", 1, COOL);
        let t0 = Instant::now();
        breaker.admit(t0).unwrap().failed(t0);
        let later = t0 + COOL;
        let probe = breaker.admit(later).unwrap();
        assert_eq!(breaker.status(later).state, BreakerState::HalfOpen);
        assert!(breaker.admit(later).is_err(), "only one probe at a time");
        probe.failed(later);
        assert!(
            breaker.admit(later).is_err(),
            "a failed probe opens it again"
        );

        let much_later = later + COOL;
        breaker.admit(much_later).unwrap().succeeded();
        assert_eq!(breaker.status(much_later).state, BreakerState::Closed);
        assert_eq!(breaker.status(much_later).consecutive_failures, 0);
    }

    #[test]
    fn an_abandoned_probe_frees_the_slot() {
        let breaker = Breaker::new("e", 1, COOL);
        let t0 = Instant::now();
        breaker.admit(t0).unwrap().failed(t0);
        drop(breaker.admit(t0 + COOL).unwrap());
        assert!(breaker.admit(t0 + COOL).is_ok());
    }
}
