//! The daemon's shared state, handed to every connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::resilience::BreakerState;
use std::time::Instant;

use crate::config::Config;
use crate::live::Swap;
use crate::server::frames::Budget;
use crate::server::throttle::Throttle;
use crate::session::registry::Registry;
use crate::store::Store;

/// Everything a request handler may need.
pub struct Daemon {
    /// The configuration in effect: the last one applied (at start or by SIGHUP), with
    /// what only a restart can change kept as the daemon started (see `reload.rs`).
    pub config: Swap<Config>,
    /// The store.
    pub store: Arc<Store>,
    /// The sessions and their actors.
    pub sessions: Registry,
    /// When the daemon started.
    pub started: Instant,
    /// Open client connections.
    pub connections: AtomicU32,
    /// Prompts being answered now (shared with the actors).
    pub sends_in_flight: Arc<AtomicU32>,
    /// Successful configuration reloads (SIGHUP).
    pub reloads: AtomicU64,
    /// Rejected configuration reloads.
    pub reload_failures: AtomicU64,
    /// Memory all connections together may hold in partly received frames.
    pub frame_budget: Arc<Budget>,
    /// Keeps warnings about misbehaving clients from flooding the log.
    pub warnings: Throttle,
}

impl Daemon {
    /// One line for systemd's `STATUS=`: sessions, sends in flight, the breaker.
    pub fn one_line_status(&self) -> String {
        let breaker = self
            .sessions
            .context()
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
            self.store.session_count(),
            self.sends_in_flight.load(Ordering::Relaxed),
        )
    }
}
