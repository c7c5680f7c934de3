//! What every connection and request handler works with: the daemon's shared services
//! and its sessions.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::api::throttle::Throttle;
use crate::resilience::BreakerState;
use crate::services::Services;
use crate::session::registry::Registry;

/// The one value handed to every handler, built once at start.
pub struct Daemon {
    /// The store, diagnostics, the settings in effect, the lifecycle and the counters.
    pub services: Arc<Services>,
    /// The sessions and their actors.
    pub sessions: Registry,
    /// Keeps warnings about misbehaving clients from flooding the log.
    pub warnings: Throttle,
}

impl Daemon {
    /// One line for systemd's `STATUS=`: sessions, sends in flight, the breaker.
    pub fn one_line_status(&self) -> String {
        let services = &self.services;
        let breaker = services
            .live
            .get()
            .breaker
            .status(std::time::Instant::now());
        let breaker = match breaker.state {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half-open",
        };
        format!(
            "{} sessions, {} sends in flight, breaker {breaker}",
            services.store.session_count(),
            services.counters.sends_in_flight.load(Ordering::Relaxed),
        )
    }
}
