//! What every connection and request handler works with: the daemon's shared services
//! and its sessions.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::api::throttle::Throttle;
use crate::api::uploads::Uploads;
use crate::api::web_keys::WebKeys;
use crate::resilience::BreakerState;
use crate::search::SearchIndex;
use crate::services::Services;
use crate::session::measured::Measured;
use crate::session::registry::Registry;

/// The one value handed to every handler, built once at start.
pub struct Daemon {
    /// The store, diagnostics, the settings in effect, the lifecycle and the counters.
    pub services: Arc<Services>,
    /// The sessions and their actors.
    pub sessions: Registry,
    /// The full-text index (none when its indexer could not be started).
    pub search: Option<Arc<SearchIndex>>,
    /// Keeps warnings about misbehaving clients from flooding the log.
    pub warnings: Throttle,
    /// Imports arriving in pieces, and the lock that makes imports one at a time.
    pub uploads: Uploads,
    /// The web app's address and who may use it.
    pub web: WebKeys,
    /// The contexts views measured last, so a view does not walk a session twice.
    pub contexts: Measured,
}

impl Daemon {
    /// One line for systemd's `STATUS=`: sessions, sends in flight, the breakers.
    pub async fn one_line_status(&self) -> String {
        let services = &self.services;
        let statuses = services.live.get().breaker_statuses();
        let open = statuses
            .iter()
            .filter(|b| b.state != BreakerState::Closed)
            .count();
        let breaker = match open {
            0 => "breakers closed".to_string(),
            n => format!("{n} of {} breakers open", statuses.len()),
        };
        format!(
            "{} sessions, {} sends in flight, {breaker}",
            services.store.session_count().await,
            services.counters.sends_in_flight.load(Ordering::Relaxed),
        )
    }
}
